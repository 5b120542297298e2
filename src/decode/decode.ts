// Decoding YAML and JSON files into values that remember the file and line of every part, as kubectl
// would read them, reporting every problem at once (syntax, duplicate keys, values JSON cannot hold);
// events.ts is the fast path for plain files, this is the general one.
// This file is over 400 lines because it is the whole decoder (kubectl's YAML 1.1 reading with positions).
import {
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  type Pair,
  parseAllDocuments,
  type Scalar,
  visit,
} from 'yaml';
import { type InputIssue, IssueList, type Source } from '../base/source.js';
import { readPlainDocuments } from './events.js';
import { flatten } from './flatten.js';
import { jsonKey, jsonValue, KUBECTL_YAML, keyProblem } from './kubectl-yaml.js';
import { plainValueOf } from './plain-value.js';
import { childPositions, lineOf, PositionNode, type Positions } from './positions.js';
import { duplicateKeyAt, unresolvedAliases } from './yaml-errors.js';

/** A path into a decoded value: mapping keys and sequence indexes, e.g. `['spec', 'containers', 0]`. */
export type ValuePath = readonly (string | number)[];

/**
 * A decoded value (a document, an item of a `kind: List`, or a part of one) with the lines of its
 * parts, so that problems found later are reported at the right line. It keeps no YAML nodes: a file's
 * parsed document (about four times the size of its value) can be collected once the value is decoded.
 */
export class LocatedValue {
  /** The plain JS value (mappings are objects, sequences arrays); aliases and `<<` merges resolved. */
  readonly value: unknown;
  /** The file (relative to the input root) and the 1-based line where the value starts. */
  readonly source: Source;
  private positionTree: Positions | undefined;

  /** @param positions the lines of the value's parts; a subclass that passes none overrides {@link positions}. */
  protected constructor(value: unknown, source: Source, positions?: Positions) {
    this.value = value;
    this.source = source;
    this.positionTree = positions;
  }

  /** The positions of the value's parts. */
  protected get positions(): Positions {
    return this.positionTree ?? 0;
  }

  private positionsAt(path: ValuePath): Positions | undefined {
    let positions: Positions | undefined = this.positions;
    for (const key of path) {
      positions = childPositions(positions, key);
      if (positions === undefined) return undefined;
    }
    return positions;
  }

  /**
   * The line of the value at `path`, or of its deepest existing ancestor when the path does not exist
   * (so an error about a missing field points at the object that lacks it). Paths follow aliases and
   * `<<` merge keys the way the value was resolved (a merged key gives the line in the anchor).
   */
  lineAt(path: ValuePath): number {
    for (let n = path.length; n >= 0; n--) {
      const positions = this.positionsAt(path.slice(0, n));
      if (positions !== undefined) {
        const line = lineOf(positions);
        if (line > 0) return line;
      }
    }
    return this.source.line;
  }

  /** {@link lineAt} as a Source in this value's file. */
  sourceAt(path: ValuePath): Source {
    return { file: this.source.file, line: this.lineAt(path) };
  }

  /**
   * Where the value at `path` was written when an outside tool put it there from another file than
   * this value's (an image a kustomize overlay's `images:` or patch set); undefined for a value read
   * from a file as written, whose parts are all in its own file.
   */
  declaredAt(_path: ValuePath): Source | undefined {
    return undefined;
  }

  /** The value at `path` as a LocatedValue of its own; undefined when the path does not exist. */
  at(path: ValuePath): LocatedValue | undefined {
    const positions = this.positionsAt(path);
    if (positions === undefined) return undefined;
    let value: unknown = this.value;
    for (const key of path) {
      if (typeof value !== 'object' || value === null) return undefined;
      value = (value as Record<string | number, unknown>)[key];
    }
    if (value === undefined) return undefined;
    return new LocatedValue(value, { file: this.source.file, line: lineOf(positions) }, positions);
  }

  /**
   * The anchor name of the scalar at `path` (`image: &web` with nothing after it is an empty scalar
   * anchored `web`); undefined when there is none or the path does not exist.
   */
  anchorAt(path: ValuePath): string | undefined {
    const positions = this.positionsAt(path);
    return typeof positions === 'object' ? positions.anchor : undefined;
  }

  /**
   * A value known only by where it starts, such as an object an outside tool rendered (kustomize,
   * Helm): every part of it is placed at `source`.
   */
  static placedAt(value: unknown, source: Source): LocatedValue {
    return new LocatedValue(value, source, placedPositions(value, source.line));
  }

