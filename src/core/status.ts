// `spread status`: compares a directory with the cluster without writing anything (a server-side dry run
// of every object labelled as a deploy would label it), and lists what a deploy would prune.
import { formatGroupKind, groupKindOf, isGenerated, type SourcedObject } from '../base/kube-object.js';
import { DEPLOY_ANNOTATION_KEYS, SPREAD } from '../base/labels.js';
import type { Logger } from '../base/logger.js';
import { optionRef } from '../base/option-ref.js';
import { type DeploymentOrigin, defaultDeploymentName } from '../base/origin.js';
import type { Source } from '../base/source.js';
import type { Discovery } from '../cluster/discovery.js';
import { ApplyError } from '../engine/apply/errors.js';
import {
  type ApplySet,
  applySetFor,
  findPruneCandidates,
  labelForApplySet,
  type PruneCandidate,
  readParent,
} from '../engine/inventory/applyset.js';
import { splitPrune } from '../engine/inventory/prune.js';
import type { ClusterPort } from '../engine/kube-api.js';
import { planObjects } from '../engine/plan/planner.js';
import { FIELD_MANAGER } from '../engine/shared/options.js';
import { withTemplateHash } from '../engine/wait/rc-roll.js';
import { type ImageOptions, prepareImages } from '../image/index.js';
import type { KustomizeOptions } from '../input/kustomize.js';
import type { HealthRules } from '../project/health.js';
import type { DeployCluster } from './deploy/options.js';
import { liveNamespace, withOwnNamespace } from './deploy/read.js';
import { deploymentIdentity, originConflict } from './identity.js';
import { type ChartSettings, capabilitiesOf, type ReadResult, readDeployment } from './read.js';
import { finishedJobs } from './status-finished.js';
import { type ClusterState, objectKey, type StatusReport, statesOfPlan, statusOf } from './status-report.js';
import { absentRun, isRun, runStates } from './status-runs.js';

export {
  type ClusterState,
  type EntityStatus,
  type ImageStatus,
  type ObjectState,
  type ObjectStatus,
  objectKey,
  type StatusCounts,
  type StatusReport,
  statesOfPlan,
  statusExitCode,
  statusOf,
} from './status-report.js';

/** Options of {@link status}. */
export interface StatusOptions {
  /** The directory (DirectoryInput root). */
  readonly path: string;
  /** The deployment's name; when absent, the default deploy takes (see DeployOptions.name). */
  readonly name?: string | undefined;
  /** Where the directory comes from (see DeployOptions.origin): gives the default name. */
  readonly origin?: DeploymentOrigin | undefined;
  /**
   * Namespace for objects that name none: with a cluster, the context's namespace when absent;
   * without one, `default`.
   */
  readonly namespace?: string | undefined;
  /** Compare with a cluster: the one connected by the front end. Absent: no cluster is touched. */
  readonly cluster?: {
    /** The cluster, connected by the front end (src/frontend/manage.ts). */
    readonly connection: DeployCluster;
    /** Annotations deploy would put on every object (as DeployOptions.annotations), so they compare equal. */
    readonly annotations?: Readonly<Record<string, string>>;
    /** Requests in flight at once. Default 16. */
    readonly concurrency?: number;
    /**
     * How deploy builds `&` images (registry, tag, build args…): each is resolved as deploy's plan
     * resolves it, from the registry (the tag deploy would push, looked up to its digest), building
     * nothing, so that a deployed image compares equal.
     */
    readonly images?: Omit<ImageOptions, 'root' | 'signal'>;
  };
  /**
   * The deployment's namespace is one of its objects, as the deploy's `createNamespace` (a preview's):
   * compared as the Namespace a deploy would add, not listed as what a deploy would prune.
   */
  readonly createNamespace?: { readonly source: Source } | undefined;
  /** How Helm charts in the directory are rendered (settings `helm`, `helm-values`, `helm-set`). */
  readonly charts?: ChartSettings;
  /** How kustomizations are rendered (see ReadOptions.kustomize). */
  readonly kustomize?: KustomizeOptions | undefined;
  readonly logger: Logger;
}

