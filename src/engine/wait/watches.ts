import pLimit, { type LimitFunction } from 'p-limit';
import { isPodReady } from '../../base/conditions.js';
import type { KubeObject } from '../../base/kube-object.js';
import { KubeApiError } from '../../cluster/client.js';
import { objectPath } from '../../cluster/discovery.js';
import { matchesSelector, selectorParts, selectorString } from '../../cluster/pods.js';
import type { ClusterPort } from '../kube-api.js';
import { rolloutState, watchesPods } from '../status/registry.js';
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
 * From this many waited objects on, those of one namespaced collection (a resource's objects in a
 * namespace, a namespace's pods, its ReplicaSets) share one watch of the whole collection, each
 * taking its own from it, as client-go's shared informers do: a deploy of 833 Deployments then holds 3 watches
 * instead of 2,500 connections, their TLS handshakes and their lists. Below it, each object is
 * watched by name or selector, so a small deploy lists nothing else in a busy namespace.
 */
export const SHARED_WATCH_AT = 8;

/**
 * Starts the watches of the waited objects: each object itself, the pods its selector matches
 * (workloads) and a Deployment's ReplicaSets, and a PVC's StorageClass (read once); one shared
 * watch per collection where {@link SHARED_WATCH_AT} or more objects need it, the shared ones
 * listing one collection at a time (their answers are the wait's largest). Pod and ReplicaSet
 * watches only enrich the wait: a refused one (RBAC) leaves readiness to the object.
 */
export function watchAll(
  client: ClusterPort,
  tracked: readonly Tracked[],
  start: number,
  sink: WatchSink,
): void {
  const listLimit = pLimit(1);
  for (const [path, group] of groupBy(tracked, (t) =>
    objectPath(t.applied.resource, t.applied.object.metadata.namespace),
  )) {
    // A cluster-scoped collection (CustomResourceDefinitions above all) can hold large objects of others.
    if (group.length < SHARED_WATCH_AT || !group[0]!.applied.object.metadata.namespace) {
      for (const t of group) watchObject(client, path, t, start, sink);
      continue;
    }
    const byName = new Map(group.map((t) => [t.applied.object.metadata.name, t]));
    informer(client, path, {
      signal: sink.signal,
      listLimit,
      onEvent: (event) => {
        if (event.type === 'LIST') {
          const listed = new Map(event.objects.map((o) => [o.metadata.name, o]));
          for (const t of group) seeLive(t, listed.get(t.applied.object.metadata.name), start);
        } else {
          const t = byName.get(event.object.metadata.name);
          if (!t) return;
          seeLive(t, event.type === 'DELETED' ? undefined : event.object, start);
        }
        sink.changed();
      },
    }).catch((error: unknown) => {
      // RBAC that grants the objects by name (resourceNames) allows no list of the whole collection.
      if (isForbidden(error)) for (const t of group) watchObject(client, path, t, start, sink);
      else sink.failed(error);
    });
  }
  const selected = tracked.flatMap((t) => {
    const ns = t.applied.object.metadata.namespace;
    const selector = watchesPods(t.applied.object)
      ? (t.applied.live.spec as { selector?: unknown })?.selector
      : undefined;
    return ns && selectorString(selector) ? [{ t, ns, selector }] : [];
  });
  for (const [ns, group] of groupBy(selected, (s) => s.ns)) {
    const pods = `/api/v1/namespaces/${encodeURIComponent(ns)}/pods`;
    const replicaSets = `/apis/apps/v1/namespaces/${encodeURIComponent(ns)}/replicasets`;
    const deployments = group.filter((s) => s.t.gk === 'Deployment.apps');
    for (const s of group) s.t.podsPending = true;
    for (const s of deployments) s.t.replicaSetsPending = true;
    const podsSeen = (t: Tracked, items: KubeObject[] | undefined) => {
      if (items) t.pods = items;
      t.podsPending = false;
    };
    const replicaSetsSeen = (t: Tracked, items: KubeObject[] | undefined) => {
      if (items) t.replicaSets = items;
      t.replicaSetsPending = false;
    };
    // The ReplicaSets first: until they are known, a Deployment's pods are not diagnosed. Of a
    // ReplicaSet the wait reads only labels, annotations and owners.
    if (deployments.length < SHARED_WATCH_AT) {
      for (const s of deployments) watchSelected(client, replicaSets, s, sink, replicaSetsSeen, true);
    } else watchShared(client, replicaSets, deployments, sink, replicaSetsSeen, listLimit, true);
    if (group.length < SHARED_WATCH_AT) {
      for (const s of group) watchSelected(client, pods, s, sink, podsSeen);
    } else watchShared(client, pods, group, sink, podsSeen, listLimit);
  }
  for (const t of tracked) if (t.gk === 'PersistentVolumeClaim') readStorageClass(client, t, sink);
}

/**
 * What the object's watch shows of it; gone while waiting ends its wait as not ready, unless it was
 * last seen as a finished Job: one with `ttlSecondsAfterFinished: 0` is deleted by the TTL
 * controller as soon as it completes, often before the wait judged its last state.
 */
function seeLive(t: Tracked, live: KubeObject | undefined, start: number): void {
  if (!live && t.live !== undefined && !t.result) {
    const last = t.gk === 'Job.batch' ? rolloutState(t.live) : undefined;
    t.result = {
      object: t.applied,
      ready: last?.done === true,
      message: last && (last.done || last.failed) ? `${last.message}, then deleted` : 'deleted while waiting',
      durationMs: Date.now() - start,
    };
  }
  t.live = live;
}

/** The object alone, by name. */
function watchObject(client: ClusterPort, path: string, t: Tracked, start: number, sink: WatchSink): void {
  informer(client, path, {
    fieldSelector: `metadata.name=${t.applied.object.metadata.name}`,
    signal: sink.signal,
    onChange: (items) => {
      seeLive(t, items[0], start);
      sink.changed();
    },
  }).catch(sink.failed);
}

/** A selected collection: a workload's waited object, its namespace and its selector. */
interface Selected {
  readonly t: Tracked;
  readonly ns: string;
  readonly selector: unknown;
}

/** `seen(t, items)` gets what one object's selector matches, or undefined when the watch was refused. */
type Seen = (t: Tracked, items: KubeObject[] | undefined) => void;

/**
 * The collection at `path` that one object's selector matches, watched with that label selector
 * (`metadataOnly`: see InformerOptions).
 */
function watchSelected(
  client: ClusterPort,
  path: string,
  s: Selected,
  sink: WatchSink,
  seen: Seen,
  metadataOnly = false,
): void {
  informer(client, path, {
    labelSelector: selectorString(s.selector),
    signal: sink.signal,
    metadataOnly,
    onChange: (items) => {
      seen(s.t, [...items]);
      sink.changed();
    },
  }).catch(() => {
    seen(s.t, undefined);
    sink.changed();
  });
}

/**
 * The whole collection at `path`, shared: each object gets what its selector matches, kept up to
 * date one change at a time; its LISTs go through `listLimit` (`metadataOnly`: see InformerOptions).
 * The selectors are indexed by one of their `matchLabels` pairs, so an item is matched against the
 * few selectors that can take it, not against all of them.
 */
function watchShared(
  client: ClusterPort,
  path: string,
  group: readonly Selected[],
  sink: WatchSink,
  seen: Seen,
  listLimit: LimitFunction,
  metadataOnly = false,
): void {
  const byPair = new Map<string, Selected[]>();
  const unindexed: Selected[] = [];
  for (const s of group) {
    const pair = firstPair(s.selector);
    if (pair === undefined) unindexed.push(s);
    else byPair.set(pair, [...(byPair.get(pair) ?? []), s]);
  }
  const matching = (item: KubeObject): Selected[] => {
    const labels = item.metadata.labels ?? {};
    const candidates = Object.entries(labels).flatMap(([k, v]) => byPair.get(`${k}=${v}`) ?? []);
    return [...candidates, ...unindexed].filter((s) => matchesSelector(s.selector, labels));
  };
  // Per object, what it holds (by namespace/name); per item, who holds it.
  const held = new Map<Tracked, Map<string, KubeObject>>(group.map((s) => [s.t, new Map()]));
  const holders = new Map<string, Selected[]>();
  const keyOf = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
  informer(client, path, {
    signal: sink.signal,
    listLimit,
    metadataOnly,
    onEvent: (event) => {
      const touched = new Set<Tracked>();
      if (event.type === 'LIST') {
        for (const own of held.values()) own.clear();
        holders.clear();
        for (const s of group) touched.add(s.t);
      }
      for (const item of event.type === 'LIST' ? event.objects : [event.object]) {
        const key = keyOf(item);
        for (const s of holders.get(key) ?? []) {
          held.get(s.t)!.delete(key);
          touched.add(s.t);
        }
        const now = event.type === 'DELETED' ? [] : matching(item);
        for (const s of now) {
          held.get(s.t)!.set(key, item);
          touched.add(s.t);
        }
        if (now.length > 0) holders.set(key, now);
        else holders.delete(key);
      }
      for (const t of touched) seen(t, [...held.get(t)!.values()]);
      if (touched.size > 0) sink.changed();
    },
  }).catch((error: unknown) => {
    if (isForbidden(error)) {
      // Each object's own selector may be allowed where the whole collection is not.
      for (const s of group) watchSelected(client, path, s, sink, seen, metadataOnly);
      return;
    }
    for (const s of group) seen(s.t, undefined);
    sink.changed();
  });
}

/** A 403: the collection may not be listed or watched as a whole. */
const isForbidden = (error: unknown): boolean => error instanceof KubeApiError && error.code === 403;

/** One `key=value` a selector requires (see selectorParts); undefined when it requires none. */
function firstPair(selector: unknown): string | undefined {
  const first = selectorParts(selector)?.pairs[0];
  return first ? `${first[0]}=${first[1]}` : undefined;
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

function readStorageClass(client: ClusterPort, t: Tracked, sink: WatchSink): void {
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
  client: ClusterPort,
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
