import { isMap, isScalar, isSeq, type Node, parse } from 'yaml';
import { type DecodedValue, isMergeKey } from './decode.js';
import type { IssueList } from './source.js';

/**
 * YAML traps: a plain (unquoted) scalar in a field the Kubernetes API types as a string, which YAML
 * reads as a boolean, number or null. Both readings count, since the same file goes through YAML 1.2
 * readers (spread, the `yaml` library) and YAML 1.1 readers (kubectl's go-yaml, Helm):
 * - YAML 1.2 core: `true`, `0755` (755), `1e3` (1000), `0x1F`, `.inf`, `null`, `~`;
 * - YAML 1.1 only: `yes`/`no`/`on`/`off`/`y`/`n`, `1:30` (sexagesimal 90), `0b101`.
 * Integers beyond Number.MAX_SAFE_INTEGER are noted as losing precision.
 * Empty values are left alone: an empty string field is read by the API as "" anyway.
 *
 * The string-typed fields checked (core/v1 Container, ObjectMeta, ConfigMap, Secret):
 * container `image`, `env[].value`, `args[]`, `command[]`; `metadata.labels`/`annotations`
 * values (also of pod templates); ConfigMap `data`; Secret `stringData`; label selectors.
 */
type Pattern = readonly (string | '*')[];

const CONTAINER_FIELDS: readonly Pattern[] = [
  ['image'],
  ['env', '*', 'value'],
  ['args', '*'],
  ['command', '*'],
];
const META_FIELDS: readonly Pattern[] = [
  ['metadata', 'labels', '*'],
  ['metadata', 'annotations', '*'],
];
const CONTAINER_LISTS = ['containers', 'initContainers', 'ephemeralContainers'];

/** Where the pod spec sits in each workload kind (the same table the entity stage uses). */
const POD_TEMPLATE_PATHS: Readonly<Record<string, Pattern>> = {
  Pod: [],
  ReplicationController: ['spec', 'template'],
  ReplicaSet: ['spec', 'template'],
  Deployment: ['spec', 'template'],
  StatefulSet: ['spec', 'template'],
  DaemonSet: ['spec', 'template'],
  Job: ['spec', 'template'],
  PodTemplate: ['template'],
  CronJob: ['spec', 'jobTemplate', 'spec', 'template'],
};

/** The string-typed field patterns of an object of `kind`. */
function objectPatterns(kind: unknown): Pattern[] {
  const patterns: Pattern[] = [...META_FIELDS];
  if (kind === 'ConfigMap') patterns.push(['data', '*']);
  if (kind === 'Secret') patterns.push(['stringData', '*']);
  if (kind === 'ReplicationController') patterns.push(['spec', 'selector', '*']);
  const template = typeof kind === 'string' ? POD_TEMPLATE_PATHS[kind] : undefined;
  if (template) {
    if (kind !== 'ReplicationController' && kind !== 'Pod')
      patterns.push(['spec', 'selector', 'matchLabels', '*']);
    if (template.length > 0) for (const m of META_FIELDS) patterns.push([...template, ...m]);
    for (const list of CONTAINER_LISTS) {
      for (const c of CONTAINER_FIELDS) patterns.push([...template, 'spec', list, '*', ...c]);
    }
  }
  return patterns;
}

/**
 * Reports YAML traps (see the module comment) in a decoded value as errors with the quoting fix.
 *
 * @param role `object` for a Kubernetes object (fields chosen by its kind), `container` for a
 *   core/v1 Container read from a `.ctr` file.
 */
export function checkStringFields(
  value: DecodedValue,
  role: 'object' | 'container',
  issues: IssueList,
  /** The kind when the file's name gives it and the object may leave it out (`rc.yaml`). */
  defaultKind?: string,
): void {
  const kind = (value.value as { kind?: unknown } | null)?.kind ?? defaultKind;
  const patterns = role === 'container' ? CONTAINER_FIELDS : objectPatterns(kind);
  const found: { line: number; message: string }[] = [];
  for (const pattern of patterns) {
    walk(value, value.node, pattern, [], (node, path) => {
      const problem = trapOf(node);
      if (problem)
        found.push({
          line: value.lineOfNode(node),
          message: problemText(value, path, node, problem, isSecretValue(kind, path)),
        });
    });
  }
  // Reported in file order, as a reader goes through the file.
  found.sort((a, b) => a.line - b.line);
  for (const f of found) issues.error({ file: value.source.file, line: f.line }, f.message);
}

