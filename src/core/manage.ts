// The operations on deployments already in a cluster (history, rollback, list) and the session and lock
// they share: what `spread history`, `rollback` and `list` run, without the directory.
import { formatGroupKind, formatObjectRef, groupKindOf, type KubeObject } from '../base/kube-object.js';
import { APPLYSET, HISTORY, revisionSecretName, SPREAD } from '../base/labels.js';
import type { Logger } from '../base/logger.js';
import { KubeApiError } from '../cluster/client.js';
import { Discovery } from '../cluster/discovery.js';
import {
  type ApplySet,
  applySetFor,
  findPruneCandidates,
  type PruneCandidate,
  parentState,
  readParent,
} from '../engine/inventory/applyset.js';
import {
  currentRevision,
  lastGoodRevision,
  listRevisions,
  type RevisionSummary,
  readRevision,
  recordRollback,
  revisionOfParent,
} from '../engine/inventory/history.js';
import { acquireLock, type DeployLock, type LockOptions, leaseName } from '../engine/inventory/lock.js';
import type { ClusterPort } from '../engine/kube-api.js';
import { fingerprintsDigest } from '../engine/plan/fingerprint.js';
import { FIELD_MANAGER } from '../engine/shared/options.js';
import { isWaited, rolloutState } from '../engine/status/registry.js';
import type { DeployReport } from '../report/report.js';
import { rolloutRef } from './converge.js';
import { DeployError, failureDescription } from './deploy/index.js';
import { rollbackTo } from './rollback.js';

/** The cluster a Manager operation works on, connected by the front end (src/frontend/manage.ts). */
export interface ManageCluster {
  readonly api: ClusterPort;
  /** The kubeconfig context's name, for reports and messages. */
  readonly context: string;
  /** The context's namespace: the deployment's unless `namespace` is given. */
  readonly namespace: string;
}

/** What every Manager operation takes: the cluster and where to log. */
export interface ManageOptions {
  readonly cluster: ManageCluster;
  /** The deployment's namespace; the context's namespace when absent. For {@link list}: all namespaces when absent. */
  readonly namespace?: string;
  readonly logger: Logger;
  readonly signal?: AbortSignal;
}

/** Options of the operations that write: the deploy lock's. */
export interface ManageWriteOptions extends ManageOptions {
  /** Lock holder identity (the CI run URL); `<hostname>/<pid>` by default. */
  readonly holder?: string;
  /** How long to wait for another deploy of the same deployment, in milliseconds. Default 300 000. */
  readonly lockTimeoutMs?: number;
  /** The lock's other settings (tests shorten them). */
  readonly lock?: Omit<LockOptions, 'holder' | 'lockTimeoutMs' | 'signal'>;
}

/** A deployment's revisions (`spread history`). */
export interface HistoryReport {
  readonly deployment: string;
  readonly namespace: string;
  readonly context: string;
  /** The revision the ApplySet parent names as deployed now. */
  readonly current?: number;
  /** Newest first. */
  readonly revisions: readonly RevisionSummary[];
}

/** A deployment that no revision or parent is known for. */
export class NotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotFoundError';
  }
}

interface Session {
  readonly client: ClusterPort;
  readonly context: string;
  readonly namespace: string;
}

/** Runs `fn` on the given cluster, in the deployment's namespace (`namespace`, else the context's). */
export async function withClient<T>(options: ManageOptions, fn: (s: Session) => Promise<T>): Promise<T> {
  const { api, context, namespace } = options.cluster;
  return fn({ client: api, context, namespace: options.namespace || namespace });
}

/**
 * The revisions of deployment `name` (newest first) and the current one (the parent's
 * `spread.rsprd.com/revision`).
 *
 * @throws NotFoundError when the deployment has neither a parent nor a revision in the namespace.
 */
export async function history(name: string, options: ManageOptions): Promise<HistoryReport> {
  return withClient(options, async ({ client, context, namespace }) => {
    const set = applySetFor(name, namespace);
    const [revisions, parent] = await Promise.all([listRevisions(client, set), readParent(client, set)]);
    if (!parent.exists && revisions.length === 0)
      throw new NotFoundError(`no deployment ${name} in namespace ${namespace} (context ${context})`);
    const current = await currentRevision(client, set);
    return { deployment: name, namespace, context, ...(current !== undefined ? { current } : {}), revisions };
  });
}

