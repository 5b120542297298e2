// `spread delete` (the seed's Stop): removes a whole deployment under its lock, its objects, revisions,
// parent and Lease, but never a Namespace that still holds what is not the deployment's.
import { isCoreNamespace } from '../base/kube-object.js';
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
import {
  foreignReason,
  holdsKept,
  type KeptObject,
  keptByAnnotations,
  RELEASED,
  splitPrune,
} from '../engine/inventory/prune.js';
import { releaseFromApplySet } from '../engine/inventory/prune-policy.js';
import type { ClusterPort } from '../engine/kube-api.js';
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
 * and annotations are removed from it, so that nothing claims it. So is any object whose own
 * annotations keep it (prune's policy: `spread.rsprd.com/prune: keep` and Helm's, Argo CD's, Flux's
 * and kapp's equivalents), unless `includeKept`.
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
    /**
     * Delete the objects whose annotations ask to be kept too (`--include-kept`). Default false:
     * each is kept, released from the ApplySet, and reported kept with its annotation.
     */
    readonly includeKept?: boolean;
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
      kept.push(...(await keptNamespaces(client, discovery, set, children, options)));
      // Prune's policy: what its annotations keep stays (unless --include-kept), and a CRD goes only
      // when asked for (Helm's rule): deleting it deletes every custom resource of it, ours or not.
      const { pruneCrds = false, includeKept = false } = options;
      const rest = children.filter((c) => !isNs(c));
      const crds = await splitPrune(client, rest, [], { pruneCrds, includeKept, removal: 'delete' });
      kept.push(...crds.kept);
      await deleteObjects(client, crds.pruned);
      for (const c of crds.pruned)
        options.logger.info(`${ref(c.object)} deleted${crds.notes.has(c) ? ` (${crds.notes.get(c)})` : ''}`);
      revisions = await deleteRevisions(client, set);
      await deleteParent(client, set);
      await lock.release();
      for (const [i, k] of kept.entries()) kept[i] = await releaseKept(client, set, k, options.logger);
      const doomed = children.filter((c) => isNs(c) && !kept.some((k) => k.candidate === c));
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
 * The deployment's Namespaces that delete keeps: one its annotations keep (prune's policy, unless
 * `includeKept`); and, since deleting a Namespace deletes everything in it, one that holds an object
 * of `children` its annotations keep ({@link holdsKept}), or objects not of this deployment (made by
 * hand, another tool's or deployment's), or whose contents cannot all be listed, stays, as prune
 * keeps one still in use. Checked before anything is deleted, while the deployment's Services still
 * name their Endpoints; the kept objects still carry the ApplySet label then, so `foreign` would
 * not see them.
 */
async function keptNamespaces(
  client: ClusterPort,
  discovery: Discovery,
  set: ApplySet,
  children: readonly PruneCandidate[],
  options: { readonly includeKept?: boolean | undefined; readonly signal?: AbortSignal | undefined },
): Promise<KeptObject[]> {
  const { signal } = options;
  const kept: KeptObject[] = [];
  const annotatedKept = keptByAnnotations(children, { ...options, removal: 'delete' });
  for (const c of children.filter((x) => isCoreNamespace(x.object))) {
    const annotated = annotatedKept.get(c);
    if (annotated) {
      const reason = annotated.misspelt ? annotated.reason : `${annotated.reason}: ${RELEASED}`;
      kept.push({ candidate: c, reason, released: true, ...(annotated.misspelt ? { warning: true } : {}) });
      continue;
    }
    const holds = holdsKept(c, [...annotatedKept.keys()]);
    if (holds) {
      kept.push({ candidate: c, reason: `${holds}; spread's labels were removed from it` });
      continue;
    }
    const name = c.object.metadata.name ?? '';
    const contents = await findForeignObjects(client, discovery, name, set, {
      ...(signal ? { signal } : {}),
    });
    if (contents.foreign.length > 0 || contents.unlisted.length > 0)
      kept.push({ candidate: c, reason: keptNamespaceReason(name, contents) });
  }
  return kept;
}

/** Releases a kept object ({@link releaseFromApplySet}) and logs it, its reason saying who takes it back. */
async function releaseKept(
  client: ClusterPort,
  set: ApplySet,
  kept: KeptObject,
  logger: ManageWriteOptions['logger'],
): Promise<KeptObject> {
  await releaseFromApplySet(client, set, kept.candidate);
  const reason = `${kept.reason}; a later deploy of ${set.name} in ${set.namespace} takes it back`;
  const line = `${ref(kept.candidate.object)} kept: ${reason}`;
  if (kept.warning) logger.warn(line);
  else logger.info(line);
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
