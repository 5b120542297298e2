// Whether two states of an object are the same apart from what every write changes, and whether spread's
// field manager applied it: the plan's cheap checks before it reports a change.
import { stableJson } from '../../base/json.js';
import type { KubeObject } from '../../base/kube-object.js';

/** Whether `fieldManager` has an Apply entry in the object's managedFields. */
export function managedBy(o: KubeObject, fieldManager: string): boolean {
  const entries = (o.metadata.managedFields ?? []) as { manager?: string; operation?: string }[];
  return entries.some((e) => e.manager === fieldManager && e.operation === 'Apply');
}

/** Whether two states of an object are the same, ignoring what every write changes. */
export function sameObject(a: KubeObject, b: KubeObject): boolean {
  return stableJson(normalize(a)) === stableJson(normalize(b));
}

function normalize(o: KubeObject): unknown {
  const { managedFields: _m, resourceVersion: _r, generation: _g, ...metadata } = o.metadata;
  return { ...o, metadata };
}
