// A wave's soak time: after every cluster of the wave deployed and became ready, spread keeps reading
// the rollout state of what each one waited for, and fails the wave when an object fails, disappears
// or is still not ready when the soak ends, before the next wave writes anything.
import type { KubeObject } from '../../base/kube-object.js';
import { sleep } from '../../base/poll.js';
import { objectPath } from '../../cluster/discovery.js';
import { diagnosePod, type PodProblem, pullError, selectorString } from '../../cluster/pods.js';
import { currentPods, rolloutState, watchesPods } from '../../engine/status/registry.js';
import type { DeployReport } from '../../report/report.js';
import type { DeployCluster } from '../deploy/index.js';

/** A cluster of the wave being soaked: its connection and what its deploy waited for. */
export interface SoakedLeg {
  readonly name: string;
  readonly cluster: DeployCluster;
  readonly report: DeployReport;
}

/**
 * Reads every leg's waited objects every `intervalMs` for `soakMs`, by the wait's rules: a Failed
 * object, a missing one, one that cannot be read or one whose current pods have a problem the wait
 * calls final (ImagePullBackOff, CrashLoopBackOff…, cluster/pods.ts diagnosePod) fails its leg at
 * once; an object not ready (InProgress) fails it only when it is still so at the last reading, since
 * a rolling restart passes through that state.
 *
 * @returns the problem of each leg that failed, by leg name; empty when all stayed healthy.
 * @throws the signal's reason when interrupted.
 */
export async function soak(
  legs: readonly SoakedLeg[],
  soakMs: number,
  intervalMs: number,
  signal?: AbortSignal,
): Promise<Map<string, string>> {
  const failed = new Map<string, string>();
  const pullSeen = new Map<string, Set<string>>();
  const end = Date.now() + soakMs;
  for (;;) {
    const last = Date.now() >= end;
    const pending = new Map<string, string>();
    await Promise.all(
      legs
        .filter((l) => !failed.has(l.name))
        .map(async (leg) => {
          const problem = await readLeg(leg, pullSeen, signal);
          if (problem?.final) failed.set(leg.name, problem.message);
          else if (problem) pending.set(leg.name, problem.message);
        }),
    );
    if (last) {
      for (const [name, message] of pending) failed.set(name, `not ready at the end of the soak: ${message}`);
      return failed;
    }
    if (failed.size === legs.length) return failed;
    await sleep(Math.max(0, Math.min(intervalMs, end - Date.now())), signal);
  }
}

/** The first problem of a leg's waited objects now: final (failed, gone, unreadable) or not. */
async function readLeg(
  leg: SoakedLeg,
  pullSeen: Map<string, Set<string>>,
  signal?: AbortSignal,
): Promise<{ final: boolean; message: string } | undefined> {
  let pending: string | undefined;
  for (const r of leg.report.rollout) {
    const ref = `${r.kind}/${r.name}`;
    const applied = leg.report.objects.find(
      (o) => o.kind === r.kind && o.name === r.name && (o.namespace ?? '') === (r.namespace ?? ''),
    );
    try {
      const info = applied && (await leg.cluster.discovery.resolve(applied.apiVersion, applied.kind));
      if (!info) continue;
      const live = await leg.cluster.api.getOrUndefined<Parameters<typeof rolloutState>[0]>(
        objectPath(info, r.namespace, r.name),
        signal,
      );
      if (live === undefined) return { final: true, message: `${ref} is gone during the soak` };
      const state = rolloutState(live);
      if (state.failed) return { final: true, message: `${ref} failed during the soak: ${state.message}` };
      if (state.done) continue;
      const problem = await podProblem(leg, live, pullSeen, signal);
      if (problem?.fatal)
        return {
          final: true,
          message: `${ref} failed during the soak: pod ${problem.pod}: ${problem.message}`,
        };
      pending ??= `${ref}: ${problem ? `pod ${problem.pod}: ${problem.message}` : state.message}`;
    } catch (error) {
      signal?.throwIfAborted();
      return { final: true, message: `cannot read ${ref} during the soak: ${(error as Error).message}` };
    }
  }
  return pending === undefined ? undefined : { final: false, message: pending };
}

/**
 * The first problem of the pods of `live`'s current rollout, as the wait judges them (tracked.ts):
 * a workload's pods by its selector, a Deployment's current ReplicaSet's only. `pullSeen` counts, per
 * pod, the readings that showed an image pull error, across the soak.
 */
async function podProblem(
  leg: SoakedLeg,
  live: KubeObject,
  pullSeen: Map<string, Set<string>>,
  signal?: AbortSignal,
): Promise<PodProblem | undefined> {
  const ns = live.metadata.namespace;
  const selector = selectorString((live.spec as { selector?: unknown } | undefined)?.selector);
  if (!ns || !watchesPods(live) || !selector) return undefined;
  const list = async (path: string) =>
    (
      await leg.cluster.api.request<{ items?: KubeObject[] }>({
        method: 'GET',
        path,
        query: { labelSelector: selector },
        ...(signal ? { signal } : {}),
      })
    ).body.items ?? [];
  const at = `namespaces/${encodeURIComponent(ns)}`;
  const pods = await list(`/api/v1/${at}/pods`);
  const replicaSets = live.kind === 'Deployment' ? await list(`/apis/apps/v1/${at}/replicasets`) : [];
  const now = Date.now();
  for (const pod of currentPods(live, pods, replicaSets)) {
    // A failed pod of a controller is replaced by it, as in the wait.
    if ((pod.status as { phase?: string } | undefined)?.phase === 'Failed') continue;
    const key = `${ns}/${pod.metadata.name}`;
    if (pullError(pod)) {
      const seen = pullSeen.get(key) ?? new Set<string>();
      seen.add(String(pod.metadata.resourceVersion));
      pullSeen.set(key, seen);
    }
    const problem = diagnosePod(pod, { now, pullErrorSeen: pullSeen.get(key)?.size ?? 0 });
    if (problem) return problem;
  }
  return undefined;
}
