import { createHash } from 'node:crypto';
import pLimit from 'p-limit';
import type { GroupKind, KubeObject, SourcedObject } from '../../base/kube-object.js';
import { formatGroupKind, groupKindOf, isGenerated } from '../../base/kube-object.js';
import {
  APPLYSET,
  APPLYSET_PARENT_TYPE,
  MANAGED_BY_SPREAD,
  SPREAD,
  spreadObjectName,
} from '../../base/labels.js';
import { type DeploymentOrigin, originAnnotations, originOfAnnotations } from '../../base/origin.js';
import { KubeApiError, METADATA_LIST_ACCEPT } from '../../cluster/client.js';
import { apiVersionOf, type Discovery, objectPath, type ResourceInfo } from '../../cluster/discovery.js';
import { listInPages } from '../../cluster/pager.js';
import { version } from '../../version.js';
import type { ClusterPort } from '../kube-api.js';
import { decodeFingerprints, encodeFingerprints } from '../plan/fingerprint.js';
import type { ListedMembers } from '../plan/live.js';

/** The ApplySet parent of one deployment: a Secret `spread.<name>` in the deployment's namespace. */
export interface ApplySet {
  readonly name: string;
  readonly namespace: string;
  /** `applyset-<base64url(sha256(<parent name>.<namespace>.Secret.))>-v1`, the ApplySet id rule. */
  readonly id: string;
  readonly parentName: string;
  /** Where the deployment comes from, recorded on the parent; absent: the parent records none. */
  readonly origin?: DeploymentOrigin;
}

/**
 * The ApplySet of a deployment. The id follows KEP-3659: base64url without padding of the SHA-256
 * of `<name>.<namespace>.<kind>.<group>` of the parent, prefixed `applyset-` and suffixed `-v1`.
 */
export function applySetFor(deployment: string, namespace: string, origin?: DeploymentOrigin): ApplySet {
  const parentName = spreadObjectName(deployment);
  const digest = createHash('sha256').update(`${parentName}.${namespace}.Secret.`).digest('base64url');
  return {
    name: deployment,
    namespace,
    parentName,
    id: `applyset-${digest}-v1`,
    ...(origin ? { origin } : {}),
  };
}

/**
 * The object with the part-of label and spread's labels and annotations (a copy; the input is not
 * changed). The source annotation names the file only: with the line, editing a comment above an
 * object would rewrite every object below it. `app.kubernetes.io/managed-by: spread` is added only
 * where the object declares no managed-by of its own: a Helm chart's `Helm` stays, as `kubectl apply`
 * stores it (the part-of label marks the object as the deployment's either way).
 */
export function labelForApplySet(
  o: SourcedObject,
  set: ApplySet,
  annotations: Readonly<Record<string, string>> = {},
): KubeObject {
  const copy = structuredClone(o.object);
  copy.metadata.labels = {
    [SPREAD.managedBy]: MANAGED_BY_SPREAD,
    ...copy.metadata.labels,
    [APPLYSET.partOf]: set.id,
  };
  if (isGenerated(copy))
    copy.metadata.labels[SPREAD.generateName] = generateNameLabel(copy.metadata.generateName!);
  copy.metadata.annotations = {
    ...copy.metadata.annotations,
    ...annotations,
    [SPREAD.source]: o.source.file,
  };
  return copy;
}

/** The label value for a generateName prefix: at most 63 characters, ending with a letter or digit. */
export function generateNameLabel(prefix: string): string {
  return prefix.slice(0, 63).replace(/[^A-Za-z0-9]+$/, '');
}

/** The parent's data key holding the fingerprints of the last completed deploy (see objectFingerprint). */
export const FINGERPRINTS_KEY = 'fingerprints';

/**
 * The parent Secret as it is applied: id label, tooling, group-kinds and additional namespaces, and
 * the fingerprints of the objects' applied states (`data.fingerprints`, empty when none are given).
 */
export function parentObject(
  set: ApplySet,
  groupKinds: Iterable<string>,
  namespaces: Iterable<string>,
  fingerprints?: Iterable<string>,
): KubeObject {
  const extra = [...new Set(namespaces)].filter((n) => n && n !== set.namespace).sort();
  // Written even when empty: leaving the key out would only drop spread's ownership of it.
  const prints = [...(fingerprints ?? [])];
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: APPLYSET_PARENT_TYPE,
    metadata: {
      name: set.parentName,
      namespace: set.namespace,
      labels: { [APPLYSET.id]: set.id, [SPREAD.managedBy]: MANAGED_BY_SPREAD },
      annotations: {
        [APPLYSET.tooling]: `spread/v${version}`,
        [APPLYSET.containsGroupKinds]: [...new Set(groupKinds)].sort().join(','),
        [APPLYSET.additionalNamespaces]: extra.join(','),
        [SPREAD.deployment]: set.name,
        ...(set.origin ? originAnnotations(set.origin) : {}),
      },
    },
    data: { [FINGERPRINTS_KEY]: encodeFingerprints(prints) },
  };
}

