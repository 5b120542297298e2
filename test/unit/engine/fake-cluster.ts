// An in-memory Kubernetes API server implementing the whole ClusterPort, for unit tests of whole
// deploys (test/unit/core/deploy-whole.test.ts): discovery, lists with selectors and pages, metadata
// lists, watches, apply/create/update/merge-patch/delete, generations, and a Deployment controller.
// Over 400 lines because it is one API server whose verbs share its objects, history and watches.

import type { KubeObject } from '../../../src/base/kube-object.js';
import {
  KubeApiError,
  type KubeRequest,
  type KubeResponse,
  type WatchEvent,
  WatchExpiredError,
  type WatchOptions,
} from '../../../src/cluster/client.js';
import type { ClusterPort } from '../../../src/engine/kube-api.js';
import { matchesFields, matchesLabels } from './fake-selectors.js';

/** A resource the fake serves (what aggregated discovery lists). */
interface Served {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly resource: string;
  readonly namespaced: boolean;
  /** Has a status subresource: writes to the object keep the live status. */
  readonly status?: boolean;
  /** Has `metadata.generation` (its strategy sets it; a ConfigMap or a Lease has none). */
  readonly generation?: boolean;
}

const SERVED: readonly Served[] = [
  { group: '', version: 'v1', kind: 'Namespace', resource: 'namespaces', namespaced: false, status: true },
  { group: '', version: 'v1', kind: 'ConfigMap', resource: 'configmaps', namespaced: true },
  { group: '', version: 'v1', kind: 'Secret', resource: 'secrets', namespaced: true },
  { group: '', version: 'v1', kind: 'Service', resource: 'services', namespaced: true, status: true },
  { group: '', version: 'v1', kind: 'Pod', resource: 'pods', namespaced: true, status: true },
  { group: '', version: 'v1', kind: 'Event', resource: 'events', namespaced: true },
  {
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    resource: 'deployments',
    namespaced: true,
    status: true,
    generation: true,
  },
  {
    group: 'apps',
    version: 'v1',
    kind: 'ReplicaSet',
    resource: 'replicasets',
    namespaced: true,
    status: true,
    generation: true,
  },
  { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', resource: 'leases', namespaced: true },
  {
    group: 'batch',
    version: 'v1',
    kind: 'Job',
    resource: 'jobs',
    namespaced: true,
    status: true,
    generation: true,
  },
  // A custom resource with a status subresource and no controller: tests write its status.
  {
    group: 'example.com',
    version: 'v1',
    kind: 'Widget',
    resource: 'widgets',
    namespaced: true,
    status: true,
    generation: true,
  },
];

/** How the fake's Job controller ends a new Job: its pod's log lines, and whether it succeeds. */
export interface JobRun {
  readonly succeeds: boolean;
  readonly log: readonly string[];
}

/** How the fake's Deployment controller answers a Deployment whose generation changed. */
export type Rollout = 'available' | 'stuck' | 'none';

interface Watcher {
  readonly served: Served;
  readonly namespace: string | undefined;
  readonly options: WatchOptions;
  readonly send: (event: WatchEvent) => void;
  /** Ends the watch with `error`, as a connection reset ends a stream. */
  readonly fail: (error: Error) => void;
}

/** Parts of a REST path: the resource, the namespace, the object's name. */
interface Target {
  readonly served: Served;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
}

const METADATA_AS = /as=PartialObjectMetadata(List)?;g=meta\.k8s\.io/;

/**
 * The API server: objects by path; every request logged (`PATCH dry /apis/…`, `WATCH /api/…`);
 * `refuse` makes chosen requests fail as the server (or the network: ECONNRESET) would,
 * `breakWatches` cuts the open watches; `rollout` plays the Deployment controller; `watchers`
 * counts open watches.
 */
export class FakeCluster implements ClusterPort {
  readonly objects = new Map<string, KubeObject>();
  readonly log: string[] = [];
  refuse?: (req: KubeRequest) => Error | undefined;
  /** The port's retry budget (ClusterPort.maxRetryTimeMs): a test shortens how long informers retry. */
  maxRetryTimeMs?: number;
  /**
   * What the Deployment controller does with a new generation (a few milliseconds later), for every
   * Deployment or as a function of the live one. Default available.
   */
  rollout: Rollout | ((deployment: KubeObject) => Rollout) = 'available';
  /** What the Job controller does with a new Job (a few milliseconds later); undefined: nothing. */
  job?: (job: KubeObject) => JobRun | undefined;
  /** The log of each pod the Job controller made, served by {@link lines}. */
  readonly podLogs = new Map<string, readonly string[]>();
  private version = 1000;
  private uids = 0;
  private readonly history: { rv: number; path: string; event: WatchEvent }[] = [];
  /** Events below this resourceVersion are compacted: a watch from one is answered 410 Gone. */
  private compactedBelow = 0;
  private readonly open = new Set<Watcher>();

  /** Open watches now. */
  get watchers(): number {
    return this.open.size;
  }

  /** Stores `object` as if created (a Namespace, or what another tool made), with an ADDED event. */
  put(object: KubeObject): KubeObject {
    const path = this.objectPath(object);
    return this.store(path, this.created(this.target(path).served, object), 'ADDED');
  }

  /** Sets a live object's status as its controller would (a MODIFIED event); false when it is absent. */
  setStatus(kind: string, namespace: string, name: string, status: Record<string, unknown>): boolean {
    const live = this.get(kind, namespace, name);
    if (!live) return false;
    this.store(this.objectPath(live), { ...live, status, metadata: { ...live.metadata } }, 'MODIFIED');
    return true;
  }

  /** The live object at `kind` `namespace/name`. */
  get(kind: string, namespace: string | undefined, name: string): KubeObject | undefined {
    const s = SERVED.find((r) => r.kind === kind);
    if (!s) throw new Error(`fake: serves no ${kind}`);
    return this.objects.get(pathOf(s, s.namespaced ? namespace : undefined, name));
  }

  /** Sets a live Deployment's status as its controller would: `available`, or progress deadline exceeded. */
  setRollout(path: string, outcome: Exclude<Rollout, 'none'>): void {
    const live = this.objects.get(path);
    if (!live) return;
    const replicas = ((live.spec as { replicas?: number }).replicas ?? 1) as number;
    const generation = generationOf(live);
    const status =
      outcome === 'available'
        ? {
            observedGeneration: generation,
            replicas,
            updatedReplicas: replicas,
            readyReplicas: replicas,
            availableReplicas: replicas,
            conditions: [
              { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' },
              { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' },
            ],
          }
        : {
            observedGeneration: generation,
            replicas,
            updatedReplicas: replicas,
            unavailableReplicas: replicas,
            conditions: [
              { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable' },
              {
                type: 'Progressing',
                status: 'False',
                reason: 'ProgressDeadlineExceeded',
                message: `ReplicaSet "${live.metadata.name}-5d4f" has timed out progressing.`,
              },
            ],
          };
    this.store(path, { ...live, status, metadata: { ...live.metadata } }, 'MODIFIED');
  }

  /** Plays the Job controller and the kubelet: one pod with its log, then the Job's end. */
  private runJob(path: string, run: JobRun): void {
    const live = this.objects.get(path);
    if (!live) return;
    const name = `${live.metadata.name}-pod`;
    const ns = live.metadata.namespace;
    this.podLogs.set(`${ns}/${name}`, run.log);
    const pod = this.put({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        ...(ns ? { namespace: ns } : {}),
        labels: { 'batch.kubernetes.io/controller-uid': String(live.metadata.uid ?? '') },
      },
      spec: { containers: [{ name: 'main', image: 'busybox' }] },
    });
    const phase = run.succeeds ? 'Succeeded' : 'Failed';
    this.store(this.objectPath(pod), { ...pod, status: { phase } }, 'MODIFIED');
    const condition = run.succeeds
      ? { type: 'Complete', status: 'True' }
      : {
          type: 'Failed',
          status: 'True',
          reason: 'BackoffLimitExceeded',
          message: 'Job has reached the specified backoff limit',
        };
    setTimeout(() => {
      const now = this.objects.get(path);
      if (now && now.metadata.uid === live.metadata.uid)
        this.store(
          path,
          { ...now, status: { conditions: [condition] }, metadata: { ...now.metadata } },
          'MODIFIED',
        );
    }, 20);
  }

  /** A pod's log (`/api/v1/namespaces/NS/pods/NAME/log`) from {@link podLogs}, all at once. */
  async lines(
    path: string,
    _query: Readonly<Record<string, string>>,
    onLine: (line: string) => void,
  ): Promise<void> {
    this.log.push(`GET ${path}`);
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/log$/.exec(path);
    const log = m ? this.podLogs.get(`${m[1]}/${m[2]}`) : undefined;
    if (!log) throw status(404, 'NotFound', `${path} not found`);
    for (const line of log) onLine(line);
  }

  /** Forgets the event history: watches from an older resourceVersion get 410 Gone. */
  compact(): void {
    // Watching from the newest resourceVersion (a list's) stays valid, as in etcd after compaction.
    this.compactedBelow = this.version;
    this.history.length = 0;
  }

  /** Ends every open watch with `error` (a connection reset: `refuse` fails the next requests). */
  breakWatches(error: Error): void {
    for (const w of [...this.open]) w.fail(error);
  }

  /** Sends a BOOKMARK with the current resourceVersion to every open watch. */
  bookmark(): void {
    for (const w of this.open)
      w.send({
        type: 'BOOKMARK',
        object: {
          apiVersion: apiVersionOf(w.served),
          kind: w.served.kind,
          metadata: { resourceVersion: String(this.version) },
        },
      });
  }

  async request<T = unknown>(req: KubeRequest): Promise<KubeResponse<T>> {
    const dry = req.query?.dryRun === 'All';
    this.log.push(`${req.method}${dry ? ' dry' : ''} ${req.path}`);
    const refused = this.refuse?.(req);
    if (refused) throw refused;
    // A request whose signal aborted is cut, unanswered; KubeClient (p-retry) rejects with the reason.
    if (req.signal?.aborted) throw req.signal.reason;
    const body = this.answer(req, dry);
    return { status: 200, body: body as T, warnings: [] };
  }

  async getOrUndefined<T = unknown>(path: string, signal?: AbortSignal): Promise<T | undefined> {
    try {
      return (await this.request<T>({ method: 'GET', path, ...(signal ? { signal } : {}) })).body;
    } catch (error) {
      if (error instanceof KubeApiError && error.code === 404) return undefined;
      throw error;
    }
  }

  /**
   * A watch of a collection: from `resourceVersion`, the events after it (410 Gone when compacted);
   * without one, an ADDED for each object now, then every change, in order. Ends at `timeoutSeconds`
   * or when the signal aborts.
   */
  async watch(path: string, options: WatchOptions, onEvent: (event: WatchEvent) => void): Promise<void> {
    this.log.push(`WATCH ${path}`);
    const refused = this.refuse?.({ method: 'GET', path, query: { watch: 1 } });
    if (refused) throw refused;
    if (options.signal?.aborted) return;
    const t = this.target(path);
    const metadataOnly = METADATA_AS.test(options.accept ?? '');
    const queue: WatchEvent[] = [];
    let fail: (error: Error) => void = () => undefined;
    const watcher: Watcher = {
      served: t.served,
      namespace: t.namespace,
      options,
      send: (event) => {
        queue.push(metadataOnly && event.type !== 'BOOKMARK' ? asMetadata(event) : event);
        setImmediate(flush);
      },
      fail: (error) => fail(error),
    };
    const flush = () => {
      for (const e of queue.splice(0)) onEvent(e);
    };
    const rv = options.resourceVersion ? Number(options.resourceVersion) : undefined;
    if (rv !== undefined && rv < this.compactedBelow) throw new WatchExpiredError('too old resource version');
    if (rv === undefined) for (const o of this.listed(t, options)) watcher.send({ type: 'ADDED', object: o });
    else
      for (const h of this.history)
        if (h.rv > rv && this.watches(watcher, h.path, h.event.object)) watcher.send(h.event);
    this.open.add(watcher);
    options.onOpen?.();
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, (options.timeoutSeconds ?? 300) * 1000);
        timer.unref();
        options.signal?.addEventListener('abort', () => resolve(), { once: true });
        fail = reject;
      });
    } finally {
      this.open.delete(watcher);
    }
    flush();
  }

  private answer(req: KubeRequest, dry: boolean): unknown {
    if (req.method === 'GET' && req.path === '/version')
      return { major: '1', minor: '34', gitVersion: 'v1.34.0' };
    if (req.method === 'GET' && (req.path === '/api' || req.path === '/apis')) return discovery(req.path);
    const t = this.target(req.path);
    const path = t.name === undefined ? undefined : pathOf(t.served, t.namespace, t.name);
    const live = path === undefined ? undefined : this.objects.get(path);
    if (req.method === 'GET') {
      if (path === undefined) return this.list(t, req);
      if (!live) throw status(404, 'NotFound', `${t.served.resource} "${t.name}" not found`);
      return live;
    }
    if (req.method === 'DELETE') return this.remove(path, live, req, dry);
    if (req.method === 'POST') return this.create(t, req.body as KubeObject, dry);
    if (!path) throw status(405, 'MethodNotAllowed', `${req.method} of a collection`);
    if (req.contentType === 'application/apply-patch+yaml') {
      const sent = req.body as KubeObject;
      const manager = String(req.query?.fieldManager ?? '');
      if (!live) return this.create(t, withManager(sent, manager), dry);
      // The API server's Job validation: a Job's pod template is immutable.
      if (
        live.kind === 'Job' &&
        JSON.stringify((live.spec as { template?: unknown })?.template) !==
          JSON.stringify((sent.spec as { template?: unknown })?.template)
      )
        throw status(
          422,
          'Invalid',
          `Job.batch "${t.name}" is invalid: spec.template: Invalid value: field is immutable`,
        );
      return this.update(path, live, withManager(sent, manager), dry);
    }
    if (!live) throw status(404, 'NotFound', `${t.served.resource} "${t.name}" not found`);
    if (req.method === 'PUT') {
      const sent = req.body as KubeObject;
      if (sent.metadata.resourceVersion && sent.metadata.resourceVersion !== live.metadata.resourceVersion)
        throw status(
          409,
          'Conflict',
          `Operation cannot be fulfilled on ${t.served.resource} "${t.name}": the object has been modified; please apply your changes to the latest version and try again`,
        );
      return this.update(path, live, sent, dry);
    }
    if (req.contentType === 'application/merge-patch+json')
      return this.update(path, live, mergePatch(live, req.body) as KubeObject, dry);
    throw status(415, 'UnsupportedMediaType', `the fake does not serve ${req.contentType ?? 'this'} patches`);
  }

  private list(t: Target, req: KubeRequest): unknown {
    const q = req.query ?? {};
    const all = this.listed(t, {
      labelSelector: q.labelSelector as string | undefined,
      fieldSelector: q.fieldSelector as string | undefined,
    });
    const from = q.continue ? Number(q.continue) : 0;
    const limit = q.limit ? Number(q.limit) : all.length;
    const items = all.slice(from, from + limit);
    const more = from + limit < all.length ? String(from + limit) : undefined;
    const metadata = { resourceVersion: String(this.version), ...(more ? { continue: more } : {}) };
    if (METADATA_AS.test(req.accept ?? ''))
      return {
        apiVersion: 'meta.k8s.io/v1',
        kind: 'PartialObjectMetadataList',
        metadata,
        items: items.map((o) => asMetadata({ type: 'ADDED', object: o }).object),
      };
    // A built-in type's list items carry no apiVersion and kind; the list says them.
    const bare = items.map(({ apiVersion: _a, kind: _k, ...rest }) => rest);
    return { apiVersion: apiVersionOf(t.served), kind: `${t.served.kind}List`, metadata, items: bare };
  }

  private listed(
    t: Target,
    query: { labelSelector?: string | undefined; fieldSelector?: string | undefined },
  ) {
    return [...this.objects.entries()]
      .filter(([p, o]) => this.inCollection(t.served, t.namespace, p, o))
      .filter(([, o]) => matchesLabels(o, query.labelSelector) && matchesFields(o, query.fieldSelector))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([, o]) => o);
  }

  private inCollection(s: Served, namespace: string | undefined, path: string, o: KubeObject): boolean {
    const prefix = pathOf(s, s.namespaced ? (namespace ?? o.metadata.namespace) : undefined, '');
    return path.startsWith(prefix) && !path.slice(prefix.length).includes('/');
  }

  private watches(w: Watcher, path: string, o: KubeObject): boolean {
    return (
      this.inCollection(w.served, w.namespace, path, o) &&
      matchesLabels(o, w.options.labelSelector) &&
      matchesFields(o, w.options.fieldSelector)
    );
  }

  private create(t: Target, sent: KubeObject, dry: boolean): KubeObject {
    const name = sent.metadata.name ?? `${sent.metadata.generateName ?? ''}${(++this.uids).toString(36)}`;
    const namespace = t.served.namespaced ? (t.namespace ?? sent.metadata.namespace) : undefined;
    if (namespace && !this.objects.has(`/api/v1/namespaces/${namespace}`))
      throw status(404, 'NotFound', `namespaces "${namespace}" not found`);
    const path = pathOf(t.served, namespace, name);
    if (this.objects.has(path))
      throw status(409, 'AlreadyExists', `${t.served.resource} "${name}" already exists`);
    const object = this.created(t.served, {
      ...sent,
      metadata: { ...sent.metadata, name, ...(namespace ? { namespace } : {}) },
    });
    return dry ? object : this.store(path, object, 'ADDED');
  }

  private created(served: Served, sent: KubeObject): KubeObject {
    const { status: _s, ...rest } = sent;
    return {
      ...rest,
      metadata: {
        ...sent.metadata,
        uid: `uid-${++this.uids}`,
        creationTimestamp: new Date(0).toISOString(),
        ...(served.generation ? { generation: 1 } : {}),
      },
    };
  }

  /** `sent` as the new object: the live uid and creation time kept, the status too where it is a subresource. */
  private update(path: string, live: KubeObject, sent: KubeObject, dry: boolean): KubeObject {
    const t = this.target(path);
    const { status: sentStatus, ...rest } = sent;
    const kept = t.served.status ? live.status : sentStatus;
    const specChanged = JSON.stringify(sent.spec) !== JSON.stringify(live.spec);
    const generation = generationOf(live);
    const next: KubeObject = {
      ...rest,
      ...(kept !== undefined ? { status: kept } : {}),
      metadata: {
        ...sent.metadata,
        uid: live.metadata.uid,
        creationTimestamp: live.metadata.creationTimestamp,
        resourceVersion: live.metadata.resourceVersion,
        ...(generation !== undefined ? { generation: specChanged ? generation + 1 : generation } : {}),
      },
    } as KubeObject;
    if (JSON.stringify(next) === JSON.stringify(live) || dry) return next;
    return this.store(path, next, 'MODIFIED');
  }

  private remove(path: string | undefined, live: KubeObject | undefined, req: KubeRequest, dry: boolean) {
    if (!path || !live) throw status(404, 'NotFound', `${req.path} not found`);
    const pre = (req.body as { preconditions?: { uid?: string; resourceVersion?: string } } | undefined)
      ?.preconditions;
    if (
      (pre?.uid && pre.uid !== live.metadata.uid) ||
      (pre?.resourceVersion && pre.resourceVersion !== live.metadata.resourceVersion)
    )
      throw status(409, 'Conflict', `Precondition failed for ${req.path}`);
    if (dry) return live;
    // A Namespace takes its objects with it (the namespace controller, at once here).
    if (live.kind === 'Namespace')
      for (const [p, o] of [...this.objects])
        if (o.metadata.namespace === live.metadata.name) this.drop(p, o);
    this.drop(path, live);
    return { kind: 'Status', apiVersion: 'v1', status: 'Success' };
  }

  private drop(path: string, live: KubeObject): void {
    this.objects.delete(path);
    const gone = { ...live, metadata: { ...live.metadata, resourceVersion: String(++this.version) } };
    this.emit(path, { type: 'DELETED', object: gone });
  }

  private store(path: string, object: KubeObject, type: 'ADDED' | 'MODIFIED'): KubeObject {
    const stored = { ...object, metadata: { ...object.metadata, resourceVersion: String(++this.version) } };
    const before = generationOf(this.objects.get(path));
    this.objects.set(path, stored);
    this.emit(path, { type, object: stored });
    // kube-controller-manager's root CA publisher: every new Namespace gets kube-root-ca.crt.
    if (stored.kind === 'Namespace' && type === 'ADDED')
      this.put({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'kube-root-ca.crt', namespace: stored.metadata.name },
        data: { 'ca.crt': '-----BEGIN CERTIFICATE-----\n' },
      });
    if (stored.kind === 'Job' && type === 'ADDED') {
      const run = this.job?.(stored);
      if (run) setTimeout(() => this.runJob(path, run), 5);
    }
    const outcome = typeof this.rollout === 'function' ? this.rollout(stored) : this.rollout;
    if (stored.kind === 'Deployment' && generationOf(stored) !== before && outcome !== 'none')
      setTimeout(() => this.setRollout(path, outcome), 5);
    return stored;
  }

  private emit(path: string, event: WatchEvent): void {
    this.history.push({ rv: this.version, path, event });
    for (const w of this.open) if (this.watches(w, path, event.object)) w.send(event);
  }

  private target(path: string): Target {
    const seg = path.split('/').filter(Boolean).map(decodeURIComponent);
    const [group, version, rest] =
      seg[0] === 'api' ? ['', seg[1], seg.slice(2)] : [seg[1] ?? '', seg[2], seg.slice(3)];
    let namespace: string | undefined;
    let parts = rest;
    if (parts[0] === 'namespaces' && parts.length >= 3) {
      namespace = parts[1];
      parts = parts.slice(2);
    }
    const served = SERVED.find((r) => r.group === group && r.version === version && r.resource === parts[0]);
    if (!served || parts.length > 2)
      throw status(404, 'NotFound', `the server could not find the requested resource (${path})`);
    return { served, namespace, name: parts[1] };
  }

  private objectPath(o: KubeObject): string {
    const s = SERVED.find((r) => apiVersionOf(r) === o.apiVersion && r.kind === o.kind);
    if (!s) throw new Error(`fake: serves no ${o.apiVersion} ${o.kind}`);
    return pathOf(s, s.namespaced ? o.metadata.namespace : undefined, o.metadata.name ?? '');
  }
}

