// This file is over 400 lines because it is the whole revision history (encode, record, list, read, prune).
import { gunzipSync, gzipSync } from 'node:zlib';
import { fromJson, toJson } from '../../base/json.js';
import type { KubeObject } from '../../base/kube-object.js';
import { HISTORY, MANAGED_BY_SPREAD, revisionSecretName, SPREAD } from '../../base/labels.js';
import { splitReference } from '../../base/reference.js';
import { CONTAINER_LISTS, podSpecOf } from '../../base/workload.js';
import { KubeApiError, METADATA_LIST_ACCEPT } from '../../cluster/client.js';
import type { ClusterPort } from '../kube-api.js';
import type { ApplySet } from './applyset.js';
import { type Provenance, parseProvenance, provenanceAnnotations } from './provenance.js';

/**
 * How a revision's rollout ended: `deployed` (ready), or `failed` (applied, but the rollout failed or
 * did not finish in time), as Helm records a failed release. A rollback with no revision number goes
 * to the newest revision before the current one that is not failed.
 */
export type RevisionStatus = 'deployed' | 'failed';

/** Default number of revisions kept per deployment. */
export const DEFAULT_KEEP = 10;

/** An image a revision deployed: the reference as applied and its digest when pinned. */
export interface RevisionImage {
  /** e.g. `registry.example.com/web@sha256:…` or `nginx:1.27`. */
  readonly image: string;
  /** `sha256:…`, when the reference is pinned by digest. */
  readonly digest?: string;
}

/**
 * A revision without its objects, as listed; with its provenance (environment, the revision it was
 * promoted from, the digest of each `&` marker) when recorded.
 */
export interface RevisionSummary extends Provenance {
  readonly deployment: string;
  readonly namespace: string;
  /** 1, 2, 3…: one more than the highest revision before it. */
  readonly revision: number;
  /** ISO 8601 time of the deploy. */
  readonly time: string;
  readonly commit?: string;
  readonly runUrl?: string;
  readonly description?: string;
  readonly status: RevisionStatus;
  /** Deployed without the rollout wait (`--no-wait`): `deployed` says applied, not ready. */
  readonly rolloutUnchecked?: true;
  readonly images: readonly RevisionImage[];
  readonly objectCount: number;
  /** Digest of the parent's fingerprints when it was recorded; absent when it had none. */
  readonly appliedState?: string;
  /** The revision Secret's name, `spread.<deployment>.v<N>`. */
  readonly secretName: string;
}

/** A revision with the object set it applied (as sent to the API server, with spread's labels). */
export interface Revision extends RevisionSummary {
  readonly objects: readonly KubeObject[];
}

/** What {@link recordRevision} records (with its provenance); the number and the time are filled in. */
export interface RevisionInput extends Provenance {
  /** The object set, as objects or already encoded ({@link encodeObjectSet}). */
  readonly objects: readonly KubeObject[] | EncodedObjectSet;
  readonly commit?: string;
  readonly runUrl?: string;
  readonly description?: string;
  /** Default `deployed`. */
  readonly status?: RevisionStatus;
  /** The deploy did not wait for the rollout (see {@link RevisionSummary.rolloutUnchecked}). */
  readonly rolloutUnchecked?: boolean;
  /** Images deployed; by default those of the objects' containers ({@link imagesOf}). */
  readonly images?: readonly RevisionImage[];
  /** Default: now. */
  readonly time?: Date;
  /** The parent's fingerprints digest once this state was applied (fingerprintsDigest). */
  readonly appliedState?: string;
}

/**
 * The object set as stored: the JSON array, gzip, base64 (a Secret's `data` holds the gzip bytes), a
 * MiB of JSON at a time as gzip members (read back as one stream): a set of several MB is never one
 * string and one buffer at once. Deflate looks back 32 KiB only, so the pieces compress as the whole.
 */
export function encodeObjects(objects: readonly KubeObject[]): string {
  const members: Buffer[] = [];
  let piece = '[';
  for (const [i, o] of objects.entries()) {
    piece += `${i > 0 ? ',' : ''}${toJson(o)}`;
    if (piece.length < 1 << 20) continue;
    members.push(gzipSync(piece));
    piece = '';
  }
  members.push(gzipSync(`${piece}]`));
  return Buffer.concat(members).toString('base64');
}

