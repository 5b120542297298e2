import type { KubeObject } from '../../base/kube-object.js';
import { formatGroupKind, formatObject, groupKindOf } from '../../base/kube-object.js';
import { diagnosePod, type PodProblem, pullError } from '../../cluster/pods.js';
import type { HealthRules } from '../../project/health.js';
import type { AppliedObject } from '../apply/applied.js';
import { currentPods, rolloutState } from '../status/registry.js';
import { inProgress, type RolloutState } from '../status/types.js';

/** The outcome of waiting for one object. */
export interface RolloutResult {
  readonly object: AppliedObject;
  readonly ready: boolean;
  readonly message: string;
  /** Time from the start of the wait to readiness (or to the end of the wait), in milliseconds. */
  readonly durationMs: number;
}

/** Why a Job's pods cannot be created (job-events.ts): its newest FailedCreate event, and whether waiting cannot help. */
export interface CreateFailure {
  /** `Warning FailedCreate (x3): Error creating: pods "migrate-" is forbidden: …` */
  readonly message: string;
  readonly fatal: boolean;
}

/** One waited object and what its watches hold of it. */
export interface Tracked {
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
  /** A ReplicationController's pod deletion in flight (see podToReplace). */
  replacing: boolean;
  /** Uids of the pods this wait deleted: gone, even while the pod watch still shows them. */
  readonly deleted: Set<string>;
  /** Its pods are being listed: a ReplicationController is not judged before they are known. */
  podsPending: boolean;
  /**
   * A Deployment's ReplicaSets are being listed: its pods are not diagnosed before they are known,
   * since without them every pod of its selector, old revisions' too, counts as current.
   */
  replicaSetsPending: boolean;
  /** A Job with no pod: why its pods cannot be created, from its events (job-events.ts). */
  createFailure?: CreateFailure | undefined;
  /** When its events were last read, and whether a read is in flight (job-events.ts). */
  eventsReadAt?: number;
  eventsReading?: boolean;
}

/** A fresh {@link Tracked} for an applied object, not yet seen by its watch. */
export function track(applied: AppliedObject): Tracked {
  return {
    applied,
    gk: formatGroupKind(groupKindOf(applied.object)),
    live: undefined,
    pods: undefined,
    replicaSets: undefined,
    state: inProgress('waiting'),
    problems: [],
    replacing: false,
    deleted: new Set<string>(),
    podsPending: false,
    replicaSetsPending: false,
  };
}

/** `Deployment default/web`: how the wait names an object. */
export function trackedName(a: AppliedObject): string {
  return formatObject(a.object);
}

/** What judging pods needs besides the pods: the clock and the wait's diagnosis options. */
export interface JudgeOptions {
  readonly now: number;
  readonly start: number;
  readonly unschedulableGraceMs?: number | undefined;
  readonly pullErrorObservations?: number | undefined;
  /** Per pod (`namespace/name`), the resourceVersions in which it showed an image pull error. */
  readonly pullSeen: Map<string, Set<string>>;
  /** The project file's health rules (see WaitOptions.health). */
  readonly health?: HealthRules | undefined;
}

/**
 * Judges one object from what its watches hold: its rollout state, the problems of the pods of its
 * current rollout, and — once Current or Failed — its result. Answers the pods the state was
 * judged with (undefined when unknown), for the ReplicationController roll.
 */
export function judge(t: Tracked, options: JudgeOptions): KubeObject[] | undefined {
  if (t.result || !t.live) return undefined;
  // Its status counts the pods of every template: ready replicas of the old one would pass.
  if (t.gk === 'ReplicationController' && t.podsPending) return undefined;
  const pods = t.gk === 'Pod' ? [t.live] : t.pods?.filter((p) => !t.deleted.has(String(p.metadata.uid)));
  t.state = rolloutState(t.live, {
    ...(t.gk === 'ReplicationController' && pods ? { pods } : {}),
    ...(t.volumeBindingMode ? { volumeBindingMode: t.volumeBindingMode } : {}),
    ...(t.storageClassMissing ? { storageClassMissing: true } : {}),
    ...(options.health ? { health: options.health } : {}),
  });
  t.problems = !t.state.done && pods && !t.replicaSetsPending ? podProblems(t, pods, options) : [];
  if (t.state.done || t.state.failed)
    t.result = {
      object: t.applied,
      ready: t.state.done,
      message: t.state.message,
      durationMs: options.now - options.start,
    };
  return pods;
}

/** The problems of the pods of `t`'s current rollout ({@link diagnosePod}). */
function podProblems(t: Tracked, pods: readonly KubeObject[], options: JudgeOptions): PodProblem[] {
  const problems: PodProblem[] = [];
  for (const pod of currentPods(t.live!, pods, t.replicaSets ?? [])) {
    // A failed pod of a controller is replaced by it (a Job counts it against its backoffLimit).
    if (t.gk !== 'Pod' && (pod.status as { phase?: string } | undefined)?.phase === 'Failed') continue;
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    if (pullError(pod)) {
      const seen = options.pullSeen.get(key) ?? new Set<string>();
      seen.add(String(pod.metadata.resourceVersion));
      options.pullSeen.set(key, seen);
    }
    const problem = diagnosePod(pod, {
      now: options.now,
      unschedulableGraceMs: options.unschedulableGraceMs,
      pullErrorObservations: options.pullErrorObservations,
      pullErrorSeen: options.pullSeen.get(key)?.size ?? 0,
    });
    if (problem) problems.push(problem);
  }
  return problems;
}

/** Every object's result: its own once judged, else not ready with its latest state (or pod problem). */
export function resultsOf(tracked: readonly Tracked[], start: number, fatalFirst = false): RolloutResult[] {
  return tracked.map(
    (t) =>
      t.result ?? {
        object: t.applied,
        ready: false,
        message:
          (fatalFirst ? t.problems.find((p) => p.fatal) : t.problems[0])?.message ??
          (t.createFailure ? `cannot create its pods: ${t.createFailure.message}` : t.state.message),
        durationMs: Date.now() - start,
      },
  );
}

/** ` (pod web-1: ImagePullBackOff …)` for an object whose pods have a problem, else nothing. */
export function podNote(t: Tracked): string {
  if (t.problems[0]) return ` (pod ${t.problems[0].pod}: ${t.problems[0].message})`;
  return t.createFailure ? ` (cannot create its pods: ${t.createFailure.message})` : '';
}
