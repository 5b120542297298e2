import { isPodReady } from '../../base/conditions.js';
import type { KubeObject } from '../../base/kube-object.js';
import type { KubeClient } from '../../cluster/client.js';
import { objectPath } from '../../cluster/discovery.js';
import { selectorString } from '../../cluster/pods.js';
import { watchesPods } from '../status/registry.js';
import { podToReplace } from './rc-roll.js';
import { type Tracked, trackedName } from './tracked.js';
import { informer } from './watcher.js';

/** Where the watches of a wait report to. */
export interface WatchSink {
  /** Something a watch holds changed: judge again. */
  readonly changed: () => void;
  /** A watch failed for good (the object cannot be listed or watched): the wait fails with it. */
  readonly failed: (error: unknown) => void;
  /** Progress lines (an RC's pod replaced). */
  readonly onProgress?: ((line: string) => void) | undefined;
  /** Ends every watch and request of the wait. */
  readonly signal: AbortSignal;
}

/**
 * Starts the watches of one waited object: the object itself (by name), the pods its selector
 * matches (workloads) and a Deployment's ReplicaSets, and a PVC's StorageClass (read once). Pod and
 * ReplicaSet watches only enrich the wait: a refused one (RBAC) leaves readiness to the object.
 */
export function watchTracked(client: KubeClient, t: Tracked, start: number, sink: WatchSink): void {
  const a = t.applied;
  const ns = a.object.metadata.namespace;
  informer(client, objectPath(a.resource, ns), {
    fieldSelector: `metadata.name=${a.object.metadata.name}`,
    signal: sink.signal,
    onChange: (items) => {
      const live = items[0];
      if (!live && t.live !== undefined && !t.result)
        t.result = {
          object: a,
          ready: false,
          message: 'deleted while waiting',
          durationMs: Date.now() - start,
        };
      t.live = live;
      sink.changed();
    },
  }).catch(sink.failed);
  const selector = watchesPods(a.object)
    ? selectorString((a.live.spec as { selector?: unknown })?.selector)
    : undefined;
  if (selector && ns) {
    t.podsPending = true;
    informer(client, `/api/v1/namespaces/${encodeURIComponent(ns)}/pods`, {
      labelSelector: selector,
      signal: sink.signal,
      onChange: (items) => {
        t.pods = [...items];
        sink.changed();
      },
    }).catch(() => {
      t.podsPending = false;
      sink.changed();
    });
    if (t.gk === 'Deployment.apps')
      informer(client, `/apis/apps/v1/namespaces/${encodeURIComponent(ns)}/replicasets`, {
        labelSelector: selector,
        signal: sink.signal,
        onChange: (items) => {
          t.replicaSets = [...items];
          sink.changed();
        },
      }).catch(() => undefined);
  }
  if (t.gk === 'PersistentVolumeClaim') readStorageClass(client, t, sink);
}

function readStorageClass(client: KubeClient, t: Tracked, sink: WatchSink): void {
  const storageClass = (t.applied.live.spec as { storageClassName?: string }).storageClassName;
  if (!storageClass) return;
  client
    .getOrUndefined<{ volumeBindingMode?: string }>(
      `/apis/storage.k8s.io/v1/storageclasses/${encodeURIComponent(storageClass)}`,
      sink.signal,
    )
    .then((sc) => {
      if (sc) t.volumeBindingMode = sc.volumeBindingMode ?? 'Immediate';
      else t.storageClassMissing = true;
      sink.changed();
    })
    .catch(() => undefined);
}

/**
 * A ReplicationController does not replace the pods of an older template by itself: deletes the
 * next one ({@link podToReplace}), and judges again once the delete is answered (the pod watch
 * shows it). A refused delete fails the wait.
 */
export function replaceNextPod(
  client: KubeClient,
  t: Tracked,
  pods: readonly KubeObject[],
  sink: WatchSink,
): void {
  const victim = podToReplace(t.live!, pods);
  if (!victim) return;
  const ready = pods.filter((p) => !p.metadata.deletionTimestamp && isPodReady(p)).length;
  const want = Number((t.live!.spec as { replicas?: number } | undefined)?.replicas ?? 1);
  const podName = victim.metadata.name ?? '';
  sink.onProgress?.(
    `${trackedName(t.applied)}: replacing pod ${podName} of an older template (${isPodReady(victim) ? `${ready}/${want} ready` : 'it is not ready'})`,
  );
  t.replacing = true;
  t.deleted.add(String(victim.metadata.uid));
  const ns = encodeURIComponent(victim.metadata.namespace ?? t.applied.object.metadata.namespace ?? '');
  client
    .request({
      method: 'DELETE',
      path: `/api/v1/namespaces/${ns}/pods/${encodeURIComponent(podName)}`,
      signal: sink.signal,
    })
    .catch((error: unknown) => {
      if ((error as { code?: number }).code === 404) return;
      throw new Error(
        `${trackedName(t.applied)}: cannot replace pod ${podName} of an older template: ${(error as Error).message}`,
      );
    })
    .then(() => {
      t.replacing = false;
      sink.changed();
    }, sink.failed);
}