/**
 * An object set as a revision stores it: {@link encodeObjects}' text (a few hundred KB for 5,000
 * objects), the images of its containers ({@link imagesOf}) and how many objects it holds. A deploy
 * encodes its objects before the rollout wait and lets them go.
 */
export interface EncodedObjectSet {
  readonly data: string;
  readonly images: readonly RevisionImage[];
  readonly count: number;
}

/** `objects` as a revision stores them (see {@link EncodedObjectSet}). */
export function encodeObjectSet(objects: readonly KubeObject[]): EncodedObjectSet {
  return { data: encodeObjects(objects), images: imagesOf(objects), count: objects.length };
}

/** The inverse of {@link encodeObjects}. @throws Error when the text is not gzip of a JSON array. */
export function decodeObjects(data: string): KubeObject[] {
  const parsed = fromJson(gunzipSync(Buffer.from(data, 'base64')).toString('utf8'));
  if (!Array.isArray(parsed)) throw new Error('a revision holds no object list');
  return parsed as KubeObject[];
}

/**
 * The images of the objects' containers (init, regular, ephemeral; Pods, PodTemplates, the
 * workloads' pod templates and custom workloads' `spec.template`), deduplicated and sorted, with the digest of those pinned `@sha256:…`.
 */
export function imagesOf(objects: readonly KubeObject[]): RevisionImage[] {
  const found = new Set<string>();
  for (const o of objects) {
    const spec = podSpecOf(o, { customKinds: true }) as
      | Record<string, { image?: string }[] | undefined>
      | undefined;
    for (const list of CONTAINER_LISTS) for (const c of spec?.[list] ?? []) if (c.image) found.add(c.image);
  }
  return [...found].sort().map((image) => {
    const { digest } = splitReference(image);
    return digest !== undefined ? { image, digest } : { image };
  });
}

/** The revision Secret of revision `revision` of `set` (labels, annotations, `data.objects`). */
export function revisionSecret(set: ApplySet, revision: number, input: RevisionInput): KubeObject {
  const time = (input.time ?? new Date()).toISOString();
  const encoded = asEncoded(input.objects);
  const annotations: Record<string, string> = {
    [HISTORY.revision]: String(revision),
    [HISTORY.time]: time,
    [HISTORY.images]: JSON.stringify(input.images ?? encoded.images),
    [HISTORY.objectCount]: String(encoded.count),
    [HISTORY.status]: input.status ?? 'deployed',
    [SPREAD.deployment]: set.name,
  };
  if (input.commit) annotations[HISTORY.commit] = input.commit;
  if (input.runUrl) annotations[HISTORY.runUrl] = input.runUrl;
  if (input.description) annotations[HISTORY.description] = input.description;
  if (input.appliedState) annotations[HISTORY.appliedState] = input.appliedState;
  if (input.rolloutUnchecked) annotations[HISTORY.rolloutChecked] = 'false';
  Object.assign(annotations, provenanceAnnotations(input));
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: HISTORY.type,
    metadata: {
      name: revisionSecretName(set.name, revision),
      namespace: set.namespace,
      labels: {
        [HISTORY.applySet]: set.id,
        [SPREAD.deployment]: set.name,
        [HISTORY.revision]: String(revision),
        [SPREAD.managedBy]: MANAGED_BY_SPREAD,
      },
      annotations,
    },
    data: { objects: encoded.data },
  };
}

/** The object set of a {@link RevisionInput}, encoded unless it already is. */
function asEncoded(objects: RevisionInput['objects']): EncodedObjectSet {
  return 'data' in objects ? objects : encodeObjectSet(objects);
}

