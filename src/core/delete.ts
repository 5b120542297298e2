// `spread delete` (the seed's Stop): removes a whole deployment under its lock, its objects, revisions,
// parent and Lease, but never a Namespace that still holds what is not the deployment's.
import { isCoreNamespace } from '../base/kube-object.js';
import { APPLYSET, DEPLOY_ANNOTATION_KEYS, MANAGED_BY_SPREAD, SPREAD } from '../base/labels.js';
import { KubeApiError } from '../cluster/client.js';
import { Discovery } from '../cluster/discovery.js';
import {
  type ApplySet,
  applySetFor,
  deleteObjects,
  findPruneCandidates,
  type PruneCandidate,
  readParent,
} from '../engine/inventory/applyset.js';
import { findForeignObjects, type NamespaceContents } from '../engine/inventory/foreign.js';
import { deleteRevisions, listRevisions } from '../engine/inventory/history.js';
import { foreignReason, type KeptObject, splitPrune } from '../engine/inventory/prune.js';
import type { ClusterPort } from '../engine/kube-api.js';
import { FIELD_MANAGER } from '../engine/shared/options.js';
import type { ObjectReport } from '../report/report.js';
import { keptRef, prunedRef } from './converge.js';
import { lockFor, type ManageWriteOptions, NotFoundError, ref, withClient } from './manage.js';

/** What {@link deletes} removed. */
export interface DeleteReport {
  readonly deployment: string;
  readonly namespace: string;
  readonly context: string;
  /**
   * Each object deleted, with action `pruned`; a Namespace kept because it holds objects not of the
   * deployment, with action `kept` and a `note` naming a few of them.
   */
  readonly objects: readonly ObjectReport[];
  /** Revision Secrets deleted. */
  readonly revisions: number;
  readonly durationMs: number;
}

/**
 * Removes deployment `name` entirely (the seed's Stop): under its lock, every object labelled part
 * of its ApplySet (of the group-kinds and namespaces the parent lists) is deleted with background
 * propagation — Namespaces last —, then its revision Secrets, its parent, and its Lease.
 *
 * A Namespace of the deployment that holds objects not of it ({@link findForeignObjects}: made by
 * hand, or another deployment's), or whose contents cannot all be listed, is not deleted, since that
 * would delete them too: it is kept, reported `kept` with a few of them named, and spread's labels
 * and annotations are removed from it, so that nothing claims it.
 *
 * @throws NotFoundError when there is no such deployment; LockTimeoutError; KubeApiError.
 */
export async function deletes(
  name: string,
  options: ManageWriteOptions & {
    /**
     * Delete the deployment's CRDs too, with every custom resource of them. Default false: each is
     * kept (its labels removed, so nothing claims it) and reported kept, its custom resources counted.
     */
    readonly pruneCrds?: boolean;
  },
): Promise<DeleteReport> {
  const started = Date.now();
  return withClient(options, async ({ client, context, namespace }) => {
    const set = applySetFor(name, namespace);
    const parent = await readParent(client, set);
    if (!parent.exists && (await listRevisions(client, set)).length === 0)
      throw new NotFoundError(`no deployment ${name} in namespace ${namespace} (context ${context})`);
    if (parent.tooling && !parent.tooling.startsWith('spread/'))
      throw new Error(`secret/${set.parentName} in ${namespace} is managed by ${parent.tooling}, not spread`);
    const lock = await lockFor(client, set, options);
    let children: PruneCandidate[] = [];
    const kept: KeptObject[] = [];
    let revisions = 0;
    try {
      const discovery = await Discovery.load(client);
      // A kind spread may not list would keep objects nobody could find once the parent is gone.
      const unlisted: string[] = [];
      children = parent.exists
        ? await findPruneCandidates(client, discovery, set, parent, [], {
            onForbidden: (w) => unlisted.push(w),
          })
        : [];
      if (unlisted.length > 0)
        throw new Error(
          `cannot list ${unlisted.join(', ')} (no list right), so objects of deployment ${name} there could not be deleted and would be left without a record; nothing was deleted`,
        );
      // The deployment's own Namespace (if it created it) goes last: it holds the parent and revisions.
      const isNs = (c: PruneCandidate) => isCoreNamespace(c.object);
      kept.push(...(await keptNamespaces(client, discovery, set, children.filter(isNs), options.signal)));
      // A CRD goes only when asked for (prune's rule, Helm's): deleting it deletes every custom
      // resource of it, the deployment's or not.
      const crds = await splitPrune(
        client,
        children.filter((c) => !isNs(c)),
        [],
        { pruneCrds: options.pruneCrds ?? false },
      );
      kept.push(...crds.kept);
      const isKept = (c: PruneCandidate) => kept.some((k) => k.candidate === c);
      await deleteObjects(client, crds.pruned);
      for (const c of crds.pruned) {
        const note = crds.notes.get(c);
        options.logger.info(`${ref(c.object)} deleted${note ? ` (${note})` : ''}`);
      }
      revisions = await deleteRevisions(client, set);
      await deleteParent(client, set);
      await lock.release();
      for (const [i, k] of kept.entries()) kept[i] = await releaseKept(client, set, k, options.logger);
      const doomed = children.filter((c) => isNs(c) && !isKept(c));
      await deleteObjects(client, doomed);
      for (const c of doomed) options.logger.info(`${ref(c.object)} deleted`);
    } finally {
      await lock.release();
    }
    const keptSet = new Set(kept.map((k) => k.candidate));
    return {
      deployment: name,
      namespace,
      context,
      objects: [
        ...children.filter((c) => !keptSet.has(c)).map((c) => prunedRef(c, 'pruned')),
        ...kept.map((k) => keptRef(k, 'kept')),
      ],
      revisions,
      durationMs: Date.now() - started,
    };
  });
}

