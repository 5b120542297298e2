// The differential test: the corpus (differential-corpus.ts) through `kubectl apply --server-side`
// (ApplySet prune, field manager `kubectl`) into one namespace and through `spread deploy` (the CLI,
// dist/cli/index.js, as a user runs it) into another; after each state the stored objects are compared
// field by field, and the exit codes must agree. Cases are batched: one state of the run holds the
// current state of every case, and each disagreement is reported by case and object.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type Case,
  corpus,
  type FileContent,
  INTENDED,
  PROBE_CRD,
  PROBE_GROUP,
  plainFolderStates,
  type State,
} from './differential-corpus.js';
import { helmBinaries } from './env.js';
import { copyDir, ROOT, runNode, uniqueName } from './helpers.js';

const exec = promisify(execFile);

const KUBECTL = process.env.SPREAD_KUBECTL ?? 'kubectl';
const CONTEXT = 'spread-local';
const APPLYSET = 'differential';
/** The kinds the corpus holds, as `kubectl get` takes them. */
const KINDS = `configmaps,secrets,services,serviceaccounts,deployments,statefulsets,daemonsets,replicationcontrollers,jobs,cronjobs,pods,probes.${PROBE_GROUP}`;

/**
 * The good fixtures (test/fixtures/good) that are not run, and why: the kubectl and the spread side
 * share one cluster, so fixed cluster-scoped objects would be fought over.
 */
