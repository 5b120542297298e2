import pLimit from 'p-limit';
import type { KubeObject } from '../../base/kube-object.js';
import { APPLYSET, HISTORY, SPREAD } from '../../base/labels.js';
import { KubeApiError, METADATA_LIST_ACCEPT } from '../../cluster/client.js';
import { apiVersionOf, type Discovery, objectPath, type ResourceInfo } from '../../cluster/discovery.js';
import { listInPages } from '../../cluster/pager.js';
import type { ClusterPort } from '../kube-api.js';
import type { ApplySet } from './applyset.js';
import { leaseName } from './lock.js';

/** An object in a namespace that is not of a given deployment (metadata only: never its data). */
export interface ForeignObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  /** The spread deployment it belongs to, when it is another one's (`spread.rsprd.com/deployment`, else its ApplySet id). */
  readonly applySet?: string;
}

/** What {@link findForeignObjects} found in a namespace. */
export interface NamespaceContents {
  /** Objects not of the deployment, sorted by kind then name. */
  readonly foreign: readonly ForeignObject[];
  /** Resources that could not be listed (`secrets (no list right)`): they may hold more. */
  readonly unlisted: readonly string[];
}

/**
 * Kinds whose objects the cluster makes by itself in every namespace, or that only describe others:
 * never "made by hand". Group-less kinds are core/v1; `metrics.k8s.io` lists live pod metrics.
 */
const IGNORED_RESOURCES = new Set(['events', 'events.events.k8s.io']);
const IGNORED_GROUPS = new Set(['metrics.k8s.io']);

/** Made by the namespace's own controllers in every namespace (the ServiceAccount and root CA controllers). */
const NAMESPACE_DEFAULTS = new Set(['ServiceAccount/default', 'ConfigMap/kube-root-ca.crt']);

/**
 * Whether an object listed in `namespace` is not of ApplySet `set` and not made by the cluster
 * itself, i.e. whether deleting the Namespace would delete something spread never applied. Not
 * foreign: objects labelled part of `set`; dependents (any `ownerReferences`: the garbage collector
 * deletes them with their owner, which is judged itself); objects already being deleted; the
 * namespace's defaults (ServiceAccount `default`, ConfigMap `kube-root-ca.crt`); the Endpoints of a
 * Service (same name; `services` lists the names of the namespace's Services); and the deployment's own
 * records (its ApplySet parent, revision Secrets and Lease).
 */
export function isForeign(
  resource: Pick<ResourceInfo, 'group' | 'kind'>,
  object: Pick<KubeObject, 'metadata'>,
  set: ApplySet,
  services: ReadonlySet<string> = new Set(),
): boolean {
  const m = object.metadata;
  const name = m.name ?? '';
  if (m.labels?.[APPLYSET.partOf] === set.id) return false;
  if (((m.ownerReferences ?? []) as unknown[]).length > 0 || m.deletionTimestamp) return false;
  const core = resource.group === '';
  if (core && NAMESPACE_DEFAULTS.has(`${resource.kind}/${name}`)) return false;
  if (core && resource.kind === 'Endpoints' && services.has(name)) return false;
  if (m.namespace === set.namespace) {
    if (
      core &&
      resource.kind === 'Secret' &&
      (name === set.parentName || m.labels?.[HISTORY.applySet] === set.id)
    )
      return false;
    if (resource.group === 'coordination.k8s.io' && resource.kind === 'Lease' && name === leaseName(set.name))
      return false;
  }
  return true;
}

/**
 * The objects in `namespace` that are not of ApplySet `set` ({@link isForeign}), found by listing
 * every namespaced resource type the server serves with `list` ({@link Discovery.namespacedResources}),
 * as metadata only (PartialObjectMetadataList: a Secret's data is never read), without the objects
 * labelled part of `set` (label selector `applyset.kubernetes.io/part-of!=<id>`).
 *
 * A resource that cannot be listed (403, or another error) is named in `unlisted`: the namespace may
 * hold objects of it. A resource gone since discovery (404) holds none.
 */
export async function findForeignObjects(
  client: ClusterPort,
  discovery: Discovery,
  namespace: string,
  set: ApplySet,
  options: { concurrency?: number; signal?: AbortSignal } = {},
): Promise<NamespaceContents> {
  const resources = (await discovery.namespacedResources('list')).filter(
    (r) =>
      !IGNORED_GROUPS.has(r.group) &&
      !IGNORED_RESOURCES.has(r.group ? `${r.resource}.${r.group}` : r.resource),
  );
  const limit = pLimit(options.concurrency ?? 8);
  const unlisted: string[] = [];
  const listed = await Promise.all(
    resources.map((r) =>
      limit(async () => {
        try {
          return { resource: r, items: await listMetadata(client, r, namespace, set, options.signal) };
        } catch (error) {
          if (error instanceof KubeApiError && error.code === 404) return { resource: r, items: [] };
          const name = r.group ? `${r.resource}.${r.group}` : r.resource;
          unlisted.push(
            error instanceof KubeApiError && error.code === 403
              ? `${name} (no list right)`
              : `${name} (${error instanceof KubeApiError ? `${error.code} ${error.message}` : (error as Error).message})`,
          );
          return { resource: r, items: [] };
        }
      }),
    ),
  );
  const services = new Set(
    listed
      .filter((l) => l.resource.group === '' && l.resource.kind === 'Service')
      .flatMap((l) => l.items.map((i) => i.metadata.name ?? '')),
  );
  const foreign = listed
    .flatMap(({ resource, items }) =>
      items
        .filter((i) => isForeign(resource, i, set, services))
        .map((i): ForeignObject => {
          const owner =
            i.metadata.labels?.[APPLYSET.partOf] !== undefined
              ? (i.metadata.annotations?.[SPREAD.deployment] ?? i.metadata.labels[APPLYSET.partOf])
              : undefined;
          return {
            apiVersion: apiVersionOf(resource),
            kind: resource.kind,
            namespace,
            name: i.metadata.name ?? '',
            ...(owner ? { applySet: owner } : {}),
          };
        }),
    )
    .sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name));
  return { foreign, unlisted: unlisted.sort() };
}

async function listMetadata(
  client: ClusterPort,
  resource: ResourceInfo,
  namespace: string,
  set: ApplySet,
  signal?: AbortSignal,
): Promise<Pick<KubeObject, 'metadata'>[]> {
  const items: Pick<KubeObject, 'metadata'>[] = [];
  await listInPages<Pick<KubeObject, 'metadata'>>(
    client,
    {
      path: objectPath(resource, namespace),
      pageSize: 500,
      labelSelector: `${APPLYSET.partOf}!=${set.id}`,
      accept: METADATA_LIST_ACCEPT,
      signal,
    },
    (page) => items.push(...(page.items ?? [])),
    () => {
      items.length = 0;
    },
  );
  return items;
}
