import { conditionsOf, isCrdEstablished, isPodReady } from '../base/conditions.js';
import type { KubeObject } from '../base/kube-object.js';
import { formatGroupKind, formatObject, groupKindOf } from '../base/kube-object.js';
import { KUBERNETES, TEMPLATE_HASH } from '../base/labels.js';
import type { AppliedObject } from './apply.js';
import type { KubeClient } from './client.js';
import { objectPath } from './discovery.js';
import {
  diagnosePod,
  formatContainerStates,
  formatEvent,
  type PodProblem,
  podEvents,
  pullError,
  selectorString,
} from './pods.js';
import { podToReplace } from './rc.js';
import { informer } from './watch.js';

/** Where one object's rollout stands. `done` and `failed` are final. */
export interface RolloutState {
  readonly done: boolean;
  readonly failed: boolean;
  /** e.g. `2/3 replicas ready`, `complete`, `pod web-1: ImagePullBackOff: …`. */
  readonly message: string;
}

/** The outcome of waiting for one object. */
export interface RolloutResult {
  readonly object: AppliedObject;
  readonly ready: boolean;
  readonly message: string;
  /** Time from the start of the wait to readiness (or to the end of the wait), in milliseconds. */
  readonly durationMs: number;
}

/** Options of {@link waitForRollout}. */
export interface WaitOptions {
  /** The whole wait's limit, in milliseconds. */
  readonly timeoutMs: number;
  /**
   * Time between two re-evaluations of what the watches hold (no API request), in milliseconds:
   * time-based rules (the unschedulable grace) and progress lines use it. Default 1000.
   */
  readonly intervalMs?: number;
  /** Progress lines (what is ready, what is not and why). */
  readonly onProgress?: (line: string) => void;
  readonly signal?: AbortSignal;
  /**
   * Wait until a Service of type LoadBalancer has an ingress address. Off by default: many clusters
   * have no load-balancer controller, and the address (or its absence) is only reported.
   */
  readonly waitLoadBalancer?: boolean;
  /** How long a pod may stay Unschedulable before the rollout fails, in milliseconds. Default 15 000. */
  readonly unschedulableGraceMs?: number;
  /** Observations (pod status updates) of an image pull error that fail the rollout. Default 2. */
  readonly pullErrorObservations?: number;
}

/** A rollout failed or did not finish in time. `results` holds every waited object's outcome. */
export class RolloutError extends Error {
  readonly results: readonly RolloutResult[];
  constructor(message: string, results: readonly RolloutResult[]) {
    super(message);
    this.name = 'RolloutError';
    this.results = results;
  }
}

export { templateHash } from './rc.js';

/** Kinds spread waits for; others are ready once applied. */
const WAITED = new Set([
  'Deployment.apps',
  'ReplicationController',
  'StatefulSet.apps',
  'DaemonSet.apps',
  'Job.batch',
  'Pod',
  'PersistentVolumeClaim',
  'CustomResourceDefinition.apiextensions.k8s.io',
]);

/** Kinds whose pods spread watches, to fail early and explain. */
const WITH_PODS = new Set([
  'Deployment.apps',
  'ReplicationController',
  'StatefulSet.apps',
  'DaemonSet.apps',
  'Job.batch',
]);

/**
 * Whether spread waits for objects of this kind after applying them: workloads, Pods, CRDs,
 * PersistentVolumeClaims that name a storage class, and — with `waitLoadBalancer` — Services of
 * type LoadBalancer.
 */
export function isWaited(o: KubeObject, options: { waitLoadBalancer?: boolean } = {}): boolean {
  const gk = formatGroupKind(groupKindOf(o));
  if (gk === 'Service') return options.waitLoadBalancer === true && serviceType(o) === 'LoadBalancer';
  if (gk === 'PersistentVolumeClaim')
    return Boolean((o.spec as { storageClassName?: string })?.storageClassName);
  return WAITED.has(gk);
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
}

/**
 * The controller cannot create pods (a missing ServiceAccount, a ResourceQuota, PodSecurity
 * admission): its `ReplicaFailure` condition is True (reason FailedCreate, the API server's refusal
 * as message), which no wait resolves. A failed state, or undefined.
 */