  /** This value and its lines without anything else: a {@link DecodedValue}'s YAML nodes are left behind. */
  compact(): LocatedValue {
    return new LocatedValue(this.value, this.source, this.positions);
  }
}

/** Positions that place every part of `value` at `line` (so every path of the value exists). */
function placedPositions(value: unknown, line: number): Positions {
  if (Array.isArray(value))
    return new PositionNode(
      line,
      undefined,
      undefined,
      undefined,
      value.map((v) => placedPositions(v, line)),
    );
  if (typeof value !== 'object' || value === null) return line;
  const keys = Object.keys(value);
  const values = keys.map((k) => placedPositions((value as Record<string, unknown>)[k], line));
  return new PositionNode(line, keys, values);
}

/** A value's `yaml` node with the document and LineCounter it belongs to. */
export interface NodeView {
  readonly node: Node;
  readonly document: Document.Parsed;
  readonly lineCounter: LineCounter;
}

/**
 * One decoded YAML or JSON value (a document, or an item of a `kind: List`) with its parsed `yaml`
 * node, the document and the file's LineCounter, for the checks that read the YAML itself (traps,
 * `kind: List` items). A value read by the fast path (events.ts) has no nodes until one of these
 * asks: then the `yaml` library decodes the file. Keep it only while decoding a file:
 * {@link compact} keeps the lines only.
 */
export class DecodedValue extends LocatedValue {
  private view: NodeView | (() => NodeView);
  private readonly eventPositions: (() => Positions) | undefined;
  private built: Positions | undefined;

  /**
   * @param nodes the value's nodes, or a function giving them (called once, on first use).
   * @param positions the lines of the value's parts when they come from elsewhere than the nodes.
   */
  constructor(
    value: unknown,
    source: Source,
    nodes: NodeView | (() => NodeView),
    positions?: () => Positions,
  ) {
    super(value, source);
    this.view = nodes;
    this.eventPositions = positions;
  }

  /** The value's node with its document and LineCounter (composed now if the fast path read it). */
  nodeView(): NodeView {
    if (typeof this.view === 'function') this.view = this.view();
    return this.view;
  }

  /** The `yaml` node of the value; use {@link lineOfNode} to turn one of its descendants into a line. */
  get node(): Node {
    return this.nodeView().node;
  }

  /** Built on first use (line lookups are rare for values that are not entities). */
  protected override get positions(): Positions {
    if (this.built === undefined) {
      if (this.eventPositions) this.built = this.eventPositions();
      else
        this.built = positionsOf(
          this.node,
          (n) => this.resolve(n),
          (n) => this.lineOfNode(n),
          new Map(),
        );
    }
    return this.built ?? 0;
  }

  /** The 1-based line where `node` (a descendant of {@link node}) starts; 0 when it has no position. */
  lineOfNode(node: Node): number {
    const offset = node.range?.[0];
    return offset === undefined ? 0 : this.nodeView().lineCounter.linePos(offset).line;
  }

  /**
   * The node at `path` below this value, following aliases and `<<` merge keys the way the value
   * was resolved; undefined when the path does not exist.
   */
  nodeAt(path: ValuePath): Node | undefined {
    let node: Node | undefined = this.node;
    for (const key of path) {
      if (!node) return undefined;
      node = childNode(this.resolve(node), key, (n) => this.resolve(n));
    }
    return node ? this.resolve(node) : undefined;
  }

  /** A value below this one (e.g. a List item or a container) sharing this value's file positions. */
  child(value: unknown, node: Node): DecodedValue {
    const { document, lineCounter } = this.nodeView();
    return new DecodedValue(
      value,
      { file: this.source.file, line: this.lineOfNode(node) },
      { node, document, lineCounter },
    );
  }

  /** Follows an alias to the node it names. */
  resolve(node: Node): Node {
    const { document } = this.nodeView();
    let current: Node = node;
    for (let i = 0; i < 100 && isAlias(current); i++) {
      const target = current.resolve(document);
      if (!target) break;
      current = target;
    }
    return current;
  }
}

/**
 * The positions of `node` and everything below it, aliases resolved to the nodes they name (shared
 * through `memo`, which also ends alias cycles), `<<` merge sources kept apart as {@link childNode}
 * searches them.
 */