/**
 * The deployment's Namespaces that delete keeps: deleting a Namespace deletes everything in it, so
 * one that holds objects not of this deployment (made by hand, another tool's or deployment's), or
 * whose contents cannot all be listed, stays, as prune keeps one still in use. Checked before
 * anything is deleted, while the deployment's Services still name their Endpoints.
 */
async function keptNamespaces(
  client: ClusterPort,
  discovery: Discovery,
  set: ApplySet,
  namespaces: readonly PruneCandidate[],
  signal: AbortSignal | undefined,
): Promise<KeptObject[]> {
  const kept: KeptObject[] = [];
  for (const c of namespaces) {
    const name = c.object.metadata.name ?? '';
    const contents = await findForeignObjects(client, discovery, name, set, {
      ...(signal ? { signal } : {}),
    });
    if (contents.foreign.length > 0 || contents.unlisted.length > 0)
      kept.push({ candidate: c, reason: keptNamespaceReason(name, contents) });
  }
  return kept;
}

/** Releases a kept object ({@link releaseObject}) and logs it, its reason saying who takes it back. */
async function releaseKept(
  client: ClusterPort,
  set: ApplySet,
  kept: KeptObject,
  logger: ManageWriteOptions['logger'],
): Promise<KeptObject> {
  await releaseObject(client, set, kept.candidate);
  const reason = `${kept.reason}; a later deploy of ${set.name} in ${set.namespace} takes it back`;
  logger.info(`${ref(kept.candidate.object)} kept: ${reason}`);
  return { ...kept, reason };
}

/** Deletes the ApplySet parent Secret (gone already is fine). */
async function deleteParent(client: ClusterPort, set: ApplySet): Promise<void> {
  try {
    await client.request({
      method: 'DELETE',
      path: `/api/v1/namespaces/${encodeURIComponent(set.namespace)}/secrets/${encodeURIComponent(set.parentName)}`,
    });
  } catch (error) {
    if (!(error instanceof KubeApiError && error.code === 404)) throw error;
  }
}

/** Why delete keeps a Namespace: {@link foreignReason}, and what was done with it. */
export function keptNamespaceReason(namespace: string, contents: NamespaceContents): string {
  return `${foreignReason(contents)}; spread's labels were removed from it (kubectl delete namespace ${namespace} deletes it with everything in it)`;
}

/**
 * Removes spread's labels and annotations from an object this deployment leaves behind (a kept
 * Namespace or CRD), so that no ApplySet claims it: a JSON merge patch of just those keys; the object's
 * other labels (pod security levels, for instance) stay. It is annotated
 * `spread.rsprd.com/released-from: <ApplySet id>`, so that a later deploy of the same deployment
 * (same name and namespace) takes it back as its own, while any other deployment still refuses it.
 */
async function releaseObject(client: ClusterPort, set: ApplySet, candidate: PruneCandidate): Promise<void> {
  const { object } = candidate;
  const labels: Record<string, null> = { [APPLYSET.partOf]: null };
  if (object.metadata.labels?.[SPREAD.managedBy] === MANAGED_BY_SPREAD) labels[SPREAD.managedBy] = null;
  const annotations: Record<string, string | null> = {
    ...Object.fromEntries([SPREAD.source, ...DEPLOY_ANNOTATION_KEYS].map((k) => [k, null])),
    // Recognisably this deployment's: its next deploy takes the object back without --adopt.
    [SPREAD.releasedFrom]: set.id,
  };
  await client.request({
    method: 'PATCH',
    path: candidate.path,
    query: { fieldManager: FIELD_MANAGER },
    body: { metadata: { labels, annotations } },
    contentType: 'application/merge-patch+json',
  });
}