/** Options of {@link rollback}. */
export interface RollbackOptions extends ManageWriteOptions {
  /** Wait for the rollout after applying. Default true. */
  readonly wait?: boolean;
  /** Limit of the rollout wait, in milliseconds. Default 300 000. */
  readonly timeoutMs?: number;
  readonly forceConflicts?: boolean;
  /** Requests in flight at once within one apply group. Default 8. */
  readonly concurrency?: number;
  /** Revisions kept. Default 10. */
  readonly keep?: number;
  /** Recorded in the new revision. */
  readonly runUrl?: string;
  /** Record a revision when the rollback wrote nothing. Default true (as Helm); drift's heal: false. */
  readonly recordUnchanged?: boolean;
}

/** What a rollback did: a deploy report, plus the revision rolled back to and the new revision recorded. */
export interface RollbackReport extends DeployReport {
  /** The revision whose objects were applied again. */
  readonly rolledBackTo: number;
  /** The revision it recorded (`rollback to N`, as Helm); absent: it wrote nothing and recordUnchanged false. */
  readonly revision?: number;
}

/**
 * Rolls deployment `name` back to `revision` (default: the newest revision before the current
 * one that did not fail): under the deploy lock, its stored objects go through the same path as a deploy — server-side
 * dry run of every object, parent listing the union, server-side apply in apply order, prune of
 * whatever the revision does not hold, parent listing exactly the revision's kinds — then the
 * rollout is waited for and a new revision `rollback to N` is recorded.
 *
 * @throws NotFoundError when the revision does not exist; LockTimeoutError; ApplyError (nothing
 *   written when the dry run fails); DeployError wrapping a RolloutError (the rollback is then
 *   recorded as a failed revision).
 */
export async function rollback(
  name: string,
  revision: number | undefined,
  options: RollbackOptions,
): Promise<RollbackReport> {
  const started = Date.now();
  const { logger } = options;
  return withClient(options, async ({ client, context, namespace }) => {
    // The parent keeps recording where the deployment comes from: a rollback rewrites it.
    const { origin } = await readParent(client, applySetFor(name, namespace));
    const set = applySetFor(name, namespace, origin);
    const lock = await lockFor(client, set, options);
    try {
      const target = revision ?? (await previousRevision(client, set, logger));
      const stored = await readRevision(client, set, target);
      if (!stored) throw new NotFoundError(`deployment ${name} in ${namespace} has no revision ${target}`);
      logger.info(
        `rolling ${name} in ${namespace} back to revision ${target} (${stored.time}, ${stored.objectCount} objects)`,
      );
      const discovery = await Discovery.load(client);
      const back = await rollbackTo({
        client,
        discovery,
        set,
        stored,
        target,
        apply: {
          fieldManager: FIELD_MANAGER,
          forceConflicts: options.forceConflicts ?? false,
          concurrency: options.concurrency ?? 8,
          ownership: { applySetId: set.id, foreign: 'refuse' },
          ...(options.signal ? { signal: options.signal } : {}),
        },
        ...((options.wait ?? true) ? { wait: { timeoutMs: options.timeoutMs ?? 300_000 } } : {}),
        logger,
        lock,
        ...(options.runUrl ? { runUrl: options.runUrl } : {}),
        keep: options.keep ?? 10,
        describeFailure: failureDescription,
      });
      const base = {
        deployment: name,
        namespace,
        context,
        mode: 'deploy' as const,
        objects: [...back.objects],
      };
      if (back.failure)
        throw new DeployError(back.failure.error, {
          ...base,
          ...(back.failure.revision !== undefined ? { revision: back.failure.revision } : {}),
          rollout: back.rollout.map(rolloutRef),
          durationMs: Date.now() - started,
        });
      const done = { ...base, rollout: back.rollout.map(rolloutRef), rolledBackTo: target };
      if (
        options.recordUnchanged === false &&
        back.objects.every((o) => /^(unchanged|kept)$/.test(o.action))
      ) {
        logger.info(`revision ${target} changed nothing in the cluster: no revision recorded`);
        return { ...done, durationMs: Date.now() - started };
      }
      const recorded = await recordRollback(client, set, stored, target, {
        ...(options.runUrl ? { runUrl: options.runUrl } : {}),
        keep: options.keep ?? 10,
      });
      return { ...done, durationMs: Date.now() - started, revision: recorded.revision };
    } finally {
      await lock.release();
    }
  });
}

