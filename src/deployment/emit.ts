// A fast YAML writer for plain JSON data, byte-identical to the `yaml` library's output with the options
// render.ts uses (the library took most of the time of rendering a large set); anything else falls back.
import { Document, Scalar, type ToStringOptions } from 'yaml';
import { type StringifyContext, stringifyNumber, stringifyString } from 'yaml/util';
import { resolvesToNonString } from '../decode/traps.js';

/**
 * The `toString` options {@link emitObject} reproduces: block style, no line folding. render.ts
 * passes the same object to the `yaml` library, so the two cannot drift apart.
 */
export const EMIT_OPTIONS = { lineWidth: 0, minContentWidth: 0 } as const satisfies ToStringOptions;

/** The defaults of the `yaml` library's stringify context (its stringify.js, createStringifyContext). */
const LIBRARY_DEFAULTS = {
  blockQuote: true,
  defaultKeyType: null,
  defaultStringType: 'PLAIN',
  directives: null,
  doubleQuotedAsJSON: false,
  doubleQuotedMinMultiLineLength: 40,
  falseStr: 'false',
  flowCollectionPadding: true,
  indentSeq: true,
  lineWidth: 80,
  minContentWidth: 20,
  nullStr: 'null',
  simpleKeys: false,
  singleQuote: null,
  trailingComma: false,
  trueStr: 'true',
  verifyAliasOrder: true,
};

/** The library's context for a YAML 1.2 document with {@link EMIT_OPTIONS}, made once. */
let baseContext: StringifyContext | undefined;
function context(): StringifyContext {
  if (baseContext) return baseContext;
  const doc = new Document(null, { version: '1.2' });
  baseContext = {
    anchors: new Set(),
    doc,
    flowCollectionPadding: ' ',
    indent: '',
    indentStep: '  ',
    inFlow: null,
    options: { ...LIBRARY_DEFAULTS, ...doc.schema.toStringOptions, ...EMIT_OPTIONS },
  } as unknown as StringifyContext;
  return baseContext;
}

/**
 * A string that the library writes as it is, plain, in block context: it starts with a letter, holds
 * no `:` or `#` (which open a mapping value or a comment in some places), no line break (U+2028
 * and U+2029 included: JavaScript's multi-line regular expressions end lines there), tab or character
 * the library escapes, and does not end with a space. Whether such a string would be read
 * as a boolean or null (`yes`, `Null`) is asked of {@link resolvesToNonString} besides.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it excludes.
const PLAIN = /^[A-Za-z][^\x00-\x1f\x7f-\x9f\u2028\u2029\u{D800}-\u{DFFF}:#]*$/u;

/** The longest implicit key YAML allows; a longer one makes the library write an explicit `? key`. */
const MAX_IMPLICIT_KEY = 1024;

/** Thrown inside {@link emitObject} when the value holds something it leaves to the library. */
class Declined extends Error {}

/**
 * One object as a YAML document, byte for byte what the `yaml` library writes for
 * `new Document(object, { version: '1.2' })` with every string that {@link resolvesToNonString}
 * double-quoted and {@link EMIT_OPTIONS}, but without building the library's node tree: the lines are
 * written straight from the object, and each scalar that is not plainly safe is written by the
 * library's own `stringifyString`/`stringifyNumber` with the context its document would give it,
 * several times faster (bench/RESULTS.md, "Deploy, by hand", issue 19 sixth part).
 *
 * Handles plain data: objects of the Object prototype (or none), arrays, strings, finite and
 * non-finite numbers, bigints, booleans and null. Returns `undefined`, for the caller to use the library,
 * when the value holds anything else (undefined, a Date, a Map, a typed array…), the same object or
 * array twice (the library writes an anchor and an alias), or a key of over 1024 characters.
 *
 * @param object the object to write (not changed).
 * @returns the document, ending in a newline; or `undefined` as above.
 */
export function emitObject(object: Record<string, unknown>): string | undefined {
  try {
    const seen = new Set<object>();
    return `${emitValue(object, context(), seen, '')}\n`;
  } catch (error) {
    if (error instanceof Declined) return undefined;
    throw error;
  }
}

/**
 * `value` as the library's `stringify` writes it in `ctx` (a collection's lines joined by a newline
 * and `ctx.indent`); `keyText` is the `key:` text before it, for a scalar's `indentAtStart`.
 */
function emitValue(value: unknown, ctx: StringifyContext, seen: Set<object>, keyText: string): string {
  if (typeof value === 'string') return emitString(value, ctx, keyText);
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' || typeof value === 'bigint')
    return stringifyNumber(new Scalar(value) as Scalar<number>);
  if (typeof value !== 'object') throw new Declined();
  if (seen.has(value)) throw new Declined();
  seen.add(value);
  if (Array.isArray(value)) return emitSeq(value, ctx, seen);
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw new Declined();
  return emitMap(value as Record<string, unknown>, ctx, seen);
}

function emitMap(map: Record<string, unknown>, ctx: StringifyContext, seen: Set<object>): string {
  const pairCtx = { ...ctx, implicitKey: true, indent: ctx.indent + ctx.indentStep } as StringifyContext;
  const valueCtx = { ...pairCtx, implicitKey: false } as StringifyContext;
  let out: string | undefined;
  for (const key of Object.keys(map)) {
    const value = map[key];
    // The library leaves out a key whose value is undefined.
    if (value === undefined) continue;
    const keyText = emitString(key, pairCtx, '');
    if (keyText.length > MAX_IMPLICIT_KEY) throw new Declined();
    const valueText = emitValue(value, valueCtx, seen, keyText);
    // A collection goes on the next line unless it is empty (`{}`, `[]`); a block scalar's header
    // (`|-`) stays on the key's line.
    const line =
      typeof value === 'object' && value !== null && valueText !== '{}' && valueText !== '[]'
        ? `${keyText}:\n${valueCtx.indent}${valueText}`
        : `${keyText}: ${valueText}`;
    out = out === undefined ? line : `${out}\n${ctx.indent}${line}`;
  }
  return out ?? '{}';
}

function emitSeq(seq: readonly unknown[], ctx: StringifyContext, seen: Set<object>): string {
  if (seq.length === 0) return '[]';
  const itemCtx = { ...ctx, indent: `${ctx.indent}  ` } as StringifyContext;
  let out = '';
  for (let i = 0; i < seq.length; i++) {
    // A hole or undefined is written as null by the library; left to it.
    if (!(i in seq) || seq[i] === undefined) throw new Declined();
    const line = `- ${emitValue(seq[i], itemCtx, seen, '')}`;
    out += i === 0 ? line : `\n${ctx.indent}${line}`;
  }
  return out;
}

function emitString(text: string, ctx: StringifyContext, keyText: string): string {
  const ambiguous = resolvesToNonString(text);
  if (!ambiguous && PLAIN.test(text) && text.at(-1) !== ' ') return text;
  const scalar = new Scalar(text);
  if (ambiguous) scalar.type = 'QUOTE_DOUBLE';
  const scalarCtx = { ...ctx, actualString: true } as StringifyContext & { indentAtStart?: number };
  if (keyText !== '') scalarCtx.indentAtStart = keyText.length + 2;
  return stringifyString(scalar, scalarCtx);
}
