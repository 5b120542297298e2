// Where a kustomize object's `&name` image marks were written (DESIGN "Images marked for building"):
// in the object's own file, or in a kustomization that set the image (an `images:` entry's newName,
// a patch). The image stage builds the directory of that file and names it in its messages.
import type { Source } from '../base/source.js';
import { isMapping, type LocatedValue, type ValuePath } from '../decode/decode.js';
import { pathKey } from '../decode/sourced-value.js';

/** The image fields of an object that hold a build mark (`&web`, `&web:v1`), wherever they are. */
export function markedImages(value: unknown, path: ValuePath = []): { path: ValuePath; mark: string }[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => markedImages(v, [...path, i]));
  if (!isMapping(value)) return [];
  return Object.entries(value).flatMap(([k, v]) =>
    k === 'image' && typeof v === 'string' && v.startsWith('&')
      ? [{ path: [...path, k], mark: v }]
      : markedImages(v, [...path, k]),
  );
}

/** The path of the first string scalar `test` accepts in a value, depth first; undefined when none. */
export function findString(
  value: unknown,
  test: (s: string) => boolean,
  path: ValuePath = [],
): ValuePath | undefined {
  if (typeof value === 'string') return test(value) ? path : undefined;
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : isMapping(value)
      ? Object.entries(value)
      : [];
  for (const [k, v] of entries) {
    const found = findString(v, test, [...path, k]);
    if (found) return found;
  }
  return undefined;
}

/** Whether an `images:` entry's newName makes the mark: `&web` for `&web`, `&web:v1`, `&web@sha256:…`. */
function namesMark(newName: string, mark: string): boolean {
  return mark === newName || mark.startsWith(`${newName}:`) || mark.startsWith(`${newName}@`);
}

/** A decoded file: its documents, each with lines. */
export interface DecodedFile {
  /** The file relative to the input root, for the sources. */
  readonly file: string;
  readonly documents: readonly LocatedValue[];
}

/** Reads files for {@link declaredMarks}: by a path relative to the rendered folder, undefined when unreadable. */
export type ReadDecoded = (folderPath: string) => DecodedFile | undefined;

/** The kustomization fields that list patches (a file path, or the patch inline). */
const PATCH_FIELDS = ['patches', 'patchesStrategicMerge', 'patchesJson6902'] as const;
/** The kustomization fields that list other kustomizations. */
const BASE_FIELDS = ['resources', 'bases', 'components'] as const;

/**
 * Where a mark was written among the kustomizations from the rendered folder down (the folder's own
 * first: kustomize runs an overlay's transformers after its bases', so the outermost that sets it
 * wins): an `images:` entry whose newName makes it, else a patch holding it (a patch file, or the
 * inline patch's line in the kustomization). `kustomization(dir)` gives the kustomization file of a
 * folder (relative to the rendered folder, POSIX), undefined when it has none.
 */
export function markInKustomizations(
  mark: string,
  read: ReadDecoded,
  kustomization: (dir: string) => string | undefined,
): Source | undefined {
  const seen = new Set<string>();
  const queue = ['.'];
  for (let dir = queue.shift(); dir !== undefined; dir = queue.shift()) {
    const name = kustomization(dir);
    if (name === undefined || seen.has(name)) continue;
    seen.add(name);
    const decoded = read(name);
    const doc = decoded?.documents[0];
    if (!decoded || !doc || !isMapping(doc.value)) continue;
    const found = markInKustomization(mark, doc, dir, read);
    if (found) return found;
    for (const field of BASE_FIELDS) {
      const list = doc.value[field];
      if (!Array.isArray(list)) continue;
      for (const entry of list)
        if (typeof entry === 'string' && !entry.includes('://')) queue.push(join(dir, entry));
    }
  }
  return undefined;
}

function join(dir: string, entry: string): string {
  const parts = `${dir}/${entry}`.split('/');
  const out: string[] = [];
  for (const p of parts) {
    if (p === '' || p === '.') continue;
    if (p === '..' && out.length > 0 && out.at(-1) !== '..') out.pop();
    else out.push(p);
  }
  return out.length === 0 ? '.' : out.join('/');
}

/** A mark in one kustomization: its `images:` entries, then its patches. */
function markInKustomization(
  mark: string,
  doc: LocatedValue,
  dir: string,
  read: ReadDecoded,
): Source | undefined {
  const value = doc.value as Record<string, unknown>;
  const images = Array.isArray(value.images) ? value.images : [];
  const entry = images.findIndex(
    (e) => isMapping(e) && typeof e.newName === 'string' && namesMark(e.newName, mark),
  );
  if (entry >= 0) return doc.sourceAt(['images', entry, 'newName']);
  for (const field of PATCH_FIELDS) {
    const list = Array.isArray(value[field]) ? (value[field] as unknown[]) : [];
    for (const [i, patch] of list.entries()) {
      const inline = typeof patch === 'string' ? patch : isMapping(patch) ? patch.patch : undefined;
      const file = typeof patch === 'string' ? patch : isMapping(patch) ? patch.path : undefined;
      if (typeof inline === 'string' && inline.includes(mark)) return doc.sourceAt([field, i]);
      if (typeof file !== 'string') continue;
      const decoded = read(join(dir, file));
      for (const d of decoded?.documents ?? []) {
        const at = findString(d.value, (s) => s === mark);
        if (at) return d.sourceAt(at);
      }
    }
  }
  return undefined;
}

/**
 * Where each mark of a rendered object was written, by {@link pathKey} of its path in the object: at
 * the same place in the object's own document when it holds the mark there, else in the
 * kustomizations ({@link markInKustomizations}); marks found nowhere are left out (the object's
 * source stands for them).
 */
export function declaredMarks(
  object: unknown,
  own: LocatedValue | undefined,
  inKustomizations: (mark: string) => Source | undefined,
): Map<string, Source> {
  const declared = new Map<string, Source>();
  for (const { path, mark } of markedImages(object)) {
    const here = own?.at(path);
    const anywhere = own ? findString(own.value, (s) => s === mark) : undefined;
    const source =
      here && here.value === mark
        ? own?.sourceAt(path)
        : (inKustomizations(mark) ?? (anywhere ? own?.sourceAt(anywhere) : undefined));
    if (source) declared.set(pathKey(path), source);
  }
  return declared;
}
