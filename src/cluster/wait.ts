import type { KubeObject } from '../deployment/kube-object.js';
import { formatGroupKind, groupKindOf } from '../deployment/kube-object.js';
import type { AppliedObject } from './apply.js';
import type { KubeClient } from './client.js';
import { objectPath } from './discovery.js';

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
  /** Time between two reads of an object not ready yet, in milliseconds. Default 1000. */
  readonly intervalMs?: number;
  /** Progress lines (what is ready, what is not and why). */
  readonly onProgress?: (line: string) => void;
  readonly signal?: AbortSignal;
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

/** Kinds spread waits for; others are ready once applied. */
const WAITED = new Set([
  'Deployment.apps',
  'ReplicationController',
  'StatefulSet.apps',
  'DaemonSet.apps',
  'Job.batch',
  'Pod',
]);

/** Whether spread waits for objects of this kind after applying them. */
export function isWaited(o: KubeObject): boolean {
  return WAITED.has(formatGroupKind(groupKindOf(o)));
}

/**
 * Readiness of one object, following `kubectl rollout status` for Deployments, StatefulSets and
 * DaemonSets (observedGeneration caught up, all replicas updated and available), the Ready
 * condition for Pods, the Complete/Failed conditions for Jobs; a ReplicationController is ready
 * when its observedGeneration caught up and every replica is ready.
 */
export function rolloutState(o: KubeObject): RolloutState {
  const spec = (o.spec ?? {}) as Record<string, unknown>;
  const status = (o.status ?? {}) as Record<string, unknown>;
  const generation = Number(o.metadata.generation ?? 0);
  const observed = Number(status.observedGeneration ?? 0);
  const num = (v: unknown) => Number(v ?? 0);
  const pending = (message: string): RolloutState => ({ done: false, failed: false, message });
  switch (formatGroupKind(groupKindOf(o))) {
    case 'Deployment.apps': {
      if (observed < generation) return pending('waiting for the controller to observe the new generation');
      const conditions = (status.conditions ?? []) as { type: string; reason?: string; message?: string }[];
      const progressing = conditions.find((c) => c.type === 'Progressing');
      if (progressing?.reason === 'ProgressDeadlineExceeded') {
        return {
          done: false,
          failed: true,
          message: `progress deadline exceeded: ${progressing.message ?? ''}`,
        };
      }
      const want = num(spec.replicas ?? 1);
      const updated = num(status.updatedReplicas);
      const available = num(status.availableReplicas);
      const total = num(status.replicas);
      if (updated < want) return pending(`${updated}/${want} replicas updated`);
      if (total > updated) return pending(`${total - updated} old replicas pending termination`);
      if (available < updated) return pending(`${available}/${want} replicas available`);
      return { done: true, failed: false, message: `${available}/${want} replicas available` };
    }
    case 'ReplicationController': {
      if (observed < generation) return pending('waiting for the controller to observe the new generation');
      const want = num(spec.replicas ?? 1);
      const ready = num(status.readyReplicas);
      const labeled = num(status.fullyLabeledReplicas);
      if (ready < want || labeled < want) return pending(`${ready}/${want} replicas ready`);
      return { done: true, failed: false, message: `${ready}/${want} replicas ready` };
    }
    case 'StatefulSet.apps': {
      if (observed < generation) return pending('waiting for the controller to observe the new generation');
      const want = num(spec.replicas ?? 1);
      const ready = num(status.readyReplicas);
      if (ready < want) return pending(`${ready}/${want} replicas ready`);
      const strategy = (spec.updateStrategy as { type?: string } | undefined)?.type ?? 'RollingUpdate';
      if (strategy === 'RollingUpdate' && status.updateRevision !== status.currentRevision) {
        return pending(`${num(status.updatedReplicas)}/${want} replicas updated`);
      }
      return { done: true, failed: false, message: `${ready}/${want} replicas ready` };
    }
    case 'DaemonSet.apps': {
      if (observed < generation) return pending('waiting for the controller to observe the new generation');
      const want = num(status.desiredNumberScheduled);
      const updated = num(status.updatedNumberScheduled);
      const available = num(status.numberAvailable);
      if (updated < want) return pending(`${updated}/${want} pods updated`);
      if (available < want) return pending(`${available}/${want} pods available`);
      return { done: true, failed: false, message: `${available}/${want} pods available` };
    }
    case 'Job.batch': {
      const conditions = (status.conditions ?? []) as { type: string; status: string; message?: string }[];
      if (conditions.some((c) => c.type === 'Complete' && c.status === 'True'))
        return { done: true, failed: false, message: 'complete' };
      const failed = conditions.find((c) => c.type === 'Failed' && c.status === 'True');
      if (failed) return { done: false, failed: true, message: `failed: ${failed.message ?? ''}` };
      return pending(`${num(status.succeeded)} succeeded, ${num(status.active)} active`);
    }
    case 'Pod': {
      const phase = status.phase as string | undefined;
      if (phase === 'Succeeded') return { done: true, failed: false, message: 'succeeded' };
      if (phase === 'Failed')
        return {
          done: false,
          failed: true,
          message: `failed: ${String(status.message ?? status.reason ?? '')}`,
        };
      const conditions = (status.conditions ?? []) as { type: string; status: string }[];
      if (conditions.some((c) => c.type === 'Ready' && c.status === 'True'))
        return { done: true, failed: false, message: 'ready' };
      return pending(`phase ${phase ?? 'Pending'}, not ready`);
    }
    default:
      return { done: true, failed: false, message: 'applied' };
  }
}