function replicaFailure(
  conditions: readonly { type: string; status: string; reason?: string; message?: string }[],
): RolloutState | undefined {
  const c = conditions.find((x) => x.type === 'ReplicaFailure' && x.status === 'True');
  if (!c) return undefined;
  return {
    done: false,
    failed: true,
    message: `pods cannot be created: ${c.reason ?? ''} ${c.message ?? ''}`.trim(),
  };
}

/**
 * Readiness of one object, following `kubectl rollout status` for Deployments, StatefulSets
 * (RollingUpdate with partitions, OnDelete) and DaemonSets (observedGeneration caught up, all
 * replicas updated and available), the Ready condition for Pods, the Complete/Failed conditions for
 * Jobs (a suspended Job is done), phase Bound for PVCs (unless the class binds on first consumer),
 * Established for CRDs (NamesAccepted=False fails), an ingress for LoadBalancer Services. A
 * ReplicationController is ready when its observedGeneration caught up and every replica is
 * ready — and, given its pods, when they all come from its current template ({@link currentPods}).
 */
export function rolloutState(o: KubeObject, context: RolloutContext = {}): RolloutState {
  const spec = (o.spec ?? {}) as Record<string, unknown>;
  const status = (o.status ?? {}) as Record<string, unknown>;
  const generation = Number(o.metadata.generation ?? 0);
  const observed = Number(status.observedGeneration ?? 0);
  const num = (v: unknown) => Number(v ?? 0);
  const pending = (message: string): RolloutState => ({ done: false, failed: false, message });
  const ready = (message: string): RolloutState => ({ done: true, failed: false, message });
  const conditions = conditionsOf(o);
  switch (formatGroupKind(groupKindOf(o))) {
    case 'Deployment.apps': {
      if (observed < generation) return pending('waiting for the controller to observe the new generation');
      const progressing = conditions.find((c) => c.type === 'Progressing');
      if (progressing?.reason === 'ProgressDeadlineExceeded') {
        return {
          done: false,
          failed: true,
          message: `progress deadline exceeded: ${progressing.message ?? ''}`,
        };
      }
      const cannotCreate = replicaFailure(conditions);
      if (cannotCreate) return cannotCreate;
      const want = num(spec.replicas ?? 1);
      const updated = num(status.updatedReplicas);
      const available = num(status.availableReplicas);
      const total = num(status.replicas);
      if (updated < want) return pending(`${updated}/${want} replicas updated`);
      if (total > updated) return pending(`${total - updated} old replicas pending termination`);
      if (available < updated) return pending(`${available}/${want} replicas available`);
      return ready(`${available}/${want} replicas available`);
    }
    case 'ReplicationController': {
      if (observed < generation) return pending('waiting for the controller to observe the new generation');
      const cannotCreate = replicaFailure(conditions);
      if (cannotCreate) return cannotCreate;
      const want = num(spec.replicas ?? 1);
      const readyCount = num(status.readyReplicas);
      const labeled = num(status.fullyLabeledReplicas);
      if (context.pods) {
        const current = currentPods(o, context.pods);
        const old = ownedPods(o, context.pods).filter(
          (p) => !current.includes(p) && !p.metadata.deletionTimestamp,
        );
        const currentReady = current.filter(isPodReady).length;
        if (currentReady < want) return pending(`${currentReady}/${want} pods of the current template ready`);
        if (old.length > 0) return pending(`${old.length} pods of an older template remain`);
        return ready(`${currentReady}/${want} replicas ready`);
      }
      if (readyCount < want || labeled < want) return pending(`${readyCount}/${want} replicas ready`);
      return ready(`${readyCount}/${want} replicas ready`);
    }
    case 'StatefulSet.apps': {
      if (observed === 0 || observed < generation)
        return pending('waiting for the controller to observe the new generation');
      const want = num(spec.replicas ?? 1);
      const readyCount = num(status.readyReplicas);
      if (readyCount < want) return pending(`${readyCount}/${want} replicas ready`);
      const update = spec.updateStrategy as
        | { type?: string; rollingUpdate?: { partition?: number } }
        | undefined;
      if ((update?.type ?? 'RollingUpdate') !== 'RollingUpdate')
        return ready(`${readyCount}/${want} replicas ready (${update?.type} updates)`);
      const partition = num(update?.rollingUpdate?.partition);
      if (partition > 0) {
        const updated = num(status.updatedReplicas);
        if (updated < want - partition)
          return pending(`${updated}/${want - partition} replicas updated (partition ${partition})`);
        return ready(`${readyCount}/${want} replicas ready, ${updated} updated (partition ${partition})`);
      }
      if (status.updateRevision !== status.currentRevision)
        return pending(`${num(status.updatedReplicas)}/${want} replicas updated`);
      return ready(`${readyCount}/${want} replicas ready`);
    }
    case 'DaemonSet.apps': {
      if (observed < generation) return pending('waiting for the controller to observe the new generation');
      const want = num(status.desiredNumberScheduled);
      const updated = num(status.updatedNumberScheduled);
      const available = num(status.numberAvailable);
      const onDelete = (spec.updateStrategy as { type?: string } | undefined)?.type === 'OnDelete';
      if (!onDelete && updated < want) return pending(`${updated}/${want} pods updated`);
      if (available < want) return pending(`${available}/${want} pods available`);
      return ready(`${available}/${want} pods available`);
    }
    case 'Job.batch': {
      if (conditions.some((c) => c.type === 'Complete' && c.status === 'True')) return ready('complete');
      const failed = conditions.find((c) => c.type === 'Failed' && c.status === 'True');
      if (failed)
        return {
          done: false,
          failed: true,
          message: `failed: ${failed.reason ?? ''} ${failed.message ?? ''}`.trim(),
        };
      if (spec.suspend === true) return ready('suspended');
      return pending(`${num(status.succeeded)} succeeded, ${num(status.active)} active`);
    }
    case 'Pod': {
      const phase = status.phase as string | undefined;
      if (phase === 'Succeeded') return ready('succeeded');
      if (phase === 'Failed')
        return {
          done: false,
          failed: true,
          message: `failed: ${String(status.message ?? status.reason ?? '')}`,
        };
      if (isPodReady(o)) return ready('ready');
      return pending(`phase ${phase ?? 'Pending'}, not ready`);
    }
    case 'PersistentVolumeClaim': {
      const phase = status.phase as string | undefined;
      if (phase === 'Bound') return ready('bound');
      if (phase === 'Lost')
        return { done: false, failed: true, message: 'lost: its PersistentVolume is gone' };
      const storageClass = String(spec.storageClassName ?? '');
      if (context.storageClassMissing)
        return { done: false, failed: true, message: `StorageClass ${storageClass} does not exist` };
      if (context.volumeBindingMode === 'WaitForFirstConsumer')
        return ready(`pending until a pod uses it (StorageClass ${storageClass} binds on first consumer)`);
      return pending(`${phase ?? 'Pending'}, not bound yet`);
    }
    case 'CustomResourceDefinition.apiextensions.k8s.io': {
      const names = conditions.find((c) => c.type === 'NamesAccepted');
      if (names?.status === 'False')
        return { done: false, failed: true, message: `names not accepted: ${names.message ?? ''}` };
      if (isCrdEstablished(o)) return ready('established');
      return pending('not established yet');
    }
    case 'Service': {
      const ingress = loadBalancerIngress(o);
      if (serviceType(o) !== 'LoadBalancer') return ready('applied');
      if (ingress.length > 0) return ready(`load balancer ${ingress.join(', ')}`);
      return pending('waiting for a load balancer address');
    }
    default:
      return ready('applied');
  }
}

