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
 * Whether a CRD's `Established` condition is True: the API server serves its custom resources
 * (apiextensions.k8s.io/v1; set by kube-apiserver's establishing controller).
 */
export function isCrdEstablished(crd: KubeObject | undefined): boolean {
  return isConditionTrue(crd, 'Established');
}
