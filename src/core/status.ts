import {
  formatGroupKind,
  groupKindOf,
  isGenerated,
  type KubeObject,
  nameOf,
  type SourcedObject,
} from '../base/kube-object.js';
import { DEPLOY_ANNOTATION_KEYS, SPREAD } from '../base/labels.js';
import { type Logger, traceRequests } from '../base/logger.js';
import { optionRef } from '../base/option-ref.js';
import { formatIssue, formatSource } from '../base/source.js';
import { KubeClient } from '../cluster/client.js';
import { Discovery } from '../cluster/discovery.js';
import { type KubeconfigSource, loadKubeconfig } from '../cluster/kubeconfig.js';
import type { Deployment } from '../deployment/deployment.js';
import type { FieldChange } from '../deployment/diff.js';
import { ApplyError, type ObjectFailure } from '../engine/apply/errors.js';
import {
  applySetFor,
  findPruneCandidates,
  labelForApplySet,
  type PruneCandidate,
  readParent,
} from '../engine/inventory/applyset.js';
import { splitPrune } from '../engine/inventory/prune.js';
import type { PlannedObject } from '../engine/plan/options.js';
import { planObjects } from '../engine/plan/planner.js';
import { withTemplateHash } from '../engine/wait/rc-roll.js';
import {
  type Application,
  Container,
  Controller,
  type Entity,
  type EntityType,
  Image,
  Pod,
} from '../entity/entity.js';
import { FIELD_MANAGER } from './deploy.js';
import { readDeployment } from './read.js';

/**
 * Where an object of the directory stands in the cluster, decided by a server-side dry-run apply
 * with field manager `spread` of the object as deploy would apply it (ApplySet labels and template
 * hash included):
 * - `missing`: the object does not exist (or its Namespace does not);
 * - `in sync`: applying it would change nothing;
 * - `differs`: applying it would change the fields listed in `changes`;
 * - `rejected`: the server refused the dry run (invalid object, conflict with another field
 *   manager, unknown kind); `message` says why, and deploy would fail the same way.
 */
export type ObjectState = 'missing' | 'in sync' | 'differs' | 'rejected';

/** One object of the set, as `spread status` reports it. Names and places only, never data. */
export interface ObjectStatus {
  readonly apiVersion: string;
  readonly kind: string;
  /** Absent for cluster-scoped objects. */
  readonly namespace?: string;
  readonly name: string;
  /** `file:line` relative to the directory. */
  readonly source: string;
  /** Present only when compared with a cluster. */
  readonly state?: ObjectState;
  /** For `differs`: the fields a deploy would change (Secret values redacted). */
  readonly changes?: readonly FieldChange[];
  /** For `rejected`: the server's reason; for `missing`/`differs`, a note (e.g. why no dry run ran). */
  readonly message?: string;
}

/** What `spread status` knows of an image: the reference as written and whether spread builds it. */
export interface ImageStatus {
  /** The `image` field as written, `&` included. */
  readonly reference: string;
  /** Set for an image marked with `&`: the build context, relative to the directory (`.` for the root). */
  readonly build?: { readonly context: string };
}

/** One node of the entity tree with its source, attached objects and children. */
export interface EntityStatus {
  readonly type: EntityType;
  readonly name: string;
  /** `file:line` relative to the directory; a directory name for a default Deployment, `.` for the Application. */
  readonly source: string;
  /** True for a controller's pod template (not an object of its own). */
  readonly template?: true;
  /** True for an init container. */
  readonly init?: true;
  /** For a controller or a Pod of its own: the object it deploys as. */
  readonly object?: ObjectStatus;
  /** For an Image. */
  readonly image?: ImageStatus;
  /** The objects attached at this entity's level (`.k2e/` of its directory), in apply order. */
  readonly objects: readonly ObjectStatus[];
  readonly children: readonly EntityStatus[];
}

/** Counts of the objects of a status by state; `compared` false when no cluster was asked. */
export interface StatusCounts {
  readonly objects: number;
  readonly compared: boolean;
  readonly missing: number;
  readonly inSync: number;
  readonly differs: number;
  readonly rejected: number;
}

