// What a deploy holds of its objects from one stage to the next. Of a large set, the live states and
// dry runs are most of its memory (bench/RESULTS.md, Deploy, by hand: the heap during the wait); each
// stage's output type keeps only what a later stage reads, so letting the rest go is a type boundary.
import { isCrd, type KubeObject, type ObjectMeta } from '../../base/kube-object.js';
import type { AppliedObject } from '../../engine/apply/applied.js';
import type { PlannedAction, PlannedObject } from '../../engine/shared/planned.js';
import { isWaited } from '../../engine/status/registry.js';
import type { HealthRules } from '../../project/health.js';
import { urlKindOf } from '../../report/url.js';
import type { Converged } from '../converge.js';
import type { DeployOptions } from './options.js';

/** What decides which objects the settle stage reads: the wait's options and the health rules. */
type SettleOptions = Pick<DeployOptions, 'wait' | 'waitLoadBalancer'> & { readonly health?: HealthRules };

/** A planned write as the apply holds it: without its dry run's answer, which nothing reads once planned. */
export type ApplyingWrite = Omit<PlannedObject, 'after' | 'action'> & {
  readonly action: Exclude<PlannedAction, 'unchanged'>;
  readonly after?: never;
};

/**
 * An unchanged object as the apply holds it: its live state and dry run for the fingerprints it
 * records, whole only when the settle stage reads it or it is a CRD, else their metadata only.
 */
export type ApplyingUnchanged = PlannedObject & { readonly action: 'unchanged' };

/** A planned object as the apply needs it ({@link forApply}). */
export type ApplyingObject = ApplyingWrite | ApplyingUnchanged;

/**
 * Whether the settle stage reads an applied object's live state `o`: it can give the URL (Services,
 * Ingresses, HTTPRoutes), or the deploy waits and the rollout wait follows it ({@link isWaited}).
 */
export function settleReads(o: KubeObject, options: SettleOptions): boolean {
  if (urlKindOf(o) !== undefined) return true;
  return (
    options.wait &&
    isWaited(o, { ...(options.waitLoadBalancer ? { waitLoadBalancer: true } : {}), health: options.health })
  );
}

/**
 * A planned object as the apply needs it. A write without its dry run's answer (its changes are
 * kept): a first deploy of 5,000 objects held 5,000 of them through the apply. An `unchanged` object
 * keeps its live state and dry run for the fingerprints it records (uid, generation, managedFields:
 * their metadata), and whole only when the settle stage reads it or it is a CRD (the apply reads its
 * Established condition): a large set's ConfigMaps and Secrets are let go.
 */
export function forApply(p: PlannedObject, options: SettleOptions): ApplyingObject {
  if (!isUnchanged(p)) {
    const { after: _after, action, ...rest } = p;
    // Never true (isUnchanged): it narrows `action`, which destructuring a non-union type does not.
    if (action === 'unchanged') throw new Error('forApply: an unchanged object taken for a write');
    return { ...rest, action };
  }
  if (!p.live || isCrd(p.live) || settleReads(p.live, options)) return p;
  const live = metadataOf(p.live);
  // The same object when the fingerprint matched: the converge takes that for "nothing was sent".
  return { ...p, live, ...(p.after ? { after: p.after === p.live ? live : metadataOf(p.after) } : {}) };
}

function isUnchanged(p: PlannedObject): p is ApplyingUnchanged {
  return p.action === 'unchanged';
}

function metadataOf(o: KubeObject): KubeObject {
  return { apiVersion: o.apiVersion, kind: o.kind, metadata: o.metadata };
}

/** An object's live state without its managedFields, which the settle stage does not read. */
export type LiveWithoutManagedFields = KubeObject & {
  readonly metadata: Omit<ObjectMeta, 'managedFields'> & { readonly managedFields?: never };
};

/** An applied object as the settle stage holds it. */
export type SettlingObject = Omit<AppliedObject, 'live'> & { readonly live: LiveWithoutManagedFields };

/** The converge's outcome as the settle stage holds it: only the objects it reads ({@link settleReads}). */
export type SettlingConverged = Omit<Converged, 'applied'> & { readonly applied: readonly SettlingObject[] };

/**
 * The converge's outcome with only the applied objects the settle stage reads ({@link settleReads}),
 * their live state without its managedFields. The others (a large set's ConfigMaps and Secrets, each
 * with its live state) are let go before the wait.
 */
export function forSettle(converged: Converged, options: SettleOptions): SettlingConverged {
  const applied = converged.applied
    .filter((a) => settleReads(a.live ?? a.object, options))
    .map((a): SettlingObject => ({ ...a, live: liveWithoutManagedFields(a.live) }));
  return { ...converged, applied };
}

function liveWithoutManagedFields(o: KubeObject): LiveWithoutManagedFields {
  const { managedFields: _managedFields, ...metadata } = o.metadata;
  return { ...o, metadata };
}
