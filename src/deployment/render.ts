// `spread render`: an object set as the multi-document YAML it applies, in apply order, quoted so that
// kubectl reads the same values; identical sets render byte-identically.
import { Document, isMap, isScalar, isSeq } from 'yaml';
import { isCoreSecret, type KubeObject } from '../base/kube-object.js';
import { resolvesToNonString } from '../decode/traps.js';
import type { Deployment } from './deployment.js';
import { EMIT_OPTIONS, emitObject } from './emit.js';

/**
 * Renders a set as multi-document YAML, in apply order, exactly as it would be applied: keys in
 * authored order, no line folding, and every string that a YAML 1.1 or 1.2 reader could take for a
 * boolean, number or null (`yes`, `0755`, `1e3`, `~`) double-quoted, so the output means the same
 * to kubectl. Identical sets render byte-identically. Empty set: `''`.
 */
export function render(deployment: Deployment, options: RenderOptions = {}): string {
  return deployment
    .objects()
    .map(({ object }) => renderObject(options.showSecrets ? object : redactSecret(object)))
    .join('---\n');
}

/** Options of {@link render}. */
export interface RenderOptions {
  /** Print Secret values as they are; by default they are replaced by {@link REDACTED}. */
  readonly showSecrets?: boolean;
}

/** What a Secret value is replaced with in output. */
export const REDACTED = '<redacted>';

/**
 * A copy of a core/v1 Secret whose `data` and `stringData` values are replaced by {@link REDACTED}
 * (keys kept, so the shape stays reviewable); any other object is returned as it is.
 */
export function redactSecret(object: KubeObject): KubeObject {
  if (!isCoreSecret(object)) return object;
  const copy = { ...object };
  for (const field of ['data', 'stringData'] as const) {
    const values = object[field];
    if (values && typeof values === 'object') {
      copy[field] = Object.fromEntries(Object.keys(values).map((k) => [k, REDACTED]));
    }
  }
  return copy;
}

/**
 * One object as a YAML document (see {@link render}): written by {@link emitObject}, or by the `yaml`
 * library where emitObject leaves it (values other than plain data, shared objects, very long keys).
 */
export function renderObject(object: KubeObject): string {
  return emitObject(object) ?? renderWithLibrary(object);
}

/**
 * One object as a YAML document written by the `yaml` library's node tree: the reference that
 * {@link emitObject}'s output must equal byte for byte (test/unit/deployment/emit.test.ts).
 */
export function renderWithLibrary(object: KubeObject): string {
  const doc = new Document(object, { version: '1.2' });
  quoteAmbiguous(doc.contents);
  return doc.toString(EMIT_OPTIONS);
}

/**
 * Double-quotes every string scalar a YAML 1.1 or 1.2 reader could take for something else. A
 * plain recursion over the maps and sequences of a created document (no aliases, no tags): the
 * `yaml` library's generic `visit` cost a quarter of the render time (bench/RESULTS.md, "Input").
 */
function quoteAmbiguous(node: unknown): void {
  if (isScalar(node)) {
    if (typeof node.value === 'string' && resolvesToNonString(node.value)) node.type = 'QUOTE_DOUBLE';
  } else if (isMap(node)) {
    for (const pair of node.items) {
      quoteAmbiguous(pair.key);
      quoteAmbiguous(pair.value);
    }
  } else if (isSeq(node)) {
    for (const item of node.items) quoteAmbiguous(item);
  }
}