/**
 * `spread status`: reads the directory (input → entity → deployment) and reports its entity tree;
 * with `cluster`, also each object's {@link ObjectState}, deciding "in sync" with a server-side
 * dry-run apply of the objects labelled exactly as deploy labels them (ApplySet part-of label,
 * managed-by label, source annotation, ReplicationController template hash), and lists the objects
 * a deploy would prune. Writes nothing to the cluster. `&` images are compared as deploy pins them
 * (see resolveImages).
 *
 * @throws InputError for a bad input (also `&` images with no registry to look them up in),
 *   KubeconfigError, KubeApiError when the cluster cannot be read, RegistryAuthError.
 */
export async function status(options: StatusOptions): Promise<StatusReport> {
  const { logger } = options;
  const given = { charts: options.charts, kustomize: options.kustomize, logger };
  if (!options.cluster) {
    const namespace = options.namespace || 'default';
    const name = options.name || (options.origin ? defaultDeploymentName(options.origin) : undefined);
    const read = await readDeployment(options.path, { namespace, name, ...given });
    return statusOf(read.application, read.deployment, { namespace });
  }
  const { api: client, discovery, context } = options.cluster.connection;
  const namespace = options.namespace || options.cluster.connection.namespace;
  const name = await statusName(client, namespace, options);
  const directory = await readDeployment(options.path, {
    namespace,
    enforceNamespace: Boolean(options.namespace),
    name,
    isNamespaced: (gk) => discovery.isNamespaced(gk),
    hasStatusSubresource: (gk) => discovery.hasStatusSubresource(gk),
    capabilities: capabilitiesOf(discovery),
    ...given,
  });
  const set = applySetFor(directory.name, namespace);
  const own = options.createNamespace;
  const read = own
    ? withOwnNamespace(
        directory,
        namespace,
        own.source,
        set,
        await liveNamespace(client, namespace),
        discovery,
        logger,
      )
    : directory;
  const pinned = await resolveImages(options, read);
  const objects = pinned.map((o) => ({
    ...o,
    object: withTemplateHash(labelForApplySet(o, set, options.cluster?.annotations)),
  }));
  const compared = await compareObjects(options.cluster.connection, set, objects, {
    concurrency: options.cluster.concurrency ?? 32,
    health: read.health,
    logger,
  });
  return statusOf(read.application, read.deployment, {
    namespace,
    context,
    ...compared,
  });
}

/** What {@link compareObjects} found: each object's state, and the objects a deploy prunes or keeps. */
export interface Compared {
  readonly states: Map<string, ClusterState>;
  readonly notInDirectory: readonly SourcedObject[];
  readonly kept: readonly (SourcedObject & { readonly reason: string })[];
}

/**
 * Compares `objects` (labelled as a deploy labels them) with the cluster: their states by a
 * server-side dry run, the Jobs already run, and the objects of `set` a deploy would prune or keep.
 * Writes nothing. Used for the directory's objects and for a revision's (status-revision.ts).
 */
