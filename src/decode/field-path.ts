// The API server names the field it refuses by a path, in one of two notations: k8s.io/apimachinery's
// field.Path (`spec.containers[0].image`, in validation errors and strict decoding's `unknown field
// "…"`) and structured-merge-diff's fieldpath (`.spec.containers[name="web"].imagee`, in server-side
// apply's errors). This reads both out of a message and finds the line of that field in its file.
import { isMap, isScalar, type Node } from 'yaml';
import { DecodedValue, isMapping, isMergeKey, type LocatedValue, type ValuePath } from './decode.js';
import { jsonKey } from './kubectl-yaml.js';

/**
 * One step of a field path: a mapping key, a list index, a list item picked by its key fields
 * (`[name="web"]`, `[containerPort=80,protocol="TCP"]`) or a set's item by its value (`[=value]`).
 */
export type FieldStep =
  | { readonly key: string }
  | { readonly index: number }
  | { readonly select: Readonly<Record<string, unknown>> }
  | { readonly value: unknown };

/** field.ErrorType strings (k8s.io/apimachinery/pkg/util/validation/field), which follow a path and `: `. */
const ERROR_TYPES =
  'Invalid value|Required value|Unsupported value|Duplicate value|Forbidden|Too long|Too many|Not found|Internal error|Type error';

// The path's characters: no space, no colon outside brackets (`[name="a:b"]` keeps its colon).
const PATH_BODY = String.raw`(?:[^\s:\[\]"]|\[[^\]]*\])+`;
const STRICT = /\b(?:unknown|duplicate) field "((?:[^"\\]|\\.)+)"/g;
const SMD = new RegExp(String.raw`(?:^|[\s(\[,])(\.${PATH_BODY}): `, 'g');
const VALIDATION = new RegExp(String.raw`(?:^|[\s\[,])([A-Za-z]${PATH_BODY}): (?:${ERROR_TYPES})\b`, 'g');

/**
 * The field paths a server's message names, in the order they appear, each once: `unknown field
 * "spec.foo"` (strict field validation), `.spec.foo: field not declared in schema` (server-side
 * apply), `spec.replicas: Invalid value: …` (validation; also the causes spread appends in brackets).
 */
export function fieldPathsIn(message: string): FieldStep[][] {
  const found: { at: number; text: string }[] = [];
  for (const m of message.matchAll(STRICT)) found.push({ at: m.index, text: m[1]!.replace(/\\(.)/g, '$1') });
  for (const m of message.matchAll(SMD)) found.push({ at: m.index, text: m[1]! });
  for (const m of message.matchAll(VALIDATION)) found.push({ at: m.index, text: m[1]! });
  const seen = new Set<string>();
  const paths: FieldStep[][] = [];
  for (const { text } of found.sort((a, b) => a.at - b.at)) {
    const steps = parseFieldPath(text);
    const key = JSON.stringify(steps);
    if (steps.length === 0 || seen.has(key)) continue;
    seen.add(key);
    paths.push(steps);
  }
  return paths;
}

/**
 * Parses a field path in either notation (see the file's header). A bracket holding a number is an
 * index, `k=v,…` a list item's key fields (values as JSON, or bare), `=v` a set's item, anything else
 * a mapping key (field.Path's `Key`, e.g. `metadata.labels[app]`). Empty for an empty path.
 */
export function parseFieldPath(text: string): FieldStep[] {
  const steps: FieldStep[] = [];
  const re = /\.?([^.[\]]+)|\[((?:"(?:[^"\\]|\\.)*"|[^\]])*)\]/g;
  for (const m of text.matchAll(re)) {
    if (m[1] !== undefined) steps.push({ key: m[1] });
    else steps.push(bracketStep(m[2] ?? ''));
  }
  return steps;
}

function bracketStep(inside: string): FieldStep {
  if (/^\d+$/.test(inside)) return { index: Number(inside) };
  if (inside.startsWith('=')) return { value: scalar(inside.slice(1)) };
  const pairs = splitPairs(inside);
  if (pairs) return { select: Object.fromEntries(pairs) };
  return { key: inside };
}

/** `name="web",port=80` as pairs; undefined when `inside` is not of that form. */
function splitPairs(inside: string): [string, unknown][] | undefined {
  const re = /([A-Za-z_][\w-]*)=("(?:[^"\\]|\\.)*"|[^,]*)(?:,|$)/gy;
  const pairs: [string, unknown][] = [];
  let end = 0;
  for (const m of inside.matchAll(re)) {
    pairs.push([m[1]!, scalar(m[2]!)]);
    end = m.index + m[0].length;
    if (end >= inside.length) break;
  }
  return pairs.length > 0 && end === inside.length ? pairs : undefined;
}

