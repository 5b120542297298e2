// Which overlay patches changed a rendered object. kustomize's `transformerAnnotations` name the
// kustomization whose patch transformers ran over an object, but not the patch (v5.8.2 lists every
// patch transformer of that kustomization on every object it built); so each patch entry listed
// there is matched against the object as kustomize matches it: its target, else the kind and name
// of the patch's own documents. The result is where each patch is written. No I/O.
import path from 'node:path';
import type { Source } from '../base/source.js';
import { type DecodedValue, isMapping } from '../decode/decode.js';
import type { Origin } from './kustomize-origin.js';

/** The transformers that apply a kustomization's patches (`patches`, and the deprecated fields). */
const PATCH_TRANSFORMERS = new Set([
  'PatchTransformer',
  'PatchStrategicMergeTransformer',
  'PatchJson6902Transformer',
]);

/** Reads files for {@link patchSources}: paths relative to the rendered folder. */
export interface PatchFiles {
  /** The documents of a file, their sources relative to the input root; none when unreadable. */
  documents(relative: string): DecodedValue[];
}

/** The object a patch may change: its GroupKind and its names (as written in its base, and as rendered). */
export interface PatchedObject {
  readonly apiVersion: unknown;
  readonly kind: unknown;
  readonly names: readonly string[];
  readonly namespace?: unknown;
  /** Its labels and annotations as rendered, for a target's label and annotation selectors. */
  readonly labels?: Readonly<Record<string, unknown>>;
  readonly annotations?: Readonly<Record<string, unknown>>;
}

/**
 * The patches that changed an object, in the order kustomize applied them (bases first): a patch
 * file at the document that matched (`overlays/prod/replicas.yaml:1`), or for an inline patch its
 * entry in the kustomization (`overlays/prod/kustomization.yaml:7`).
 *
 * @param transformations the object's `alpha.config.kubernetes.io/transformations`, paths relative
 * to the rendered folder.
 */
export function patchSources(
  object: PatchedObject,
  transformations: readonly Origin[],
  files: PatchFiles,
): Source[] {
  const kustomizations = [
    ...new Set(
      transformations
        .filter((t) => t.configuredIn && !t.repo && PATCH_TRANSFORMERS.has(t.configuredBy?.kind ?? ''))
        .map((t) => t.configuredIn as string),
    ),
  ];
  const found: Source[] = [];
  for (const file of kustomizations) {
    const doc = files.documents(file)[0];
    const value = doc?.value;
    if (!doc || !isMapping(value)) continue;
    const dir = path.posix.dirname(file);
    const entries = (field: string) => (Array.isArray(value[field]) ? (value[field] as unknown[]) : []);
    entries('patchesStrategicMerge').forEach((e, i) => {
      const at = entryPatch(typeof e === 'string' ? e : undefined, undefined, dir, object, files);
      found.push(...(at === 'inline' ? [doc.sourceAt(['patchesStrategicMerge', i])] : at));
    });
    for (const field of ['patches', 'patchesJson6902'])
      entries(field).forEach((e, i) => {
        if (!isMapping(e)) return;
        if (isMapping(e.target) && !targetMatches(e.target, object)) return;
        const text = typeof e.path === 'string' ? e.path : typeof e.patch === 'string' ? e.patch : undefined;
        const at = entryPatch(text, isMapping(e.target) ? e.target : undefined, dir, object, files);
        found.push(...(at === 'inline' ? [doc.sourceAt([field, i])] : at));
      });
  }
  return found;
}

/**
 * Where one patch entry changed the object: the matching documents of its file, `inline` for a patch
 * written in the kustomization (or a targeted one, which changed the object as a whole), none when it
 * does not apply to it.
 */
function entryPatch(
  text: string | undefined,
  target: Record<string, unknown> | undefined,
  dir: string,
  object: PatchedObject,
  files: PatchFiles,
): Source[] | 'inline' {
  if (text === undefined) return [];
  // kustomize reads a value with a newline as the patch itself, else as a file path.
  const file = text.includes('\n') ? undefined : path.posix.normalize(path.posix.join(dir, text));
  const documents = file ? files.documents(file) : [];
  if (target) {
    const first = documents[0];
    return first ? [{ file: first.source.file, line: first.source.line }] : 'inline';
  }
  if (!file) return inlineMatches(text, object) ? 'inline' : [];
  return documents
    .filter((d) => patchNames(d.value, object))
    .map((d) => ({ file: d.source.file, line: d.source.line }));
}