export async function compareObjects(
  connection: DeployCluster,
  set: ApplySet,
  objects: readonly SourcedObject[],
  options: {
    readonly concurrency: number;
    readonly health: HealthRules;
    readonly logger: Logger;
    /** Why the live Helm hooks `objects` does not hold are kept, not pruned (a revision's: see rollback). */
    readonly keepHooks?: string;
  },
): Promise<Compared> {
  const { api: client, discovery } = connection;
  const states = await absentNamespaceStates(client, objects);
  // Hooks and phase Jobs are runs: described by their last run, not compared (status-runs.ts).
  const runs = objects.filter((o) => !states.has(objectKey(o)) && isRun(o.object));
  const toPlan = objects.filter((o) => !states.has(objectKey(o)) && !isRun(o.object));
  for (const [k, v] of await planStates(client, discovery, toPlan, options.concurrency, options.health))
    states.set(k, v);
  for (const [k, v] of await runStates(client, discovery, runs)) states.set(k, v);
  const previous = await readParent(client, set);
  await finishedJobs(client, set, previous, objects, states);
  // A run not in the cluster of a deployment deployed before is no drift: a deploy runs it.
  if (previous.exists)
    for (const o of runs)
      if (states.get(objectKey(o))?.state === 'missing') states.set(objectKey(o), absentRun(o.object));
  const extra: PruneCandidate[] = previous.exists
    ? await findPruneCandidates(client, discovery, set, previous, objects, {
        onForbidden: (what) =>
          options.logger.warn(
            `cannot list ${what} (no list right): objects the directory dropped there are not shown`,
          ),
      })
    : [];
  const shown = latestGenerated(objects, extra, states);
  // What a deploy keeps instead of pruning is no difference.
  const decision = await splitPrune(
    client,
    extra.filter((c) => !shown.has(c)),
    objects,
    options.keepHooks ? { keepHooks: options.keepHooks } : {},
  );
  const sourced = (c: PruneCandidate) => ({
    object: c.object,
    source: sourceOf(c.object.metadata.annotations?.[SPREAD.source]),
  });
  return {
    states,
    notInDirectory: decision.pruned.map(sourced),
    kept: decision.kept.map((k) => ({ ...sourced(k.candidate), reason: k.reason })),
  };
}

/**
 * Objects in a Namespace that does not exist (and that the set does not create) are missing: the
 * dry run would only fail on them. Their states, by {@link objectKey}.
 */
async function absentNamespaceStates(
  client: ClusterPort,
  objects: readonly SourcedObject[],
): Promise<Map<string, ClusterState>> {
  const namespaces = [...new Set(objects.map((o) => o.object.metadata.namespace).filter((n) => !!n))];
  const created = new Set(
    objects.filter((o) => o.object.kind === 'Namespace').map((o) => o.object.metadata.name),
  );
  const absent = new Set<string>();
  for (const ns of namespaces as string[]) {
    if (created.has(ns)) continue;
    const live = await client.getOrUndefined(`/api/v1/namespaces/${encodeURIComponent(ns)}`);
    if (!live) absent.add(ns);
  }
  const states = new Map<string, ClusterState>();
  for (const o of objects) {
    const ns = o.object.metadata.namespace;
    if (ns && absent.has(ns))
      states.set(objectKey(o), { state: 'missing', message: `namespace ${ns} does not exist` });
  }
  return states;
}

/**
 * The objects with their `&` images replaced as deploy would pin them: the image stage of a plan
 * (nothing built or pushed; the registry asked for the tag deploy pushes). Without `&` images, the
 * objects as read, and no registry or Docker is contacted.
 */
async function resolveImages(options: StatusOptions, read: ReadResult): Promise<readonly SourcedObject[]> {
  const prepared = await prepareImages(
    read.application,
    read.objects,
    { ...options.cluster?.images, root: options.path, build: false, push: false, plan: true },
    options.logger,
  );
  return prepared.objects;
}

/**
 * The deployment's name as deploy finds it; a deployment recorded from another folder is warned
 * about: what the cluster then holds is that folder's, and a deploy from here would fail.
 */
export async function statusName(
  client: ClusterPort,
  namespace: string,
  options: StatusOptions,
): Promise<string> {
  const { name, parent } = await deploymentIdentity(client, namespace, options, options.logger);
  const conflict = originConflict(name, namespace, parent, options.origin, false);
  if (conflict) options.logger.warn(conflict.message.replace(', so nothing was written', ''));
  return name;
}

/**
 * Plans the objects (server-side dry run, as deploy's plan) and turns the answer into states.
 * Objects the server rejects are `rejected`; the others are planned again without them, so one
 * bad object does not hide the state of the rest.
 */
