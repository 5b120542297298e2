// The entry point of status reading: picks the reader of an object's GroupKind (one file per kind in
// this folder) and answers readiness and current pods for any object through one function.
import type { KubeObject } from '../../base/kube-object.js';
import { formatGroupKind, groupKindOf } from '../../base/kube-object.js';
import type { HealthRules } from '../../project/health.js';
import { appsDeploymentStatus } from './apps-deployment.js';
import { customResourceStatus, hasReadableStatus, isCustomResource } from './custom-resource.js';
import { customResourceDefinitionStatus } from './custom-resource-definition.js';
import { daemonSetStatus } from './daemon-set.js';
import { ruleState } from './health-rule.js';
import { jobStatus } from './job.js';
import { persistentVolumeClaimStatus } from './persistent-volume-claim.js';
import { podStatus } from './pod.js';
import { ownedPods } from './pods.js';
import { replicationControllerStatus } from './replication-controller.js';
import { serviceStatus, serviceType } from './service.js';
import { shippedRule } from './shipped-rules.js';
import { statefulSetStatus } from './stateful-set.js';
import { current, type RolloutContext, type RolloutState, type StatusReader } from './types.js';

/** The status reader of each GroupKind (`Kind.group`) spread reads; see {@link readerOf}. */
const READERS: ReadonlyMap<string, StatusReader> = new Map([
  ['Deployment.apps', appsDeploymentStatus],
  ['ReplicationController', replicationControllerStatus],
  ['StatefulSet.apps', statefulSetStatus],
  ['DaemonSet.apps', daemonSetStatus],
  ['Job.batch', jobStatus],
  ['Pod', podStatus],
  ['PersistentVolumeClaim', persistentVolumeClaimStatus],
  ['CustomResourceDefinition.apiextensions.k8s.io', customResourceDefinitionStatus],
  ['Service', serviceStatus],
]);

/** Built-in kinds without a status to wait on: ready once applied. */
const APPLIED: StatusReader = { state: () => current('applied') };

/**
 * The reader of an object's GroupKind: a kind of {@link READERS}, else the generic conditions
 * reader for a custom resource, else "ready once applied". A health rule of the GroupKind (`health`,
 * the project file's, before those spread ships) replaces the reader's state; a workload keeps its
 * pods.
 */
export function readerOf(o: KubeObject, health?: HealthRules): StatusReader {
  const gk = formatGroupKind(groupKindOf(o));
  const reader = READERS.get(gk) ?? (isCustomResource(o) ? customResourceStatus : APPLIED);
  const rule = ruleOf(gk, health);
  return rule ? { ...reader, state: (x) => ruleState(rule, x) } : reader;
}

/** The rule of a GroupKind: the project file's, else the one spread ships, else none. */
export function ruleOf(groupKind: string, health: HealthRules | undefined) {
  return health?.get(groupKind) ?? shippedRule(groupKind);
}

/**
 * Readiness of one object, following `kubectl rollout status` for Deployments, StatefulSets
 * (RollingUpdate with partitions, OnDelete) and DaemonSets (observedGeneration caught up, all
 * replicas updated and available), the Ready condition for Pods, the Complete/Failed conditions for
 * Jobs (a suspended Job is done), phase Bound for PVCs (unless the class binds on first consumer),
 * Established for CRDs (NamesAccepted=False fails), an ingress for LoadBalancer Services, and the
 * Ready/Reconciling/Stalled conditions for custom resources ({@link customResourceStatus}). A
 * ReplicationController is ready when its observedGeneration caught up and every replica is
 * ready and available (Ready for `minReadySeconds`) — and, given its pods, when they all come from its current template ({@link currentPods}).
 */
export function rolloutState(o: KubeObject, context: RolloutContext = {}): RolloutState {
  return readerOf(o, context.health).state(o, context);
}

/**
 * The pods of a workload's current rollout, among `pods` (those its selector matches):
 * - Deployment: pods whose `pod-template-hash` is that of the ReplicaSet of the Deployment's
 *   current revision (`deployment.kubernetes.io/revision`), given `replicaSets`; all pods otherwise;
 * - ReplicationController: pods it owns whose template hash annotation equals its template's;
 *   without the annotation, pods whose containers' names and images equal the template's;
 * - StatefulSet: `controller-revision-hash` = `status.updateRevision`;
 * - DaemonSet: `pod-template-generation` = `metadata.generation`;
 * - Job: the pods it owns; a Pod: itself.
 *
 * None while a Deployment, StatefulSet or DaemonSet has a `status.observedGeneration` below its
 * `metadata.generation`: its controller has not seen the new spec yet, so the revision it names is
 * the previous one (as `kubectl rollout status` waits for the spec update to be observed). Right
 * after a rollback, the failing pods of the abandoned revision would otherwise count as current.
 */
export function currentPods(
  o: KubeObject,
  pods: readonly KubeObject[],
  replicaSets: readonly KubeObject[] = [],
): KubeObject[] {
  const reader = readerOf(o);
  return reader.currentPods ? reader.currentPods(o, pods, replicaSets) : ownedPods(o, pods);
}

/** Whether spread watches the pods of objects of this kind during the wait (workload controllers). */
export function watchesPods(o: KubeObject): boolean {
  return readerOf(o).withPods === true;
}

/**
 * Whether spread waits for objects of this kind after applying them: workloads, Pods, CRDs,
 * PersistentVolumeClaims that name a storage class, custom resources whose status has an
 * observedGeneration or a Ready/Reconciling/Stalled condition ({@link hasReadableStatus}), and —
 * with `waitLoadBalancer` — Services of type LoadBalancer. An object whose GroupKind has a health
 * rule is always waited: its rule says when it is current, status or not.
 */
export function isWaited(
  o: KubeObject,
  options: { waitLoadBalancer?: boolean; health?: HealthRules | undefined } = {},
): boolean {
  if (ruleOf(formatGroupKind(groupKindOf(o)), options.health)) return true;
  const reader = readerOf(o);
  if (reader === serviceStatus) return options.waitLoadBalancer === true && serviceType(o) === 'LoadBalancer';
  if (reader === persistentVolumeClaimStatus)
    return Boolean((o.spec as { storageClassName?: string })?.storageClassName);
  if (reader === customResourceStatus) return hasReadableStatus(o);
  return reader !== APPLIED;
}
