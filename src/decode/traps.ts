// YAML traps: an unquoted `yes`, `on` or `0755` in a field Kubernetes types as a string, which kubectl
// would send as a boolean or number and the server refuse; spread names the file, line and quoting fix.
import { isMap, isScalar, isSeq, type Node, parse } from 'yaml';
import type { IssueList } from '../base/source.js';
import { CONTAINER_LISTS, podTemplatePath } from '../base/workload.js';
import { type DecodedValue, isMergeKey } from './decode.js';
import { jsonKey, KUBECTL_YAML } from './kubectl-yaml.js';

/**
 * YAML traps: a plain (unquoted) scalar in a field the Kubernetes API types as a string, which YAML
 * reads as a boolean or a number, as kubectl reads it (YAML 1.1: `yes`, `on`, `n`, `0755` → 493,
 * `1e3`, `0x1F`, `9007199254740993`…; see kubectl-yaml.ts). kubectl sends such a value as is and
 * the API server refuses it (`cannot unmarshal bool into … of type string`); spread says so before
 * anything is written, with the file, the line and the quoting fix. `null`, `~` and empty values are
 * left alone: kubectl sends null and the API server stores "" (a label `legacy: null` is the label
 * `legacy=""`), and so does spread. `1:30` and dates are strings for kubectl, so not traps.
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
/** The string-typed field patterns of an object of `kind`. */
function objectPatterns(kind: unknown): Pattern[] {
  const patterns: Pattern[] = [...META_FIELDS];
  if (kind === 'ConfigMap') patterns.push(['data', '*']);
  if (kind === 'Secret') patterns.push(['stringData', '*']);
  if (kind === 'ReplicationController') patterns.push(['spec', 'selector', '*']);
  const template = typeof kind === 'string' ? podTemplatePath(kind) : undefined;
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
  // Checked on the value first: reading the nodes composes them when the fast path read the file.
  if (!patterns.some((pattern) => holdsNonString(value.value, pattern))) return;
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

/**
 * Whether a value at `pattern` below `value` is a boolean or a number: the only values a trap can
 * give (the nodes decide whether it was written plain, and where).
 */
function holdsNonString(value: unknown, pattern: Pattern): boolean {
  if (pattern.length === 0)
    return typeof value === 'boolean' || typeof value === 'number' || typeof value === 'bigint';
  if (typeof value !== 'object' || value === null) return false;
  const [head, ...rest] = pattern as [string, ...string[]];
  if (head !== '*')
    return Object.hasOwn(value, head) && holdsNonString((value as Record<string, unknown>)[head], rest);
  return Object.values(value).some((item) => holdsNonString(item, rest));
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
    const key = jsonKey(pair.key.value);
    if (head === '*' || head === key) walk(value, pair.value as Node, rest, [...path, key], found);
  }
}

/** What a plain scalar turns into, when that is not a string. */
interface Trap {
  readonly reading: string;
}

function trapOf(node: Node): Trap | undefined {
  if (!isScalar(node) || node.type !== 'PLAIN') return undefined;
  const text = node.source ?? String(node.value);
  if (text === '') return undefined;
  const value = node.value;
  // `!!binary` is text for kubectl too.
  if (typeof value === 'string' || value === null || value === undefined || value instanceof Uint8Array)
    return undefined;
  return { reading: reading(value) };
}

/**
 * True when `text`, written as a plain YAML scalar, would be read as something other than a string
 * by kubectl (YAML 1.1 as go-yaml v2 reads it), another YAML 1.1 reader or a YAML 1.2 (core schema)
 * reader; such strings must be quoted when written.
 */
export function resolvesToNonString(text: string): boolean {
  if (text === '') return true;
  if (!/^(?:[-+.~0-9<]|(?:y|n|yes|no|true|false|on|off|null)$)/i.test(text)) return false;
  for (const options of [KUBECTL_YAML, { version: '1.1' }, { version: '1.2' }] as const) {
    try {
      // Warnings (an unresolved tag in `- !yes`) say nothing here, and would reach stderr.
      if (typeof parse(text, { ...options, logLevel: 'error' }) !== 'string') return true;
    } catch {
      return true;
    }
  }
  return false;
}

function reading(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return `a boolean (${value})`;
  if (typeof value === 'number' || typeof value === 'bigint') return `a number (${String(value)})`;
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
    return `${fieldName(value, path)} (value not shown) is read by kubectl as ${kind}; put the value in double quotes`;
  }
  return `${fieldName(value, path)} ${text} is read by kubectl as ${trap.reading}, where the API wants a string; quote it: ${JSON.stringify(text)}`;
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
