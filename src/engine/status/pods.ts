// Small helpers the per-kind readers share to tell which pods a controller owns and whether its
// controller has seen its latest spec yet.
import type { KubeObject } from '../../base/kube-object.js';

/** Whether `owner` owns `pod` (by uid); an owner not yet stored (no uid) owns every pod given. */
export function ownedBy(pod: KubeObject, owner: KubeObject): boolean {
  const refs = (pod.metadata.ownerReferences ?? []) as { uid?: string }[];
  return owner.metadata.uid === undefined || refs.some((r) => r.uid === owner.metadata.uid);
}

/** The pods among `pods` that `owner` owns. */
export function ownedPods(owner: KubeObject, pods: readonly KubeObject[]): KubeObject[] {
  return pods.filter((p) => ownedBy(p, owner));
}

/** A label's value. */
export function labelOf(o: KubeObject, key: string): string | undefined {
  return o.metadata.labels?.[key];
}

/**
 * Whether a controller has not yet observed its object's generation (`status.observedGeneration`
 * set and below `metadata.generation`): the revision its status names is then the previous one.
 */
export function generationUnobserved(o: KubeObject): boolean {
  const observed = (o.status as { observedGeneration?: unknown } | undefined)?.observedGeneration;
  return typeof observed === 'number' && observed < Number(o.metadata.generation ?? 0);
}
