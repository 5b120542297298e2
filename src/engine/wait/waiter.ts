import { EventEmitter, once } from 'node:events';
import { formatGroupKind, groupKindOf } from '../../base/kube-object.js';
import { sleep } from '../../base/poll.js';
import { formatContainerStates, formatEvent, podEvents } from '../../cluster/pods.js';
import type { HealthRules } from '../../project/health.js';
import type { AppliedObject } from '../apply/applied.js';
import type { ClusterPort } from '../kube-api.js';
import { isWaited } from '../status/registry.js';
import { describeServiceExposure } from '../status/service.js';
import { readJobEvents } from './job-events.js';
import {
  judge,
  podNote,
  type RolloutResult,
  resultsOf,
  type Tracked,
  track,
  trackedName,
} from './tracked.js';
import { replaceNextPod, type WatchSink, watchAll } from './watches.js';

export type { RolloutResult } from './tracked.js';

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
  /**
   * The project file's health rules by GroupKind: an object of a GroupKind with a rule (or a rule
   * spread ships) is waited until the rule says current, and fails when it says failed.
   */
  readonly health?: HealthRules | undefined;
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

/**
 * Waits until every waited object of `applied` ({@link isWaited}) is ready, bounded by `timeoutMs`.
 *
 * Each object is followed with a WATCH (list, then `watch=1` from the list's resourceVersion,
 * resumed when the server ends it; 410 Gone lists again), and so are the pods its selector matches
 * (and a Deployment's ReplicaSets), so that the wait answers as soon as the cluster changes without
 * polling. Pods of the current rollout (see currentPods) fail the wait early, before the timeout
 * (see diagnosePod): image pull errors seen in two status updates, CrashLoopBackOff,
 * Unschedulable past `unschedulableGraceMs`. The error then quotes the pod's container states and
 * recent events.
 *
 * A ReplicationController whose pod template changed gets the pods of its older template replaced
 * during the wait, one at a time (see podToReplace); its new pods are diagnosed like a
 * Deployment's, so a broken image fails the wait early rather than at the timeout. A custom
 * resource is waited on by its GroupKind's health rule (`health`, else one spread ships), else by
 * its Ready/Reconciling/Stalled conditions (see customResourceStatus).
 *
 * Services of type LoadBalancer or NodePort are not waited for (unless `waitLoadBalancer`): their
 * address and node ports are reported through `onProgress`.
 *
 * @throws RolloutError when an object fails (a pod as above, a Job fails, a Deployment exceeds its
 *   progress deadline, a PVC is lost, a custom resource is Stalled or its rule says failed) or when the timeout passes; the
 *   message names each object not ready and why; `results` holds every object's outcome and duration.
 * @throws KubeApiError when an object cannot be listed or watched (403 for instance).
 * @throws the signal's reason when `signal` aborts (Ctrl-C, a cancelled job).
 */
export async function waitForRollout(
  client: ClusterPort,
  applied: readonly AppliedObject[],
  options: WaitOptions,
): Promise<RolloutResult[]> {
  const start = Date.now();
  reportExposure(applied, options);
  const tracked = applied.filter((a) => isWaited(a.live ?? a.object, options)).map(track);
  if (tracked.length === 0) return [];
  const stop = new AbortController();
  const changes = new EventEmitter();
  let failure: { error: unknown } | undefined;
  const sink: WatchSink = {
    changed: () => changes.emit('change'),
    failed: (error) => {
      if (stop.signal.aborted) return;
      failure ??= { error };
      changes.emit('change');
    },
    onProgress: options.onProgress,
    signal: stop.signal,
  };
  try {
    watchAll(client, tracked, start, sink);
    return await judgeUntilDone(client, tracked, {
      ...options,
      start,
      sink,
      changes,
      failure: () => failure,
    });
  } finally {
    stop.abort();
  }
}

/** How long the wait gathers changes before it judges again, in milliseconds. */
const JUDGE_BATCH_MS = 50;

interface Loop extends WaitOptions {
  readonly start: number;
  readonly sink: WatchSink;
  readonly changes: EventEmitter;
  readonly failure: () => { error: unknown } | undefined;
}

/**
 * Judges the tracked objects after the changes the watches report, gathered for
 * {@link JUDGE_BATCH_MS} (and every `intervalMs`, for the time-based rules) until all are ready, one fails, a watch fails, or the time is up.
 */
async function judgeUntilDone(client: ClusterPort, tracked: Tracked[], loop: Loop): Promise<RolloutResult[]> {
  const deadline = loop.start + loop.timeoutMs;
  const interval = loop.intervalMs ?? 1000;
  const pullSeen = new Map<string, Set<string>>();
  const progress = progressReporter(tracked, interval, loop.onProgress);
  for (;;) {
    const failed = loop.failure();
    if (failed) throw failed.error;
    const now = Date.now();
    const judging = { ...loop, now, pullSeen };
    for (const t of tracked) {
      const pods = judge(t, judging);
      if (t.gk === 'ReplicationController' && pods && !t.state.done && !t.replacing)
        replaceNextPod(client, t, pods, loop.sink);
    }
    for (const t of tracked)
      readJobEvents(client, t, now, interval, () => loop.changes.emit('change'), loop.sink.signal);
    const failing = tracked.filter(
      (t) => t.result?.ready === false || t.problems.some((p) => p.fatal) || t.createFailure?.fatal,
    );
    if (failing.length > 0) throw await failureError(client, tracked, failing, loop.start);
    if (tracked.every((t) => t.result)) return resultsOf(tracked, loop.start);
    if (now >= deadline) throw timeoutError(tracked, loop);
    progress(now);
    await nextChange(loop.changes, Math.min(interval, deadline - now), loop.signal);
    // The changes that come meanwhile are judged together: a large rollout's watches report
    // thousands, and each pass judges every object.
    await new Promise((resolve) => setTimeout(resolve, JUDGE_BATCH_MS));
  }
}

