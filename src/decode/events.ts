// The fast path of reading YAML: one walk over js-yaml's parse events for the plain files that are nearly
// every Kubernetes file, three to four times faster than composing documents; anything unusual falls
// back to decode.ts, which owns positions, errors and checks.
import {
  EVENT_ID,
  type Event,
  getScalarValue,
  type MappingEvent,
  parseEvents,
  SCALAR_STYLE,
  type ScalarEvent,
  type SequenceEvent,
} from 'js-yaml';
import { isScalar, LineCounter, type ScalarTag } from 'yaml';
import { flatten } from './flatten.js';
import { jsonKey, jsonValue, KUBECTL_YAML, keyProblem } from './kubectl-yaml.js';
import { PositionNode, type Positions } from './positions.js';

/**
 * The fast reading of plain YAML: js-yaml's event parser (`parseEvents`, no tree of nodes) and one
 * walk over its events, for files with no anchor, alias, tag, `<<` merge key, directive, duplicate
 * key or value without a JSON form: nearly every Kubernetes file. It is three to four times faster
 * than composing the `yaml` library's documents and leaves a tenth of the garbage, which set the
 * peak memory of large inputs (bench/RESULTS.md, "Deploy, by hand", issue 19 fifth part). Scalars are resolved by the same
 * {@link KUBECTL_YAML} tags the `yaml` library uses, so values are the ones kubectl sends; anything
 * else makes {@link readPlainDocuments} return undefined and the `yaml` library decodes the file
 * (decode.ts), with its positions, errors and checks.
 */

/** One document read by {@link readPlainDocuments}. */
export interface PlainDocument {
  /** The JSON-ready value (what `plainValueOf` in plain-value.ts gives for the same text). */
  readonly value: unknown;
  /** The 1-based line where the document's content starts. */
  readonly line: number;
  /** The lines of the value's parts, built on demand from the file's events. */
  readonly positions: () => Positions;
}

/** Thrown (never escaping {@link readPlainDocuments}) when the `yaml` library must decode the file. */
const GENERAL = Symbol('general path');

/** The KUBECTL_YAML tags that may resolve an untagged plain scalar, in the order the library tries them. */
const PLAIN_TAGS = KUBECTL_YAML.schema.tags.filter(
  (tag): tag is ScalarTag & { test: RegExp } =>
    tag.default === true && 'test' in tag && tag.test instanceof RegExp,
);

/** Plain scalars that can only be strings: no tag's test can match a text starting otherwise. */
const SURELY_STRING = /^[a-zA-Z]/;
/** The few words starting with a letter that YAML 1.1 reads as something else. */
const WORDS =
  /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL)$/;

function fail(): never {
  throw GENERAL;
}

/** A plain scalar's value as the `yaml` library resolves it with {@link KUBECTL_YAML}. */
function resolvePlain(text: string): unknown {
  if (SURELY_STRING.test(text) && !WORDS.test(text)) return text;
  for (const tag of PLAIN_TAGS) {
    if (!tag.test.test(text)) continue;
    const resolved = tag.resolve(text, fail, KUBECTL_YAML);
    return isScalar(resolved) ? resolved.value : resolved;
  }
  return text;
}

/** The `yaml` library's LineCounter for `text`, as its lexer fills it, to turn offsets into lines. */
function lineCounter(text: string): LineCounter {
  const lines = new LineCounter();
  lines.addNewLine(0);
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines.addNewLine(i + 1);
  return lines;
}

/**
 * The offset where a node starts, as the `yaml` library's ranges give it: a collection's first
 * character, a quoted scalar's quote, a block scalar's `|` or `>` header.
 */
function startOf(text: string, event: Event): number {
  if (event.type === EVENT_ID.MAPPING || event.type === EVENT_ID.SEQUENCE) return event.start;
  if (event.type !== EVENT_ID.SCALAR) return -1;
  if (event.style === SCALAR_STYLE.PLAIN) return event.valueStart;
  // A quoted scalar's value starts after its quote.
  if (event.style !== SCALAR_STYLE.LITERAL_BLOCK && event.style !== SCALAR_STYLE.FOLDED_BLOCK)
    return event.valueStart - 1;
  // The header is the last `|` or `>` before the content (only spaces, indicators and a comment follow it).
  return Math.max(text.lastIndexOf('|', event.valueStart - 1), text.lastIndexOf('>', event.valueStart - 1));
}

/**
 * Where an empty scalar is, as the `yaml` library places it: at the `:`, `-`, `?` or `,` before it,
 * the first one after `from` (the end of the token before it), comments skipped.
 */
function indicatorAfter(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === '-' || c === ':' || c === '?' || c === ',') return i;
    if (c === '#') {
      const eol = text.indexOf('\n', i);
      if (eol < 0) break;
      i = eol;
    }
  }
  return from;
}

