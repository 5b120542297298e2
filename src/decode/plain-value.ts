// The JSON value of a composed `yaml` document in one walk, for documents without aliases or merge keys:
// the library's own conversion took a third of the decode time of a large file and most of its garbage.
import { isMap, isScalar, isSeq, type Node } from 'yaml';
import { flatten } from './flatten.js';
import { jsonKey, jsonValue, keyProblem } from './kubectl-yaml.js';

/**
 * The JSON-ready value of a composed `yaml` node, in one walk over the nodes, for the common
 * document: no alias, no `<<` merge key, nothing {@link checkJsonForm} in decode.ts would report.
 * The result equals `jsonValue(doc.toJS({ mapAsMap: true }))` with every string flattened, but
 * without the library's intermediate Maps, the second copy jsonValue makes of them, the visit of
 * checkJsonForm and flattenStrings' set of every object: a third of the time of decoding a large
 * file, and most of the garbage that pushed its peak memory up (bench/RESULTS.md, "Large inputs, deployed").
 *
 * @returns `{ value }`, or undefined when the document needs the general path (an alias, a merge
 *   key, a key or value without a JSON form, two keys giving one JSON key): that path decodes it
 *   and reports its problems as before.
 */
export function plainValueOf(node: Node | null | undefined): { value: unknown } | undefined {
  try {
    return { value: convert(node) };
  } catch (e) {
    if (e === GENERAL) return undefined;
    throw e;
  }
}

/** Thrown (never escaping {@link plainValueOf}) when the general path must decode the document. */
const GENERAL = Symbol('general path');

function convert(node: Node | null | undefined): unknown {
  if (node === null || node === undefined) return null;
  if (isScalar(node)) {
    const value = node.value;
    if (typeof value === 'string') return flatten(value);
    if (typeof value === 'number' && !Number.isFinite(value)) throw GENERAL;
    return jsonValue(value);
  }
  if (isMap(node)) {
    const out: Record<string, unknown> = {};
    for (const pair of node.items) {
      const key = pair.key as Node | null;
      // A merge key (`<<`, a symbol once resolved) or a key that is not a plain JSON key.
      if (!isScalar(key) || typeof key.value === 'symbol' || key.source === '<<' || key.value === '<<')
        throw GENERAL;
      if (keyProblem(key.value) !== undefined) throw GENERAL;
      // The general path keys a JS Map, which makes -0 the key 0.
      const name = flatten(jsonKey(Object.is(key.value, -0) ? 0 : key.value));
      if (Object.hasOwn(out, name)) throw GENERAL;
      const value = convert(pair.value as Node | null);
      // A plain assignment of `__proto__` would set the prototype instead of a key.
      if (name === '__proto__')
        Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
      else out[name] = value;
    }
    return out;
  }
  if (isSeq(node)) {
    const out = new Array<unknown>(node.items.length);
    for (let i = 0; i < out.length; i++) out[i] = convert(node.items[i] as Node | null);
    return out;
  }
  // An alias, or a node kind the general path knows better.
  throw GENERAL;
}
