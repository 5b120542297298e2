// The field-level differences between a live object and the dry run's answer, as plan and status show
// them: ordered as the document, long values cut to their changed region, Secret values never shown.
import { structuredPatch } from 'diff';
import diff from 'microdiff';
import { toJson } from '../base/json.js';
import { isCoreSecret, type KubeObject } from '../base/kube-object.js';
import { KUBERNETES } from '../base/labels.js';
import { REDACTED } from './render.js';

/** One changed field between the live object and what the apply would make of it. */
export interface FieldChange {
  readonly op: 'add' | 'remove' | 'change';
  /** Field path in kubectl's JSONPath-like notation: `spec.template.spec.containers[0].image`. */
  readonly path: string;
  /** Values as short JSON text; Secret values are {@link REDACTED}. Absent for the side that does not exist. */
  readonly before?: string;
  readonly after?: string;
  /**
   * For a string changed on one of several lines: the line diff in unified form (`@@ -a,b +c,d @@`
   * hunk headers, then ` context`, `-old`, `+new` lines; three lines of context, at most
   * {@link MAX_DIFF_LINES}). `before` and `after` then hold the changed region only.
   */
  readonly lines?: readonly string[];
}

/** Longest value shown whole, in characters of JSON; a longer string shows its changed region. */
const SHORT = 120;
/** Characters shown on each side of a long string's changed region. */
const CONTEXT = 24;
/** Lines of a line diff shown at most; the rest are counted. */
export const MAX_DIFF_LINES = 200;

const LAST_APPLIED = KUBERNETES.lastApplied;

/** Fields every write or the server changes, which say nothing about what the user changed. */
const IGNORED = new Set([
  'metadata.managedFields',
  'metadata.resourceVersion',
  'metadata.generation',
  'metadata.creationTimestamp',
  'metadata.uid',
  'status',
]);

/**
 * The fields that differ between the live object and the server's dry-run answer, in document
 * order. Secret `data`/`stringData` values, and a Secret's last-applied-configuration annotation
 * (which holds them too), are never shown, only that they changed.
 */
export function diffObjects(live: KubeObject, after: KubeObject): FieldChange[] {
  const secret = isCoreSecret(live);
  const out: FieldChange[] = [];
  for (const d of diff(
    live as unknown as Record<string, unknown>,
    after as unknown as Record<string, unknown>,
  )) {
    const path = formatPath(d.path);
    if ([...IGNORED].some((i) => path === i || path.startsWith(`${i}.`) || path.startsWith(`${i}[`)))
      continue;
    // kubectl's last-applied annotation of a Secret holds its values too (client-side apply, taken over).
    const hide =
      secret &&
      (d.path[0] === 'data' ||
        d.path[0] === 'stringData' ||
        (d.path[0] === 'metadata' && d.path[1] === 'annotations' && d.path[2] === LAST_APPLIED));
    const show = (v: unknown) => (hide ? REDACTED : short(secret ? withoutLastApplied(d.path, v) : v));
    if (d.type === 'CREATE') out.push({ op: 'add', path, after: show(d.value) });
    else if (d.type === 'REMOVE') out.push({ op: 'remove', path, before: show(d.oldValue) });
    else if (!hide && typeof d.oldValue === 'string' && typeof d.value === 'string')
      out.push({ op: 'change', path, ...stringChange(d.oldValue, d.value) });
    else out.push({ op: 'change', path, before: show(d.oldValue), after: show(d.value) });
  }
  return out;
}

/** `v` (the value at `path` of a Secret) with the last-applied annotation inside it redacted. */
function withoutLastApplied(path: readonly (string | number)[], v: unknown): unknown {
  const isMap = (x: unknown): x is Record<string, unknown> =>
    typeof x === 'object' && x !== null && !Array.isArray(x);
  if (
    path.length === 2 &&
    path[0] === 'metadata' &&
    path[1] === 'annotations' &&
    isMap(v) &&
    LAST_APPLIED in v
  )
    return { ...v, [LAST_APPLIED]: REDACTED };
  if (path.length === 1 && path[0] === 'metadata' && isMap(v) && isMap(v.annotations))
    return { ...v, annotations: withoutLastApplied(['metadata', 'annotations'], v.annotations) };
  return v;
}

