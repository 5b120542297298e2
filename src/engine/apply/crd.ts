import { conditionsOf, isCrdEstablished } from '../../base/conditions.js';
import type { KubeObject, SourcedObject } from '../../base/kube-object.js';
import { isCrd } from '../../base/kube-object.js';
import { poll } from '../../base/poll.js';
import { objectPath } from '../../cluster/discovery.js';
import type { KubeApi, KubeDiscovery } from '../kube-api.js';
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

/**
 * Polls a CRD until its `Established` condition is True (kube-apiserver's establishing controller
 * sets it shortly after the names are accepted, typically within a few hundred milliseconds).
 * Polls after 10 ms, doubling to at most 250 ms between reads, for up to 60 s.
 *
 * @throws Error naming the CRD when it is not Established within 60 s.
 */
export async function waitEstablished(
  client: KubeApi,
  crd: AppliedObject,
  signal?: AbortSignal,
): Promise<void> {
  const path = objectPath(crd.resource, undefined, crd.object.metadata.name);
  let live: KubeObject | undefined;
  const established = await poll(
    async () => {
      live = await client.getOrUndefined<KubeObject>(path, signal);
      return isCrdEstablished(live) || undefined;
    },
    { intervalMs: 10, maxIntervalMs: 250, timeoutMs: 60_000, ...(signal ? { signal } : {}) },
  );
  if (established) return;
  // Why, as the server says it (e.g. NamesAccepted False, ListKindConflict, when another CRD
  // already defines the names).
  const why = conditionsOf(live)
    .filter((c) => c.status !== 'True')
    .map(
      (c) => `${c.type} ${c.status}${c.reason ? `, ${c.reason}` : ''}${c.message ? `: ${c.message}` : ''}`,
    );
  throw new Error(
    `CustomResourceDefinition ${crd.object.metadata.name} was not Established within 60s${why.length ? ` (${why.join('; ')})` : ''}`,
  );
}

/**
 * Refreshes discovery until it serves every version the CRDs serve. The API server publishes a new
 * CRD's resources in discovery shortly after the CRD is Established, not at the same time: a
 * discovery read right after Established can still lack them (then their custom resources would be
 * "not served"). Polls after 10 ms, doubling to 250 ms, for up to `timeoutMs` (30 s); then goes on,
 * and what is still missing fails as not served.
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
  await poll(
    async () => {
      await discovery.refresh();
      const missing = await Promise.all(
        wanted.map(async (w) => !(await discovery.resolve(w.apiVersion, w.kind))),
      );
      return missing.some(Boolean) ? undefined : true;
    },
    { intervalMs: 10, maxIntervalMs: 250, timeoutMs, ...(signal ? { signal } : {}) },
  );
}