/**
 * What `spread status` reports (`--output json` prints it as is). Fields are only ever added,
 * never renamed.
 */
export interface StatusReport {
  /** The deployment's (Application's) name. */
  readonly deployment: string;
  /** The namespace objects that name none are given. */
  readonly namespace: string;
  /** The kubeconfig context compared with; absent when no cluster was asked. */
  readonly context?: string;
  readonly root: EntityStatus;
  /**
   * Objects in the cluster that carry this deployment's ApplySet label but are no longer in the
   * directory: a deploy prunes them. Absent when no cluster was asked.
   */
  readonly notInDirectory?: readonly ObjectStatus[];
  /**
   * Objects in the cluster the directory dropped that a deploy keeps (a CRD, a Namespace still
   * holding objects of the deployment), each with the reason in `message`. Absent when no cluster was asked.
   */
  readonly kept?: readonly ObjectStatus[];
  readonly counts: StatusCounts;
  /** Warnings of the input, `file:line: message`. */
  readonly warnings: readonly string[];
}

/**
 * The exit code of `spread status`, as `diff` and `kapp diff --exit-status` have it: 0 when the
 * cluster was not asked or matches the directory, 2 when objects are missing or differ or a deploy
 * would prune some, 1 when the server rejects an object (an error outranks a difference).
 */
export function statusExitCode(report: Pick<StatusReport, 'counts' | 'notInDirectory'>): 0 | 1 | 2 {
  const c = report.counts;
  if (!c.compared) return 0;
  if (c.rejected > 0) return 1;
  return c.missing > 0 || c.differs > 0 || (report.notInDirectory?.length ?? 0) > 0 ? 2 : 0;
}

/** The cluster state of one object, keyed by {@link objectKey}. */
export interface ClusterState {
  readonly state: ObjectState;
  readonly changes?: readonly FieldChange[];
  readonly message?: string;
}

/**
 * The key that ties an object of the entity tree to the same object in the Deployment (which has
 * its namespace defaulted) and in the plan: GroupKind, name and source. Unique within a set, since
 * an object defined twice is an input error.
 */
export function objectKey(o: SourcedObject): string {
  return `${formatGroupKind(groupKindOf(o.object))}|${nameOf(o.object)}|${formatSource(o.source)}`;
}

/**
 * The state of each planned object: `create` → missing, `unchanged` → in sync, `update` and
 * `replace` → differs (with the changed fields); each failure → rejected with the server's message.
 * Pure.
 */
export function statesOfPlan(
  plan: readonly PlannedObject[],
  failures: readonly ObjectFailure[] = [],
): Map<string, ClusterState> {
  const out = new Map<string, ClusterState>();
  for (const p of plan) {
    const key = objectKey(p);
    if (p.action === 'create')
      out.set(key, { state: 'missing', ...(p.deferred ? { message: p.deferred } : {}) });
    else if (p.action === 'unchanged') out.set(key, { state: 'in sync' });
    else
      out.set(key, {
        state: 'differs',
        ...(p.changes ? { changes: p.changes } : {}),
        ...(p.deferred ? { message: p.deferred } : {}),
      });
  }
  for (const f of failures) out.set(objectKey(f.object), { state: 'rejected', message: f.message });
  return out;
}

/**
 * The status of an Application without I/O: its entity tree with sources, attached objects
 * (namespaced as `deployment` has them) and images, and — when `states` is given — each object's
 * state in the cluster (an object without an entry is reported `missing`).
 */