function positionsOf(
  node: Node | null | undefined,
  resolve: (n: Node) => Node,
  lineOfNode: (n: Node) => number,
  memo: Map<Node, Positions>,
): Positions | undefined {
  if (!node) return undefined;
  const target = resolve(node);
  const known = memo.get(target);
  if (known !== undefined) return known;
  const line = lineOfNode(target);
  const below = (n: unknown) => positionsOf(n as Node | null | undefined, resolve, lineOfNode, memo);
  // Arrays are made at their final length: grown by push(), each would hold room for 16 or more.
  if (isSeq(target)) {
    const items = new Array<Positions | undefined>(target.items.length);
    const positions = new PositionNode(line, undefined, undefined, undefined, items);
    memo.set(target, positions);
    target.items.forEach((item, i) => {
      items[i] = below(item);
    });
    return positions;
  }
  if (isMap(target)) {
    const own = target.items.filter((pair) => isScalar(pair.key) && !isMergeKey(pair.key));
    // -0 is the key 0, as in the value (a JS Map key cannot be -0).
    const keys = own.map((pair) => {
      const key = (pair.key as Scalar).value;
      return flatten(jsonKey(Object.is(key, -0) ? 0 : key));
    });
    const values = new Array<Positions | undefined>(own.length);
    const merges = target.items.filter((pair) => isMergeKey(pair.key) && pair.value);
    const merged: Positions[] | undefined = merges.length > 0 ? [] : undefined;
    const positions = new PositionNode(line, keys, values, merged);
    memo.set(target, positions);
    own.forEach((pair, i) => {
      values[i] = below(pair.value);
    });
    for (const pair of merges) {
      const source = resolve(pair.value as Node);
      for (const s of isSeq(source) ? source.items : [source]) {
        const p = below(s);
        if (p !== undefined) merged?.push(p);
      }
    }
    return positions;
  }
  const positions =
    isScalar(target) && target.anchor
      ? new PositionNode(line, undefined, undefined, undefined, undefined, target.anchor)
      : line;
  memo.set(target, positions);
  return positions;
}

/**
 * True when `key` is the YAML 1.1 merge key: a plain `<<` or one tagged `!!merge`, which the `yaml`
 * library resolves to a symbol. A quoted `"<<"` is an ordinary key, for go-yaml v2 (kubectl) too.
 */
export function isMergeKey(key: unknown): boolean {
  return isScalar(key) && typeof key.value === 'symbol';
}

function childNode(node: Node, key: string | number, resolve: (n: Node) => Node): Node | undefined {
  if (isSeq(node)) {
    const item = typeof key === 'number' ? node.items[key] : undefined;
    return item as Node | undefined;
  }
  if (!isMap(node)) return undefined;
  for (const pair of node.items) {
    if (isScalar(pair.key) && !isMergeKey(pair.key) && jsonKey(pair.key.value) === String(key)) {
      return (pair.value ?? undefined) as Node | undefined;
    }
  }
  // Merged mappings are searched after the mapping's own keys, which win (YAML merge key spec).
  for (const pair of node.items) {
    if (!isMergeKey(pair.key) || !pair.value) continue;
    const merged = resolve(pair.value as Node);
    const sources = isSeq(merged) ? merged.items.map((n) => resolve(n as Node)) : [merged];
    for (const source of sources) {
      const found = childNode(source, key, resolve);
      if (found) return found;
    }
  }
  return undefined;
}

/** Decoded documents of one file, or the issues that kept it from being decoded. */
export interface DecodeResult {
  readonly values: DecodedValue[];
  readonly issues: InputIssue[];
}

/**
 * Checks that a file is text as kubectl reads it and returns it without a byte-order mark: UTF-8,
 * or UTF-16 with a BOM (`FF FE` little-endian, `FE FF` big-endian), which kubectl decodes through
 * `unicode.BOMOverride` (k8s.io/cli-runtime's file visitor). Rejects UTF-16 without a BOM (NUL
 * bytes between characters: kubectl fails on its control characters) and binary content. Bytes that
 * are not UTF-8 are refused, where kubectl reads each as U+FFFD and stores the damaged text.
 *
 * @returns the text, or an error message naming what the file looks like.
 */
export function textOf(bytes: Uint8Array): { text: string } | { error: string } {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return utf16(bytes, 'utf-16le');
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return utf16(bytes, 'utf-16be');
  const nul = bytes.indexOf(0);
  if (nul >= 0) {
    // ASCII text saved as UTF-16 without a BOM has a NUL beside every character.
    let nuls = 0;
    const sample = Math.min(bytes.length, 512);
    for (let i = 0; i < sample; i++) if (bytes[i] === 0) nuls++;
    return nuls * 3 >= sample
      ? {
          error:
            'looks UTF-16 encoded without a byte-order mark (NUL bytes between characters); save it as UTF-8',
        }
      : { error: 'is not a text file (it holds NUL bytes)' };
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { error: 'is not UTF-8 text' };
  }
  return { text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text };
}