function ownedBy(pod: KubeObject, owner: KubeObject): boolean {
  const refs = (pod.metadata.ownerReferences ?? []) as { uid?: string }[];
  return owner.metadata.uid === undefined || refs.some((r) => r.uid === owner.metadata.uid);
}

function ownedPods(owner: KubeObject, pods: readonly KubeObject[]): KubeObject[] {
  return pods.filter((p) => ownedBy(p, owner));
}

/**
 * The pods of a workload's current rollout, among `pods` (those its selector matches):
 * - Deployment: pods whose `pod-template-hash` is that of the ReplicaSet of the Deployment's
 *   current revision (`deployment.kubernetes.io/revision`), given `replicaSets`; all pods otherwise;
 * - ReplicationController: pods it owns whose {@link TEMPLATE_HASH} annotation equals its
 *   template's; without the annotation, pods whose containers' names and images equal the template's;
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
  const spec = (o.spec ?? {}) as {
    template?: {
      metadata?: { annotations?: Record<string, string> };
      spec?: { containers?: { name: string; image?: string }[] };
    };
  };
  const label = (p: KubeObject, k: string) => p.metadata.labels?.[k];
  const gk = formatGroupKind(groupKindOf(o));
  const observed = (o.status as { observedGeneration?: unknown } | undefined)?.observedGeneration;
  if (
    (gk === 'Deployment.apps' || gk === 'StatefulSet.apps' || gk === 'DaemonSet.apps') &&
    typeof observed === 'number' &&
    observed < Number(o.metadata.generation ?? 0)
  )
    return [];
  switch (gk) {
    case 'Deployment.apps': {
      const revision = o.metadata.annotations?.[KUBERNETES.deploymentRevision];
      const rs = replicaSets.find(
        (r) =>
          ownedBy(r, o) &&
          revision !== undefined &&
          r.metadata.annotations?.[KUBERNETES.deploymentRevision] === revision,
      );
      if (!rs) return replicaSets.length > 0 ? [] : [...pods];
      const hash = label(rs, 'pod-template-hash');
      return pods.filter(
        (p) => ownedBy(p, rs) && (hash === undefined || label(p, 'pod-template-hash') === hash),
      );
    }
    case 'ReplicationController': {
      const owned = ownedPods(o, pods);
      const want = spec.template?.metadata?.annotations?.[TEMPLATE_HASH];
      if (want) return owned.filter((p) => p.metadata.annotations?.[TEMPLATE_HASH] === want);
      const signature = (cs: { name: string; image?: string }[] | undefined) =>
        (cs ?? []).map((c) => `${c.name}=${c.image ?? ''}`).join(',');
      const templateSig = signature(spec.template?.spec?.containers);
      return owned.filter(
        (p) =>
          signature((p.spec as { containers?: { name: string; image?: string }[] })?.containers) ===
          templateSig,
      );
    }
    case 'StatefulSet.apps': {
      const revision = (o.status as { updateRevision?: string } | undefined)?.updateRevision;
      const owned = ownedPods(o, pods);
      return revision ? owned.filter((p) => label(p, 'controller-revision-hash') === revision) : owned;
    }
    case 'DaemonSet.apps': {
      const generation = o.metadata.generation;
      const owned = ownedPods(o, pods);
      return generation !== undefined
        ? owned.filter((p) => label(p, 'pod-template-generation') === String(generation))
        : owned;
    }
    case 'Pod':
      return pods.filter((p) => p.metadata.name === o.metadata.name);
    default:
      return ownedPods(o, pods);
  }
}

function serviceType(o: KubeObject): string {
  return (o.spec as { type?: string } | undefined)?.type ?? 'ClusterIP';
}

function loadBalancerIngress(o: KubeObject): string[] {
  const ingress = ((
    o.status as { loadBalancer?: { ingress?: { ip?: string; hostname?: string }[] } } | undefined
  )?.loadBalancer?.ingress ?? []) as { ip?: string; hostname?: string }[];
  return ingress.map((i) => i.hostname ?? i.ip ?? '').filter(Boolean);
}

/**
 * What a Service offers outside the cluster, for the progress log: `LoadBalancer 203.0.113.7`,
 * `LoadBalancer (no address yet), node ports 80:31234/TCP`, `NodePort 80:31234/TCP`.
 * `undefined` for a Service with neither (ClusterIP, headless, ExternalName).
 */