export function statusOf(
  application: Application,
  deployment: Deployment,
  options: {
    readonly namespace: string;
    readonly context?: string;
    readonly states?: ReadonlyMap<string, ClusterState>;
    readonly notInDirectory?: readonly SourcedObject[];
    readonly kept?: readonly (SourcedObject & { readonly reason: string })[];
  },
): StatusReport {
  const normalised = new Map<string, SourcedObject>();
  const rank = new Map<string, number>();
  deployment.objects().forEach((o, i) => {
    const key = objectKey(o);
    normalised.set(key, o);
    rank.set(key, i);
  });
  const rankOf = (o: SourcedObject) => rank.get(objectKey(o)) ?? Number.MAX_SAFE_INTEGER;
  const { states } = options;
  const all: ObjectStatus[] = [];
  const objectStatus = (o: SourcedObject): ObjectStatus => {
    const key = objectKey(o);
    const object = normalised.get(key)?.object ?? o.object;
    const cluster = states ? (states.get(key) ?? { state: 'missing' as const }) : undefined;
    const status: ObjectStatus = {
      ...identity(object),
      source: formatSource(o.source),
      ...(cluster
        ? {
            state: cluster.state,
            ...(cluster.changes && cluster.changes.length > 0 ? { changes: cluster.changes } : {}),
            ...(cluster.message ? { message: cluster.message } : {}),
          }
        : {}),
    };
    all.push(status);
    return status;
  };
  const node = (e: Entity): EntityStatus => {
    let object: ObjectStatus | undefined;
    if (e instanceof Controller) object = objectStatus({ object: e.toObject(), source: e.source });
    else if (e instanceof Pod && !e.template)
      object = objectStatus({ object: e.toObject(), source: e.source });
    // Attached objects are listed in apply order, as the Deployment iterates them.
    const objects = [...e.objects].sort((a, b) => rankOf(a) - rankOf(b)).map((o) => objectStatus(o));
    return {
      type: e.type,
      name: e.name,
      source: formatSource(e.source),
      ...(e instanceof Pod && e.template ? { template: true as const } : {}),
      ...(e instanceof Container && e.init ? { init: true as const } : {}),
      ...(object ? { object } : {}),
      ...(e instanceof Image
        ? {
            image: {
              reference: e.raw,
              ...(e.build ? { build: { context: e.build.contextDir } } : {}),
            },
          }
        : {}),
      objects,
      children: e.children().map(node),
    };
  };
  const root = node(application);
  const count = (s: ObjectState) => all.filter((o) => o.state === s).length;
  return {
    deployment: application.name,
    namespace: options.namespace,
    ...(options.context !== undefined ? { context: options.context } : {}),
    root,
    ...(options.notInDirectory
      ? {
          notInDirectory: options.notInDirectory.map((o) => ({
            ...identity(o.object),
            source: formatSource(o.source),
          })),
        }
      : {}),
    ...(options.kept
      ? {
          kept: options.kept.map((o) => ({
            ...identity(o.object),
            source: formatSource(o.source),
            message: o.reason,
          })),
        }
      : {}),
    counts: {
      objects: all.length,
      compared: states !== undefined,
      missing: count('missing'),
      inSync: count('in sync'),
      differs: count('differs'),
      rejected: count('rejected'),
    },
    warnings: [...application.warnings, ...deployment.warnings].map(formatIssue),
  };
}

function identity(object: KubeObject): Pick<ObjectStatus, 'apiVersion' | 'kind' | 'namespace' | 'name'> {
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}),
    name: nameOf(object),
  };
}

/** Options of {@link status}. */
export interface StatusOptions {
  /** The directory (DirectoryInput root). */
  readonly path: string;
  /** The deployment's name; the directory's name when absent. */
  readonly name?: string | undefined;
  /**
   * Namespace for objects that name none: with a cluster, the context's namespace when absent;
   * without one, `default`.
   */
  readonly namespace?: string | undefined;
  /** Compare with a cluster: the kubeconfig and context to use. Absent: no cluster is touched. */
  readonly cluster?: {
    readonly kubeconfig: KubeconfigSource;
    /** The context; the kubeconfig's current context when absent. */
    readonly context?: string | undefined;
    /** Annotations deploy would put on every object (as DeployOptions.annotations), so they compare equal. */
    readonly annotations?: Readonly<Record<string, string>>;
    /** Requests in flight at once. Default 16. */
    readonly concurrency?: number;
  };
  readonly logger: Logger;
}

