// The checker of the fault tests: what the cluster holds after a deploy with a fault, compared with
// the directory, the state before the deploy and the deploy's own words (issue 20's list).

import { HISTORY } from '../../src/base/labels.js';
import { applySetFor } from '../../src/engine/inventory/applyset.js';
import { decodeObjects } from '../../src/engine/inventory/history.js';
import { kubectl } from '../integration/helpers.js';
import type { DeployResult } from './deploys.js';
import { type ExpectedObject, MARK, type Round } from './workload.js';

/** One object as the cluster holds it. */
export interface LiveObject {
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
  readonly mark: string | undefined;
  readonly partOf: string | undefined;
  /** A Secret's decoded `token`. */
  readonly token: string | undefined;
  readonly groupKind: string;
}

const key = (o: { kind: string; name: string }) => `${o.kind}/${o.name}`;

/** The fields of a listed object that the checker reads. */
interface Item {
  apiVersion: string;
  kind: string;
  type?: string;
  metadata: {
    name: string;
    uid: string;
    resourceVersion: string;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
  };
  data?: Record<string, string>;
}

/** Every object of the kinds the workload uses in `namespace`, and the workload's CRD. */
export async function snapshot(namespace: string, group: string): Promise<Map<string, LiveObject>> {
  const ctx = ['--context', 'spread-local'];
  const resources = `deployments.apps,services,configmaps,secrets,widgets.${group}`;
  const [namespaced, crd] = await Promise.all([
    kubectl([...ctx, '-n', namespace, 'get', resources, '-o', 'json'], { allowFail: true }),
    kubectl([...ctx, 'get', 'crd', `widgets.${group}`, '-o', 'json', '--ignore-not-found'], {
      allowFail: true,
    }),
  ]);
  if (namespaced.code !== 0 && !/the server doesn't have a resource type/.test(namespaced.stderr))
    throw new Error(`kubectl get failed: ${namespaced.stderr}`);
  // Without the CRD, kubectl lists the other kinds and fails on widgets only.
  let items: Item[] = [];
  if (namespaced.code === 0) items = JSON.parse(namespaced.stdout).items;
  else
    items = JSON.parse(
      (
        await kubectl([
          ...ctx,
          '-n',
          namespace,
          'get',
          'deployments.apps,services,configmaps,secrets',
          '-o',
          'json',
        ])
      ).stdout,
    ).items;
  if (crd.stdout.trim()) items.push(JSON.parse(crd.stdout));
  const out = new Map<string, LiveObject>();
  for (const item of items) {
    const apiVersion = String(item.apiVersion);
    const apiGroup = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
    const live: LiveObject = {
      kind: item.kind,
      name: item.metadata.name,
      uid: item.metadata.uid,
      resourceVersion: item.metadata.resourceVersion,
      mark: item.metadata.annotations?.[MARK],
      partOf: item.metadata.labels?.['applyset.kubernetes.io/part-of'],
      token:
        item.kind === 'Secret' && item.data?.token
          ? Buffer.from(item.data.token, 'base64').toString()
          : undefined,
      groupKind: apiGroup ? `${item.kind}.${apiGroup}` : item.kind,
    };
    out.set(key(live), live);
  }
  return out;
}

/** Objects of the directory that the cluster does not hold as the directory says. */
export function differences(round: Round, live: Map<string, LiveObject>): string[] {
  const out: string[] = [];
  for (const o of round.objects) {
    const l = live.get(key(o));
    if (!l) out.push(`${key(o)} missing`);
    else if (l.mark !== o.mark) out.push(`${key(o)} at v${l.mark}, the directory has v${o.mark}`);
    else if (o.secret !== undefined && l.token !== o.secret)
      out.push(`${key(o)}: its value differs from the directory's`);
  }
  return out;
}

/** The per-run verdict. */
export interface Finding {
  /** `succeeded`: exit 0 and the cluster equals the directory; `failed-cleanly`: a non-zero exit that passed every check. */
  outcome: 'succeeded' | 'failed-cleanly' | 'bad';
  /** What the checker found wrong; empty when nothing. */
  problems: string[];
  /** Objects the directory holds (and the cluster held before) that the deploy deleted. */
  lost: number;
  /** True when the Lease was still held after the rerun (or renewed after its holder exited). */
  lockHeld: boolean;
  converged: boolean;
}

/** Context of one check. */
export interface CheckInput {
  readonly namespace: string;
  readonly group: string;
  readonly deployment: string;
  readonly round: Round;
  readonly before: Map<string, LiveObject>;
  readonly result: DeployResult;
  /** What a non-zero exit must name (the fault); undefined: nothing can be printed (SIGKILL, closed stdio). */
  readonly names: RegExp | undefined;
  /** The other deployment's objects and their resourceVersions when the run began. */
  readonly sentinel: Map<string, string>;
  /** Every Secret value any round of this run wrote (none may appear in a log). */
  readonly secrets: readonly string[];
  /** The signal the fault sent when it is one after which the Lease must be released at once. */
  readonly releasesLock?: 'SIGTERM';
}

/** The Lease of a deployment: absent, or its holder and when it was last renewed. */
export async function readLease(
  namespace: string,
  deployment: string,
): Promise<{ holder?: string; renewMs: number; durationS: number } | undefined> {
  const r = await kubectl(
    ['--context', 'spread-local', '-n', namespace, 'get', 'lease', `spread.${deployment}`, '-o', 'json'],
    { allowFail: true },
  );
  if (r.code !== 0) {
    if (/NotFound|not found/.test(r.stderr)) return undefined;
    throw new Error(`reading the Lease: ${r.stderr}`);
  }
  const lease = JSON.parse(r.stdout);
  return {
    holder: lease.spec.holderIdentity || undefined,
    renewMs: Date.parse(lease.spec.renewTime ?? lease.spec.acquireTime ?? ''),
    durationS: lease.spec.leaseDurationSeconds ?? 0,
  };
}

/** The ApplySet parent and revision records: the current revision exists and its objects are the directory's. */
export async function historyProblems(
  namespace: string,
  deployment: string,
  live: Map<string, LiveObject>,
  expected: Round | undefined,
): Promise<string[]> {
  const set = applySetFor(deployment, namespace);
  const problems: string[] = [];
  const secrets = await kubectl([
    '--context',
    'spread-local',
    '-n',
    namespace,
    'get',
    'secrets',
    '-o',
    'json',
  ]);
  const items: Item[] = JSON.parse(secrets.stdout).items;
  const parent = items.find((s) => s.metadata.name === set.parentName);
  if (!parent) return [`the ApplySet parent secret/${set.parentName} is missing`];
  const kinds = new Set(
    String(parent.metadata.annotations?.['applyset.kubernetes.io/contains-group-kinds'] ?? '')
      .split(',')
      .filter(Boolean),
  );
  for (const l of live.values())
    if (l.partOf === set.id && !kinds.has(l.groupKind))
      problems.push(
        `${l.kind}/${l.name} is labelled part of the ApplySet, whose parent does not list ${l.groupKind}`,
      );
  const revisions = items.filter(
    (s) => s.type === HISTORY.type && s.metadata.labels?.[HISTORY.applySet] === set.id,
  );
  const current = Number(parent.metadata.annotations?.[HISTORY.revision] ?? 0);
  const numbers = revisions.map((s) => Number(s.metadata.labels?.[HISTORY.revision]));
  if (current > 0 && !numbers.includes(current))
    problems.push(
      `the parent names revision ${current}, which has no revision Secret (has: ${numbers.join(', ')})`,
    );
  if (numbers.some((n) => n > current))
    problems.push(`a revision above the parent's current one (${current}) exists: ${numbers.join(', ')}`);
  if (expected !== undefined) {
    const record = revisions.find((s) => Number(s.metadata.labels?.[HISTORY.revision]) === current);
    if (record) {
      const objects = decodeObjects(record.data?.objects ?? '');
      if (objects.length !== expected.objects.length)
        problems.push(
          `revision ${current} records ${objects.length} objects, the directory has ${expected.objects.length}`,
        );
      // The current revision holds what the cluster now holds: the directory's marks, not an older round's.
      const marks = new Map(
        objects.map((o) => [`${o.kind}/${o.metadata.name}`, o.metadata.annotations?.[MARK]]),
      );
      const stale = expected.objects.filter((o) => marks.has(key(o)) && marks.get(key(o)) !== o.mark);
      if (stale.length > 0)
        problems.push(
          `revision ${current} records ${stale.length} object(s) as an earlier round had them, e.g. ${key(stale[0]!)} at v${marks.get(key(stale[0]!))}, the directory has v${stale[0]!.mark}`,
        );
    }
  }
  return problems;
}

/** Secret values (or their base64) found in a log. */
export function leakedSecrets(output: string, secrets: readonly string[]): string[] {
  return secrets.filter((s) => output.includes(s) || output.includes(Buffer.from(s).toString('base64')));
}

/** Objects of the run's other deployment whose resourceVersion changed (or that vanished). */
export function touchedSentinel(before: Map<string, string>, live: Map<string, LiveObject>): string[] {
  return [...before].filter(([k, rv]) => live.get(k)?.resourceVersion !== rv).map(([k]) => k);
}

/** The checks of the faulted deploy itself (the rerun is checked by the caller). */
export async function checkFaulted(
  input: CheckInput,
): Promise<{ finding: Finding; after: Map<string, LiveObject> }> {
  const { result, round, before } = input;
  const problems: string[] = [];
  const after = await snapshot(input.namespace, input.group);
  const diff = differences(round, after);
  // Lost: an object the directory holds, which existed before, is gone or was re-created.
  const lostList = round.objects.filter((o: ExpectedObject) => {
    const b = before.get(key(o));
    const a = after.get(key(o));
    return b && (!a || a.uid !== b.uid);
  });
  if (lostList.length > 0) problems.push(`objects of the directory deleted: ${lostList.map(key).join(', ')}`);
  const ok = result.code === 0;
  if (ok && diff.length > 0)
    problems.push(
      `exit 0 but the cluster differs from the directory: ${diff.slice(0, 5).join('; ')}${diff.length > 5 ? ` … (${diff.length})` : ''}`,
    );
  // Ended by the signal itself before it printed a line: Node was still starting, before spread's
  // handlers were on, so it could neither apply nor print anything. What is checked then is that it
  // applied nothing; the message checks below would ask for words it had no chance to write.
  const unstarted = result.code === null && result.signal !== null && result.output.trim() === '';
  if (unstarted) {
    // By the round's mark and uid, not resourceVersion: controllers keep writing status.
    const changed = [...after].filter(([k, a]) => {
      const b = before.get(k);
      return !b || b.uid !== a.uid || b.mark !== a.mark;
    });
    if (changed.length > 0)
      problems.push(
        `ended by ${result.signal} before printing anything, yet objects changed: ${changed
          .slice(0, 5)
          .map(([k]) => k)
          .join(', ')}`,
      );
  }
  if (!ok && !unstarted) {
    // In the error lines, not the whole log: a deploy's own lines (`pushed …`, a build step) would match.
    if (input.names && !input.names.test(errorLines(result.output)))
      problems.push(`the failure does not name the fault (${input.names}): ${errorLines(result.output)}`);
    // A signal that came after the last write (during the prune or the recording) ends a deploy that
    // completed: its report, not an error, says what was applied.
    const completed = diff.length === 0 && /revision \d+ recorded/.test(result.output);
    if (
      input.names &&
      !completed &&
      !/\bapplied\b|nothing was (written|deployed|applied)|not applied/.test(result.output)
    )
      problems.push(
        `the failure does not say what was applied and what was not: ${errorLines(result.output)}`,
      );
    // No prune after a failed apply: while an object of the round is not applied, what the previous
    // round deployed and this one dropped is still there (whatever the process could print).
    if (diff.length > 0) {
      const pruned = round.dropped.filter((o) => before.has(key(o)) && !after.has(key(o)));
      if (pruned.length > 0) problems.push(`pruned after a failed apply: ${pruned.map(key).join(', ')}`);
    }
  }
  const touched = touchedSentinel(input.sentinel, after);
  if (touched.length > 0) problems.push(`objects of another deployment touched: ${touched.join(', ')}`);
  const leaked = leakedSecrets(result.output, input.secrets);
  if (leaked.length > 0) problems.push(`${leaked.length} Secret value(s) in the log`);
  let lockHeld = false;
  const lease = await readLease(input.namespace, input.deployment);
  if (lease?.holder && lease.renewMs > result.endedAt + 1500) {
    lockHeld = true;
    problems.push(`the Lease was renewed after its holder exited (by ${lease.holder})`);
  }
  // SIGTERM and Ctrl-C release the lock at once (docs/operations.md): not left to expire.
  if (input.releasesLock && !ok && !unstarted && lease?.holder) {
    lockHeld = true;
    problems.push(
      `the Lease is still held by ${lease.holder} right after the deploy ended on ${input.releasesLock}`,
    );
  }
  return {
    finding: {
      outcome: problems.length > 0 ? 'bad' : ok ? 'succeeded' : 'failed-cleanly',
      problems,
      lost: lostList.length,
      lockHeld,
      converged: false,
    },
    after,
  };
}

/** The error lines of a log (the last ones when none says error), for a finding. */
export function errorLines(output: string): string {
  const lines = output.split('\n').filter((l) => /error/i.test(l) && !/^\s*"/.test(l));
  return lines.length > 0 ? lines.slice(-10).join('\n') : tail(output);
}

/** The last lines of a log, for a finding. */
export function tail(output: string, lines = 8): string {
  return output.trim().split('\n').slice(-lines).join('\n');
}