function scalar(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The line of the field `steps` names, in `located` (the object as its file holds it), given `sent`
 * (the object as it was sent, which spread may have changed: containers attached, images pinned, a
 * pod template filled in). Indexes are indexes of `sent`: a list item with a `name` is found in the
 * file by that name, so a list spread added to still points at the item the user wrote. A field the
 * file does not hold (a required value) gives the line of its deepest ancestor the file holds.
 */
export function lineOfField(located: LocatedValue, sent: unknown, steps: readonly FieldStep[]): number {
  const path = heldPath(located, sent, steps);
  return (located instanceof DecodedValue ? keyLine(located, path) : undefined) ?? located.lineAt(path);
}

/**
 * {@link lineOfField} when `located` holds the whole field (an overlay patch that sets it), else
 * undefined: a patch that sets another field of the same object does not answer for this one.
 */
export function lineOfHeldField(
  located: LocatedValue,
  sent: unknown,
  steps: readonly FieldStep[],
): number | undefined {
  return heldPath(located, sent, steps, true).length === steps.length
    ? lineOfField(located, sent, steps)
    : undefined;
}

/**
 * The path, in the file's terms, of the longest start of `steps` that `located` holds; with
 * `present`, it stops before a key the file lacks (else that key is kept: its parent's line answers).
 */
function heldPath(
  located: LocatedValue,
  sent: unknown,
  steps: readonly FieldStep[],
  present = false,
): (string | number)[] {
  const path: (string | number)[] = [];
  let inFile: unknown = located.value;
  let inSent: unknown = sent;
  for (const step of steps) {
    const next = stepInto(inFile, inSent, step);
    if (next === undefined || (present && next.inFile === undefined)) break;
    path.push(next.key);
    inFile = next.inFile;
    inSent = next.inSent;
  }
  return path;
}

/**
 * The line of the key of the mapping entry at `path` (`selectr:` rather than the first line of the
 * block mapping under it, which is where the value starts); undefined when the last step is not a
 * key of the mapping's own (a list item, a key merged in by `<<`).
 */
function keyLine(value: DecodedValue, path: ValuePath): number | undefined {
  const last = path[path.length - 1];
  if (typeof last !== 'string') return undefined;
  const parent = value.nodeAt(path.slice(0, -1));
  if (!isMap(parent)) return undefined;
  const pair = parent.items.find(
    (p) => isScalar(p.key) && !isMergeKey(p.key) && jsonKey(p.key.value) === last,
  );
  const line = pair ? value.lineOfNode(pair.key as Node) : 0;
  return line > 0 ? line : undefined;
}

function stepInto(
  inFile: unknown,
  inSent: unknown,
  step: FieldStep,
): { key: string | number; inFile: unknown; inSent: unknown } | undefined {
  if ('key' in step) {
    if (!isMapping(inFile)) return undefined;
    return {
      key: step.key,
      inFile: inFile[step.key],
      inSent: isMapping(inSent) ? inSent[step.key] : undefined,
    };
  }
  if (!Array.isArray(inFile)) return undefined;
  const sentList = Array.isArray(inSent) ? inSent : [];
  let at: number;
  let sentItem: unknown;
  if ('index' in step) {
    sentItem = sentList[step.index];
    // spread may have added items before the user's (containers of .ctr files): match by name.
    const name = isMapping(sentItem) && typeof sentItem.name === 'string' ? sentItem.name : undefined;
    if (name !== undefined) at = inFile.findIndex((x) => isMapping(x) && x.name === name);
    else at = step.index < inFile.length ? step.index : -1;
  } else {
    const matches = matcher(step, false);
    at = inFile.findIndex(matches);
    // A key field the server defaulted (a port's protocol) is not in the file.
    if (at < 0) at = inFile.findIndex(matcher(step, true));
    sentItem = sentList.find(matches);
  }
  if (at < 0) return undefined;
  return { key: at, inFile: inFile[at], inSent: sentItem };
}

/** Whether a list item is the one a `[k=v]` or `[=v]` step names. */
function matcher(
  step: { readonly select: Readonly<Record<string, unknown>> } | { readonly value: unknown },
  absentMatches: boolean,
) {
  if ('value' in step) return (x: unknown) => sameScalar(x, step.value);
  const fields = Object.entries(step.select);
  return (x: unknown) =>
    isMapping(x) &&
    fields.some(([k]) => k in x) &&
    fields.every(([k, v]) => sameScalar(x[k], v) || (absentMatches && !(k in x)));
}

/** Equal as the API compares a key field: `80` and `"80"` differ, a BigInt equals its number. */
function sameScalar(a: unknown, b: unknown): boolean {
  const numeric = (x: unknown) => typeof x === 'number' || typeof x === 'bigint';
  return numeric(a) && numeric(b) ? String(a) === String(b) : a === b;
}