/** Reads a revision Secret's annotations (and, with `withObjects`, decodes its objects). */
export function parseRevisionSecret(secret: KubeObject, withObjects: true): Revision;
export function parseRevisionSecret(secret: KubeObject, withObjects?: false): RevisionSummary;
export function parseRevisionSecret(secret: KubeObject, withObjects = false): RevisionSummary | Revision {
  const a = secret.metadata.annotations ?? {};
  let images: RevisionImage[] = [];
  try {
    images = JSON.parse(a[HISTORY.images] ?? '[]') as RevisionImage[];
  } catch {
    images = [];
  }
  const summary: RevisionSummary = {
    deployment: a[SPREAD.deployment] ?? secret.metadata.labels?.[SPREAD.deployment] ?? '',
    namespace: secret.metadata.namespace ?? '',
    revision: Number(a[HISTORY.revision] ?? secret.metadata.labels?.[HISTORY.revision] ?? 0),
    time: a[HISTORY.time] ?? String(secret.metadata.creationTimestamp ?? ''),
    ...(a[HISTORY.commit] ? { commit: a[HISTORY.commit] } : {}),
    ...(a[HISTORY.runUrl] ? { runUrl: a[HISTORY.runUrl] } : {}),
    ...(a[HISTORY.description] ? { description: a[HISTORY.description] } : {}),
    status: a[HISTORY.status] === 'failed' ? 'failed' : 'deployed',
    ...(a[HISTORY.rolloutChecked] === 'false' ? { rolloutUnchecked: true as const } : {}),
    images,
    objectCount: Number(a[HISTORY.objectCount] ?? 0),
    ...(a[HISTORY.appliedState] ? { appliedState: a[HISTORY.appliedState] } : {}),
    ...parseProvenance(a),
    secretName: secret.metadata.name ?? '',
  };
  if (!withObjects) return summary;
  const data = (secret.data as { objects?: string } | undefined)?.objects;
  return { ...summary, objects: data ? decodeObjects(data) : [] };
}

/**
 * The revisions to delete so that `keep` remain: the lowest numbers first, never `current`
 * (the revision the parent names) nor `lastGood` (where a rollback with no number goes, however
 * many failed revisions came after it). `keep` < 1 keeps one.
 */
export function revisionsToDelete(
  revisions: readonly number[],
  keep: number,
  current?: number,
  lastGood?: number,
): number[] {
  const newestFirst = [...new Set(revisions)].sort((a, b) => b - a);
  const room = Math.max(1, keep);
  const pinned = [current, lastGood].filter(
    (r, i, all): r is number => r !== undefined && newestFirst.includes(r) && all.indexOf(r) === i,
  );
  const kept = [...pinned, ...newestFirst.filter((r) => !pinned.includes(r))].slice(
    0,
    Math.max(room, pinned.length),
  );
  return newestFirst.filter((r) => !kept.includes(r)).sort((a, b) => a - b);
}

const secretsPath = (namespace: string) => `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets`;

/**
 * Every revision of a deployment, newest first (summaries). Listed as metadata only, Secrets of the
 * revision type alone (`fieldSelector=type=…`): the summaries are in labels and annotations, and ten
 * revisions of 5,000 objects are some MB of `data` that a deploy would otherwise read and hold at its end.
 */
export async function listRevisions(client: ClusterPort, set: ApplySet): Promise<RevisionSummary[]> {
  const list = await client.request<{ items?: KubeObject[] }>({
    method: 'GET',
    path: secretsPath(set.namespace),
    query: { labelSelector: `${HISTORY.applySet}=${set.id}`, fieldSelector: `type=${HISTORY.type}` },
    accept: METADATA_LIST_ACCEPT,
  });
  return (list.body.items ?? []).map((s) => parseRevisionSecret(s)).sort((a, b) => b.revision - a.revision);
}

/** One revision with its objects; `undefined` when there is no such revision. */
export async function readRevision(
  client: ClusterPort,
  set: ApplySet,
  revision: number,
): Promise<Revision | undefined> {
  const secret = await client.getOrUndefined<KubeObject>(
    `${secretsPath(set.namespace)}/${encodeURIComponent(revisionSecretName(set.name, revision))}`,
  );
  return secret ? parseRevisionSecret(secret, true) : undefined;
}

/** The current revision the ApplySet parent names (`spread.rsprd.com/revision`); `undefined` when none. */
export async function currentRevision(client: ClusterPort, set: ApplySet): Promise<number | undefined> {
  return revisionOfParent(
    await client.getOrUndefined<KubeObject>(
      `${secretsPath(set.namespace)}/${encodeURIComponent(set.parentName)}`,
    ),
  );
}