/** One deployment as {@link list} shows it. */
export interface DeploymentSummary {
  readonly name: string;
  readonly namespace: string;
  /** The current revision; absent before the first recorded deploy. */
  readonly revision?: number;
  /** ISO time of the current revision (else the parent's creation). */
  readonly updated: string;
  /** Milliseconds since `updated`. */
  readonly ageMs: number;
  /** Objects labelled part of the deployment's ApplySet now. */
  readonly objects: number;
  /** `ready` (every waited object ready), `progressing`, `failed`, or `unknown` (children unreadable). */
  readonly status: 'ready' | 'progressing' | 'failed' | 'unknown';
  /** Why it is not ready: the first object not ready and its state. */
  readonly message?: string;
  /** `applyset.kubernetes.io/tooling`, e.g. `spread/v0.1.0`. */
  readonly tooling: string;
}

/**
 * Every spread deployment in the namespace (all namespaces when `namespace` is absent; the
 * context's namespace when listing all is forbidden): ApplySet parents — Secrets labelled
 * `applyset.kubernetes.io/id` whose `applyset.kubernetes.io/tooling` is `spread/*` — with their
 * current revision, age, object count and status (readiness of their workloads as
 * {@link rolloutState} judges it). Sorted by namespace, then name.
 */
export async function list(options: ManageOptions): Promise<DeploymentSummary[]> {
  return withClient(options, async ({ client, namespace: contextNamespace }) => {
    const parents = await listParents(client, options, contextNamespace);
    const ours = parents.filter((p) =>
      (p.metadata.annotations?.[APPLYSET.tooling] ?? '').startsWith('spread/'),
    );
    const discovery = await Discovery.load(client);
    const now = Date.now();
    const out: DeploymentSummary[] = [];
    for (const p of ours) out.push(await summarize(client, discovery, p, now, options));
    return out.sort((x, y) => x.namespace.localeCompare(y.namespace) || x.name.localeCompare(y.name));
  });
}

/**
 * The ApplySet parents in `options.namespace`, or in every namespace; where listing all is
 * forbidden, those of the context's namespace, with a warning.
 */
async function listParents(
  client: ClusterPort,
  options: ManageOptions,
  contextNamespace: string,
): Promise<KubeObject[]> {
  const listIn = async (namespace: string | undefined) =>
    (
      await client.request<{ items?: KubeObject[] }>({
        method: 'GET',
        path: namespace ? `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets` : '/api/v1/secrets',
        query: { labelSelector: APPLYSET.id },
      })
    ).body.items ?? [];
  try {
    return await listIn(options.namespace);
  } catch (error) {
    if (options.namespace || !(error instanceof KubeApiError && error.code === 403)) throw error;
    options.logger.warn(`cannot list Secrets in all namespaces; listing namespace ${contextNamespace} only`);
    return listIn(contextNamespace);
  }
}