export function describeServiceExposure(o: KubeObject): string | undefined {
  const type = serviceType(o);
  if (type !== 'LoadBalancer' && type !== 'NodePort') return undefined;
  const ports = (
    (o.spec as { ports?: { port: number; nodePort?: number; protocol?: string }[] })?.ports ?? []
  )
    .filter((p) => p.nodePort)
    .map((p) => `${p.port}:${p.nodePort}/${p.protocol ?? 'TCP'}`);
  const nodePorts = ports.length > 0 ? `node ports ${ports.join(', ')}` : '';
  if (type === 'NodePort') return `NodePort ${ports.join(', ')}`;
  const ingress = loadBalancerIngress(o);
  return `LoadBalancer ${ingress.length > 0 ? ingress.join(', ') : '(no address yet)'}${nodePorts ? `, ${nodePorts}` : ''}`;
}

interface Tracked {
  readonly applied: AppliedObject;
  readonly gk: string;
  live: KubeObject | undefined;
  pods: KubeObject[] | undefined;
  replicaSets: KubeObject[] | undefined;
  volumeBindingMode?: string;
  storageClassMissing?: boolean;
  state: RolloutState;
  result?: RolloutResult;
  problems: PodProblem[];
  /** A ReplicationController's pod deletion in flight ({@link podToReplace}). */
  replacing: boolean;
  /** Uids of the pods this wait deleted: gone, even while the pod watch still shows them. */
  readonly deleted: Set<string>;
  /** Its pods are being listed: a ReplicationController is not judged before they are known. */
  podsPending: boolean;
}