/** Whether the first character after `from` that is not a space, line break or comment is a `:`. */
function colonAfter(text: string, from: number): boolean {
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === ':') return true;
    if (c === '#') {
      i = text.indexOf('\n', i);
      if (i < 0) return false;
    } else if (c !== ' ' && c !== '\t' && c !== '\n' && c !== '\r') return false;
  }
  return false;
}

/**
 * Text the two parsers read apart, left to the `yaml` library: a byte-order mark past the start
 * (js-yaml skips it, the library refuses it), a CR line end without LF (js-yaml breaks the line
 * there, the library does not), a `%` directive js-yaml does not list (`%FOO`; the library warns),
 * a double-quoted escaped line break before a blank line (`"a\<LF><LF>b"`: `ab` for js-yaml, `a b`
 * for the library), a blank line holding a tab (the library refuses some inside scalars), and
 * content after a `...` marker (js-yaml reads it when no document is open, the library never).
 */
function divergent(text: string): boolean {
  // One pattern per case, each behind a search for the character it needs: one regular expression
  // of all six alternatives tries each at every offset, ten times slower on a large file
  // (bench/RESULTS.md, "Deploy, by hand", issue 19 sixth part).
  return (
    text.includes('\ufeff') ||
    (text.includes('\r') && /\r(?!\n)/.test(text)) ||
    (text.includes('%') && /^%/m.test(text)) ||
    (text.includes('\\') && /\\\r?\n[ \t]*\r?\n/.test(text)) ||
    (text.includes('\t') && /^[ \t]*\t[ \t]*$/m.test(text)) ||
    (text.includes('...') && /^\.\.\.[ \t]+[^ \t#\r\n]/m.test(text))
  );
}

/**
 * A `:` further than this from the start of its implicit key is an error for the `yaml` library
 * (at most 1024 characters, the spaces before the `:` included).
 */
const KEY_MAX = 1000;

class EventReader {
  index = 0;
  /** The offset after the last token read, for placing an empty scalar. */
  private end = 0;
  constructor(
    readonly text: string,
    readonly events: readonly Event[],
  ) {}

  next(): Event {
    const event = this.events[this.index++];
    if (!event) throw GENERAL;
    if (event.type === EVENT_ID.SCALAR) {
      // A quoted scalar ends after its closing quote; a block scalar's end is the next line's start.
      if (event.valueEnd >= 0)
        this.end =
          event.style === SCALAR_STYLE.SINGLE_QUOTED || event.style === SCALAR_STYLE.DOUBLE_QUOTED
            ? event.valueEnd + 1
            : event.valueEnd;
    } else if (event.type === EVENT_ID.MAPPING || event.type === EVENT_ID.SEQUENCE)
      // A block sequence's first `-` is its first item's indicator, which may be all the item has.
      this.end = this.text[event.start] === '-' ? event.start : event.start + 1;
    return event;
  }

  /** {@link startOf}, with an empty scalar placed as the `yaml` library places it. */
  private startOf(event: Event): number {
    if (event.type !== EVENT_ID.SCALAR || event.valueStart >= 0) return startOf(this.text, event);
    const at = indicatorAfter(this.text, this.end);
    // The next empty scalar's indicator is after this one's.
    this.end = at + 1;
    return at;
  }

  /** The value of the node starting at the current event. */
  value(): unknown {
    const event = this.next();
    switch (event.type) {
      case EVENT_ID.SCALAR:
        return this.scalar(event);
      case EVENT_ID.MAPPING:
        return this.mapping(event);
      case EVENT_ID.SEQUENCE:
        return this.sequence(event);
      default:
        // An alias, or an event out of place.
        throw GENERAL;
    }
  }

  private scalar(event: ScalarEvent): unknown {
    if (event.anchorStart !== -1 || event.tagStart !== -1) throw GENERAL;
    const text = getScalarValue(this.text, event);
    // A "fast" scalar is a slice of the file's text; the others are built piece by piece.
    if (event.style !== SCALAR_STYLE.PLAIN) return event.fast ? text : flatten(text);
    const value = resolvePlain(text);
    if (typeof value === 'string') return event.fast ? value : flatten(value);
    if (typeof value === 'number' && !Number.isFinite(value)) throw GENERAL;
    if (typeof value === 'symbol' || (typeof value === 'object' && value !== null)) throw GENERAL;
    return jsonValue(value);
  }

  /** The JSON key of the scalar event at the current position. */
  key(): string {
    const event = this.next();
    if (event.type !== EVENT_ID.SCALAR || event.anchorStart !== -1 || event.tagStart !== -1) throw GENERAL;
    let colon = this.end;
    while (this.text[colon] === ' ' || this.text[colon] === '\t') colon++;
    if (colon - startOf(this.text, event) > KEY_MAX) throw GENERAL;
    const text = getScalarValue(this.text, event);
    // A plain `<<` is a merge key (the yaml library's tag with `default: 'key'`); a quoted one, rare,
    // is left to the library too.
    if (text === '<<') throw GENERAL;
    if (event.style !== SCALAR_STYLE.PLAIN) return event.fast ? text : flatten(text);
    const key = resolvePlain(text);
    if (typeof key === 'symbol' || keyProblem(key) !== undefined) throw GENERAL;
    // The general path keys a JS Map, which makes -0 the key 0.
    const name = jsonKey(Object.is(key, -0) ? 0 : key);
    return event.fast ? name : flatten(name);
  }

  private mapping(event: MappingEvent): Record<string, unknown> {
    if (event.anchorStart !== -1 || event.tagStart !== -1) throw GENERAL;
    const out: Record<string, unknown> = {};
    while (this.events[this.index]?.type !== EVENT_ID.POP) {
      const name = this.key();
      // The `yaml` library reports duplicate keys (and two keys giving one JSON key): let it.
      if (Object.hasOwn(out, name)) throw GENERAL;
      // A key without a `:` (`? a` alone, `{a}`) has no value node, which the library places
      // at the mapping's line: let it.
      const next = this.events[this.index];
      if (next?.type === EVENT_ID.SCALAR && next.valueStart < 0 && !colonAfter(this.text, this.end))
        throw GENERAL;
      const value = this.value();
      // A plain assignment of `__proto__` would set the prototype instead of a key.
      if (name === '__proto__')
        Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
      else out[name] = value;
    }
    this.index++;
    return out;
  }

  private sequence(event: SequenceEvent): unknown[] {
    if (event.anchorStart !== -1 || event.tagStart !== -1) throw GENERAL;
    const out: unknown[] = [];
    while (this.events[this.index]?.type !== EVENT_ID.POP) out.push(this.value());
    this.index++;
    return out;
  }

  /** The positions of the node starting at the current event (a valid event stream: {@link value} read it). */
  positions(lines: LineCounter): Positions {
    const event = this.next();
    const line = lines.linePos(this.startOf(event)).line;
    if (event.type === EVENT_ID.MAPPING) {
      const keys: string[] = [];
      const values: Positions[] = [];
      while (this.events[this.index]?.type !== EVENT_ID.POP) {
        keys.push(this.key());
        values.push(this.positions(lines));
      }
      this.index++;
      return new PositionNode(line, keys, values);
    }
    if (event.type === EVENT_ID.SEQUENCE) {
      const items: Positions[] = [];
      while (this.events[this.index]?.type !== EVENT_ID.POP) items.push(this.positions(lines));
      this.index++;
      return new PositionNode(line, undefined, undefined, undefined, items);
    }
    return line;
  }
}

/**
 * Reads a file's documents with js-yaml's event parser when they are plain (see the module comment).
 * Empty documents and documents whose value is null are left out, as decodeText does.
 *
 * @param text the file's text without a byte-order mark.
 * @returns the documents, or undefined when the `yaml` library must decode the file: a syntax error
 *   or anything outside plain YAML, also when valid (an anchor, an alias, a tag, a `<<` merge key, a
 *   `%` directive, a duplicate key, `.inf`/`.nan`, a key without a JSON form or without a `:`), and
 *   text the two parsers read apart ({@link divergent}).
 */
export function readPlainDocuments(text: string): PlainDocument[] | undefined {
  if (divergent(text)) return undefined;
  let events: Event[];
  try {
    events = parseEvents(text, {});
  } catch {
    return undefined;
  }
  const reader = new EventReader(text, events);
  const found: { value: unknown; index: number }[] = [];
  try {
    while (reader.index < events.length) {
      const event = reader.next();
      if (event.type !== EVENT_ID.DOCUMENT || event.directives.length > 0) return undefined;
      if (events[reader.index]?.type === EVENT_ID.POP) {
        reader.index++;
        continue;
      }
      const index = reader.index;
      const value = reader.value();
      if (reader.next().type !== EVENT_ID.POP) return undefined;
      // A document that is a scalar on a line indented by a tab: the library refuses the tab.
      const first = events[index];
      const at = first ? startOf(text, first) : -1;
      if (first?.type === EVENT_ID.SCALAR && at >= 0 && text[text.lastIndexOf('\n', at - 1) + 1] === '\t')
        return undefined;
      if (value !== null) found.push({ value, index });
    }
  } catch (e) {
    if (e === GENERAL) return undefined;
    throw e;
  }
  if (found.length === 0) return [];
  let counter: LineCounter | undefined;
  const lines = () => {
    counter ??= lineCounter(text);
    return counter;
  };
  return found.map(({ value, index }) => {
    const first = events[index];
    return {
      value,
      line: first ? lines().linePos(startOf(text, first)).line : 0,
      positions: () => {
        const at = new EventReader(text, events);
        at.index = index;
        return at.positions(lines());
      },
    };
  });
}