/**
 * A changed string as a reader needs it: whole when short; else the changed region with
 * {@link CONTEXT} characters around it (`"…abc[old]def…"`), so that a change past any fixed
 * prefix still shows; and, when either side has several lines, the line diff (jsdiff).
 */
function stringChange(before: string, after: string): Pick<FieldChange, 'before' | 'after' | 'lines'> {
  const region = changedRegion(before, after);
  if (!before.includes('\n') && !after.includes('\n')) return region;
  const hunks = structuredPatch('', '', before, after, '', '', { context: 3 }).hunks;
  const lines = hunks.flatMap((h) => [
    `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`,
    ...h.lines.map((l) => l.replace(/\r$/, '')),
  ]);
  const shown =
    lines.length > MAX_DIFF_LINES
      ? [...lines.slice(0, MAX_DIFF_LINES), `… ${lines.length - MAX_DIFF_LINES} more lines`]
      : lines;
  return { ...region, lines: shown };
}

/** Both strings as JSON, or, when either is long, the part from the first to the last differing character. */
function changedRegion(before: string, after: string): { before: string; after: string } {
  if (JSON.stringify(before).length <= SHORT && JSON.stringify(after).length <= SHORT)
    return { before: JSON.stringify(before), after: JSON.stringify(after) };
  let start = 0;
  const max = Math.min(before.length, after.length);
  while (start < max && before[start] === after[start]) start++;
  let end = 0;
  while (end < max - start && before[before.length - 1 - end] === after[after.length - 1 - end]) end++;
  const cut = (text: string) => {
    const from = Math.max(0, start - CONTEXT);
    const to = Math.min(text.length, text.length - end + CONTEXT);
    let middle = JSON.stringify(text.slice(from, to)).slice(1, -1);
    let tail = to < text.length;
    if (middle.length > SHORT) {
      middle = middle.slice(0, SHORT);
      tail = true;
    }
    return `"${from > 0 ? '…' : ''}${middle}${tail ? '…' : ''}"`;
  };
  return { before: cut(before), after: cut(after) };
}

function formatPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(p)) out += out ? `.${p}` : p;
    else out += `[${JSON.stringify(p)}]`;
  }
  return out;
}

function short(v: unknown): string {
  const text = toJson(v) ?? 'null';
  return text.length > SHORT ? `${text.slice(0, SHORT - 3)}…` : text;
}

/**
 * The value of the field at `path` of `object` as plan and status show values (short JSON text; a
 * Secret's `data`/`stringData` {@link REDACTED}), for a path in the notation of foreign fields:
 * map keys joined by `.` (a key may hold dots: the longest key that fits is taken), list items as
 * `[name=web]` (keyed), `[=value]` (a set) or `[2]`. Undefined when the path names nothing.
 */
export function shownValueAt(object: KubeObject, path: string): string | undefined {
  const v = valueAt(object, path);
  if (v === undefined) return undefined;
  if (isCoreSecret(object) && /^(data|stringData)\b/.test(path)) return REDACTED;
  return short(v);
}

function valueAt(node: unknown, rest: string): unknown {
  if (rest === '') return node;
  if (rest.startsWith('.')) return valueAt(node, rest.slice(1));
  if (rest.startsWith('[')) {
    const end = rest.indexOf(']');
    if (!Array.isArray(node) || end < 0) return undefined;
    const selector = rest.slice(1, end);
    const item = /^\d+$/.test(selector)
      ? node[Number(selector)]
      : selector.startsWith('=')
        ? node.find((x) => toJson(x) === selector.slice(1) || String(x) === selector.slice(1))
        : node.find((x) =>
            selector.split(',').every((kv) => {
              const [k, ...v] = kv.split('=');
              const got = (x as Record<string, unknown> | null)?.[k as string];
              return got !== undefined && (typeof got === 'string' ? got : toJson(got)) === v.join('=');
            }),
          );
    return item === undefined ? undefined : valueAt(item, rest.slice(end + 1));
  }
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
  const keys = Object.keys(node).sort((a, b) => b.length - a.length);
  for (const k of keys)
    if (rest === k || rest.startsWith(`${k}.`) || rest.startsWith(`${k}[`)) {
      const found = valueAt((node as Record<string, unknown>)[k], rest.slice(k.length));
      if (found !== undefined) return found;
    }
  return undefined;
}