/** The current revision a parent Secret records (its {@link HISTORY}.revision annotation), if any. */
export function revisionOfParent(parent: KubeObject | undefined): number | undefined {
  const value = parent?.metadata.annotations?.[HISTORY.revision];
  return value === undefined || value === '' ? undefined : Number(value);
}

/**
 * The revision a rollback with no number goes to: the newest one below `below` that is not failed
 * (Helm's "last successful release"); `undefined` when there is none.
 */
export function lastGoodRevision(
  revisions: readonly Pick<RevisionSummary, 'revision' | 'status'>[],
  below: number,
): number | undefined {
  return revisions
    .filter((r) => r.revision < below && r.status !== 'failed')
    .map((r) => r.revision)
    .sort((a, b) => b - a)[0];
}

/**
 * The deployment's last good deploy: the current revision when it did not fail, else the newest
 * before it that did not (what drift compares with, and what its heal deploys again); `undefined`
 * when there is none.
 */
export function lastDeployedRevision(
  revisions: readonly Pick<RevisionSummary, 'revision' | 'status'>[],
  current: number | undefined,
): number | undefined {
  if (current !== undefined && revisions.some((r) => r.revision === current && r.status !== 'failed'))
    return current;
  return lastGoodRevision(revisions, (current ?? Number.MAX_SAFE_INTEGER) + 1);
}

/**
 * Sets the parent's current-revision annotation with a JSON merge patch under field manager
 * `spread-history`, so that the parent's own server-side apply (manager `spread`, which does not
 * list the annotation) leaves it alone, and so that a missing parent is a 404 rather than created.
 *
 * @throws KubeApiError 404 when the parent does not exist.
 */
export async function writeCurrentRevision(
  client: ClusterPort,
  set: ApplySet,
  revision: number,
): Promise<void> {
  await client.request({
    method: 'PATCH',
    path: `${secretsPath(set.namespace)}/${encodeURIComponent(set.parentName)}`,
    query: { fieldManager: HISTORY.fieldManager },
    body: { metadata: { annotations: { [HISTORY.revision]: String(revision) } } },
    contentType: 'application/merge-patch+json',
  });
}

/**
 * Sets (or, with `undefined`, removes) a revision's applied-state annotation ({@link HISTORY}.appliedState)
 * with a JSON merge patch under field manager `spread-history`.
 *
 * @throws KubeApiError 404 when the revision does not exist.
 */
export async function writeAppliedState(
  client: ClusterPort,
  set: ApplySet,
  revision: number,
  digest: string | undefined,
): Promise<void> {
  await client.request({
    method: 'PATCH',
    path: `${secretsPath(set.namespace)}/${encodeURIComponent(revisionSecretName(set.name, revision))}`,
    query: { fieldManager: HISTORY.fieldManager },
    body: { metadata: { annotations: { [HISTORY.appliedState]: digest ?? null } } },
    contentType: 'application/merge-patch+json',
  });
}

/**
 * Notes that the rollout of revision `revision` was seen ready: a deploy with the wait that changed
 * nothing since a `--no-wait` one keeps its revision, and removes the mark that it was never checked.
 */
export async function writeRolloutChecked(
  client: ClusterPort,
  set: ApplySet,
  revision: number,
): Promise<void> {
  await client.request({
    method: 'PATCH',
    path: `${secretsPath(set.namespace)}/${encodeURIComponent(revisionSecretName(set.name, revision))}`,
    query: { fieldManager: HISTORY.fieldManager },
    body: { metadata: { annotations: { [HISTORY.rolloutChecked]: null } } },
    contentType: 'application/merge-patch+json',
  });
}

/**
 * What {@link recordRevision} would read first, read earlier by a deploy that holds the lock (nothing
 * else writes revisions then): the stored revisions ({@link listRevisions}) and the parent's current one.
 */
export interface PriorRevisions {
  readonly existing: readonly RevisionSummary[];
  readonly current: number | undefined;
}

/**
 * Records a deploy (successful, or failed with `status: 'failed'`): creates the Secret of revision N+1 (N the highest of the stored
 * revisions and the parent's current revision), sets the parent's current revision to it, then
 * deletes the oldest revisions beyond `keep` (default 10). A 409 on create (a concurrent record;
 * the deploy lock should prevent it) retries with the next number. `prior` spares the two reads.
 *
 * @throws KubeApiError, e.g. 413/422 when the compressed object set exceeds a Secret's 1 MiB.
 */
