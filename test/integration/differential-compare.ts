// What the differential tests (differential.itg.test.ts, differential-kustomize.itg.test.ts) share:
// the two sides' namespaces and folders, running kubectl against the local cluster, reading what each
// tool stored in its namespace, and comparing the objects field by field with what must differ removed.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROBE_GROUP } from './differential-corpus.js';
import { runNode, uniqueName } from './helpers.js';

const exec = promisify(execFile);

const KUBECTL = process.env.SPREAD_KUBECTL ?? 'kubectl';
export const CONTEXT = 'spread-local';
export const APPLYSET = 'differential';
/** The kinds the corpus holds, as `kubectl get` takes them. */
export const KINDS = `configmaps,secrets,services,serviceaccounts,deployments,statefulsets,daemonsets,replicationcontrollers,jobs,cronjobs,pods,probes.${PROBE_GROUP}`;

export interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export async function kubectlRun(args: readonly string[]): Promise<Run> {
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

/** kubectl's side of a state: `kubectl apply --server-side --prune` of `source` (`-f DIR -R`, `-k DIR`…) as the ApplySet. */
export function kubectlApply(ns: string, source: readonly string[]): Promise<Run> {
  return kubectlRun(['apply', '--server-side', '--prune', `--applyset=${APPLYSET}`, '-n', ns, ...source]);
}

/** spread's side of a state: `spread deploy DIR` into `ns` under the ApplySet's name, without waiting. */
export function spreadDeploy(
  dir: string,
  ns: string,
  flags: readonly string[] = [],
  env?: NodeJS.ProcessEnv,
): Promise<Run> {
  return runNode(
    'dist/cli/index.js',
    ['deploy', dir, CONTEXT, '-n', ns, '--name', APPLYSET, '--no-wait', ...flags],
    env,
  );
}

/** One side of the comparison: a tool, its namespace and its copy of the directory. */
export interface Side {
  readonly tool: 'kubectl' | 'spread';
  readonly ns: string;
  readonly root: string;
}

export type Stored = Map<string, Record<string, unknown>>;

/** The objects of the ApplySet in the side's namespace, by `Kind/name` (of `kinds`, as `kubectl get` takes them). */
export async function stored(side: Side, kinds: string = KINDS): Promise<Stored> {
  const r = await kubectlRun([
    'get',
    kinds,
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
export function normalize(object: Record<string, unknown>, tool: Side['tool']): Record<string, unknown> {
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
export function differences(a: unknown, b: unknown, at = ''): string[] {
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

/**
 * The sides of one test file's runs: a temporary folder, and `newSide` making a side with a fresh
 * namespace (`<prefix>-<label>-<k|s>-…`) and a folder in it (`root`, else `<label>-<tool>`);
 * `cleanUp` (in afterAll) deletes every namespace made and the folder.
 */
export function differentialSides(prefix: string) {
  const temp = mkdtempSync(path.join(tmpdir(), `spread-${prefix}-`));
  const namespaces: string[] = [];
  return {
    temp,
    async newSide(
      tool: Side['tool'],
      label: string,
      root = path.join(temp, `${label}-${tool}`),
    ): Promise<Side> {
      const side: Side = { tool, ns: uniqueName(`${prefix}-${label}-${tool[0]}`), root };
      namespaces.push(side.ns);
      const r = await kubectlRun(['create', 'namespace', side.ns]);
      if (r.code !== 0) throw new Error(`namespace ${side.ns}: ${r.stderr}`);
      return side;
    },
    async cleanUp(): Promise<void> {
      for (const ns of namespaces)
        await kubectlRun(['delete', 'namespace', ns, '--wait=false', '--ignore-not-found']);
      rmSync(temp, { recursive: true, force: true });
    },
  };
}

/** The state's exit codes when either tool failed (`state 2: kubectl exit 0; spread exit 1: …`), else undefined. */
export function exitDisagreement(label: string, kubectl: Run, spread: Run): string | undefined {
  if (kubectl.code === 0 && spread.code === 0) return undefined;
  const said = (r: Run) => `${r.code}${r.code ? `: ${r.stderr.trim()}` : ''}`;
  return `${label}: kubectl exit ${said(kubectl)}; spread exit ${said(spread)}`;
}

/** Every object stored by one tool only, and every field two stored objects differ in, labelled. */
export function storedDisagreements(kubectl: Stored, spread: Stored, label: string): string[] {
  const out: string[] = [];
  for (const key of new Set([...kubectl.keys(), ...spread.keys()])) {
    const a = kubectl.get(key);
    const b = spread.get(key);
    if (!a || !b) out.push(`${label}, ${key}: stored by ${a ? 'kubectl' : 'spread'} only`);
    else for (const d of differences(a, b)) out.push(`${label}, ${key} ${d}`);
  }
  return out;
}