/** One deployment's line of {@link list}, from its ApplySet parent `p`. */
async function summarize(
  client: ClusterPort,
  discovery: Discovery,
  p: KubeObject,
  now: number,
  options: ManageOptions,
): Promise<DeploymentSummary> {
  const a = p.metadata.annotations ?? {};
  const namespace = p.metadata.namespace ?? '';
  const name = a[SPREAD.deployment] ?? (p.metadata.name ?? '').replace(/^spread\./, '');
  const set = applySetFor(name, namespace);
  const revision = a[HISTORY.revision] ? Number(a[HISTORY.revision]) : undefined;
  let updated = String(p.metadata.creationTimestamp ?? '');
  if (revision !== undefined) {
    const secret = await client.getOrUndefined<KubeObject>(
      `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(revisionSecretName(name, revision))}`,
    );
    updated = secret?.metadata.annotations?.[HISTORY.time] ?? updated;
  }
  let health: Pick<DeploymentSummary, 'objects' | 'status' | 'message'>;
  try {
    const children = await findPruneCandidates(client, discovery, set, parentState(p, set), [], {
      // Their rollout state is read, so their status too.
      whole: true,
      onForbidden: (what) =>
        options.logger.warn(
          `${name}: cannot list ${what} (no list right): its objects there are not counted`,
        ),
    });
    health = { objects: children.length, ...healthOf(children) };
  } catch (error) {
    health = { objects: 0, status: 'unknown', message: (error as Error).message };
  }
  return {
    name,
    namespace,
    ...(revision !== undefined ? { revision } : {}),
    updated,
    ageMs: Math.max(0, now - Date.parse(updated || new Date(now).toISOString())),
    objects: health.objects,
    status: health.status,
    ...(health.message ? { message: health.message } : {}),
    tooling: a[APPLYSET.tooling] ?? '',
  };
}

/** `failed` at the first failed object, else `progressing` at the first not ready, else `ready`. */
function healthOf(children: readonly PruneCandidate[]): Pick<DeploymentSummary, 'status' | 'message'> {
  let health: Pick<DeploymentSummary, 'status' | 'message'> = { status: 'ready' };
  for (const c of children) {
    if (!isWaited(c.object)) continue;
    const state = rolloutState(c.object);
    if (state.done) continue;
    const message = `${formatGroupKind(groupKindOf(c.object))} ${c.object.metadata.name}: ${state.message}`;
    if (state.failed) return { status: 'failed', message };
    if (health.status === 'ready') health = { status: 'progressing', message };
  }
  return health;
}

export async function lockFor(
  client: ClusterPort,
  set: ApplySet,
  options: ManageWriteOptions,
): Promise<DeployLock> {
  return acquireLock(client, set.name, set.namespace, {
    ...options.lock,
    ...(options.holder ? { holder: options.holder } : {}),
    ...(options.lockTimeoutMs !== undefined ? { lockTimeoutMs: options.lockTimeoutMs } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    onWait: (holder) =>
      options.logger.info(
        `waiting for ${holder}, which holds the lock of ${set.name} (Lease ${leaseName(set.name)})`,
      ),
    onRenewFailed: (error) =>
      options.logger.warn(
        `could not renew the lock of ${set.name} (Lease ${leaseName(set.name)}), retrying: ${(error as Error).message}`,
      ),
  });
}

/**
 * The newest revision before the current one whose rollout did not fail (Helm's last successful
 * release) — or the current one itself when a deploy after it was applied but never recorded (killed,
 * or interrupted during its rollout wait): the parent's fingerprints then differ from those the
 * current revision recorded, and "the previous deploy" is the current revision.
 */
async function previousRevision(client: ClusterPort, set: ApplySet, logger: Logger): Promise<number> {
  const [revisions, parent] = await Promise.all([listRevisions(client, set), readParent(client, set)]);
  const current = revisionOfParent(parent.object) ?? Math.max(0, ...revisions.map((r) => r.revision));
  const recorded = revisions.find((r) => r.revision === current)?.appliedState;
  const now = fingerprintsDigest(parent.fingerprints);
  if (recorded && now && recorded !== now) {
    logger.info(
      `the cluster holds a deploy of ${set.name} after revision ${current} that was not recorded (it was interrupted or killed after its apply): going back to revision ${current}`,
    );
    return current;
  }
  const before = lastGoodRevision(revisions, current);
  if (before === undefined) {
    const failed = revisions.some((r) => r.revision < current && r.status === 'failed');
    throw new NotFoundError(
      `deployment ${set.name} in ${set.namespace} has no ${failed ? 'successful ' : ''}revision before ${current || 'the current one'}${failed ? ' (the earlier ones failed; name one to go back to it anyway)' : ''}`,
    );
  }
  return before;
}

export function ref(o: KubeObject): string {
  return formatObjectRef({ kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace });
}
