// What the API server serves (aggregated discovery, with a fallback for older servers): which resource,
// scope and REST path each object's GroupKind has, and refreshes once a CRD of the deploy is established.
import type { GroupKind } from '../base/kube-object.js';
import { parseServerVersion, type ServerVersion } from './api-removals.js';
import type { KubeClient } from './client.js';

/** The requests this module sends (a KubeClient, or the engine's ClusterPort). */
type Requests = Pick<KubeClient, 'request' | 'getOrUndefined'>;

/** A resource the API server serves: the REST name and scope of one group/version/kind. */
export interface ResourceInfo {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** Plural REST name, e.g. `deployments`. */
  readonly resource: string;
  readonly namespaced: boolean;
  /** The API verbs it allows (`get`, `list`, `watch`, `create`…), as discovery lists them. */
  readonly verbs?: readonly string[];
}

const AGGREGATED_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

interface AggregatedList {
  kind?: string;
  items?: {
    metadata?: { name?: string };
    versions?: {
      version: string;
      resources?: {
        resource: string;
        scope: 'Namespaced' | 'Cluster';
        responseKind?: { kind?: string };
        verbs?: string[];
        subresources?: { subresource?: string; responseKind?: { kind?: string } }[];
      }[];
    }[];
  }[];
}

interface ApiResourceList {
  groupVersion: string;
  resources: { name: string; kind: string; namespaced: boolean; verbs?: string[] }[];
}

/**
 * What the API server serves, read with aggregated discovery (two requests: `/api` and `/apis`,
 * `apidiscovery.k8s.io/v2`, GA in Kubernetes 1.30). Older servers answer those paths with plain
 * APIVersions/APIGroupList; then each group/version is read on demand from `/apis/<group>/<version>`.
 */
export class Discovery {
  private readonly byGvk = new Map<string, ResourceInfo>();
  private readonly scopeByGk = new Map<string, boolean>();
  private readonly byGk = new Map<string, ResourceInfo>();
  private readonly statusByGk = new Map<string, boolean>();
  private aggregated = true;
  private readonly loadedGroupVersions = new Set<string>();
  /** `group/version` and `group/version/Kind` of every resource and subresource (aggregated discovery). */
  private readonly versionSet = new Set<string>();

  /**
   * The Kubernetes version the server runs (`GET /version`), which messages about APIs it does not
   * serve name; `undefined` when the server did not say.
   */
  serverVersion: ServerVersion | undefined;

  private constructor(private readonly client: Requests) {}

  /** Reads discovery and the server's version. @throws KubeApiError when the API server cannot be reached. */
  static async load(client: Requests): Promise<Discovery> {
    const d = new Discovery(client);
    const [, version] = await Promise.all([
      d.refresh(),
      // Only a better message depends on it: a server that hides /version still gets deployed to.
      client.getOrUndefined<unknown>('/version').catch(() => undefined),
    ]);
    d.serverVersion = parseServerVersion(version);
    return d;
  }

  /** Reads discovery again (after CRDs were established, for instance). */
  async refresh(): Promise<void> {
    this.byGvk.clear();
    this.scopeByGk.clear();
    this.byGk.clear();
    this.statusByGk.clear();
    this.loadedGroupVersions.clear();
    this.versionSet.clear();
    const [core, groups] = await Promise.all([
      this.client.request<AggregatedList>({
        method: 'GET',
        path: '/api',
        accept: `${AGGREGATED_V2},application/json`,
      }),
      this.client.request<AggregatedList>({
        method: 'GET',
        path: '/apis',
        accept: `${AGGREGATED_V2},application/json`,
      }),
    ]);
    if (core.body?.kind !== 'APIGroupDiscoveryList' || groups.body?.kind !== 'APIGroupDiscoveryList') {
      this.aggregated = false;
      return;
    }
    for (const list of [core.body, groups.body]) {
      for (const group of list.items ?? []) {
        const groupName = group.metadata?.name ?? '';
        for (const version of group.versions ?? []) {
          const gv = groupName ? `${groupName}/${version.version}` : version.version;
          this.versionSet.add(gv);
          for (const r of version.resources ?? []) {
            if (r.responseKind?.kind) this.versionSet.add(`${gv}/${r.responseKind.kind}`);
            for (const sub of r.subresources ?? [])
              if (sub.responseKind?.kind) this.versionSet.add(`${gv}/${sub.responseKind.kind}`);
            if (!r.responseKind?.kind) continue;
            this.add({
              group: groupName,
              version: version.version,
              kind: r.responseKind.kind,
              resource: r.resource,
              namespaced: r.scope === 'Namespaced',
              verbs: r.verbs ?? [],
            });
            this.addStatus(
              groupName,
              r.responseKind.kind,
              (r.subresources ?? []).some((x) => x.subresource === 'status'),
            );
          }
        }
      }
    }
  }

  /**
   * The resource for an apiVersion and kind, or `undefined` when the server does not serve it.
   * @throws KubeApiError on other failures than 404 while reading a group/version (older servers only).
   */
  async resolve(apiVersion: string, kind: string): Promise<ResourceInfo | undefined> {
    const hit = this.byGvk.get(gvkKey(apiVersion, kind));
    if (hit || this.aggregated) return hit;
    await this.loadGroupVersion(apiVersion);
    return this.byGvk.get(gvkKey(apiVersion, kind));
  }