function utf16(bytes: Uint8Array, encoding: 'utf-16le' | 'utf-16be'): { text: string } | { error: string } {
  try {
    // The decoder drops the BOM itself (ignoreBOM false).
    return { text: new TextDecoder(encoding, { fatal: true }).decode(bytes) };
  } catch {
    return {
      error: `is not ${encoding === 'utf-16le' ? 'UTF-16LE' : 'UTF-16BE'} text, though it starts with its byte-order mark`,
    };
  }
}

/**
 * Decodes a file's bytes: see {@link textOf} for the encodings accepted, then {@link decodeText}.
 *
 * @param file path relative to the input root, used in sources and messages.
 */
export function decodeBytes(file: string, bytes: Uint8Array): DecodeResult {
  const text = textOf(bytes);
  if ('error' in text) {
    return {
      values: [],
      issues: [{ source: { file, line: 0 }, message: `${file} ${text.error}`, severity: 'error' }],
    };
  }
  return decodeText(file, text.text);
}

/** {@link KUBECTL_YAML}, duplicate keys refused, errors without the library's code excerpts. */
const PARSE_OPTIONS = { ...KUBECTL_YAML, uniqueKeys: true, prettyErrors: false } as const;

/**
 * How spread's own files (the project file, spread.yaml) are read: YAML 1.2's core schema, as the
 * `yaml` library and editors read them, so `on`, `yes`, `no`, `y` and `n` stay strings (YAML 1.1, which
 * kubectl's objects are read with, makes them booleans: `on:` as a Helm value's key would be `true`).
 */
const CORE_PARSE_OPTIONS = {
  version: '1.2',
  schema: 'core',
  intAsBigInt: true,
  merge: true,
  uniqueKeys: true,
  prettyErrors: false,
} as const;

/**
 * Decodes a file of spread's own (spread.yaml) with YAML 1.2's core schema (see
 * {@link CORE_PARSE_OPTIONS}); otherwise as {@link decodeBytes}: every problem at file:line.
 */
export function decodeCoreBytes(file: string, bytes: Uint8Array): DecodeResult {
  const text = textOf(bytes);
  if ('error' in text)
    return {
      values: [],
      issues: [{ source: { file, line: 0 }, message: `${file} ${text.error}`, severity: 'error' }],
    };
  return composeText(file, text.text, CORE_PARSE_OPTIONS);
}

/**
 * Decodes multi-document YAML (JSON is read as the YAML it is) into one value per non-empty
 * document, with the values kubectl sends for the same text (sigs.k8s.io/yaml: YAML 1.1 scalars,
 * Go's integer syntax, integers exact in the int64 range as BigInt past 2^53; see kubectl-yaml.ts).
 * Empty and comment-only documents are skipped. CRLF line ends and a leading BOM are accepted.
 * `<<` merge keys and anchors work as in YAML 1.1.
 *
 * Errors, as `file:line` issues, where kubectl fails too: YAML syntax; `.inf`/`.nan` values (no JSON
 * form); null, int64-overflowing and collection mapping keys. Stricter than kubectl, on purpose:
 * duplicate mapping keys (kubectl silently keeps the last; the `yaml` library's `uniqueKeys`), also
 * when two keys give the same JSON key (`1` and `"1"`), and a key written before a `<<` that merges
 * the same key (go-yaml v2 lets the merge override it, the YAML merge spec does the opposite).
 * The documents of a file with an error are not returned, so a half-read file is never deployed.
 */
export function decodeText(file: string, text: string): DecodeResult {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const plain = readPlainDocuments(body);
  if (!plain) return composeText(file, body);
  let composed: DecodedValue[] | undefined;
  // The nodes, for the few checks that read them, from the yaml library's reading of the same text.
  const nodesOf = (k: number) => (): NodeView => {
    composed ??= composeText(file, body).values;
    const twin = composed[k];
    if (!twin || composed.length !== plain.length)
      throw new Error(
        `internal error: ${file} decoded into ${plain.length} values by events and ${composed.length} by the yaml library`,
      );
    return twin.nodeView();
  };
  return {
    values: plain.map(
      (doc, k) => new DecodedValue(doc.value, { file, line: doc.line }, nodesOf(k), doc.positions),
    ),
    issues: [],
  };
}