/**
 * Waits until every waited object of `applied` ({@link isWaited}) is ready, bounded by `timeoutMs`.
 *
 * Each object is followed with a WATCH (list, then `watch=1` from the list's resourceVersion,
 * resumed when the server ends it; 410 Gone lists again), and so are the pods its selector matches
 * (and a Deployment's ReplicaSets), so that the wait answers as soon as the cluster changes without
 * polling. Pods of the current rollout ({@link currentPods}) fail the wait early, before the timeout
 * ({@link diagnosePod}): image pull errors seen in two status updates, CrashLoopBackOff,
 * Unschedulable past `unschedulableGraceMs`. The error then quotes the pod's container states and
 * recent events.
 *
 * A ReplicationController whose pod template changed gets the pods of its older template replaced
 * during the wait, one at a time ({@link podToReplace}); its new pods are diagnosed like a
 * Deployment's, so a broken image fails the wait early rather than at the timeout.
 *
 * Services of type LoadBalancer or NodePort are not waited for (unless `waitLoadBalancer`): their
 * address and node ports are reported through `onProgress`.
 *
 * @throws RolloutError when an object fails (a pod as above, a Job fails, a Deployment exceeds its
 *   progress deadline, a PVC is lost) or when the timeout passes; the message names each object
 *   not ready and why; `results` holds every object's outcome and duration.
 * @throws KubeApiError when an object cannot be listed or watched (403 for instance).
 */