/** Whether a strategic merge patch document names the object (its kind, and one of its names). */
function patchNames(value: unknown, object: PatchedObject): boolean {
  if (!isMapping(value) || value.kind !== object.kind || !isMapping(value.metadata)) return false;
  const name = value.metadata.name;
  return typeof name === 'string' && object.names.some((n) => n.includes(name));
}

/** An inline strategic merge patch without a target: whether its `kind:` and `name:` lines name the object. */
function inlineMatches(text: string, object: PatchedObject): boolean {
  const kind = /^kind:\s*(\S+)\s*$/m.exec(text)?.[1];
  const name = /^\s+name:\s*["']?([^"'\s]+)["']?\s*$/m.exec(text)?.[1];
  return kind === object.kind && name !== undefined && object.names.some((n) => n.includes(name));
}

/**
 * kustomize's patch target selector (api/types/selector.go): `kind`, `name`, `namespace`, `group`,
 * `version` are anchored regular expressions; `labelSelector` and `annotationSelector` are checked
 * against the rendered object's (an overlay adds labels after its patches, rarely removes one), their
 * equality terms only: a set-based term (`in`, `notin`) counts as matching.
 */
function targetMatches(target: Record<string, unknown>, object: PatchedObject): boolean {
  const matches = (pattern: unknown, value: string) => {
    if (typeof pattern !== 'string' || pattern === '') return true;
    try {
      return new RegExp(`^(?:${pattern})$`).test(value);
    } catch {
      return pattern === value;
    }
  };
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
  return (
    matches(target.kind, String(object.kind ?? '')) &&
    matches(target.group, group ?? '') &&
    matches(target.version, version ?? '') &&
    matches(target.namespace, typeof object.namespace === 'string' ? object.namespace : '') &&
    (typeof target.name !== 'string' || object.names.some((n) => matches(target.name, n))) &&
    selects(target.labelSelector, object.labels) &&
    selects(target.annotationSelector, object.annotations)
  );
}

/** Whether a selector's equality terms (`k=v`, `k==v`, `k!=v`, `k`, `!k`) hold for a map. */
function selects(selector: unknown, map: Readonly<Record<string, unknown>> | undefined): boolean {
  if (typeof selector !== 'string' || selector.trim() === '') return true;
  const values = map ?? {};
  return selector.split(/,(?![^(]*\))/).every((term) => {
    const t = term.trim();
    if (/\s(not)?in\s*\(/.test(t)) return true;
    const m = /^([^!=\s]+)\s*(!=|==|=)\s*(.*)$/.exec(t);
    if (m) return (values[m[1]!] === m[3]) === (m[2] !== '!=');
    return t.startsWith('!') ? !(t.slice(1) in values) : t in values;
  });
}

/**
 * Where an overlay set the object's annotations: the `commonAnnotations` of each kustomization whose
 * AnnotationsTransformer ran over it (its `transformations`, bases first, so an overlay's value wins),
 * at the key's line, for the keys whose rendered value is the one written there. Without the
 * transformations (a kustomize that does not give them), an annotation the object's own document
 * lacks or writes otherwise is placed at `folder` (the rendered folder's kustomization), line 0.
 */
export function annotationSources(
  object: PatchedObject,
  own: DecodedValue | undefined,
  transformations: readonly Origin[],
  files: PatchFiles,
  folder: Source,
): Record<string, Source> {
  const rendered = object.annotations ?? {};
  const found: Record<string, Source> = {};
  for (const t of transformations) {
    if (t.repo || !t.configuredIn || t.configuredBy?.kind !== 'AnnotationsTransformer') continue;
    const doc = files.documents(t.configuredIn)[0];
    const common = doc && isMapping(doc.value) ? doc.value.commonAnnotations : undefined;
    if (!doc || !isMapping(common)) continue;
    for (const [key, value] of Object.entries(common))
      if (rendered[key] !== undefined && String(rendered[key]) === String(value))
        found[key] = doc.sourceAt(['commonAnnotations', key]);
  }
  if (transformations.length > 0 || !own) return found;
  const meta = isMapping(own.value) && isMapping(own.value.metadata) ? own.value.metadata : {};
  const written = isMapping(meta.annotations) ? meta.annotations : {};
  for (const [key, value] of Object.entries(rendered))
    if (found[key] === undefined && String(written[key]) !== String(value)) found[key] = folder;
  return found;
}