/** What the parent in the cluster says: the group-kinds and namespaces its children may be in. */
export interface ParentState {
  readonly exists: boolean;
  readonly groupKinds: readonly string[];
  readonly namespaces: readonly string[];
  /** `applyset.kubernetes.io/tooling`, e.g. `spread/v0.1.0` or `kubectl/v1.34.4`. */
  readonly tooling?: string;
  /** Fingerprints of the applied states the last completed deploy left (see objectFingerprint). */
  readonly fingerprints: ReadonlySet<string>;
  /** The parent Secret as it was read; absent when there is none. */
  readonly object?: KubeObject;
  /** Where the deployment was last deployed from; absent when the parent records none (older parents). */
  readonly origin?: DeploymentOrigin;
}

/** Reads the parent; `exists: false` when there is none yet. */
export async function readParent(client: ClusterPort, set: ApplySet): Promise<ParentState> {
  const live = await client.getOrUndefined<KubeObject>(
    `/api/v1/namespaces/${encodeURIComponent(set.namespace)}/secrets/${encodeURIComponent(set.parentName)}`,
  );
  return live
    ? parentState(live, set)
    : { exists: false, groupKinds: [], namespaces: [], fingerprints: new Set() };
}

/** What a parent Secret's ApplySet annotations say (see {@link ParentState}). */
export function parentState(parent: KubeObject, set: ApplySet): ParentState {
  const a = parent.metadata.annotations ?? {};
  const split = (v: string | undefined) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  return {
    exists: true,
    groupKinds: split(a[APPLYSET.containsGroupKinds]),
    namespaces: [set.namespace, ...split(a[APPLYSET.additionalNamespaces])],
    ...(a[APPLYSET.tooling] ? { tooling: a[APPLYSET.tooling] } : {}),
    ...(originOfAnnotations(a) ? { origin: originOfAnnotations(a)! } : {}),
    fingerprints: decodeFingerprints((parent.data as Record<string, string> | undefined)?.[FINGERPRINTS_KEY]),
    object: parent,
  };
}

/**
 * Whether the live parent already holds every value of `desired` (a {@link parentObject}): its type,
 * labels, annotations (the tooling annotation names spread's version, so a parent another version
 * wrote never matches) and fingerprints. Then applying `desired` would change nothing, and the write
 * is skipped. False when there is no live parent.
 */
export function parentHolds(live: KubeObject | undefined, desired: KubeObject): boolean {
  if (!live || live.type !== desired.type) return false;
  const within = (want: Record<string, string> | undefined, have: Record<string, string> | undefined) =>
    Object.entries(want ?? {}).every(([k, v]) => have?.[k] === v);
  return (
    within(desired.metadata.labels, live.metadata.labels) &&
    within(desired.metadata.annotations, live.metadata.annotations) &&
    within(desired.data as Record<string, string>, live.data as Record<string, string> | undefined)
  );
}

/** Applies the parent with server-side apply (spread's field manager, forced: spread owns the parent). */
export async function writeParent(
  client: ClusterPort,
  parent: KubeObject,
  fieldManager: string,
): Promise<void> {
  await client.request({
    method: 'PATCH',
    path: `/api/v1/namespaces/${encodeURIComponent(parent.metadata.namespace!)}/secrets/${encodeURIComponent(parent.metadata.name!)}`,
    query: { fieldManager, force: true, fieldValidation: 'Strict' },
    body: parent,
    contentType: 'application/apply-patch+yaml',
  });
}

/** One object found in the cluster that belongs to the set but is no longer in the directory. */
export interface PruneCandidate {
  /** Its metadata, apiVersion and kind; a CRD (or, listed `whole`, any object) whole. */
  readonly object: KubeObject;
  readonly path: string;
}

/**
 * The objects to prune: those labelled part-of this set, of the group-kinds and in the namespaces
 * the parent lists (before this deploy) or this deploy uses, that the current set does not hold.
 * Only objects carrying our part-of label are ever candidates, so nothing of anyone else's is touched.
 *
 * One LIST with the part-of label selector per served group-kind and namespace (cluster-wide for
 * cluster-scoped kinds), up to `concurrency` at once (default 8), of metadata only
 * (PartialObjectMetadataList) except for CRDs, whose spec is read too, or with `whole`. A 404 skips that list; so does a 403
 * (no `list` right), which is reported to `onForbidden` with the resource and namespace, since the
 * objects it would have found are then not pruned. A collection the plan's LISTs read whole under
 * the deploy's lock (`listed`, see ListedMembers) without a candidate in it is not listed again.
 * The candidates come in group-kind, then namespace, then server order.
 */
