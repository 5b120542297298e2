// The readiness of a custom resource, which spread knows nothing specific about: read from the
// conditions most controllers publish (kstatus's conventions: Stalled, Reconciling, Ready).
import { type Condition, conditionsOf } from '../../base/conditions.js';
import type { KubeObject } from '../../base/kube-object.js';
import { groupKindOf } from '../../base/kube-object.js';
import { current, failed, inProgress, NOT_OBSERVED, type StatusReader } from './types.js';

/**
 * The API groups kube-apiserver serves itself (`kubectl api-versions` on a bare cluster); an object
 * of any other group is a custom resource (a CRD's, or an aggregated API's).
 */
const BUILT_IN_GROUPS = new Set([
  '',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'apiregistration.k8s.io',
  'apps',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'events.k8s.io',
  'extensions',
  'flowcontrol.apiserver.k8s.io',
  'internal.apiserver.k8s.io',
  'networking.k8s.io',
  'node.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'resource.k8s.io',
  'scheduling.k8s.io',
  'storage.k8s.io',
  'storagemigration.k8s.io',
]);

/** Whether an object is a custom resource: its API group is not one kube-apiserver serves itself. */
export function isCustomResource(o: KubeObject): boolean {
  return !BUILT_IN_GROUPS.has(groupKindOf(o).group);
}

/**
 * Whether a custom resource's status says anything to wait on: `status.observedGeneration`, or a
 * Ready, Reconciling or Stalled condition. Without either, its controller reports nothing a wait
 * could read, and kstatus calls it Current once applied.
 */
export function hasReadableStatus(o: KubeObject): boolean {
  const observed = (o.status as { observedGeneration?: unknown } | undefined)?.observedGeneration;
  return typeof observed === 'number' || conditionsOf(o).some((c) => STANDARD.has(c.type));
}

const STANDARD = new Set(['Ready', 'Reconciling', 'Stalled']);

/**
 * A custom resource, by the conventions kstatus and Flux read (sigs.k8s.io/cli-utils/pkg/kstatus,
 * "Status conditions"; fluxcd/pkg/runtime/conditions):
 * - `status.observedGeneration` below `metadata.generation`: InProgress (its controller has not
 *   seen the change yet);
 * - `Stalled` True: Failed (the controller gave up until something changes);
 * - `Reconciling` True: InProgress;
 * - `Ready` True: Current; `Ready` False or Unknown: InProgress, with its reason and message;
 * - none of these: Current once applied.
 */
export const customResourceStatus: StatusReader = {
  state(o) {
    const observed = (o.status as { observedGeneration?: unknown } | undefined)?.observedGeneration;
    if (typeof observed === 'number' && observed < Number(o.metadata.generation ?? 0))
      return inProgress(NOT_OBSERVED);
    const conditions = conditionsOf(o);
    const find = (type: string) => conditions.find((c) => c.type === type);
    const stalled = find('Stalled');
    if (stalled?.status === 'True') return failed(`stalled${explain(stalled)}`);
    const reconciling = find('Reconciling');
    if (reconciling?.status === 'True') return inProgress(`reconciling${explain(reconciling)}`);
    const ready = find('Ready');
    if (ready?.status === 'True') return current('ready');
    if (ready) return inProgress(`not ready${explain(ready)}`);
    return current('applied');
  },
};

/** `: Reason: message` of a condition, as far as it has them. */
function explain(c: Condition): string {
  const parts = [c.reason, c.message].filter((x) => x !== undefined && x !== '');
  return parts.length > 0 ? `: ${parts.join(': ')}` : '';
}
