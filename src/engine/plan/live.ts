// How the plan reads what is in the cluster: one LIST per crowded collection instead of a GET per object,
// Namespace existence asked once, and spread's per-deploy annotations carried over from the live object.
import pLimit from 'p-limit';
import type { KubeObject, SourcedObject } from '../../base/kube-object.js';
import { APPLYSET, HISTORY } from '../../base/labels.js';
import { KubeApiError } from '../../cluster/client.js';
import { apiVersionOf, objectPath, type ResourceInfo } from '../../cluster/discovery.js';
import { listInPages } from '../../cluster/pager.js';
import type { KubeApi } from '../kube-api.js';

/**
 * From this many objects of one resource in one namespace (or cluster-wide), the plan reads what is
 * in the cluster with one LIST instead of one GET per object.
 */
export const LIST_THRESHOLD = 8;

/**
 * The ApplySet members a plan's LISTs saw besides the set's own objects: for each collection listed
 * whole (by its path, as `objectPath` gives it), the objects labelled `applyset.kubernetes.io/part-of`
 * `partOf` that the set does not hold, metadata only (without managedFields). Prune does not list
 * again a collection where none was noted (nothing to prune there), and lists again one where some were.
 */
export interface ListedMembers {
  readonly partOf: string;
  readonly byCollection: Map<string, KubeObject[]>;
}

/**
 * How the plan reads the live state of each object. A resource with at least
 * {@link LIST_THRESHOLD} objects of the set in one namespace is read with one (paginated) LIST,
 * shared by those objects; the others, and every object when the LIST is refused (no `list` right:
 * 403, or 405), are read with a GET each. Answers `undefined` for an object that does not exist.
 * A LIST keeps only the set's objects, and hands each out once (a second read of it is a GET), so
 * that what the plan drops is freed.
 *
 * Why: the GETs were a third of a deploy's requests (one GET, one dry-run PATCH, one PATCH per
 * object), and on a busy API server each request costs about the same; a LIST of 500 ConfigMaps
 * costs a few milliseconds.
 */
export function liveReader(
  client: KubeApi,
  objects: readonly SourcedObject[],
  resources: ReadonlyMap<SourcedObject, ResourceInfo | undefined>,
  concurrency: number,
  signal: AbortSignal | undefined,
  members?: ListedMembers,
): (resource: ResourceInfo, o: SourcedObject, path: string) => Promise<KubeObject | undefined> {
  // Each collection's resource and the names of the set in it: a LIST keeps only those (not the
  // namespace's others).
  const collections = new Map<string, { resource: ResourceInfo; names: Set<string> }>();
  for (const o of objects) {
    const resource = resources.get(o);
    if (!resource) continue;
    const path = objectPath(resource, o.object.metadata.namespace);
    const collection = collections.get(path) ?? { resource, names: new Set<string>() };
    collection.names.add(o.object.metadata.name ?? '');
    collections.set(path, collection);
  }
  // Every LIST starts now, `concurrency` at a time, rather than when the first object of its
  // resource comes up: the objects come kind after kind, so lazily started LISTs ran one by one.
  const limit = pLimit(Math.max(1, concurrency));
  const lists = new Map<string, Promise<Map<string, KubeObject | null> | undefined>>();
  for (const [path, { resource, names }] of collections) {
    if (names.size < LIST_THRESHOLD) continue;
    const list = limit(() => listAll(client, resource, path, names, signal, members));
    // Awaited by the collection's objects; a plan that fails before them must not leave it unhandled.
    list.catch(() => {});
    lists.set(path, list);
  }
  return async (resource, o, path) => {
    const list = lists.get(objectPath(resource, o.object.metadata.namespace));
    if (list) {
      const byName = await list;
      const name = o.object.metadata.name ?? '';
      const live = byName?.get(name);
      // Handed out once, the object is the plan's alone (the LIST keeps `null`); a second read is a GET.
      if (byName && live !== null) {
        if (live) byName.set(name, null);
        return live;
      }
    }
    return client.getOrUndefined<KubeObject>(path, signal);
  };
}

