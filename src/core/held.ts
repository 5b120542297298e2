import { isCrd, type KubeObject, withoutManagedFields } from '../base/kube-object.js';
import type { PlannedObject } from '../engine/plan/options.js';
import { isWaited } from '../engine/status/registry.js';
import { urlKindOf } from '../report/url.js';
import type { Applied } from './deploy-apply.js';
import type { DeployOptions } from './deploy-context.js';

// What a deploy holds of its objects from one step to the next. Of a large set, the live states and
// dry runs are most of its memory: each step passes on only what a later one reads.

type SettleOptions = Pick<DeployOptions, 'wait' | 'waitLoadBalancer'>;

/**
 * Whether the settle step reads an applied object's live state `o`: it can give the URL (Services,
 * Ingresses, HTTPRoutes), or the deploy waits and the rollout wait follows it ({@link isWaited}).
 */
export function settleReads(o: KubeObject, options: SettleOptions): boolean {
  if (urlKindOf(o) !== undefined) return true;
  return options.wait && isWaited(o, options.waitLoadBalancer ? { waitLoadBalancer: true } : {});
}

/**
 * A planned object as the apply needs it. A write without its dry run's answer, which nothing reads
 * once planned (its changes are kept): a first deploy of 5,000 objects held 5,000 of them through the
 * apply. An `unchanged` object keeps its live state and dry run for the fingerprints it records (uid,
 * generation, managedFields: their metadata), and whole only when the settle step reads it or it is a
 * CRD (the apply reads its Established condition): a large set's ConfigMaps and Secrets are let go.
 */
export function forApply(p: PlannedObject, options: SettleOptions): PlannedObject {
  if (p.action !== 'unchanged') {
    if (p.after === undefined) return p;
    const { after: _after, ...rest } = p;
    return rest;
  }
  if (!p.live || isCrd(p.live) || settleReads(p.live, options)) return p;
  const live = metadataOf(p.live);
  // The same object when the fingerprint matched: the converge takes that for "nothing was sent".
  return { ...p, live, ...(p.after ? { after: p.after === p.live ? live : metadataOf(p.after) } : {}) };
}

function metadataOf(o: KubeObject): KubeObject {
  return { apiVersion: o.apiVersion, kind: o.kind, metadata: o.metadata };
}

/**
 * The apply's outcome with only the applied objects the settle step reads ({@link settleReads}), their
 * live state without its managedFields, which it does not read. The others (a large set's ConfigMaps
 * and Secrets, each with its live state) are let go before the wait.
 */
export function forSettle(applied: Applied, options: SettleOptions): Applied {
  const needed = applied.converged.applied
    .filter((a) => settleReads(a.live ?? a.object, options))
    .map((a) => (a.live ? { ...a, live: withoutManagedFields(a.live) } : a));
  return { ...applied, converged: { ...applied.converged, applied: needed } };
}