export async function waitForRollout(
  client: KubeClient,
  applied: readonly AppliedObject[],
  options: WaitOptions,
): Promise<RolloutResult[]> {
  const start = Date.now();
  const deadline = start + options.timeoutMs;
  const interval = options.intervalMs ?? 1000;
  for (const a of applied) {
    if (formatGroupKind(groupKindOf(a.object)) !== 'Service' || isWaited(a.live, options)) continue;
    const exposure = describeServiceExposure(a.live);
    if (exposure) options.onProgress?.(`${name(a)}: ${exposure}`);
  }
  const tracked: Tracked[] = applied
    .filter((a) => isWaited(a.live ?? a.object, options))
    .map((a) => ({
      applied: a,
      gk: formatGroupKind(groupKindOf(a.object)),
      live: undefined,
      pods: undefined,
      replicaSets: undefined,
      state: { done: false, failed: false, message: 'waiting' },
      problems: [],
      replacing: false,
      deleted: new Set<string>(),
      podsPending: false,
    }));
  if (tracked.length === 0) return [];

  const stop = new AbortController();
  const pullSeen = new Map<string, Set<string>>();
  let lastProgress = '';
  let lastProgressAt = 0;
  let settled = false;

  return new Promise<RolloutResult[]>((resolve, reject) => {
    const finishAll = () =>
      tracked.map(
        (t) =>
          t.result ?? {
            object: t.applied,
            ready: false,
            message: t.problems[0]?.message ?? t.state.message,
            durationMs: Date.now() - start,
          },
      );
    const end = (error?: Error, results?: RolloutResult[]) => {
      if (settled) return;
      settled = true;
      clearInterval(ticker);
      clearTimeout(timer);
      stop.abort();
      options.signal?.removeEventListener('abort', onOuterAbort);
      if (error) reject(error);
      else resolve(results ?? finishAll());
    };
    // The caller's abort (Ctrl-C, a cancelled job) ends the wait at once with its reason.
    const onOuterAbort = () => {
      const reason = options.signal?.reason;
      end(reason instanceof Error ? reason : new Error('the wait for the rollout was aborted'));
    };
    options.signal?.addEventListener('abort', onOuterAbort, { once: true });

    const failWithPods = async (failing: Tracked[]) => {
      settled = true; // no other outcome while the events are read
      const lines: string[] = [];
      for (const t of failing) {
        const fatal = t.problems.filter((p) => p.fatal);
        if (fatal.length === 0) {
          lines.push(`  ${name(t.applied)}: ${t.state.message}`);
          continue;
        }
        const p = fatal[0]!;
        lines.push(`  ${name(t.applied)}: pod ${p.pod}: ${p.message}`);
        const pod = t.pods?.find((x) => x.metadata.name === p.pod) ?? (t.gk === 'Pod' ? t.live : undefined);
        if (pod) for (const c of formatContainerStates(pod)) lines.push(`      container ${c}`);
        const events = await podEvents(client, t.applied.object.metadata.namespace ?? '', p.pod, 5);
        if (events.length > 0) {
          lines.push('      events:');
          for (const e of events) lines.push(`        ${formatEvent(e)}`);
        }
        if (fatal.length > 1)
          lines.push(`      (and ${fatal.length - 1} more pods failing the same way or otherwise)`);
      }
      const results = tracked.map(
        (t) =>
          t.result ?? {
            object: t.applied,
            ready: false,
            message: t.problems.find((p) => p.fatal)?.message ?? t.state.message,
            durationMs: Date.now() - start,
          },
      );
      settled = false;
      end(new RolloutError(`rollout failed:\n${lines.join('\n')}`, results), undefined);
    };

    const evaluate = () => {
      if (settled) return;
      const now = Date.now();
      for (const t of tracked) {
        if (t.result || !t.live) continue;
        // Its status counts the pods of every template: ready replicas of the old one would pass.
        if (t.gk === 'ReplicationController' && t.podsPending && !t.pods) continue;
        const pods =
          t.gk === 'Pod' ? [t.live] : t.pods?.filter((p) => !t.deleted.has(String(p.metadata.uid)));
        t.state = rolloutState(t.live, {
          ...(t.gk === 'ReplicationController' && pods ? { pods } : {}),
          ...(t.volumeBindingMode ? { volumeBindingMode: t.volumeBindingMode } : {}),
          ...(t.storageClassMissing ? { storageClassMissing: true } : {}),
        });
        t.problems = [];
        if (!t.state.done && pods) {
          for (const pod of currentPods(t.live, pods, t.replicaSets ?? [])) {
            // A failed pod of a controller is replaced by it (a Job counts it against its backoffLimit).
            if (t.gk !== 'Pod' && (pod.status as { phase?: string } | undefined)?.phase === 'Failed')
              continue;
            const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
            const pull = pullError(pod);
            if (pull) {
              const seen = pullSeen.get(key) ?? new Set<string>();
              seen.add(String(pod.metadata.resourceVersion));
              pullSeen.set(key, seen);
            }
            const problem = diagnosePod(pod, {
              now,
              unschedulableGraceMs: options.unschedulableGraceMs,
              pullErrorObservations: options.pullErrorObservations,
              pullErrorSeen: pullSeen.get(key)?.size ?? 0,
            });
            if (problem) t.problems.push(problem);
          }
        }
        if (t.gk === 'ReplicationController' && pods && !t.state.done && !t.replacing) replaceNext(t, pods);
        if (t.state.done || t.state.failed) {
          t.result = {
            object: t.applied,
            ready: t.state.done,
            message: t.state.message,
            durationMs: now - start,
          };
        }
      }
      const failing = tracked.filter((t) => t.result?.ready === false || t.problems.some((p) => p.fatal));
      if (failing.length > 0) {
        void failWithPods(failing).catch((error: Error) => {
          settled = false;
          end(error);
        });
        return;
      }
      const notReady = tracked.filter((t) => !t.result);
      if (notReady.length === 0) {
        end(undefined, finishAll());
        return;
      }
      const progress = notReady
        .map((t) => {
          const why = t.problems[0] ? ` (pod ${t.problems[0].pod}: ${t.problems[0].message})` : '';
          return `${name(t.applied)}: ${t.live ? t.state.message : 'waiting'}${why}`;
        })
        .join('; ');
      if (progress !== lastProgress && now - lastProgressAt >= interval) {
        const readyNames = tracked.filter((t) => t.result?.ready).map((t) => name(t.applied));
        options.onProgress?.(
          `waiting for ${notReady.length} of ${tracked.length}: ${progress}${readyNames.length > 0 ? ` — ready: ${readyNames.join(', ')}` : ''}`,
        );
        lastProgress = progress;
        lastProgressAt = now;
      }
    };

    const watchFailed = (error: unknown) => {
      if (!settled && !stop.signal.aborted) end(error as Error);
    };
    // A ReplicationController does not replace the pods of an older template by itself: delete the
    // next one (podToReplace), and look again once the delete is answered and the watch shows it.
    const replaceNext = (t: Tracked, pods: readonly KubeObject[]) => {
      const victim = podToReplace(t.live!, pods);
      if (!victim) return;
      const ready = pods.filter((p) => !p.metadata.deletionTimestamp && isPodReady(p)).length;
      const want = Number((t.live!.spec as { replicas?: number } | undefined)?.replicas ?? 1);
      const podName = victim.metadata.name ?? '';
      options.onProgress?.(
        `${name(t.applied)}: replacing pod ${podName} of an older template (${isPodReady(victim) ? `${ready}/${want} ready` : 'it is not ready'})`,
      );
      t.replacing = true;
      t.deleted.add(String(victim.metadata.uid));
      const ns = encodeURIComponent(victim.metadata.namespace ?? t.applied.object.metadata.namespace ?? '');
      client
        .request({
          method: 'DELETE',
          path: `/api/v1/namespaces/${ns}/pods/${encodeURIComponent(podName)}`,
          signal: stop.signal,
        })
        .catch((error: unknown) => {
          if ((error as { code?: number }).code === 404) return;
          throw new Error(
            `${name(t.applied)}: cannot replace pod ${podName} of an older template: ${(error as Error).message}`,
          );
        })
        .then(() => {
          t.replacing = false;
          evaluate();
        }, watchFailed);
    };

    const ticker = setInterval(evaluate, interval);
    const timer = setTimeout(
      () => {
        if (settled) return;
        evaluate();
        if (settled) return;
        const notReady = tracked.filter((t) => !t.result);
        end(
          new RolloutError(
            `rollout not finished within ${Math.round(options.timeoutMs / 1000)}s:\n${notReady
              .map((t) => {
                const why = t.problems[0] ? ` (pod ${t.problems[0].pod}: ${t.problems[0].message})` : '';
                return `  ${name(t.applied)}: ${t.state.message}${why}`;
              })
              .join('\n')}`,
            finishAll(),
          ),
        );
      },
      Math.max(0, deadline - Date.now()),
    );
    if (options.signal?.aborted) onOuterAbort();

    for (const t of tracked) {
      const a = t.applied;
      const ns = a.object.metadata.namespace;
      informer(client, objectPath(a.resource, ns), {
        fieldSelector: `metadata.name=${a.object.metadata.name}`,
        signal: stop.signal,
        onChange: (items) => {
          const live = items[0];
          if (!live) {
            if (t.live !== undefined && !t.result) {
              t.result = {
                object: a,
                ready: false,
                message: 'deleted while waiting',
                durationMs: Date.now() - start,
              };
            }
            t.live = undefined;
          } else t.live = live;
          evaluate();
        },
      }).catch(watchFailed);
      const selector = WITH_PODS.has(t.gk)
        ? selectorString((a.live.spec as { selector?: unknown })?.selector)
        : undefined;
      if (selector && ns) {
        // Pod diagnosis only enriches the wait: a refused pod watch (RBAC) leaves readiness to the object.
        t.podsPending = true;
        informer(client, `/api/v1/namespaces/${encodeURIComponent(ns)}/pods`, {
          labelSelector: selector,
          signal: stop.signal,
          onChange: (items) => {
            t.pods = [...items];
            evaluate();
          },
        }).catch(() => {
          t.podsPending = false;
          evaluate();
        });
        if (t.gk === 'Deployment.apps') {
          informer(client, `/apis/apps/v1/namespaces/${encodeURIComponent(ns)}/replicasets`, {
            labelSelector: selector,
            signal: stop.signal,
            onChange: (items) => {
              t.replicaSets = [...items];
              evaluate();
            },
          }).catch(() => undefined);
        }
      }
      if (t.gk === 'PersistentVolumeClaim') {
        const storageClass = (a.live.spec as { storageClassName?: string }).storageClassName;
        if (storageClass)
          client
            .getOrUndefined<{ volumeBindingMode?: string }>(
              `/apis/storage.k8s.io/v1/storageclasses/${encodeURIComponent(storageClass)}`,
              stop.signal,
            )
            .then((sc) => {
              if (sc) t.volumeBindingMode = sc.volumeBindingMode ?? 'Immediate';
              else t.storageClassMissing = true;
              evaluate();
            })
            .catch(() => undefined);
      }
    }
  });
}

function name(a: AppliedObject): string {
  return formatObject(a.object);
}