const FIXTURES_NOT_RUN: Readonly<Record<string, string>> = {
  nested: 'creates the Namespace "nested" (cluster-scoped, one name for both tools)',
  'objects-only': 'creates the Namespace "team-a" and the ClusterRole "reader" (cluster-scoped)',
  'ctr-only':
    'its image "&web:dev" is built, which needs the image stage (test/integration/image.itg.test.ts)',
  'init-containers': 'its init container image is built (&), which needs the image stage',
};

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function kubectlRun(args: readonly string[]): Promise<Run> {
  try {
    const { stdout, stderr } = await exec(KUBECTL, ['--context', CONTEXT, ...args], {
      env: { ...process.env, KUBECTL_APPLYSET: 'true' },
      maxBuffer: 256 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; code?: number };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** One side of the comparison: a tool, its namespace and its copy of the directory. */
interface Side {
  readonly tool: 'kubectl' | 'spread';
  readonly ns: string;
  readonly root: string;
}

function writeState(root: string, state: State): void {
  const objects = path.join(root, '.k2e');
  rmSync(objects, { recursive: true, force: true });
  mkdirSync(objects, { recursive: true });
  for (const [file, content] of Object.entries(state))
    writeFileSync(path.join(objects, file), content as FileContent);
}

async function apply(side: Side): Promise<Run> {
  if (side.tool === 'kubectl')
    return kubectlRun([
      'apply',
      '--server-side',
      '--prune',
      `--applyset=${APPLYSET}`,
      '-n',
      side.ns,
      '-f',
      path.join(side.root, '.k2e'),
    ]);
  return runNode('dist/cli/index.js', [
    'deploy',
    side.root,
    CONTEXT,
    '-n',
    side.ns,
    '--name',
    APPLYSET,
    '--no-wait',
  ]);
}

type Stored = Map<string, Record<string, unknown>>;

/** The objects of the ApplySet in the side's namespace, by `Kind/name`. */
async function stored(side: Side): Promise<Stored> {
  const r = await kubectlRun([
    'get',
    KINDS,
    '-n',
    side.ns,
    '-l',
    'applyset.kubernetes.io/part-of',
    '-o',
    'json',
  ]);
  if (r.code !== 0) throw new Error(`kubectl get failed: ${r.stderr}`);
  const out: Stored = new Map();
  for (const item of (JSON.parse(r.stdout) as { items: Record<string, unknown>[] }).items) {
    const o = item as { kind: string; metadata: { name: string } };
    out.set(`${o.kind}/${o.metadata.name}`, normalize(item, side.tool));
  }
  return out;
}

/** spread's own labels and annotations, which kubectl does not write. */
const SPREAD_KEYS = /^(app\.kubernetes\.io\/managed-by|spread\.rsprd\.com\/.*)$/;
/** Set on both sides with values that name the ApplySet (its id differs per namespace and tool). */
const APPLYSET_KEYS = /^applyset\.kubernetes\.io\//;

/**
 * What must differ removed: uid (also where the server copies it, e.g. a Job's selector),
 * resourceVersion, timestamps, generated names (a Service's clusterIP), the namespace, status,
 * managedFields' manager names and times (entries of other managers, such as controllers, dropped),
 * spread's own labels and annotations and the ApplySet label.
 */
function normalize(object: Record<string, unknown>, tool: Side['tool']): Record<string, unknown> {
  const uid = (object as { metadata?: { uid?: string } }).metadata?.uid;
  const o = replaceString(structuredClone(object), uid, '<uid>') as Record<string, unknown> & {
    metadata: Record<string, unknown>;
  };
  const meta = o.metadata;
  for (const k of ['uid', 'resourceVersion', 'creationTimestamp', 'namespace', 'selfLink']) delete meta[k];
  delete o.status;
  // spread's managed-by: spread goes; one the file declares (a chart's Helm) is compared with kubectl's.
  const declared = (meta.labels as Record<string, string> | undefined)?.['app.kubernetes.io/managed-by'];
  const keep = tool === 'spread' && declared !== undefined && declared !== 'spread';
  stripOwnKeys(o, tool, '', keep);
  if (meta.annotations)
    delete (meta.annotations as Record<string, string>)['deployment.kubernetes.io/revision'];
  for (const field of ['labels', 'annotations'])
    if (meta[field] && Object.keys(meta[field] as object).length === 0) delete meta[field];
  const managed = ((meta.managedFields ?? []) as Record<string, unknown>[])
    .filter((e) => e.manager === tool)
    .map((e) => {
      const { manager: _m, time: _t, ...rest } = e;
      const fields = structuredClone(rest.fieldsV1);
      stripOwnKeys(fields, tool, 'f:', keep);
      return { ...rest, fieldsV1: fields };
    });
  meta.managedFields = managed;
  const spec = o.spec as Record<string, unknown> | undefined;
  // The scheduler picks the node of a Pod; the service account token volume has a generated name.
  if (o.kind === 'Pod' && spec) delete spec.nodeName;
  if (o.kind === 'Service' && spec) {
    delete spec.clusterIP;
    delete spec.clusterIPs;
  }
  return JSON.parse(
    JSON.stringify(o, (_k, v) =>
      typeof v === 'string' && /^kube-api-access-[a-z0-9]{5}$/.test(v) ? 'kube-api-access-<generated>' : v,
    ),
  ) as Record<string, unknown>;
}

/** `value` with every string equal to `from` replaced (the server copies an object's uid into a Job's selector). */
function replaceString(value: unknown, from: string | undefined, to: string): unknown {
  if (from === undefined) return value;
  if (value === from) return to;
  if (Array.isArray(value)) return value.map((v) => replaceString(v, from, to));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceString(v, from, to)]));
  return value;
}

/**
 * Removes, at any depth (an object's metadata, a pod template's), the labels and annotations
 * {@link normalize} ignores, in an object (`prefix` '') or in its managedFields' fieldsV1 (`f:`);
 * maps and field sets left empty by it go too.
 */
function stripOwnKeys(value: unknown, tool: Side['tool'], prefix: '' | 'f:', keepManagedBy = false): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const node = value as Record<string, unknown>;
  let removed = false;
  for (const [key, child] of Object.entries(node)) {
    if (typeof child !== 'object' || child === null) continue;
    let below = false;
    if (key === `${prefix}labels` || key === `${prefix}annotations`) {
      for (const k of Object.keys(child)) {
        const name = k.slice(prefix.length);
        const own = SPREAD_KEYS.test(name) && !(keepManagedBy && name === 'app.kubernetes.io/managed-by');
        if (APPLYSET_KEYS.test(name) || (tool === 'spread' && own)) {
          delete (child as Record<string, unknown>)[k];
          below = true;
        }
      }
    } else below = stripOwnKeys(child, tool, prefix, keepManagedBy);
    if (below && Object.keys(child).length === 0) delete node[key];
    removed ||= below;
  }
  return removed;
}

