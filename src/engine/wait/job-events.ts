// A Job that cannot create its pods (its ServiceAccount missing, a PodSecurity or quota refusal)
// says so only in its FailedCreate events, as `kubectl describe job` lists them: read while the Job
// has no pod, so that the wait says why, and fails at once when waiting cannot help (docs/phases.md).
import type { KubeObject } from '../../base/kube-object.js';
import { formatEvent, recentEvents } from '../../cluster/pods.js';
import type { ClusterPort } from '../kube-api.js';
import type { CreateFailure, Tracked } from './tracked.js';

/** A refusal no retry of the Job controller gets past while the deploy waits (the deploy changes nothing meanwhile). */
const PODSECURITY = /violates PodSecurity/;
/** The admission's `error looking up service account NS/NAME: serviceaccount "NAME" not found`. */
const NO_SERVICE_ACCOUNT = /serviceaccount "([^"]+)" not found/;

/**
 * Reads the FailedCreate events of `t`'s Job, when it is a Job with no pod and none active, at most
 * once per `intervalMs` and one read at a time; sets `t.createFailure` and reports a change through
 * `changed`. A failed read is ignored: events only explain a wait.
 */
export function readJobEvents(
  client: ClusterPort,
  t: Tracked,
  now: number,
  intervalMs: number,
  changed: () => void,
  signal?: AbortSignal,
): void {
  const live = t.live;
  if (!live || t.result || !isJob(live) || t.eventsReading) return;
  const status = (live.status ?? {}) as { active?: number };
  if ((status.active ?? 0) > 0 || (t.pods?.length ?? 0) > 0) {
    t.createFailure = undefined;
    return;
  }
  if (t.eventsReadAt !== undefined && now - t.eventsReadAt < intervalMs) return;
  t.eventsReading = true;
  t.eventsReadAt = now;
  createFailureOf(client, live, signal)
    .then((failure) => {
      if (failure?.message !== t.createFailure?.message || failure?.fatal !== t.createFailure?.fatal) {
        t.createFailure = failure;
        changed();
      }
    })
    .catch(() => {})
    .finally(() => {
      t.eventsReading = false;
    });
}

/**
 * The newest FailedCreate event of `job` (this Job's, by uid: not a replaced one's of the same name),
 * and whether it is fatal: a PodSecurity refusal, or a ServiceAccount other than `default` (which
 * the ServiceAccount controller creates in a new namespace) that is still absent when read.
 */
export async function createFailureOf(
  client: ClusterPort,
  job: KubeObject,
  signal?: AbortSignal,
): Promise<CreateFailure | undefined> {
  const ns = job.metadata.namespace ?? '';
  const res = await client.request<{ items?: Record<string, unknown>[] }>({
    method: 'GET',
    path: `/api/v1/namespaces/${encodeURIComponent(ns)}/events`,
    query: {
      fieldSelector: `involvedObject.kind=Job,involvedObject.name=${job.metadata.name},involvedObject.uid=${job.metadata.uid},reason=FailedCreate`,
    },
    ...(signal ? { signal } : {}),
  });
  const [event] = recentEvents(res.body.items ?? [], 1);
  if (!event) return undefined;
  const message = formatEvent(event);
  if (PODSECURITY.test(event.message)) return { message, fatal: true };
  const account = NO_SERVICE_ACCOUNT.exec(event.message)?.[1];
  if (account === undefined || account === 'default') return { message, fatal: false };
  const path = `/api/v1/namespaces/${encodeURIComponent(ns)}/serviceaccounts/${encodeURIComponent(account)}`;
  const exists = (await client.getOrUndefined(path, signal)) !== undefined;
  return { message, fatal: !exists };
}

function isJob(o: KubeObject): boolean {
  return o.kind === 'Job' && o.apiVersion.startsWith('batch/');
}
