// Plain manifests (DESIGN "Other inputs"): a YAML or JSON file the convention does not name is read
// as `kubectl apply -f DIR -R` reads it. Deployed when every document is a Kubernetes object, listed
// as not deployed when none is (a compose file, CI configuration, a template), an error when it
// mixes the two or does not parse: a file is never skipped silently.
import { readFileSync } from 'node:fs';
import type { IssueList } from '../base/source.js';
import {
  type DecodedValue,
  decodeBytes,
  describeDocument,
  flattenLists,
  isMapping,
} from '../decode/decode.js';
import { checkStringFields } from '../decode/traps.js';
import type { EntityFile, ObjectValue } from '../entity/build.js';
import type { NotDeployedFile } from '../entity/entity.js';
import { isControllerKind } from '../entity/kinds.js';

/** What a plain file gave: its objects (controllers and Pods as entities), or why nothing of it is deployed. */
export type PlainFile =
  | { readonly entities: EntityFile[]; readonly objects: ObjectValue[] }
  | { readonly notDeployed: NotDeployedFile }
  | undefined;

/**
 * Why a document is not a Kubernetes object (`no kind`, `a sequence`): it lacks `apiVersion` or
 * `kind`, the fields kubectl's decoder maps a document to a resource by. Undefined when it is one.
 */
function missing(value: unknown): string | undefined {
  if (!isMapping(value)) return describeDocument(value);
  const lacks = ['apiVersion', 'kind'].filter((k) => value[k] === undefined || value[k] === null);
  return lacks.length === 0 ? undefined : `no ${lacks.join(' or ')}`;
}

/**
 * Reads one file the convention does not name. Returns undefined when it cannot be read or
 * does not parse (the errors, with file and line, are in `issues`).
 *
 * @param rel the file relative to the input root, for sources and messages.
 */
export function readPlainFile(abs: string, rel: string, issues: IssueList): PlainFile {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(abs);
  } catch (e) {
    issues.error({ file: rel, line: 0 }, `cannot read file: ${(e as Error).message}`);
    return undefined;
  }
  const decoded = decodeBytes(rel, bytes);
  if (decoded.issues.some((i) => i.severity === 'error')) {
    issues.add(decoded.issues);
    return undefined;
  }
  const docs = decoded.values;
  if (docs.length === 0) return { notDeployed: { file: rel, reason: 'empty' } };
  const lacks = docs.map((d) => missing(d.value));
  const firstObject = lacks.indexOf(undefined);
  if (firstObject < 0) return { notDeployed: { file: rel, reason: lacks[0] as string } };
  const bad = lacks.findIndex((l) => l !== undefined);
  if (bad >= 0) {
    const doc = docs[bad] as DecodedValue;
    issues.error(
      doc.source,
      `document ${bad + 1} is not a Kubernetes object (${lacks[bad]}) but document ${firstObject + 1} is: a file of plain manifests holds only objects (give it apiVersion and kind, or move it to a file of its own, which is then not deployed)`,
    );
    return undefined;
  }
  issues.add(decoded.issues);
  const entities: EntityFile[] = [];
  const objects: ObjectValue[] = [];
  for (const value of flattenLists(docs, issues)) {
    checkStringFields(value, 'object', issues);
    const kind = isMapping(value.value) ? value.value.kind : undefined;
    // As in a manifest: controllers and Pods are entities (their "&" images are built), never
    // paired or defaulted by file names; the lines only, so the YAML document can be collected.
    if (isControllerKind(kind) || kind === 'Pod') entities.push({ kind, value: value.compact() });
    else objects.push({ value: value.value, source: value.source });
  }
  return { entities, objects };
}