/**
 * For core Secrets, a field selector that leaves out spread's revision Secrets (type
 * {@link HISTORY}.type): no object of a set is one, and ten revisions of a large set are MB of `data`
 * the plan would read and hold for nothing.
 */
function skipRevisions(resource: ResourceInfo): string | undefined {
  return resource.group === '' && resource.resource === 'secrets' ? `type!=${HISTORY.type}` : undefined;
}

/**
 * The objects of a collection named in `wanted`, by name (read in pages of 500), or `undefined` when
 * the LIST is not allowed. With `members`, the others labelled part-of its ApplySet go there.
 */
async function listAll(
  client: KubeApi,
  resource: ResourceInfo,
  collection: string,
  wanted: ReadonlySet<string>,
  signal: AbortSignal | undefined,
  members: ListedMembers | undefined,
): Promise<Map<string, KubeObject | null> | undefined> {
  const apiVersion = apiVersionOf(resource);
  const out = new Map<string, KubeObject | null>();
  const others: KubeObject[] = [];
  try {
    await listInPages<KubeObject>(
      client,
      { path: collection, pageSize: 500, fieldSelector: skipRevisions(resource), signal },
      (page) => {
        // A list's items carry no apiVersion and kind (the list does); a GET's object does.
        for (const item of page.items ?? []) {
          const name = item.metadata.name ?? '';
          if (wanted.has(name)) out.set(name, { ...item, apiVersion, kind: resource.kind });
          else if (members && item.metadata.labels?.[APPLYSET.partOf] === members.partOf) {
            const { managedFields: _, ...metadata } = item.metadata;
            others.push({ apiVersion, kind: resource.kind, metadata });
          }
        }
      },
      () => {
        out.clear();
        others.length = 0;
      },
    );
  } catch (error) {
    if (error instanceof KubeApiError && (error.code === 403 || error.code === 405)) return undefined;
    throw error;
  }
  members?.byCollection.set(collection, others);
  return out;
}

/**
 * Whether Namespace `ns` exists. A user without `get` on Namespaces (403; a Role limited to the
 * kinds it deploys) cannot tell: then it is taken to exist, and the requests in it say otherwise.
 *
 * @throws KubeApiError for any other failure.
 */
export function namespaceExists(client: KubeApi, ns: string, signal?: AbortSignal): Promise<boolean> {
  return client.getOrUndefined(`/api/v1/namespaces/${encodeURIComponent(ns)}`, signal).then(
    (n) => n !== undefined,
    (error: unknown) => {
      if (error instanceof KubeApiError && error.code === 403) return true;
      throw error;
    },
  );
}

/** {@link namespaceExists}, asked of the server once per name. */
export function namespaceLookup(
  client: KubeApi,
  signal: AbortSignal | undefined,
): (ns: string) => Promise<boolean> {
  return memoize((ns) => namespaceExists(client, ns, signal));
}

/** A function of one string argument whose answers are kept (a promise per argument). */
function memoize<T>(f: (key: string) => Promise<T>): (key: string) => Promise<T> {
  const answers = new Map<string, Promise<T>>();
  return (key) => {
    let answer = answers.get(key);
    if (!answer) {
      answer = f(key);
      answers.set(key, answer);
    }
    return answer;
  };
}

/** A copy of `object` with the live values of `keys` (when the live object has them). */
export function keepAnnotations(
  object: KubeObject,
  live: KubeObject | undefined,
  keys: readonly string[],
): KubeObject {
  const liveAnnotations = live?.metadata.annotations ?? {};
  const kept = Object.fromEntries(
    keys.filter((k) => k in liveAnnotations).map((k) => [k, liveAnnotations[k]!]),
  );
  if (Object.keys(kept).length === 0) return object;
  return {
    ...object,
    metadata: { ...object.metadata, annotations: { ...object.metadata.annotations, ...kept } },
  };
}