export async function findPruneCandidates(
  client: ClusterPort,
  discovery: Discovery,
  set: ApplySet,
  previous: ParentState,
  current: readonly SourcedObject[],
  options: {
    readonly concurrency?: number;
    readonly onForbidden?: (what: string) => void;
    /** Whole objects, not metadata only: for a caller that reads their status (`spread list`). */
    readonly whole?: boolean;
    readonly listed?: ListedMembers | undefined;
  } = {},
): Promise<PruneCandidate[]> {
  const keep = new Set(current.map((o) => keyOf(o.object)));
  const lists = await setCollections(discovery, set, previous, current);
  const listed = options.listed?.partOf === set.id ? options.listed.byCollection : undefined;
  const limit = pLimit(Math.max(1, options.concurrency ?? 8));
  const found = await Promise.all(
    lists.map(({ info, ns }) => {
      const candidate = (item: KubeObject): PruneCandidate | undefined => {
        const obj = { ...item, apiVersion: apiVersionOf(info), kind: info.kind };
        if (obj.metadata.labels?.[APPLYSET.partOf] !== set.id || keep.has(keyOf(obj))) return undefined;
        return { object: obj, path: objectPath(info, obj.metadata.namespace, obj.metadata.name) };
      };
      // A collection the plan listed with no candidate in it has nothing to prune; one with candidates
      // is listed again, so that what is deleted is decided on the cluster as it is now (another
      // deployment may have adopted one meanwhile: the lock is the deployment's, not the namespace's).
      const seen = listed?.get(objectPath(info, ns));
      if (seen && !seen.some((item) => candidate(item))) return [];
      return limit(async () => {
        const out: PruneCandidate[] = [];
        try {
          // Pages of 500, as the plan lists: a large set's objects are never one answer at once.
          await listInPages<KubeObject>(
            client,
            {
              path: objectPath(info, ns),
              pageSize: 500,
              labelSelector: `${APPLYSET.partOf}=${set.id}`,
              // Pruning, its report and `spread status` read a candidate's metadata, and a CRD's spec
              // (what it defines, to count its custom resources).
              accept: options.whole || isCrdResource(info) ? undefined : METADATA_LIST_ACCEPT,
            },
            (page) => {
              for (const item of page.items ?? []) {
                const c = candidate(item);
                if (c) out.push(c);
              }
            },
            () => {
              out.length = 0;
            },
          );
        } catch (error) {
          if (error instanceof KubeApiError && error.code === 403) {
            const resource = info.group ? `${info.resource}.${info.group}` : info.resource;
            options.onForbidden?.(`${resource}${ns ? ` in ${ns}` : ''}`);
            return [];
          }
          if (error instanceof KubeApiError && error.code === 404) return [];
          throw error;
        }
        return out;
      });
    }),
  );
  return found.flat();
}

/**
 * The collections a set's members may be in: each served group-kind the parent lists or `current`
 * uses, in each namespace of the parent's, the set's and `current`'s (once, for a cluster-scoped kind).
 */
async function setCollections(
  discovery: Discovery,
  set: ApplySet,
  previous: ParentState,
  current: readonly SourcedObject[],
): Promise<{ info: ResourceInfo; ns: string | undefined }[]> {
  const groupKinds = new Set([
    ...previous.groupKinds,
    ...current.map((o) => formatGroupKind(groupKindOf(o.object))),
  ]);
  const namespaces = new Set([
    ...previous.namespaces,
    set.namespace,
    ...current.map((o) => o.object.metadata.namespace ?? ''),
  ]);
  namespaces.delete('');
  const lists: { info: ResourceInfo; ns: string | undefined }[] = [];
  for (const gkText of [...groupKinds].sort()) {
    const info = await discovery.resolveGroupKind(parseGroupKind(gkText));
    if (!info) continue; // the kind is no longer served (its CRD was removed): nothing to list
    for (const ns of info.namespaced ? [...namespaces].sort() : [undefined]) lists.push({ info, ns });
  }
  return lists;
}

/** Deletes prune candidates (background propagation, like kubectl). A 404 counts as deleted. */
export async function deleteObjects(
  client: ClusterPort,
  candidates: readonly PruneCandidate[],
): Promise<void> {
  for (const c of candidates) {
    try {
      await client.request({
        method: 'DELETE',
        path: c.path,
        body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' },
      });
    } catch (error) {
      if (!(error instanceof KubeApiError && error.code === 404)) throw error;
    }
  }
}

function keyOf(o: KubeObject): string {
  return `${formatGroupKind(groupKindOf(o))}|${o.metadata.namespace ?? ''}|${o.metadata.name ?? ''}`;
}

/** `Deployment.apps` → {group: apps, kind: Deployment}; `Service` → core group. */
export function parseGroupKind(text: string): GroupKind {
  const dot = text.indexOf('.');
  return dot < 0 ? { group: '', kind: text } : { group: text.slice(dot + 1), kind: text.slice(0, dot) };
}

function isCrdResource(info: ResourceInfo): boolean {
  return info.group === 'apiextensions.k8s.io' && info.kind === 'CustomResourceDefinition';
}