  /**
   * The resource of a GroupKind at the version the server prefers (aggregated discovery lists the
   * preferred version first), or `undefined` when the server does not serve it.
   */
  async resolveGroupKind(gk: GroupKind): Promise<ResourceInfo | undefined> {
    const hit = this.byGk.get(`${gk.kind}.${gk.group}`);
    if (hit || this.aggregated) return hit;
    if (gk.group === '') {
      await this.loadGroupVersion('v1');
    } else {
      const group = await this.client.getOrUndefined<{ preferredVersion?: { groupVersion?: string } }>(
        `/apis/${gk.group}`,
      );
      if (group?.preferredVersion?.groupVersion)
        await this.loadGroupVersion(group.preferredVersion.groupVersion);
    }
    return this.byGk.get(`${gk.kind}.${gk.group}`);
  }

  /**
   * Every resource the server serves, one per GroupKind at its preferred version, that lives in a
   * namespace and allows `verb` (e.g. `list`): what `kubectl api-resources --namespaced --verbs=list`
   * shows. An older server without aggregated discovery is read group by group for it (`/api/v1`,
   * then each group's preferred version from `/apis`).
   *
   * @throws KubeApiError when `/apis` cannot be read (older servers only).
   */
  async namespacedResources(verb: string): Promise<ResourceInfo[]> {
    if (!this.aggregated) {
      await this.loadGroupVersion('v1');
      const groups = await this.client.getOrUndefined<{
        groups?: { preferredVersion?: { groupVersion?: string } }[];
      }>('/apis');
      for (const g of groups?.groups ?? [])
        if (g.preferredVersion?.groupVersion) await this.loadGroupVersion(g.preferredVersion.groupVersion);
    }
    return [...this.byGk.values()].filter((r) => r.namespaced && (r.verbs ?? []).includes(verb));
  }

  /**
   * Every `group/version` the server serves and every `group/version/Kind` of its resources and
   * subresources, sorted: the set `helm install` gives `.Capabilities.APIVersions` (Helm's
   * `GetVersionSet`), which `helm template --api-versions` takes. Older servers are read group/version
   * by group/version for it.
   *
   * @throws KubeApiError when `/api` or `/apis` cannot be read (older servers only).
   */
  async apiVersions(): Promise<string[]> {
    if (this.aggregated) return [...this.versionSet].sort();
    const set = new Set<string>();
    const core = await this.client.getOrUndefined<{ versions?: string[] }>('/api');
    const groups = await this.client.getOrUndefined<{
      groups?: { versions?: { groupVersion?: string }[] }[];
    }>('/apis');
    const gvs = [
      ...(core?.versions ?? []),
      ...(groups?.groups ?? []).flatMap((g) => (g.versions ?? []).flatMap((v) => v.groupVersion ?? [])),
    ];
    for (const gv of gvs) {
      set.add(gv);
      const path = gv.includes('/') ? `/apis/${gv}` : `/api/${gv}`;
      const list = await this.client.getOrUndefined<ApiResourceList>(path);
      for (const r of list?.resources ?? []) set.add(`${gv}/${r.kind}`);
    }
    return [...set].sort();
  }

  /** Whether objects of a GroupKind live in a namespace; `undefined` when discovery does not know the kind. */
  isNamespaced(gk: GroupKind): boolean | undefined {
    return this.scopeByGk.get(`${gk.kind}.${gk.group}`);
  }

  /**
   * Whether a GroupKind has a `status` subresource (its status is written only through it, and the
   * server ignores `status` sent with the object); `undefined` when discovery does not know the
   * kind. On servers without aggregated discovery, known only for group/versions read so far.
   */
  hasStatusSubresource(gk: GroupKind): boolean | undefined {
    return this.statusByGk.get(`${gk.kind}.${gk.group}`);
  }

  private addStatus(group: string, kind: string, status: boolean): void {
    const key = `${kind}.${group}`;
    this.statusByGk.set(key, (this.statusByGk.get(key) ?? false) || status);
  }

  private async loadGroupVersion(apiVersion: string): Promise<void> {
    if (this.loadedGroupVersions.has(apiVersion)) return;
    this.loadedGroupVersions.add(apiVersion);
    const path = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    const list = await this.client.getOrUndefined<ApiResourceList>(path);
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
    const withStatus = new Set(
      (list?.resources ?? []).filter((r) => r.name.endsWith('/status')).map((r) => r.name.split('/')[0]),
    );
    for (const r of list?.resources ?? []) {
      if (r.name.includes('/')) continue; // subresources
      this.addStatus(group!, r.kind, withStatus.has(r.name));
      this.add({
        group: group!,
        version: version!,
        kind: r.kind,
        resource: r.name,
        namespaced: r.namespaced,
        verbs: r.verbs ?? [],
      });
    }
  }

  private add(info: ResourceInfo): void {
    const key = gvkKey(apiVersionOf(info), info.kind);
    if (!this.byGvk.has(key)) this.byGvk.set(key, info);
    this.scopeByGk.set(`${info.kind}.${info.group}`, info.namespaced);
    if (!this.byGk.has(`${info.kind}.${info.group}`)) this.byGk.set(`${info.kind}.${info.group}`, info);
  }
}

function gvkKey(apiVersion: string, kind: string): string {
  return `${apiVersion}|${kind}`;
}

/** The apiVersion of a resource's objects: `group/version`, or `version` for the core group (`v1`). */
export function apiVersionOf(info: ResourceInfo): string {
  return info.group ? `${info.group}/${info.version}` : info.version;
}

/** The REST path of an object, e.g. `/apis/apps/v1/namespaces/ns/deployments/web`. */
export function objectPath(info: ResourceInfo, namespace: string | undefined, name?: string): string {
  const base = info.group ? `/apis/${info.group}/${info.version}` : `/api/${info.version}`;
  const ns = info.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  const tail = name === undefined ? '' : `/${encodeURIComponent(name)}`;
  return `${base}${ns}/${info.resource}${tail}`;
}