function walk(
  value: DecodedValue,
  node: Node | null | undefined,
  pattern: Pattern,
  path: (string | number)[],
  found: (node: Node, path: (string | number)[]) => void,
): void {
  if (!node) return;
  const resolved = value.resolve(node);
  if (pattern.length === 0) {
    // Aliased scalars are checked where the anchor is written, once is enough.
    if (node === resolved) found(resolved, path);
    return;
  }
  const [head, ...rest] = pattern as [string, ...string[]];
  if (isSeq(resolved)) {
    if (head !== '*') return;
    resolved.items.forEach((item, i) => {
      walk(value, item as Node, rest, [...path, i], found);
    });
    return;
  }
  if (!isMap(resolved)) return;
  for (const pair of resolved.items) {
    if (isMergeKey(pair.key)) {
      // Keys merged from an anchor are checked where the anchor is written.
      continue;
    }
    if (!isScalar(pair.key)) continue;
    const key = String(pair.key.value);
    if (head === '*' || head === key) walk(value, pair.value as Node, rest, [...path, key], found);
  }
}

/** What a plain scalar turns into, when that is not a string. */
interface Trap {
  readonly reading: string;
  readonly yaml11Only: boolean;
}

const YAML11_CANDIDATE = /^(?:[-+.~0-9]|(?:y|n|yes|no|true|false|on|off|null)$)/i;

function trapOf(node: Node): Trap | undefined {
  if (!isScalar(node) || node.type !== 'PLAIN') return undefined;
  const text = node.source ?? String(node.value);
  if (text === '') return undefined;
  const value = node.value;
  if (typeof value !== 'string') return { reading: reading(value, text), yaml11Only: false };
  if (!YAML11_CANDIDATE.test(text)) return undefined;
  let v11: unknown;
  try {
    v11 = parse(text, { version: '1.1' });
  } catch {
    return undefined;
  }
  if (typeof v11 === 'string' || v11 === undefined) {
    // The `yaml` library's 1.1 schema omits `y`/`n`, which go-yaml v2 (kubectl) reads as booleans.
    if (/^[yY]$/.test(text)) return { reading: 'a boolean (true)', yaml11Only: true };
    if (/^[nN]$/.test(text)) return { reading: 'a boolean (false)', yaml11Only: true };
    return undefined;
  }
  return { reading: reading(v11, text), yaml11Only: true };
}

/**
 * True when `text`, written as a plain YAML scalar, would be read as something other than a string
 * by a YAML 1.2 (core schema) or YAML 1.1 reader; such strings must be quoted when written.
 */
export function resolvesToNonString(text: string): boolean {
  if (text === '') return true;
  if (!YAML11_CANDIDATE.test(text)) return false;
  if (/^[yYnN]$/.test(text)) return true;
  for (const version of ['1.1', '1.2'] as const) {
    try {
      if (typeof parse(text, { version }) !== 'string') return true;
    } catch {
      return true;
    }
  }
  return false;
}

function reading(value: unknown, text: string): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return `a boolean (${value})`;
  if (typeof value === 'number' || typeof value === 'bigint') {
    const n = Number(value);
    if (/^[-+]?[0-9_]+$/.test(text) && !Number.isSafeInteger(n)) {
      return `a number that loses precision (${String(value)})`;
    }
    return `a number (${String(value)})`;
  }
  const type = typeof value;
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

function problemText(
  value: DecodedValue,
  path: (string | number)[],
  node: Node,
  trap: Trap,
  secret: boolean,
): string {
  const text = (isScalar(node) ? node.source : undefined) ?? '';
  if (secret) {
    // A Secret's value is never printed, not even to point at a quoting mistake in it.
    const kind = trap.reading.split(' (')[0];
    return `${fieldName(value, path)} (value not shown) was read as ${kind}; put the value in double quotes`;
  }
  const read = trap.yaml11Only
    ? `is read as ${trap.reading} by YAML 1.1 readers such as kubectl`
    : `was read as ${trap.reading}`;
  return `${fieldName(value, path)} ${text} ${read}; quote it: ${JSON.stringify(text)}`;
}

/** Whether a path is a value of a core/v1 Secret's `data` or `stringData`. */
function isSecretValue(kind: unknown, path: readonly (string | number)[]): boolean {
  return kind === 'Secret' && (path[0] === 'data' || path[0] === 'stringData');
}

/** Names the field the way a user thinks of it: `env FOO value`, `label app`, `data key`. */
function fieldName(value: DecodedValue, path: (string | number)[]): string {
  const last = path[path.length - 1];
  const prev = path[path.length - 2];
  if (last === 'value' && path[path.length - 3] === 'env') {
    const env = value.at(path.slice(0, -1))?.value as { name?: unknown } | undefined;
    return `env ${typeof env?.name === 'string' ? env.name : `[${String(prev)}]`} value`;
  }
  if (prev === 'labels') return `label ${String(last)}`;
  if (prev === 'annotations') return `annotation ${String(last)}`;
  if (prev === 'args' || prev === 'command') return `${prev}[${String(last)}]`;
  if (prev === 'matchLabels' || prev === 'selector') return `selector ${String(last)}`;
  if (prev === 'data' || prev === 'stringData') return `${prev} ${String(last)}`;
  return String(last);
}