/** The paths where two JSON values differ, with both values. */
function differences(a: unknown, b: unknown, at = ''): string[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  const isObj = (v: unknown) => typeof v === 'object' && v !== null;
  if (isObj(a) && isObj(b) && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a as object), ...Object.keys(b as object)]);
    return [...keys].flatMap((k) =>
      differences((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`),
    );
  }
  return [`${at || '.'}: kubectl ${JSON.stringify(a)} / spread ${JSON.stringify(b)}`];
}

/** The case an object or file belongs to: the longest case id its name starts with. */
function caseOf(cases: readonly Case[], name: string): Case | undefined {
  let best: Case | undefined;
  for (const c of cases)
    if (
      (name === c.id || name.startsWith(`${c.id}-`) || name.startsWith(`${c.id}.`)) &&
      (!best || c.id.length > best.id.length)
    )
      best = c;
  return best;
}

const all = corpus();
const fixtures = readdirSync(path.join(ROOT, 'test/fixtures/good'))
  .sort()
  .map((name) => ({ name, skip: FIXTURES_NOT_RUN[name] }));
const checkOf = (c: Case) => (c.intended ? INTENDED[c.intended]?.check : undefined);
/** The cluster's minor (SPREAD_KUBE_VERSION, which .cluster/env sets), for differences of some minors only. */
const minor = Number((process.env.SPREAD_KUBE_VERSION ?? 'v1.34').replace(/^v/, '').split('.')[1]);
/** Whether intended difference `key` is expected on this cluster's minor. */
const appliesHere = (key: string) => {
  const below = INTENDED[key]?.belowMinor;
  return below === undefined || minor < below;
};
/** Cases both tools apply: compared by what they store. */
const succeeding = all.filter(
  (c) => !c.fails && checkOf(c) !== 'spread-refuses' && checkOf(c) !== 'spread-accepts',
);
/** Cases kubectl or spread refuses: compared by exit code and message, one at a time. */
const refusing = all.filter((c) => !succeeding.includes(c));
const sides: Side[] = [];
const temp = mkdtempSync(path.join(tmpdir(), 'spread-differential-'));

async function newSides(label: string): Promise<[Side, Side]> {
  const k: Side = {
    tool: 'kubectl',
    ns: uniqueName(`diff-${label}-k`),
    root: path.join(temp, `${label}-k`, APPLYSET),
  };
  const s: Side = {
    tool: 'spread',
    ns: uniqueName(`diff-${label}-s`),
    root: path.join(temp, `${label}-s`, APPLYSET),
  };
  sides.push(k, s);
  for (const side of [k, s]) {
    const r = await kubectlRun(['create', 'namespace', side.ns]);
    if (r.code !== 0) throw new Error(`namespace ${side.ns}: ${r.stderr}`);
  }
  return [k, s];
}

beforeAll(async () => {
  const crd = path.join(temp, 'crd.yaml');
  writeFileSync(crd, PROBE_CRD);
  // A run just before deleted it: wait until it is gone (at once when there is none).
  await kubectlRun(['wait', '--for=delete', '--timeout=120s', `crd/probes.${PROBE_GROUP}`]);
  const r = await kubectlRun(['apply', '--server-side', '-f', crd]);
  if (r.code !== 0) throw new Error(`the Probe CRD: ${r.stderr}`);
  await kubectlRun(['wait', '--for=condition=Established', '--timeout=60s', `crd/probes.${PROBE_GROUP}`]);
});

afterAll(async () => {
  for (const side of sides)
    await kubectlRun(['delete', 'namespace', side.ns, '--wait=false', '--ignore-not-found']);
  await kubectlRun(['delete', 'crd', `probes.${PROBE_GROUP}`, '--wait=false', '--ignore-not-found']);
  rmSync(temp, { recursive: true, force: true });
});

describe('Differential: spread deploy stores what kubectl apply --server-side stores', () => {
  test('the corpus holds at least 200 case states, and every intended difference is shown by a case', () => {
    const states = all.reduce((n, c) => n + c.states.length, 0);
    console.info(
      `differential corpus: ${all.length} cases, ${states} states (${succeeding.length} succeeding, ${refusing.length} refused)`,
    );
    expect(states).toBeGreaterThanOrEqual(200);
    for (const f of fixtures.filter((f) => f.skip)) console.info(`good fixture ${f.name} not run: ${f.skip}`);
    for (const key of Object.keys(INTENDED))
      expect([key, all.some((c) => c.intended === key) || key === 'invalid-writes-nothing']).toEqual([
        key,
        true,
      ]);
  });

  test('succeeding cases, state by state: both exit 0 and store the same objects', async () => {
    const [k, s] = await newSides('ok');
    const steps = Math.max(...succeeding.map((c) => c.states.length));
    const disagreements: string[] = [];
    const shown = new Set<string>();
    for (let step = 0; step < steps; step++) {
      const state: Record<string, FileContent> = {};
      for (const c of succeeding) Object.assign(state, c.states[Math.min(step, c.states.length - 1)]);
      writeState(k.root, state);
      writeState(s.root, state);
      const [rk, rs] = [await apply(k), await apply(s)];
      if (rk.code !== 0 || rs.code !== 0) {
        disagreements.push(
          `state ${step + 1}: kubectl exit ${rk.code}${rk.code ? `: ${rk.stderr.trim()}` : ''}; spread exit ${rs.code}${rs.code ? `: ${rs.stderr.trim()}` : ''}`,
        );
        break;
      }
      const [sk, ss] = [await stored(k), await stored(s)];
      // Every case holds at least one object: a state that stored fewer compared nothing.
      expect(sk.size).toBeGreaterThanOrEqual(succeeding.length);
      for (const key of new Set([...sk.keys(), ...ss.keys()])) {
        const name = key.slice(key.indexOf('/') + 1);
        const c = caseOf(succeeding, name);
        const label = `state ${step + 1}, case ${c?.id ?? '?'} (${c?.title ?? '?'}), ${key}`;
        const a = sk.get(key);
        const b = ss.get(key);
        if (!a || !b) {
          disagreements.push(`${label}: stored by ${a ? 'kubectl' : 'spread'} only`);
          continue;
        }
        const diff = differences(a, b);
        if (diff.length === 0) continue;
        if (c?.intended && INTENDED[c.intended]?.check === 'stored-differs' && appliesHere(c.intended)) {
          shown.add(c.intended);
          continue;
        }
        disagreements.push(`${label}: ${diff.join('; ')}`);
      }
    }
    expect(disagreements).toEqual([]);
    for (const c of succeeding.filter((c) => c.intended && appliesHere(c.intended)))
      expect([c.id, shown.has(c.intended!)]).toEqual([c.id, true]);
  });

  test('refused cases: where kubectl fails spread fails naming the file and line, and writes nothing; intended differences happen', async () => {
    const [k, s] = await newSides('bad');
    const disagreements: string[] = [];
    // One case at a time: kubectl applies the valid objects of a failing directory and spread none,
    // so cases sharing a state would hide each other.
    for (const c of refusing) {
      writeState(k.root, c.states[0]!);
      writeState(s.root, c.states[0]!);
      const [rk, rs] = [await apply(k), await apply(s)];
      const files = Object.keys(c.states[0]!);
      const label = `case ${c.id} (${c.title})`;
      const check = checkOf(c);
      if (check === 'spread-refuses' && rk.code !== 0)
        disagreements.push(`${label}: intended "${c.intended}", but kubectl failed too: ${rk.stderr.trim()}`);
      if (check !== 'spread-refuses' && rk.code === 0) disagreements.push(`${label}: kubectl succeeded`);
      if (check === 'kubectl-partial' && !/serverside-applied/.test(rk.stdout))
        disagreements.push(
          `${label}: intended "${c.intended}", but kubectl applied nothing: ${rk.stdout.trim()}`,
        );
      if (check === 'spread-accepts') {
        if (rs.code !== 0)
          disagreements.push(`${label}: intended "${c.intended}", but spread failed: ${rs.stderr.trim()}`);
        continue;
      }
      // spread names the file and line: `.k2e/f.yaml:3: message`, or `(.k2e/f.yaml:3): message` for
      // the server's answer to the dry run; a file it cannot read as text, the file alone.
      const at = (line: string) =>
        files.some((f) => new RegExp(`\\.k2e/${f.replace(/\./g, '\\.')}${line}[:)]`).test(rs.stderr));
      if (rs.code === 0)
        disagreements.push(`${label}: kubectl failed (${rk.stderr.trim()}), spread succeeded`);
      else if (!at(':[1-9][0-9]*') && !(at('') && /UTF|text file/.test(rs.stderr)))
        disagreements.push(
          `${label}: spread failed without naming ${files.join(', ')} and a line: ${rs.stderr.trim()}`,
        );
    }
    const accepted = refusing.filter((c) => checkOf(c) === 'spread-accepts');
    const left = [...(await stored(s)).keys()].filter(
      (key) => !caseOf(accepted, key.slice(key.indexOf('/') + 1)),
    );
    if (left.length > 0) disagreements.push(`spread wrote ${left.join(', ')} for refused input`);
    expect(disagreements).toEqual([]);
  });

  test('a plain manifest folder, state by state: spread deploy DIR stores what kubectl apply -f DIR -R stores', async () => {
    const [k, s] = await newSides('plain');
    const disagreements: string[] = [];
    const states = plainFolderStates();
    for (const [step, state] of states.entries()) {
      for (const side of [k, s]) {
        rmSync(side.root, { recursive: true, force: true });
        for (const [file, content] of Object.entries(state)) {
          mkdirSync(path.dirname(path.join(side.root, file)), { recursive: true });
          writeFileSync(path.join(side.root, file), content);
        }
      }
      const rk = await kubectlRun([
        'apply',
        '--server-side',
        '--prune',
        `--applyset=${APPLYSET}`,
        '-n',
        k.ns,
        '-f',
        k.root,
        '-R',
      ]);
      const rs = await apply(s);
      expect([step, rk.code, rk.code ? rk.stderr : '', rs.code, rs.code ? rs.stderr : '']).toEqual([
        step,
        0,
        '',
        0,
        '',
      ]);
      const [sk, ss] = [await stored(k), await stored(s)];
      // Every object of the state is stored: none of the files was skipped by either tool.
      expect([step, [...ss.keys()].sort()]).toEqual([step, [...sk.keys()].sort()]);
      expect(ss.size).toBeGreaterThanOrEqual(5);
      for (const key of new Set([...sk.keys(), ...ss.keys()])) {
        const a = sk.get(key);
        const b = ss.get(key);
        if (a && b) for (const d of differences(a, b)) disagreements.push(`state ${step + 1}, ${key} ${d}`);
      }
    }
    expect(disagreements).toEqual([]);
  });

  test.each(fixtures.filter((f) => !f.skip))(
    'good fixture $name: spread deploy stores what kubectl stores of its rendered objects',
    async ({ name }) => {
      const [k, s] = await newSides(`fx-${name}`.slice(0, 20));
      const dir = path.join(ROOT, 'test/fixtures/good', name);
      const rendered = await runNode('dist/cli/index.js', ['render', dir, '-n', k.ns, '--show-secrets']);
      expect(rendered.code).toBe(0);
      mkdirSync(k.root, { recursive: true });
      writeFileSync(path.join(k.root, 'objects.yaml'), rendered.stdout);
      const rk = await kubectlRun([
        'apply',
        '--server-side',
        '--prune',
        `--applyset=${APPLYSET}`,
        '-n',
        k.ns,
        '-f',
        path.join(k.root, 'objects.yaml'),
      ]);
      const rs = await runNode('dist/cli/index.js', [
        'deploy',
        dir,
        CONTEXT,
        '-n',
        s.ns,
        '--name',
        APPLYSET,
        '--no-wait',
      ]);
      expect([rk.code, rk.code ? rk.stderr : '', rs.code, rs.code ? rs.stderr : '']).toEqual([0, '', 0, '']);
      const [sk, ss] = [await stored(k), await stored(s)];
      const disagreements: string[] = [];
      for (const key of new Set([...sk.keys(), ...ss.keys()])) {
        const a = sk.get(key);
        const b = ss.get(key);
        if (!a || !b) disagreements.push(`${key}: stored by ${a ? 'kubectl' : 'spread'} only`);
        else for (const d of differences(a, b)) disagreements.push(`${key} ${d}`);
      }
      expect(sk.size).toBeGreaterThan(0);
      expect(disagreements).toEqual([]);
    },
  );
});

/**
 * A chart's successive states, each a change to the chart folder and the values files given: the
 * fixture chart test/fixtures/helm/shop without crds/ (a cluster-scoped CRD both sides would fight
 * over; test/integration/helm.itg.test.ts deploys it) and without the templates that need it.
 */
const HELM_STATES: readonly {
  readonly title: string;
  readonly values: string;
  readonly change?: (dir: string) => void;
}[] = [
  { title: 'values-staging.yaml', values: 'values-staging.yaml' },
  { title: 'a value changed (values-prod.yaml)', values: 'values-prod.yaml' },
  {
    title: 'a template added',
    values: 'values-prod.yaml',
    change: (dir) =>
      writeFileSync(
        path.join(dir, 'templates/extra.yaml'),
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-extra\ndata:\n  greeting: {{ .Values.greeting | quote }}\n',
      ),
  },
  {
    title: 'a template dropped',
    values: 'values-prod.yaml',
    change: (dir) => rmSync(path.join(dir, 'templates/service.yaml')),
  },
];

describe('Differential: a Helm chart, helm template | kubectl apply --server-side against spread deploy', () => {
  test('state by state, both store the same objects (hooks left out on both sides: helm template --no-hooks)', async () => {
    const helm = helmBinaries().helm4;
    const [k, s] = await newSides('helm');
    const chart = copyDir(path.join(ROOT, 'test/fixtures/helm/shop'), APPLYSET);
    for (const f of ['crds', 'templates/widget.yaml', 'templates/capabilities.yaml'])
      rmSync(path.join(chart, f), { recursive: true });
    const disagreements: string[] = [];
    let counted = 0;
    for (const [step, state] of HELM_STATES.entries()) {
      state.change?.(chart);
      const values = path.join(chart, state.values);
      const { stdout } = await exec(
        helm,
        [
          'template',
          APPLYSET,
          chart,
          '--namespace',
          k.ns,
          '--include-crds',
          '--no-hooks',
          '--values',
          values,
        ],
        { maxBuffer: 64 * 1024 * 1024 },
      );
      mkdirSync(k.root, { recursive: true });
      writeFileSync(path.join(k.root, 'objects.yaml'), stdout);
      const rk = await kubectlRun([
        'apply',
        '--server-side',
        '--prune',
        `--applyset=${APPLYSET}`,
        '-n',
        k.ns,
        '-f',
        path.join(k.root, 'objects.yaml'),
      ]);
      const rs = await runNode('dist/cli/index.js', [
        'deploy',
        chart,
        CONTEXT,
        '-n',
        s.ns,
        '--name',
        APPLYSET,
        '--no-wait',
        '--helm',
        helm,
        '--helm-values',
        state.values,
      ]);
      const label = `state ${step + 1} (${state.title})`;
      if (rk.code !== 0 || rs.code !== 0) {
        disagreements.push(
          `${label}: kubectl exit ${rk.code} ${rk.stderr.trim()}; spread exit ${rs.code} ${rs.stderr.trim()}`,
        );
        break;
      }
      const [sk, ss] = [await stored(k), await stored(s)];
      counted += sk.size;
      for (const key of new Set([...sk.keys(), ...ss.keys()])) {
        const a = sk.get(key);
        const b = ss.get(key);
        if (!a || !b) disagreements.push(`${label}, ${key}: stored by ${a ? 'kubectl' : 'spread'} only`);
        else for (const d of differences(a, b)) disagreements.push(`${label}, ${key} ${d}`);
      }
      if (step === HELM_STATES.length - 1) expect(ss.has('Service/differential-web')).toBe(false);
      if (step === 2) expect(ss.has('ConfigMap/differential-extra')).toBe(true);
    }
    expect(disagreements).toEqual([]);
    expect(counted).toBeGreaterThanOrEqual(HELM_STATES.length * 2);
  });
});
