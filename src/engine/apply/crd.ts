import { conditionsOf, isCrdEstablished } from '../../base/conditions.js';
import type { KubeObject, SourcedObject } from '../../base/kube-object.js';
import { isCrd } from '../../base/kube-object.js';
import { poll } from '../../base/poll.js';
import { KubeApiError } from '../../cluster/client.js';
import { objectPath } from '../../cluster/discovery.js';
import type { ClusterPort, KubeApi, KubeDiscovery } from '../kube-api.js';
import { informer } from '../wait/watcher.js';
import type { AppliedObject } from './applied.js';

/**
 * What a CRD defines: its group, kind, plural resource name, the versions it serves and its storage
 * version (the first one when none is marked); undefined for anything else.
 */
export function crdDefinition(
  object: KubeObject,
): { group: string; kind: string; plural?: string; served: string[]; storage?: string } | undefined {
  if (!isCrd(object)) return undefined;
  const spec = object.spec as
    | {
        group?: string;
        names?: { kind?: string; plural?: string };
        versions?: { name?: string; served?: boolean; storage?: boolean }[];
      }
    | undefined;
  if (!spec?.group || !spec.names?.kind) return undefined;
  const versions = spec.versions ?? [];
  const served = versions.filter((v) => v.served && v.name).map((v) => v.name!);
  const storage = versions.find((v) => v.storage)?.name ?? versions[0]?.name;
  return {
    group: spec.group,
    kind: spec.names.kind,
    ...(spec.names.plural ? { plural: spec.names.plural } : {}),
    served,
    ...(storage ? { storage } : {}),
  };
}

/** The CRDs of a set by the GroupKind they define (`Kind.group`), each with the versions it serves. */
export function crdKinds(
  objects: readonly SourcedObject[],
): Map<string, { crd: SourcedObject; served: string[] }> {
  const out = new Map<string, { crd: SourcedObject; served: string[] }>();
  for (const o of objects) {
    const d = crdDefinition(o.object);
    if (d) out.set(`${d.kind}.${d.group}`, { crd: o, served: d.served });
  }
  return out;
}

/** How long a CRD may take to be Established before the deploy fails, in milliseconds. */
const ESTABLISHED_TIMEOUT_MS = 60_000;

/**
 * Waits until a CRD's `Established` condition is True (kube-apiserver's establishing controller
 * sets it shortly after the names are accepted, typically within a few hundred milliseconds). The
 * apply's answer already saying so (a CRD that was Established before its update) needs no request.
 * Otherwise the CRD is watched by name (a list and a watch with `fieldSelector=metadata.name=…`, as
 * `kubectl wait --for=condition=Established` does): a CRD can be most of a megabyte, and polling
 * it read it whole many times. A client without a `watch` (a bare in-memory KubeApi), or
 * an account that may not list or watch CRDs, polls it instead.
 *
 * @throws Error naming the CRD when it is not Established within 60 s.
 */
export async function waitEstablished(
  client: KubeApi,
  crd: AppliedObject,
  signal?: AbortSignal,
): Promise<void> {
  if (isCrdEstablished(crd.live)) return;
  const name = crd.object.metadata.name ?? '';
  let seen: { established: boolean; live: KubeObject | undefined } | undefined;
  if (canWatch(client)) {
    seen = await watchEstablished(client, objectPath(crd.resource, undefined), name, signal).catch(
      (error: unknown) => {
        if (error instanceof KubeApiError && error.code === 403) return undefined;
        throw error;
      },
    );
  }
  seen ??= await pollEstablished(client, objectPath(crd.resource, undefined, name), signal);
  if (seen.established) return;
  // Why, as the server says it (e.g. NamesAccepted False, ListKindConflict, when another CRD
  // already defines the names).
  const why = conditionsOf(seen.live)
    .filter((c) => c.status !== 'True')
    .map(
      (c) => `${c.type} ${c.status}${c.reason ? `, ${c.reason}` : ''}${c.message ? `: ${c.message}` : ''}`,
    );
  throw new Error(
    `CustomResourceDefinition ${name} was not Established within 60s${why.length ? ` (${why.join('; ')})` : ''}`,
  );
}

/** Whether the client can stream a watch (the port's `watch`), rather than only answer requests. */
function canWatch(client: KubeApi): client is ClusterPort {
  return typeof client.watch === 'function';
}

/** The CRD named `name` in the collection at `path`, watched until Established or the time is up. */
async function watchEstablished(
  client: ClusterPort,
  path: string,
  name: string,
  signal: AbortSignal | undefined,
): Promise<{ established: boolean; live: KubeObject | undefined }> {
  const done = new AbortController();
  const timer = setTimeout(() => done.abort(), ESTABLISHED_TIMEOUT_MS);
  let live: KubeObject | undefined;
  let established = false;
  try {
    await informer(client, path, {
      fieldSelector: `metadata.name=${name}`,
      signal: signal ? AbortSignal.any([signal, done.signal]) : done.signal,
      onChange: (items) => {
        live = items[0];
        if (!isCrdEstablished(live)) return;
        established = true;
        done.abort();
      },
    });
  } finally {
    clearTimeout(timer);
  }
  signal?.throwIfAborted();
  return { established, live };
}

/** Reads the CRD at `path` after 10 ms, doubling to at most 250 ms between reads, until Established. */
async function pollEstablished(
  client: KubeApi,
  path: string,
  signal: AbortSignal | undefined,
): Promise<{ established: boolean; live: KubeObject | undefined }> {
  let live: KubeObject | undefined;
  const established = await poll(
    async () => {
      live = await client.getOrUndefined<KubeObject>(path, signal);
      return isCrdEstablished(live) || undefined;
    },
    { intervalMs: 10, maxIntervalMs: 250, timeoutMs: ESTABLISHED_TIMEOUT_MS, ...(signal ? { signal } : {}) },
  );
  return { established: established === true, live };
}

/**
 * Refreshes discovery until it serves every version the CRDs serve. The API server publishes a new
 * CRD's resources in discovery shortly after the CRD is Established, not at the same time: a
 * discovery read right after Established can still lack them (then their custom resources would be
 * "not served"). Versions discovery already serves (a CRD whose schema alone changed) need no
 * refresh; otherwise it is read again at once, then after 10 ms, doubling to 250 ms, for up to
 * `timeoutMs` (30 s); then goes on, and what is still missing fails as not served. With no CRD
 * given, discovery is read once (a later object's kind was not served when the plan was made).
 */
export async function waitDiscovered(
  discovery: KubeDiscovery,
  crds: readonly AppliedObject[],
  signal?: AbortSignal,
  timeoutMs = 30_000,
): Promise<void> {
  const wanted = crds.flatMap((c) => {
    const d = crdDefinition(c.object);
    return d ? d.served.map((v) => ({ apiVersion: `${d.group}/${v}`, kind: d.kind })) : [];
  });
  const served = async () => {
    const missing = await Promise.all(
      wanted.map(async (w) => !(await discovery.resolve(w.apiVersion, w.kind))),
    );
    return !missing.some(Boolean);
  };
  if (wanted.length > 0 && (await served())) return;
  await poll(
    async () => {
      await discovery.refresh();
      return (await served()) || undefined;
    },
    { intervalMs: 10, maxIntervalMs: 250, timeoutMs, ...(signal ? { signal } : {}) },
  );
}