/**
 * {@link decodeText} by the `yaml` library alone (no fast path): the reading that reports every
 * problem, and the one the fast path is checked against in the tests. `options`: kubectl's YAML
 * (default), or YAML 1.2's core schema for spread's own files ({@link decodeCoreBytes}).
 */
export function composeText(
  file: string,
  text: string,
  options: typeof PARSE_OPTIONS | typeof CORE_PARSE_OPTIONS = PARSE_OPTIONS,
): DecodeResult {
  const issues = new IssueList();
  const lineCounter = new LineCounter();
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const documents = parseAllDocuments(body, { lineCounter, ...options });
  const values: DecodedValue[] = [];
  const docs = Array.isArray(documents) ? documents : [];
  const lineOf = (node: Node | null | undefined): number =>
    node?.range ? lineCounter.linePos(node.range[0]).line : 0;
  for (const doc of docs) {
    for (const e of doc.errors) {
      const named = e.code === 'DUPLICATE_KEY' ? duplicateKeyAt(doc, e.pos[0], lineCounter) : undefined;
      if (named) issues.error({ file, line: named.line }, named.message);
      else issues.error({ file, line: lineCounter.linePos(e.pos[0]).line }, `YAML: ${firstLine(e.message)}`);
    }
    for (const w of doc.warnings) {
      issues.warning({ file, line: lineCounter.linePos(w.pos[0]).line }, `YAML: ${firstLine(w.message)}`);
    }
  }
  if (issues.hasErrors) return { values: [], issues: issues.issues };
  // Most documents take the one-walk path; the others are checked and converted as before.
  const plain = docs.map((doc) => (doc.contents ? plainValueOf(doc.contents) : undefined));
  docs.forEach((doc, i) => {
    if (plain[i] === undefined)
      checkJsonForm(doc, lineOf, (node, message) => issues.error({ file, line: lineOf(node) }, message));
  });
  if (issues.hasErrors) return { values: [], issues: issues.issues };
  docs.forEach((doc, i) => {
    const node = doc.contents;
    if (!node) return;
    const value = plain[i]
      ? plain[i].value
      : generalValue(doc, (message) => {
          // An unresolved alias is thrown while the value is built: say which and where.
          const aliases = message.includes('Unresolved alias')
            ? unresolvedAliases(docs, i, body, lineCounter)
            : [];
          if (aliases.length === 0) issues.error({ file, line: lineOf(node) }, message);
          for (const a of aliases) issues.error({ file, line: a.line }, a.message);
        });
    if (value === null || value === undefined) return;
    values.push(
      new DecodedValue(
        value,
        { file, line: lineOf(node) },
        { node: node as Node, document: doc, lineCounter },
      ),
    );
  });
  return { values, issues: issues.issues };
}

/** A document's value through the library's toJS (aliases, `<<` merges); undefined after `error`. */
function generalValue(doc: Document.Parsed, error: (message: string) => void): unknown {
  let value: unknown;
  try {
    value = jsonValue(doc.toJS({ maxAliasCount: 1000, mapAsMap: true }));
  } catch (e) {
    error(`YAML: ${firstLine((e as Error).message)}`);
    return undefined;
  }
  flattenStrings(value, new Set());
  return value;
}

/**
 * Reports what has no JSON form for kubectl (`.inf`/`.nan` values; null, uint64 and collection keys)
 * and the mappings spread refuses on purpose: two keys giving one JSON key, and a key before a `<<`
 * that merges the same key.
 */
function checkJsonForm(
  doc: Document.Parsed,
  lineOf: (node: Node | null | undefined) => number,
  error: (node: Node | null | undefined, message: string) => void,
): void {
  visit(doc, {
    Scalar(key, node) {
      if (key !== 'key' && typeof node.value === 'number' && !Number.isFinite(node.value))
        error(
          node,
          `${node.source ?? String(node.value)} is read as ${String(node.value)}, which JSON cannot hold (kubectl fails on it too); quote it if it is a string`,
        );
    },
    Map(_key, map) {
      const seen = new Map<string, Node>();
      for (const pair of map.items as Pair[]) {
        const keyNode = pair.key as Node | null;
        if (isMergeKey(keyNode)) {
          const merged = mergedKeys(doc, pair.value as Node | null, new Set());
          for (const [name, own] of seen) {
            if (merged.has(name))
              error(
                own,
                `key ${name} is written before a << merge that also sets it: kubectl (go-yaml v2) keeps the merged value, the YAML merge spec this one; write << first`,
              );
          }
        } else if (isScalar(keyNode)) {
          const problem = keyProblem(keyNode.value);
          if (problem) {
            error(keyNode, `${problem} (kubectl fails on it too)`);
            continue;
          }
          const name = jsonKey(keyNode.value);
          const before = seen.get(name);
          if (before) error(keyNode, `key ${name} is the same JSON key as the one on line ${lineOf(before)}`);
          seen.set(name, keyNode);
        } else if (keyNode) {
          error(keyNode, keyProblem({}) ?? 'invalid mapping key');
        }
      }
    },
  });
}

