// Reading `status.conditions`, the one status shape most kinds share (Pods, CRDs, Deployments, custom
// resources), so that the status readers, the applier and the waiter ask about a condition alike.
import type { KubeObject } from './kube-object.js';

/**
 * One entry of an object's `status.conditions` (the metav1.Condition fields that older kinds'
 * conditions share too: PodCondition, CustomResourceDefinitionCondition, DeploymentCondition).
 */
export interface Condition {
  readonly type: string;
  /** `True`, `False` or `Unknown`. */
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
  /** RFC 3339 time of the last change of `status`. */
  readonly lastTransitionTime?: string;
}

/** The object's `status.conditions`; empty when it has none. */
export function conditionsOf(object: KubeObject | undefined): readonly Condition[] {
  const conditions = (object?.status as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(conditions) ? (conditions as Condition[]) : [];
}

/** Whether the object's condition `type` has status `True`. */
export function isConditionTrue(object: KubeObject | undefined, type: string): boolean {
  return conditionsOf(object).some((c) => c.type === type && c.status === 'True');
}

/** Whether the pod's `Ready` condition is True (core/v1 PodStatus; the kubelet sets it). */
export function isPodReady(pod: KubeObject): boolean {
  return isConditionTrue(pod, 'Ready');
}

/**
 * Whether the pod is available: Ready for at least `minReadySeconds` by its Ready condition's
 * lastTransitionTime at `now` (milliseconds), as the controllers count `availableReplicas`
 * (k8s.io/kubernetes pkg/api/v1/pod IsPodAvailable). With `minReadySeconds` 0, Ready is available.
 */
export function isPodAvailable(pod: KubeObject, minReadySeconds: number, now: number): boolean {
  const ready = conditionsOf(pod).find((c) => c.type === 'Ready' && c.status === 'True');
  if (!ready) return false;
  if (minReadySeconds <= 0) return true;
  const since = Date.parse(ready.lastTransitionTime ?? '');
  return Number.isFinite(since) && since + minReadySeconds * 1000 < now;
}

/**
 * Whether a CRD's `Established` condition is True: the API server serves its custom resources
 * (apiextensions.k8s.io/v1; set by kube-apiserver's establishing controller).
 */
export function isCrdEstablished(crd: KubeObject | undefined): boolean {
  return isConditionTrue(crd, 'Established');
}