/**
 * `spread status`: reads the directory (input → entity → deployment) and reports its entity tree;
 * with `cluster`, also each object's {@link ObjectState}, deciding "in sync" with a server-side
 * dry-run apply of the objects labelled exactly as deploy labels them (ApplySet part-of label,
 * managed-by label, source annotation, ReplicationController template hash), and lists the objects
 * a deploy would prune. Writes nothing to the cluster.
 *
 * @throws InputError for a bad input, KubeconfigError, KubeApiError when the cluster cannot be read.
 */
export async function status(options: StatusOptions): Promise<StatusReport> {
  const { logger } = options;
  if (!options.cluster) {
    const namespace = options.namespace || 'default';
    const read = await readDeployment(options.path, { namespace, name: options.name, logger });
    return statusOf(read.application, read.deployment, { namespace });
  }
  const resolved = loadKubeconfig(options.cluster.kubeconfig, options.cluster.context);
  const namespace = options.namespace || resolved.namespace;
  const client = new KubeClient(resolved.kubeConfig, { onRequest: traceRequests(logger) });
  try {
    const discovery = await Discovery.load(client);
    const read = await readDeployment(options.path, {
      namespace,
      enforceNamespace: Boolean(options.namespace),
      name: options.name,
      isNamespaced: (gk) => discovery.isNamespaced(gk),
      hasStatusSubresource: (gk) => discovery.hasStatusSubresource(gk),
      logger,
    });
    const set = applySetFor(read.name, namespace);
    const objects = read.objects.map((o) => ({
      ...o,
      object: withTemplateHash(labelForApplySet(o, set, options.cluster?.annotations)),
    }));
    // Objects in a Namespace that does not exist (and that the set does not create) are missing;
    // the dry run would only fail on them.
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
    const toPlan = objects.filter((o) => !states.has(objectKey(o)));
    for (const [k, v] of await planStates(client, discovery, toPlan, options.cluster.concurrency ?? 16))
      states.set(k, v);
    const previous = await readParent(client, set);
    const extra: PruneCandidate[] = previous.exists
      ? await findPruneCandidates(client, discovery, set, previous, objects, {
          onForbidden: (what) =>
            options.logger?.warn(
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
    );
    const sourced = (c: PruneCandidate) => ({
      object: c.object,
      source: sourceOf(c.object.metadata.annotations?.[SPREAD.source]),
    });
    return statusOf(read.application, read.deployment, {
      namespace,
      context: resolved.context,
      states,
      notInDirectory: decision.pruned.map(sourced),
      kept: decision.kept.map((k) => ({ ...sourced(k.candidate), reason: k.reason })),
    });
  } finally {
    client.close();
  }
}

/**
 * Plans the objects (server-side dry run, as deploy's plan) and turns the answer into states.
 * Objects the server rejects are `rejected`; the others are planned again without them, so one
 * bad object does not hide the state of the rest.
 */
async function planStates(
  client: KubeClient,
  discovery: Discovery,
  objects: readonly SourcedObject[],
  concurrency: number,
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
    return statesOfPlan(await planObjects(client, discovery, objects, options));
  } catch (error) {
    if (!(error instanceof ApplyError)) throw error;
    const failed = new Set(error.failures.map((f) => objectKey(f.object)));
    const rest = objects.filter((o) => !failed.has(objectKey(o)));
    const plan = rest.length > 0 ? await planObjects(client, discovery, rest, options) : [];
    const states = statesOfPlan(
      plan,
      error.failures.filter((f) => !f.conflict),
    );
    // A field another manager changed (kubectl scale, kubectl edit) is a difference, not an error:
    // planned again with the conflict forced, to show what a deploy would set back.
    const conflicted = error.failures.filter((f) => f.conflict).map((f) => f.object);
    if (conflicted.length > 0) {
      const forced = await planObjects(client, discovery, conflicted, { ...options, forceConflicts: true });
      for (const [key, state] of statesOfPlan(forced))
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
