import type { KubeObject } from '../../../src/base/kube-object.js';
import { KubeApiError, type KubeRequest, type KubeResponse } from '../../../src/cluster/client.js';
import type { ResourceInfo } from '../../../src/cluster/discovery.js';
import type { KubeApi, KubeDiscovery } from '../../../src/engine/kube-api.js';

/**
 * An in-memory API server for unit tests of the planner and the applier: objects by path; GET of an
 * object or a collection; server-side apply (PATCH) and create (POST) that store the object with an
 * Apply entry of the field manager and a new resourceVersion when it changed (dryRun stores nothing),
 * keeping the live `status` as a status subresource does; DELETE. It does not merge fields or validate
 * schemas: the real-cluster suite does that. `refuse` makes chosen requests fail as the server would.
 */
export class FakeKube implements KubeApi {
  readonly objects = new Map<string, KubeObject>();
  /** Every request, in order: `PATCH dry /api/v1/namespaces/a/configmaps/c`. */
  readonly log: string[] = [];
  refuse?: (req: KubeRequest) => KubeApiError | undefined;
  private version = 100;

  /** Stores `object` as live at its path (`resources` gives the path), answering it as stored. */
  put(object: KubeObject): KubeObject {
    const stored = {
      ...object,
      metadata: {
        uid: `uid-${object.metadata.name}`,
        resourceVersion: String(++this.version),
        ...object.metadata,
      },
    };
    this.objects.set(pathOf(object), stored);
    return stored;
  }

  async request<T = unknown>(req: KubeRequest): Promise<KubeResponse<T>> {
    const dry = req.query?.dryRun === 'All';
    this.log.push(`${req.method}${dry ? ' dry' : ''} ${req.path}`);
    const refused = this.refuse?.(req);
    if (refused) throw refused;
    const answer = (body: unknown) => ({ status: 200, body: body as T, warnings: [] });
    if (req.method === 'GET') {
      const one = this.objects.get(req.path);
      if (one) return answer(one);
      const items = [...this.objects].filter(
        ([p]) =>
          (p.startsWith(`${req.path}/`) && !p.slice(req.path.length + 1).includes('/')) ||
          inAllNamespaces(req.path, p),
      );
      if (items.length > 0 || isCollection(req.path))
        return answer({ items: items.map(([, o]) => o), metadata: {} });
      throw notFound(req.path);
    }
    if (req.method === 'DELETE') {
      if (!this.objects.delete(req.path)) throw notFound(req.path);
      return answer({});
    }
    const sent = req.body as KubeObject;
    const path =
      req.method === 'POST'
        ? `${req.path}/${sent.metadata.name ?? `${sent.metadata.generateName}x1`}`
        : req.path;
    const live = this.objects.get(path);
    const manager = String(req.query?.fieldManager ?? '');
    const stored: KubeObject = {
      ...sent,
      metadata: {
        ...sent.metadata,
        name: sent.metadata.name ?? `${sent.metadata.generateName}x1`,
        uid: live?.metadata.uid ?? `uid-${sent.metadata.name}`,
        managedFields: [{ manager, operation: 'Apply', apiVersion: sent.apiVersion, fieldsV1: {} }],
        resourceVersion: live?.metadata.resourceVersion ?? '0',
      },
      // What the status subresource holds: an apply to the object leaves it as it is.
      ...(live?.status !== undefined ? { status: live.status } : {}),
    };
    const changed = !live || JSON.stringify(strip(live)) !== JSON.stringify(strip(stored));
    const result = changed
      ? { ...stored, metadata: { ...stored.metadata, resourceVersion: String(++this.version) } }
      : live;
    if (!dry) this.objects.set(path, result);
    return answer(result);
  }

  async getOrUndefined<T = unknown>(path: string, signal?: AbortSignal): Promise<T | undefined> {
    try {
      return (await this.request<T>({ method: 'GET', path, ...(signal ? { signal } : {}) })).body;
    } catch (error) {
      if (error instanceof KubeApiError && error.code === 404) return undefined;
      throw error;
    }
  }
}

/** The resources the fake serves, as discovery would list them. */
export const RESOURCES: readonly ResourceInfo[] = [
  { group: '', version: 'v1', kind: 'ConfigMap', resource: 'configmaps', namespaced: true },
  { group: '', version: 'v1', kind: 'Secret', resource: 'secrets', namespaced: true },
  { group: '', version: 'v1', kind: 'Namespace', resource: 'namespaces', namespaced: false },
  { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments', namespaced: true },
  {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    kind: 'CustomResourceDefinition',
    resource: 'customresourcedefinitions',
    namespaced: false,
  },
];

/** Discovery of {@link RESOURCES} (and whatever a test adds to `served`). */
export function fakeDiscovery(served: ResourceInfo[] = [...RESOURCES]): KubeDiscovery {
  return {
    serverVersion: undefined,
    refresh: async () => undefined,
    resolve: async (apiVersion: string, kind: string) => {
      const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
      return served.find((r) => r.group === group && r.version === version && r.kind === kind);
    },
  } as KubeDiscovery;
}

/** The REST path of an object of {@link RESOURCES}. */
export function pathOf(o: KubeObject): string {
  const [group, version] = o.apiVersion.includes('/') ? o.apiVersion.split('/') : ['', o.apiVersion];
  const r = RESOURCES.find((x) => x.group === group && x.version === version && x.kind === o.kind);
  if (!r) throw new Error(`the fake serves no ${o.apiVersion} ${o.kind}`);
  const base = group ? `/apis/${group}/${version}` : `/api/${version}`;
  const ns = r.namespaced ? `/namespaces/${o.metadata.namespace}` : '';
  return `${base}${ns}/${r.resource}/${o.metadata.name}`;
}

/** Whether `path` lists a namespaced resource in all namespaces (`/api/v1/secrets`) and `object` is one. */
function inAllNamespaces(path: string, object: string): boolean {
  const m = /^(\/apis?\/(?:[^/]+\/)?[^/]+)\/([^/]+)$/.exec(path);
  if (!m || m[1]?.endsWith('/namespaces')) return false;
  const r = new RegExp(`^${m[1]}/namespaces/[^/]+/${m[2]}/[^/]+$`);
  return RESOURCES.some((x) => x.namespaced && x.resource === m[2]) && r.test(object);
}

function isCollection(path: string): boolean {
  return RESOURCES.some((r) => path.endsWith(`/${r.resource}`));
}

function notFound(path: string): KubeApiError {
  return new KubeApiError(
    404,
    `GET ${path}`,
    { kind: 'Status', code: 404, reason: 'NotFound', message: `${path} not found` } as never,
    '',
  );
}

function strip(o: KubeObject): unknown {
  const { resourceVersion: _r, managedFields: _m, ...metadata } = o.metadata;
  return { ...o, metadata };
}
