// The vocabulary of status reading, after kstatus: an object's rollout state (Current, InProgress,
// Failed), what else decides it, and the StatusReader each kind implements.
import type { Condition } from '../../base/conditions.js';
import type { KubeObject } from '../../base/kube-object.js';
import type { HealthRules } from '../../project/health.js';

/**
 * Where an object's rollout stands, in kstatus's words (sigs.k8s.io/cli-utils/pkg/kstatus):
 * `Current` (ready), `InProgress` (not yet), `Failed` (will not be ready without a change).
 */
export type ObjectStatus = 'Current' | 'InProgress' | 'Failed';

/** Where one object's rollout stands. `done` (Current) and `failed` (Failed) are final. */
export interface RolloutState {
  readonly status: ObjectStatus;
  readonly done: boolean;
  readonly failed: boolean;
  /** e.g. `2/3 replicas ready`, `complete`, `pod web-1: ImagePullBackOff: …`. */
  readonly message: string;
}

/** What besides the object itself decides its readiness. */
export interface RolloutContext {
  /**
   * The pods its selector matches, when known. A ReplicationController is then ready only when
   * `spec.replicas` pods of its current template are Ready and no pod of an older template remains.
   */
  readonly pods?: readonly KubeObject[];
  /** `volumeBindingMode` of a PVC's StorageClass; `WaitForFirstConsumer` PVCs are ready unbound. */
  readonly volumeBindingMode?: string;
  /** The PVC's StorageClass does not exist: it would never bind. */
  readonly storageClassMissing?: boolean;
  /** The project file's health rules (before those spread ships), by GroupKind. */
  readonly health?: HealthRules | undefined;
}

/** How the status of one GroupKind is read (kstatus's per-kind status readers). */
export interface StatusReader {
  /** The object's rollout state from its spec and status (and `context`). */
  readonly state: (o: KubeObject, context: RolloutContext) => RolloutState;
  /**
   * The pods of its current rollout among `pods` (those its selector matches); kinds without it
   * count the pods they own.
   */
  readonly currentPods?: (
    o: KubeObject,
    pods: readonly KubeObject[],
    replicaSets: readonly KubeObject[],
  ) => KubeObject[];
  /** Its pods are watched during the wait, to fail early and explain (workload controllers). */
  readonly withPods?: boolean;
}

/** The state `Current` with its message. */
export function current(message: string): RolloutState {
  return { status: 'Current', done: true, failed: false, message };
}

/** The state `InProgress` with its message. */
export function inProgress(message: string): RolloutState {
  return { status: 'InProgress', done: false, failed: false, message };
}

/** The state `Failed` with its message. */
export function failed(message: string): RolloutState {
  return { status: 'Failed', done: false, failed: true, message };
}

/** `spec` and `status` as records, with numeric fields read as numbers (absent: 0). */
export function fieldsOf(o: KubeObject): {
  spec: Record<string, unknown>;
  status: Record<string, unknown>;
  generation: number;
  observed: number;
} {
  const status = (o.status ?? {}) as Record<string, unknown>;
  return {
    spec: (o.spec ?? {}) as Record<string, unknown>,
    status,
    generation: Number(o.metadata.generation ?? 0),
    observed: Number(status.observedGeneration ?? 0),
  };
}

/** A number field as the API server defaults it: absent is 0. */
export function num(v: unknown): number {
  return Number(v ?? 0);
}

/** The message while a controller has not yet seen the object's new generation. */
export const NOT_OBSERVED = 'waiting for the controller to observe the new generation';

/**
 * The controller cannot create pods (a missing ServiceAccount, a ResourceQuota, PodSecurity
 * admission): its `ReplicaFailure` condition is True (reason FailedCreate, the API server's refusal
 * as message), which no wait resolves. A failed state, or undefined.
 */
export function replicaFailure(conditions: readonly Condition[]): RolloutState | undefined {
  const c = conditions.find((x) => x.type === 'ReplicaFailure' && x.status === 'True');
  if (!c) return undefined;
  return failed(`pods cannot be created: ${c.reason ?? ''} ${c.message ?? ''}`.trim());
}
