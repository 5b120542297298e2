import {
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseAllDocuments,
} from 'yaml';
import { type InputIssue, IssueList, type Source } from './source.js';

/** A path into a decoded value: mapping keys and sequence indexes, e.g. `['spec', 'containers', 0]`. */
export type ValuePath = readonly (string | number)[];

/**
 * One decoded YAML or JSON value (a document, or an item of a `kind: List`) with the positions
 * needed to report problems at the right line: the parsed `yaml` node and the file's LineCounter.
 */
export class DecodedValue {
  /** The plain JS value (mappings are objects, sequences arrays); aliases and `<<` merges resolved. */
  readonly value: unknown;
  /** The file (relative to the input root) and the 1-based line where the value starts. */
  readonly source: Source;
  /** The `yaml` node of the value; use {@link lineOfNode} to turn one of its descendants into a line. */
  readonly node: Node;
  private readonly lineCounter: LineCounter;
  private readonly document: Document.Parsed;

  constructor(value: unknown, file: string, node: Node, document: Document.Parsed, lineCounter: LineCounter) {
    this.value = value;
    this.node = node;
    this.document = document;
    this.lineCounter = lineCounter;
    this.source = { file, line: this.lineOfNode(node) };
  }

  /** The 1-based line where `node` (a descendant of {@link node}) starts; 0 when it has no position. */
  lineOfNode(node: Node): number {
    const offset = node.range?.[0];
    return offset === undefined ? 0 : this.lineCounter.linePos(offset).line;
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

  /**
   * The line of the value at `path`, or of its deepest existing ancestor when the path does not exist
   * (so an error about a missing field points at the object that lacks it).
   */
  lineAt(path: ValuePath): number {
    for (let n = path.length; n >= 0; n--) {
      const node = this.nodeAt(path.slice(0, n));
      if (node) {
        const line = this.lineOfNode(node);
        if (line > 0) return line;
      }
    }
    return this.source.line;
  }

  /** A value below this one (e.g. a List item or a container) sharing this value's file positions. */
  child(value: unknown, node: Node): DecodedValue {
    return new DecodedValue(value, this.source.file, node, this.document, this.lineCounter);
  }

  /** The value at `path` as a DecodedValue of its own; undefined when the path does not exist. */
  at(path: ValuePath): DecodedValue | undefined {
    const node = this.nodeAt(path);
    if (!node) return undefined;
    let value: unknown = this.value;
    for (const key of path) {
      if (typeof value !== 'object' || value === null) return undefined;
      value = (value as Record<string | number, unknown>)[key];
    }
    return value === undefined ? undefined : this.child(value, node);
  }

  /** {@link lineAt} as a Source in this value's file. */
  sourceAt(path: ValuePath): Source {
    return { file: this.source.file, line: this.lineAt(path) };
  }

  /** Follows an alias to the node it names. */
  resolve(node: Node): Node {
    let current: Node = node;
    for (let i = 0; i < 100 && isAlias(current); i++) {
      const target = current.resolve(this.document);
      if (!target) break;
      current = target;
    }
    return current;
  }
}

/** True when `key` is the YAML 1.1 merge key `<<` (the `yaml` library resolves it to a symbol). */
export function isMergeKey(key: unknown): boolean {
  return isScalar(key) && (key.source === '<<' || key.value === '<<' || typeof key.value === 'symbol');
}

function childNode(node: Node, key: string | number, resolve: (n: Node) => Node): Node | undefined {
  if (isSeq(node)) {
    const item = typeof key === 'number' ? node.items[key] : undefined;
    return item as Node | undefined;
  }
  if (!isMap(node)) return undefined;
  for (const pair of node.items) {
    if (isScalar(pair.key) && !isMergeKey(pair.key) && String(pair.key.value) === String(key)) {
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
 * Checks that a file is UTF-8 text and returns it without a byte-order mark.
 * Rejects UTF-16 (BOM `FF FE`/`FE FF`, or NUL bytes between characters) and binary content, since
 * YAML readers in the Kubernetes toolchain accept only UTF-8 in practice.
 *
 * @returns the text, or an error message naming what the file looks like.
 */
export function textOf(bytes: Uint8Array): { text: string } | { error: string } {
  if (
    bytes.length >= 2 &&
    ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
  ) {
    return { error: 'is UTF-16 encoded; save it as UTF-8' };
  }
  const nul = bytes.indexOf(0);
  if (nul >= 0) {
    // ASCII text saved as UTF-16 without a BOM has a NUL beside every character.
    let nuls = 0;
    const sample = Math.min(bytes.length, 512);
    for (let i = 0; i < sample; i++) if (bytes[i] === 0) nuls++;
    return nuls * 3 >= sample
      ? { error: 'looks UTF-16 encoded (NUL bytes between characters); save it as UTF-8' }
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

/**
 * Decodes multi-document YAML (JSON is read as the YAML it is) into one value per non-empty
 * document. Empty and comment-only documents are skipped. CRLF line ends and a leading BOM are
 * accepted. Duplicate mapping keys are errors (the `yaml` library's `uniqueKeys`, as the API
 * server's strict decoding rejects them); `<<` merge keys and anchors work as in YAML 1.1.
 *
 * Errors: YAML syntax errors as `file:line` issues; the documents of a file with a syntax error are
 * not returned, so a half-read file is never deployed.
 */
export function decodeText(file: string, text: string): DecodeResult {
  const issues = new IssueList();
  const lineCounter = new LineCounter();
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const documents = parseAllDocuments(body, {
    lineCounter,
    merge: true,
    uniqueKeys: true,
    prettyErrors: false,
  });
  const values: DecodedValue[] = [];
  const docs = Array.isArray(documents) ? documents : [];
  for (const doc of docs) {
    for (const e of doc.errors) {
      issues.error({ file, line: lineCounter.linePos(e.pos[0]).line }, `YAML: ${firstLine(e.message)}`);
    }
    for (const w of doc.warnings) {
      issues.warning({ file, line: lineCounter.linePos(w.pos[0]).line }, `YAML: ${firstLine(w.message)}`);
    }
  }
  if (issues.hasErrors) return { values: [], issues: issues.issues };
  for (const doc of docs) {
    const node = doc.contents;
    if (!node) continue;
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 1000 });
    } catch (e) {
      const line = node.range ? lineCounter.linePos(node.range[0]).line : 0;
      issues.error({ file, line }, `YAML: ${firstLine((e as Error).message)}`);
      continue;
    }
    if (value === null || value === undefined) continue;
    values.push(new DecodedValue(value, file, node as Node, doc, lineCounter));
  }
  return { values, issues: issues.issues };
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
      issues.error(v.source, `expected a Kubernetes object (a mapping), found ${describeValue(v.value)}`);
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

/** A short description of a value's YAML type for messages: `a string`, `a sequence`, `null`. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing (null)';
  if (Array.isArray(value)) return 'a sequence';
  if (typeof value === 'object') return 'a mapping';
  return `a ${typeof value} (${JSON.stringify(value)})`;
}
