// The logs of a deploy's Jobs while they run (a phase's migration, a smoke test): each pod of the Job
// found by a watch on its controller-uid label, each container's log followed through the API server
// (`pods/log?follow=true`), every line passed on, and the last lines kept for the error of a failure.
import type { KubeObject } from '../../base/kube-object.js';
import type { AppliedObject } from '../apply/applied.js';
import type { ClusterPort } from '../kube-api.js';

/** How many lines of each Job's log a failure quotes. */
export const LAST_LINES = 20;

/** The logs being followed; `stop` ends them and answers each Job's last lines (and why a log was missing). */
export interface JobLogs {
  stop(): Promise<Map<string, string[]>>;
}

/**
 * Follows the logs of the Jobs among `applied` (see the file's header), each line to `onLine` as
 * `job/NAME pod/POD: line`. A log that cannot be read (a node without a kubelet to serve it) is one
 * line saying so: the deploy goes on.
 */
export function followJobLogs(
  client: ClusterPort,
  applied: readonly AppliedObject[],
  onLine: (line: string) => void,
): JobLogs {
  const jobs = applied.filter((a) => a.object.kind === 'Job' && a.object.apiVersion === 'batch/v1');
  const stop = new AbortController();
  const last = new Map<string, string[]>();
  const streams: Promise<void>[] = [];
  const keep = (job: string, line: string) => {
    const lines = last.get(job) ?? [];
    lines.push(line);
    if (lines.length > LAST_LINES) lines.shift();
    last.set(job, lines);
  };
  const watches = jobs.map((a) => {
    const ns = a.live.metadata.namespace ?? '';
    const job = a.live.metadata.name ?? '';
    const uid = a.live.metadata.uid ?? '';
    last.set(job, []);
    const following = new Set<string>();
    const follow = (pod: KubeObject) => {
      const name = pod.metadata.name ?? '';
      if (following.has(name) || !started(pod)) return;
      following.add(name);
      for (const container of containersOf(pod)) {
        const prefix = `job/${job} pod/${name}${containersOf(pod).length > 1 ? ` ${container}` : ''}`;
        streams.push(
          followLog(client, ns, name, container, stop.signal, (line) => {
            onLine(`${prefix}: ${line}`);
            keep(job, line);
          }).catch((error: unknown) => {
            const why = `(the log of pod ${name} could not be read: ${(error as Error).message.split('\n')[0]})`;
            onLine(`${prefix}: ${why}`);
            keep(job, why);
          }),
        );
      }
    };
    if (!client.lines || !uid) return Promise.resolve();
    return client
      .watch(
        `/api/v1/namespaces/${ns}/pods`,
        { labelSelector: `batch.kubernetes.io/controller-uid=${uid}`, signal: stop.signal },
        (event) => {
          if (event.type === 'ADDED' || event.type === 'MODIFIED') follow(event.object);
        },
      )
      .catch(() => {});
  });
  return {
    async stop() {
      // A finished container's log ends by itself: a moment to take its last lines, then the rest ends.
      await Promise.race([Promise.all(streams), new Promise((r) => setTimeout(r, 2000))]);
      stop.abort();
      await Promise.all([...watches, ...streams]);
      return last;
    },
  };
}

/** A pod whose containers have started (or ended): a kubelet has a log for it. */
function started(pod: KubeObject): boolean {
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  return phase === 'Running' || phase === 'Succeeded' || phase === 'Failed';
}

function containersOf(pod: KubeObject): string[] {
  const spec = pod.spec as { containers?: { name?: string }[] } | undefined;
  return (spec?.containers ?? []).map((c) => c.name ?? '');
}

function followLog(
  client: ClusterPort,
  ns: string,
  pod: string,
  container: string,
  signal: AbortSignal,
  onLine: (line: string) => void,
): Promise<void> {
  return client.lines!(
    `/api/v1/namespaces/${ns}/pods/${pod}/log`,
    { container, follow: 'true' },
    onLine,
    signal,
  );
}