function generationOf(o: KubeObject | undefined): number | undefined {
  const g = (o?.metadata as { generation?: number } | undefined)?.generation;
  return typeof g === 'number' ? g : undefined;
}

function apiVersionOf(s: Served): string {
  return s.group ? `${s.group}/${s.version}` : s.version;
}

/** The REST path of an object (or, with name '', its collection's prefix). */
export function pathOf(s: Served, namespace: string | undefined, name: string): string {
  const base = s.group ? `/apis/${s.group}/${s.version}` : `/api/${s.version}`;
  const ns = s.namespaced && namespace ? `/namespaces/${namespace}` : '';
  return `${base}${ns}/${s.resource}/${name}`;
}

function withManager(sent: KubeObject, manager: string): KubeObject {
  const managedFields = [{ manager, operation: 'Apply', apiVersion: sent.apiVersion, fieldsV1: {} }];
  return { ...sent, metadata: { ...sent.metadata, managedFields } };
}

/** RFC 7386 JSON merge patch. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    target && typeof target === 'object' && !Array.isArray(target) ? { ...(target as object) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function asMetadata(event: WatchEvent): WatchEvent {
  return {
    type: event.type,
    object: { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: event.object.metadata },
  };
}

/** Aggregated discovery (apidiscovery.k8s.io/v2) of {@link SERVED}. */
function discovery(path: string): unknown {
  const groups = [...new Set(SERVED.map((s) => s.group))].filter((g) => (path === '/api') === (g === ''));
  return {
    apiVersion: 'apidiscovery.k8s.io/v2',
    kind: 'APIGroupDiscoveryList',
    items: groups.map((g) => ({
      metadata: { name: g },
      versions: [
        {
          version: 'v1',
          resources: SERVED.filter((s) => s.group === g).map((s) => ({
            resource: s.resource,
            responseKind: { group: g, version: s.version, kind: s.kind },
            scope: s.namespaced ? 'Namespaced' : 'Cluster',
            verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
            ...(s.status
              ? {
                  subresources: [
                    { subresource: 'status', responseKind: { group: g, version: s.version, kind: s.kind } },
                  ],
                }
              : {}),
          })),
        },
      ],
    })),
  };
}

function status(code: number, reason: string, message: string): KubeApiError {
  return new KubeApiError(code, '', { kind: 'Status', code, reason, message } as never, message);
}