/** Resolves at the next change a watch reports, or after `ms`; rejects when `signal` aborts. */
async function nextChange(changes: EventEmitter, ms: number, signal: AbortSignal | undefined): Promise<void> {
  const done = new AbortController();
  const both = signal ? AbortSignal.any([signal, done.signal]) : done.signal;
  try {
    await Promise.race([once(changes, 'change', { signal: both }), sleep(Math.max(0, ms), both)]);
  } catch (error) {
    if (!signal?.aborted) throw error;
    const reason: unknown = signal.reason;
    throw reason instanceof Error ? reason : new Error('the wait for the rollout was aborted');
  } finally {
    // Ends the loser of the race (its listener or its timer).
    done.abort();
  }
}

/** Reports the address and node ports of the Services that are not waited for. */
function reportExposure(applied: readonly AppliedObject[], options: WaitOptions): void {
  for (const a of applied) {
    if (formatGroupKind(groupKindOf(a.object)) !== 'Service' || isWaited(a.live, options)) continue;
    const exposure = describeServiceExposure(a.live);
    if (exposure) options.onProgress?.(`${trackedName(a)}: ${exposure}`);
  }
}

/**
 * A progress line of what is not ready and why, given at most once per `interval` and only when it
 * says something new; it names at most {@link PROGRESS_NAMES} objects of each list and counts the rest.
 */
function progressReporter(
  tracked: readonly Tracked[],
  interval: number,
  onProgress: ((line: string) => void) | undefined,
): (now: number) => void {
  let last = '';
  let lastAt = 0;
  return (now) => {
    if (now - lastAt < interval) return;
    const notReady = tracked.filter((t) => !t.result);
    const progress = atMost(
      notReady.map((t) => `${trackedName(t.applied)}: ${t.live ? t.state.message : 'waiting'}${podNote(t)}`),
      '; ',
    );
    if (progress === last) return;
    const readyNames = tracked.filter((t) => t.result?.ready).map((t) => trackedName(t.applied));
    onProgress?.(
      `waiting for ${notReady.length} of ${tracked.length}: ${progress}${readyNames.length > 0 ? ` — ready: ${atMost(readyNames, ', ')}` : ''}`,
    );
    last = progress;
    lastAt = now;
  };
}

/** How many objects a progress line names in each of its lists; the rest are counted. */
const PROGRESS_NAMES = 10;

/** The first {@link PROGRESS_NAMES} parts joined, and `and N more` for the others. */
function atMost(parts: readonly string[], separator: string): string {
  if (parts.length <= PROGRESS_NAMES) return parts.join(separator);
  return `${parts.slice(0, PROGRESS_NAMES).join(separator)}${separator}and ${parts.length - PROGRESS_NAMES} more`;
}

/** The rollout failed: each failing object with its first fatal pod's containers and recent events. */
async function failureError(
  client: ClusterPort,
  tracked: readonly Tracked[],
  failing: readonly Tracked[],
  start: number,
): Promise<RolloutError> {
  const lines: string[] = [];
  for (const t of failing) {
    const fatal = t.problems.filter((p) => p.fatal);
    if (fatal.length === 0 && !t.result && t.createFailure?.fatal) {
      lines.push(`  ${trackedName(t.applied)}: cannot create its pods: ${t.createFailure.message}`);
      continue;
    }
    if (fatal.length === 0) {
      lines.push(`  ${trackedName(t.applied)}: ${t.result?.message ?? t.state.message}`);
      continue;
    }
    const p = fatal[0]!;
    lines.push(`  ${trackedName(t.applied)}: pod ${p.pod}: ${p.message}`);
    const pod = t.pods?.find((x) => x.metadata.name === p.pod) ?? (t.gk === 'Pod' ? t.live : undefined);
    if (pod) for (const c of formatContainerStates(pod)) lines.push(`      container ${c}`);
    const events = await podEvents(client, t.applied.object.metadata.namespace ?? '', p.pod, 5);
    if (events.length > 0) lines.push('      events:', ...events.map((e) => `        ${formatEvent(e)}`));
    if (fatal.length > 1)
      lines.push(`      (and ${fatal.length - 1} more pods failing the same way or otherwise)`);
  }
  return new RolloutError(`rollout failed:\n${lines.join('\n')}`, resultsOf(tracked, start, true));
}

/** The time is up: each object not ready, with its state and first pod problem. */
function timeoutError(tracked: readonly Tracked[], loop: Loop): RolloutError {
  const notReady = tracked.filter((t) => !t.result);
  return new RolloutError(
    `rollout not finished within ${Math.round(loop.timeoutMs / 1000)}s:\n${notReady
      .map((t) => `  ${trackedName(t.applied)}: ${t.state.message}${podNote(t)}`)
      .join('\n')}`,
    resultsOf(tracked, loop.start),
  );
}