/** The JSON keys a `<<` merge value (a mapping, an alias of one, or a sequence of them) provides. */
function mergedKeys(doc: Document.Parsed, node: Node | null | undefined, seen: Set<Node>): Set<string> {
  const keys = new Set<string>();
  let target = node;
  for (let i = 0; i < 100 && target && isAlias(target); i++) target = target.resolve(doc);
  if (!target || seen.has(target)) return keys;
  seen.add(target);
  const sources = isSeq(target) ? (target.items as Node[]) : [target];
  for (const source of sources) {
    let map: Node | undefined = source;
    for (let i = 0; i < 100 && map && isAlias(map); i++) map = map.resolve(doc);
    if (!isMap(map)) continue;
    for (const pair of map.items) {
      if (isMergeKey(pair.key)) for (const k of mergedKeys(doc, pair.value as Node, seen)) keys.add(k);
      else if (isScalar(pair.key)) keys.add(jsonKey(pair.key.value));
    }
  }
  return keys;
}

/** Flattens (see {@link flatten}) every string in a decoded value; `seen` stops at aliased objects met before. */
function flattenStrings(value: unknown, seen: Set<object>): void {
  if (typeof value === 'string') flatten(value);
  else if (typeof value === 'object' && value !== null && !seen.has(value)) {
    seen.add(value);
    for (const item of Array.isArray(value) ? value : Object.values(value)) flattenStrings(item, seen);
  }
}

function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '').trim();
}

/** True for a plain object (a YAML mapping), as opposed to a sequence, scalar or null. */
export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Flattens `kind: List` (and `*List` kinds such as `ServiceList` that kubectl also accepts) into
 * their items, each keeping its own line. Values that are not mappings are reported.
 */
export function flattenLists(values: readonly DecodedValue[], issues: IssueList): DecodedValue[] {
  const out: DecodedValue[] = [];
  for (const v of values) {
    if (!isMapping(v.value)) {
      issues.error(v.source, `expected a Kubernetes object (a mapping), found ${describeDocument(v.value)}`);
      continue;
    }
    const kind = v.value.kind;
    if (typeof kind === 'string' && kind.endsWith('List') && Array.isArray(v.value.items)) {
      const seq = v.nodeAt(['items']);
      v.value.items.forEach((item, i) => {
        const node = seq && isSeq(seq) ? (seq.items[i] as Node | undefined) : undefined;
        const child = node ? v.child(item, v.resolve(node)) : undefined;
        if (!child) return;
        out.push(...flattenLists([child], issues));
      });
      continue;
    }
    out.push(v);
  }
  return out;
}

/** Strings longer than this are described by their length, never quoted. */
const QUOTED_STRING_MAX = 40;

/**
 * A short description of a value's YAML type for messages: `a sequence`, `nothing (null)`, a
 * number or a short one-line string quoted (`a string ("yes")`), a longer string by its length only.
 */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing (null)';
  if (Array.isArray(value)) return 'a sequence';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string' && (value.length > QUOTED_STRING_MAX || /[\r\n]/.test(value)))
    return `a string of ${value.length} characters`;
  if (typeof value === 'bigint') return `a number (${value})`;
  return `a ${typeof value} (${JSON.stringify(value)})`;
}

/**
 * What a whole document is, for a file whose document is not a mapping: its type, never its text.
 * Such a file may be anything a symlink or a mistake brought in (a token, a private key), and a plan
 * on a pull request prints its errors to a public log.
 */
export function describeDocument(value: unknown): string {
  if (typeof value === 'string')
    return `a string of ${value.length} characters (a file that is not YAML objects?)`;
  if (typeof value === 'number' || typeof value === 'bigint') return 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  return describeValue(value);
}