/**
 * Waits until every waited object of `applied` is ready, each read again every `intervalMs`,
 * all bounded by `timeoutMs`. Objects of other kinds are ready once applied.
 *
 * @throws RolloutError when an object fails (a Job fails, a Deployment exceeds its progress
 *   deadline) or when the timeout passes; the message names each object not ready and why.
 */
export async function waitForRollout(
  client: KubeClient,
  applied: readonly AppliedObject[],
  options: WaitOptions,
): Promise<RolloutResult[]> {
  const start = Date.now();
  const deadline = start + options.timeoutMs;
  const interval = options.intervalMs ?? 1000;
  const waiting = applied.filter((a) => isWaited(a.object));
  const results = new Map<AppliedObject, RolloutResult>();
  const states = new Map<AppliedObject, RolloutState>();
  let lastProgress = '';
  for (;;) {
    await Promise.all(
      waiting
        .filter((a) => !results.has(a))
        .map(async (a) => {
          const path = objectPath(a.resource, a.object.metadata.namespace, a.object.metadata.name);
          const live = await client.getOrUndefined<KubeObject>(path, options.signal);
          const state: RolloutState = live
            ? rolloutState(live)
            : { done: false, failed: true, message: 'deleted while waiting' };
          states.set(a, state);
          if (state.done || state.failed) {
            results.set(a, {
              object: a,
              ready: state.done,
              message: state.message,
              durationMs: Date.now() - start,
            });
          }
        }),
    );
    const failed = waiting.filter((a) => results.get(a)?.ready === false);
    if (failed.length > 0) {
      throw new RolloutError(
        `rollout failed:\n${failed.map((a) => `  ${name(a)}: ${results.get(a)!.message}`).join('\n')}`,
        finish(waiting, results, states, start),
      );
    }
    const notReady = waiting.filter((a) => !results.has(a));
    if (notReady.length === 0) return finish(waiting, results, states, start);
    const progress = notReady.map((a) => `${name(a)}: ${states.get(a)?.message ?? 'waiting'}`).join('; ');
    if (progress !== lastProgress) {
      options.onProgress?.(`waiting for ${notReady.length} of ${waiting.length}: ${progress}`);
      lastProgress = progress;
    }
    if (Date.now() >= deadline) {
      throw new RolloutError(
        `rollout not finished within ${Math.round(options.timeoutMs / 1000)}s:\n${notReady
          .map((a) => `  ${name(a)}: ${states.get(a)?.message ?? 'waiting'}`)
          .join('\n')}`,
        finish(waiting, results, states, start),
      );
    }
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(interval, Math.max(0, deadline - Date.now()))),
    );
  }
}

function finish(
  waiting: readonly AppliedObject[],
  results: Map<AppliedObject, RolloutResult>,
  states: Map<AppliedObject, RolloutState>,
  start: number,
): RolloutResult[] {
  return waiting.map(
    (a) =>
      results.get(a) ?? {
        object: a,
        ready: false,
        message: states.get(a)?.message ?? 'waiting',
        durationMs: Date.now() - start,
      },
  );
}

function name(a: AppliedObject): string {
  const m = a.object.metadata;
  return `${formatGroupKind(groupKindOf(a.object))} ${m.namespace ? `${m.namespace}/` : ''}${m.name}`;
}