export async function recordRevision(
  client: ClusterPort,
  set: ApplySet,
  input: RevisionInput,
  options: { keep?: number; prior?: PriorRevisions } = {},
): Promise<RevisionSummary> {
  const { existing, current } = options.prior ?? (await readPrior(client, set));
  let next = Math.max(0, ...existing.map((r) => r.revision), current ?? 0) + 1;
  let secret: KubeObject;
  // Encoded once, whatever number the revision ends up with.
  const encoded = {
    ...input,
    objects: asEncoded(input.objects),
  };
  for (let attempt = 0; ; attempt++) {
    secret = revisionSecret(set, next, encoded);
    try {
      await client.request({ method: 'POST', path: secretsPath(set.namespace), body: secret });
      break;
    } catch (error) {
      if (error instanceof KubeApiError && error.code === 409 && attempt < 5) {
        next++;
        continue;
      }
      throw error;
    }
  }
  await writeCurrentRevision(client, set, next);
  const good = input.status === 'failed' ? lastGoodRevision(existing, next) : next;
  await pruneRevisions(
    client,
    set,
    options.keep ?? DEFAULT_KEEP,
    next,
    [...existing.map((r) => r.revision), next],
    good,
  );
  return parseRevisionSecret(secret);
}

async function readPrior(client: ClusterPort, set: ApplySet): Promise<PriorRevisions> {
  const [existing, current] = await Promise.all([listRevisions(client, set), currentRevision(client, set)]);
  return { existing, current };
}

/**
 * Records that revision `target` was applied again: a new revision with its objects and commit,
 * described `rollback to <target>` (Helm's history does the same); with `failure` (why its rollout
 * failed), marked failed and described `rollback to <target> failed: <failure>`.
 */
export async function recordRollback(
  client: ClusterPort,
  set: ApplySet,
  stored: Revision,
  target: number,
  options: { runUrl?: string; keep?: number; failure?: string } = {},
): Promise<RevisionSummary> {
  return recordRevision(
    client,
    set,
    {
      objects: stored.objects,
      description: options.failure
        ? `rollback to ${target} failed: ${options.failure}`
        : `rollback to ${target}`,
      ...(options.failure ? { status: 'failed' as const } : {}),
      ...(stored.commit ? { commit: stored.commit } : {}),
      ...(options.runUrl ? { runUrl: options.runUrl } : {}),
      // The objects are the revision's, and so is where they came from.
      ...(stored.environment ? { environment: stored.environment } : {}),
      ...(stored.promotedFrom ? { promotedFrom: stored.promotedFrom } : {}),
      ...(stored.marks ? { marks: stored.marks } : {}),
    },
    { keep: options.keep ?? DEFAULT_KEEP },
  );
}

/**
 * Deletes revisions beyond the newest `keep` (never `current` nor `lastGood`, see
 * {@link revisionsToDelete}); returns the numbers deleted.
 */
export async function pruneRevisions(
  client: ClusterPort,
  set: ApplySet,
  keep: number,
  current?: number,
  known?: readonly number[],
  lastGood?: number,
): Promise<number[]> {
  const numbers = known ?? (await listRevisions(client, set)).map((r) => r.revision);
  const doomed = revisionsToDelete(numbers, keep, current, lastGood);
  for (const n of doomed) await deleteSecret(client, set.namespace, revisionSecretName(set.name, n));
  return doomed;
}

/** Deletes every revision of a deployment; returns how many. */
export async function deleteRevisions(client: ClusterPort, set: ApplySet): Promise<number> {
  const revisions = await listRevisions(client, set);
  for (const r of revisions) await deleteSecret(client, set.namespace, r.secretName);
  return revisions.length;
}

async function deleteSecret(client: ClusterPort, namespace: string, name: string): Promise<void> {
  try {
    await client.request({ method: 'DELETE', path: `${secretsPath(namespace)}/${encodeURIComponent(name)}` });
  } catch (error) {
    if (!(error instanceof KubeApiError && error.code === 404)) throw error;
  }
}
