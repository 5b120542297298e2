// Warnings about an object set that is valid but probably not what was meant (a Service selecting
// nothing, an image without a tag or on `:latest`), found without a cluster.
import type { SourcedObject } from '../base/kube-object.js';
import { KUBERNETES } from '../base/labels.js';
import { splitReference } from '../base/reference.js';
import type { Source } from '../base/source.js';
import { CONTAINER_LISTS, podSpecOf } from '../base/workload.js';

/** A warning about an object that is valid but probably not what was meant, with its place. */
export interface ObjectWarning {
  readonly message: string;
  /** The object's file (relative to the deployed directory) and line. */
  readonly source: Source;
}

/**
 * Warnings about an object set, without a cluster:
 *
 * - A Service with no selector (other than `type: ExternalName`) and no Endpoints or EndpointSlice
 *   of its own in the set: it routes to nothing (Kubernetes "Services without selectors").
 * - A container image with no tag and no digest, or tagged `:latest`: what runs changes without the
 *   directory changing, and the kubelet pulls it on every start (imagePullPolicy defaults to Always).
 *   Images marked `&` are built and pinned by digest, so they are skipped.
 *
 * Call it on `readDeployment(...).objects` and log each warning with its place, e.g. in the core's
 * deploy after Read: `for (const w of objectWarnings(read.objects)) logger.warn(w.message, w.source)`.
 */
export function objectWarnings(objects: readonly SourcedObject[]): ObjectWarning[] {
  const out: ObjectWarning[] = [];
  const endpointsFor = new Set<string>();
  for (const { object } of objects) {
    const ns = object.metadata.namespace ?? '';
    if (object.kind === 'Endpoints' && object.apiVersion === 'v1')
      endpointsFor.add(`${ns}/${object.metadata.name}`);
    if (object.kind === 'EndpointSlice') {
      const service = object.metadata.labels?.[KUBERNETES.serviceName];
      if (service) endpointsFor.add(`${ns}/${service}`);
    }
  }
  for (const { object, source } of objects) {
    const name = `${object.kind} ${object.metadata.name}`;
    if (object.kind === 'Service' && object.apiVersion === 'v1') {
      const spec = (object.spec ?? {}) as { selector?: Record<string, string>; type?: string };
      const selects = spec.selector && Object.keys(spec.selector).length > 0;
      const key = `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
      if (!selects && spec.type !== 'ExternalName' && !endpointsFor.has(key))
        out.push({
          message: `${name} has no selector and no Endpoints or EndpointSlice in the directory: it routes traffic to nothing`,
          source,
        });
    }
    for (const { container, image } of containerImages(object)) {
      const problem = floatingTag(image);
      if (problem)
        out.push({
          message: `${name}: container ${container} uses ${image === '' ? 'no image' : `"${image}"`}, ${problem}; pin a tag or digest so a deploy always runs what the directory says`,
          source,
        });
    }
  }
  return out;
}

/** Why an image reference floats (untagged or `:latest`), or undefined when it is pinned. */
export function floatingTag(image: string): string | undefined {
  if (image.startsWith('&')) return undefined;
  if (image === '') return 'which is empty';
  const { tag, digest } = splitReference(image);
  if (digest !== undefined) return undefined;
  if (tag === undefined) return 'which has no tag (so :latest)';
  if (tag === 'latest') return 'which is tagged :latest';
  return undefined;
}

/** Every container of a Pod or pod template (also a custom workload's `spec.template`), with its image. */
function containerImages(object: SourcedObject['object']): { container: string; image: string }[] {
  const spec = podSpecOf(object, { customKinds: true });
  if (!spec) return [];
  const out: { container: string; image: string }[] = [];
  for (const field of CONTAINER_LISTS) {
    const list = spec[field];
    if (!Array.isArray(list)) continue;
    for (const c of list as { name?: unknown; image?: unknown }[]) {
      if (typeof c !== 'object' || c === null) continue;
      out.push({ container: String(c.name ?? '?'), image: typeof c.image === 'string' ? c.image : '' });
    }
  }
  return out;
}
