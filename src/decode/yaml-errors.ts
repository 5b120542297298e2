// The `yaml` library's errors that say what failed but not where or which: a duplicate key
// ("Map keys must be unique", at the key but without its name) and an unresolved alias (thrown while
// the value is built, so placed at the document's first line). These find the key's name and the
// alias's own line, and say when an alias names an anchor of another document of the file.
import { type Document, isAlias, isNode, isScalar, type LineCounter, type Node, visit } from 'yaml';
import { jsonKey } from './kubectl-yaml.js';

/** A problem at a line of the file. */
export interface LinedMessage {
  readonly line: number;
  readonly message: string;
}

/**
 * The duplicate key the library's DUPLICATE_KEY error at offset `pos` is about: `key app is
 * written twice in one mapping (lines 4 and 5); kubectl would keep the last silently, spread refuses
 * both: remove one`. Undefined when no key starts there.
 */
export function duplicateKeyAt(
  doc: Document.Parsed,
  pos: number,
  lineCounter: LineCounter,
): LinedMessage | undefined {
  let found: LinedMessage | undefined;
  const lineAt = (n: Node) => (n.range ? lineCounter.linePos(n.range[0]).line : 0);
  visit(doc, {
    Map(_key, map) {
      const seen = new Map<string, Node>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        const name = jsonKey(pair.key.value);
        const first = seen.get(name);
        if (first && pair.key.range?.[0] === pos) {
          found = {
            line: lineAt(pair.key),
            message: `YAML: key ${name} is written twice in one mapping (lines ${lineAt(first)} and ${lineAt(pair.key)}); kubectl would keep the last silently, spread refuses both: remove one`,
          };
          return visit.BREAK;
        }
        if (!first) seen.set(name, pair.key);
      }
      return undefined;
    },
  });
  return found;
}

/**
 * The aliases of document `k` that name no anchor before them, each at its own line: one that names
 * an anchor of another document of the file says so (anchors do not reach across `---`), one whose
 * anchor comes later in its document says that.
 */
export function unresolvedAliases(
  docs: readonly Document.Parsed[],
  k: number,
  text: string,
  lineCounter: LineCounter,
): LinedMessage[] {
  const doc = docs[k];
  if (!doc) return [];
  const lineAt = (n: Node) => (n.range ? lineCounter.linePos(n.range[0]).line : 0);
  // A collection's range starts at its first item, below the line of its `&name`.
  const anchorLine = (n: Node, name: string) => {
    const at = n.range ? text.lastIndexOf(`&${name}`, n.range[0]) : -1;
    return at >= 0 ? lineCounter.linePos(at).line : lineAt(n);
  };
  const out: LinedMessage[] = [];
  visit(doc, {
    Alias(_key, alias) {
      if (alias.resolve(doc)) return;
      const name = alias.source;
      const later = anchorIn(doc, name);
      const other = later ? undefined : docs.findIndex((d, i) => i !== k && anchorIn(d, name));
      const where =
        later !== undefined
          ? `comes before its anchor &${name} (line ${anchorLine(later, name)}): set the anchor before its first alias`
          : other !== undefined && other >= 0
            ? `names the anchor &${name} of another document of this file (line ${anchorLine(anchorIn(docs[other]!, name)!, name)}): anchors do not reach across ---, so repeat the anchored value in this document`
            : `names no anchor: there is no &${name} in this file`;
      out.push({ line: lineAt(alias), message: `YAML: alias *${name} ${where}` });
    },
  });
  return out;
}

/** The node anchored `name` in `doc`, if any. */
function anchorIn(doc: Document.Parsed, name: string): Node | undefined {
  let found: Node | undefined;
  visit(doc, (_key, node) => {
    if (isNode(node) && !isAlias(node) && node.anchor === name) {
      found = node;
      return visit.BREAK;
    }
    return undefined;
  });
  return found;
}