async function planStates(
  client: ClusterPort,
  discovery: Discovery,
  objects: readonly SourcedObject[],
  concurrency: number,
  health: HealthRules,
): Promise<Map<string, ClusterState>> {
  // `replace: true` only changes how the dry run reports an immutable field: as a planned replace
  // (differs) instead of a failure. Nothing is written either way.
  // The per-deploy annotations (commit, run URL, time) are kept as they are live, as deploy does:
  // they alone never make an object differ.
  const options = {
    fieldManager: FIELD_MANAGER,
    forceConflicts: false,
    replace: true,
    concurrency,
    preserveAnnotations: DEPLOY_ANNOTATION_KEYS,
    keepUnlessChanged: [SPREAD.source],
  };
  try {
    return statesOfPlan(await planObjects(client, discovery, objects, options), [], health);
  } catch (error) {
    if (!(error instanceof ApplyError)) throw error;
    const failed = new Set(error.failures.map((f) => objectKey(f.object)));
    const rest = objects.filter((o) => !failed.has(objectKey(o)));
    const plan = rest.length > 0 ? await planObjects(client, discovery, rest, options) : [];
    const states = statesOfPlan(
      plan,
      error.failures.filter((f) => !f.conflict),
      health,
    );
    // A field another manager changed (kubectl scale, kubectl edit) is a difference, not an error:
    // planned again with the conflict forced, to show what a deploy would set back.
    const conflicted = error.failures.filter((f) => f.conflict).map((f) => f.object);
    if (conflicted.length > 0) {
      const forced = await planObjects(client, discovery, conflicted, { ...options, forceConflicts: true });
      for (const [key, state] of statesOfPlan(forced, [], health))
        states.set(key, {
          ...state,
          message: `another field manager changed fields spread sets; a deploy takes them back only with ${optionRef('force-conflicts')}`,
        });
    }
    return states;
  }
}

/**
 * For each object the server names (generateName), the one the last deploy created: the newest of
 * this deployment's objects of its kind and namespace with its `spread.rsprd.com/generate-name`
 * label. Found, the object is `in sync` (a deploy creates another, and prunes that one), and the
 * one found is not listed among the objects a deploy prunes. Only its existence is compared, not
 * its fields: it is a run, not a state.
 *
 * @returns the candidates shown as the current run (taken out of the prune list).
 */
function latestGenerated(
  objects: readonly SourcedObject[],
  candidates: readonly PruneCandidate[],
  states: Map<string, ClusterState>,
): Set<PruneCandidate> {
  const shown = new Set<PruneCandidate>();
  for (const o of objects.filter((x) => isGenerated(x.object))) {
    const label = o.object.metadata.labels?.[SPREAD.generateName];
    const gk = formatGroupKind(groupKindOf(o.object));
    const runs = candidates
      .filter(
        (c) =>
          formatGroupKind(groupKindOf(c.object)) === gk &&
          c.object.metadata.namespace === o.object.metadata.namespace &&
          c.object.metadata.labels?.[SPREAD.generateName] === label,
      )
      .sort((a, b) =>
        String(b.object.metadata.creationTimestamp ?? '').localeCompare(
          String(a.object.metadata.creationTimestamp ?? ''),
        ),
      );
    const latest = runs[0];
    if (!latest) continue;
    shown.add(latest);
    states.set(objectKey(o), {
      state: 'in sync',
      message: `generateName: each deploy creates a new one; the last deploy's is ${latest.object.metadata.name}`,
    });
  }
  return shown;
}

function sourceOf(text: string | undefined): { file: string; line: number } {
  if (!text) return { file: '', line: 0 };
  const m = /^(.*):(\d+)$/.exec(text);
  return m ? { file: m[1] as string, line: Number(m[2]) } : { file: text, line: 0 };
}
