// Runs in `spread status` and drift: Helm and Argo CD hooks, and the Jobs and Pods of the pre and post
// phases, run to completion; they are not states to keep in sync. Argo CD leaves hooks out of an
// Application's sync status, and Helm keeps them out of the release manifest it compares; a phase Job
// is re-created and run by the next deploy whose template changed. So they are not compared: each is
// described by its last run, and neither a missing nor a differing one is drift (docs/drift.md).
import { isGenerated, type KubeObject, type SourcedObject } from '../base/kube-object.js';
import { type Discovery, objectPath } from '../cluster/discovery.js';
import { helmHookSkipped, PHASE_ANNOTATIONS, placeOf } from '../deployment/phases.js';
import type { ClusterPort } from '../engine/kube-api.js';
import { type ClusterState, objectKey } from './status-report.js';

/**
 * Whether an object is a run, not a state: a Helm or Argo CD hook of any kind (a hook Secret too: Helm
 * renders `randAlphaNum` anew each time and keeps the first), or a batch Job or a Pod of the `pre` or
 * `post` phase. An object the server names (`generateName`) is compared by its last run elsewhere.
 */
export function isRun(o: KubeObject): boolean {
  if (isGenerated(o)) return false;
  const place = placeOf(o);
  if (place.hook) return true;
  return place.phase !== 'main' && isJobOrPod(o);
}

function isJobOrPod(o: KubeObject): boolean {
  return (
    (o.kind === 'Job' && o.apiVersion.startsWith('batch/')) || (o.kind === 'Pod' && o.apiVersion === 'v1')
  );
}

/**
 * The state of each run of `runs` (see {@link isRun}), by {@link objectKey}: `in sync` with what it is
 * and its last run when it is in the cluster, not compared; `missing` when it is not (the caller
 * decides what an absent run means, see {@link absentRun}).
 */
export async function runStates(
  client: ClusterPort,
  discovery: Discovery,
  runs: readonly SourcedObject[],
): Promise<Map<string, ClusterState>> {
  const states = new Map<string, ClusterState>();
  for (const o of runs) {
    const info = await discovery.resolve(o.object.apiVersion, o.object.kind);
    const live = info
      ? await client.getOrUndefined(objectPath(info, o.object.metadata.namespace, o.object.metadata.name))
      : undefined;
    states.set(
      objectKey(o),
      live
        ? { state: 'in sync', message: `${whatRun(o.object)}, not compared: ${lastRun(live as KubeObject)}` }
        : { state: 'missing' },
    );
  }
  return states;
}

/**
 * The state of a run not in the cluster, for a deployment deployed before: no drift, since a deploy
 * runs it (a hook its delete policy or a person deleted, a Helm hook of events this deploy is not).
 */
export function absentRun(o: KubeObject): ClusterState {
  const skipped = helmHookSkipped(o, 'upgrade');
  return {
    state: 'in sync',
    message: skipped
      ? `${whatRun(o)}, not compared: not in the cluster; ${skipped.replace(/: not run$/, ': a deploy does not run it')}`
      : `${whatRun(o)}, not compared: not in the cluster; a deploy runs it`,
  };
}

/** What kind of run an object is: `Helm hook pre-install`, `Argo CD hook PreSync`, `Job of phase pre`. */
function whatRun(o: KubeObject): string {
  const place = placeOf(o);
  const a = o.metadata.annotations ?? {};
  if (place.hook?.from === PHASE_ANNOTATIONS.helmHook)
    return `Helm hook ${a[PHASE_ANNOTATIONS.helmHook]?.trim()} (Helm keeps hooks out of its release)`;
  if (place.hook)
    return `Argo CD hook ${a[PHASE_ANNOTATIONS.argoHook]?.trim()} (Argo CD keeps hooks out of sync status)`;
  return `${o.kind} of phase ${place.phase} (a run: a deploy re-creates it when its template changed)`;
}

interface Condition {
  readonly type?: string;
  readonly status?: string;
  readonly reason?: string;
  readonly message?: string;
}

/** How a live run last went: a Job by its conditions, a Pod by its phase; other kinds as they are. */
function lastRun(live: KubeObject): string {
  const status = (live as { status?: { conditions?: Condition[]; phase?: string } }).status;
  if (live.kind === 'Job') {
    const conditions = status?.conditions ?? [];
    const failed = conditions.find(
      (c) => (c.type === 'Failed' || c.type === 'FailureTarget') && c.status === 'True',
    );
    if (failed) return `last run failed (${[failed.reason, failed.message].filter(Boolean).join(': ')})`;
    if (conditions.some((c) => c.type === 'Complete' && c.status === 'True')) return 'last run complete';
    return 'running';
  }
  if (live.kind === 'Pod') {
    const phase = status?.phase ?? 'Pending';
    return phase === 'Succeeded'
      ? 'last run complete'
      : phase === 'Failed'
        ? 'last run failed'
        : phase.toLowerCase();
  }
  return 'in the cluster as its last run left it';
}
