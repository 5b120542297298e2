// Pins `&` images in an object set: each marked container image becomes the pushed reference with its
// digest, in every pod template, without changing the objects given.
import type { KubeObject, SourcedObject } from '../base/kube-object.js';
import { CONTAINER_LISTS, podSpecPath } from '../base/workload.js';

type Mapping = Record<string, unknown>;

function isMapping(v: unknown): v is Mapping {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Replaces container images in every pod spec of `object` (see {@link podSpecPath}): a container
 * whose `image` is a key of `images` gets the value. Returns the object itself when nothing changes,
 * else a changed deep copy; the input is never modified.
 */
export function rewriteImages(object: KubeObject, images: ReadonlyMap<string, string>): KubeObject {
  const path = podSpecPath(object.kind);
  if (!path || images.size === 0) return object;
  let spec: unknown = object;
  for (const key of path) spec = isMapping(spec) ? spec[key] : undefined;
  if (!isMapping(spec)) return object;
  const hits = CONTAINER_LISTS.some(
    (list) =>
      Array.isArray(spec[list]) &&
      (spec[list] as unknown[]).some(
        (c) => isMapping(c) && typeof c.image === 'string' && images.has(c.image),
      ),
  );
  if (!hits) return object;
  const copy = structuredClone(object);
  let copySpec: unknown = copy;
  for (const key of path) copySpec = (copySpec as Mapping)[key];
  for (const list of CONTAINER_LISTS) {
    const containers = (copySpec as Mapping)[list];
    if (!Array.isArray(containers)) continue;
    for (const c of containers) {
      if (isMapping(c) && typeof c.image === 'string') {
        const replacement = images.get(c.image);
        if (replacement !== undefined) c.image = replacement;
      }
    }
  }
  return copy;
}

/**
 * Pins images in an object set: every container image equal to a key of `images` (the `image` as
 * written, e.g. `&web` or `&web:v1`) becomes its value (`localhost:5000/team-a/web:v1@sha256:…`).
 * Pure: returns a new array; objects that change are deep copies, the others are the same objects.
 */
export function pinImages(
  objects: readonly SourcedObject[],
  images: ReadonlyMap<string, string>,
): SourcedObject[] {
  return objects.map((o) => {
    const object = rewriteImages(o.object, images);
    return object === o.object ? { ...o } : { ...o, object };
  });
}
