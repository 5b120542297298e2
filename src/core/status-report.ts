// The shapes of `spread status`'s report and the pure functions that build it from a plan: each object's
// state (missing, in sync, differs, rejected), the entity tree, images and the exit code.

import type { KubeObject, SourcedObject } from '../base/kube-object.js';
import { formatGroupKind, groupKindOf, nameOf } from '../base/kube-object.js';
import { formatIssue, formatSource } from '../base/source.js';
import { type FieldManagerEntry, managersOf, ownersOf } from '../cluster/managers.js';
import type { Deployment } from '../deployment/deployment.js';
import { type FieldChange, shownValueAt } from '../deployment/diff.js';
import { readPlace } from '../deployment/phases.js';
import type { ObjectFailure } from '../engine/apply/errors.js';
import { foreignNote } from '../engine/plan/takeover.js';
import { FIELD_MANAGER } from '../engine/shared/options.js';
import type { ForeignFields, PlannedObject } from '../engine/shared/planned.js';
import { rolloutState, ruleOf } from '../engine/status/registry.js';
import {
  type Application,
  type AttachedObject,
  Container,
  Controller,
  type Entity,
  type EntityType,
  Image,
  type InputKind,
  type NotDeployedFile,
  Pod,
  type RenderedFolder,
} from '../entity/entity.js';
import type { HealthRules } from '../project/health.js';

/**
 * Where an object of the directory stands in the cluster, decided by a server-side dry-run apply
 * with field manager `spread` of the object as deploy would apply it (ApplySet labels and template
 * hash included):
 * - `missing`: the object does not exist (or its Namespace does not);
 * - `in sync`: applying it would change nothing; or a Job that deletes itself once finished
 *   (`ttlSecondsAfterFinished`) is gone after the current revision ran it as the directory declares it;
 *   or it is a run (a hook, a phase Job, status-runs.ts) or not deployed, and not compared;
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
  /**
   * For `differs`: the live object's other field managers (its managedFields entries but spread's
   * own Apply entry): who changed it, how and when, and the fields each owns.
   */
  readonly managers?: readonly FieldManagerEntry[];
  /** For `differs`: fields other managers set that the directory does not declare (a deploy leaves them). */
  readonly foreign?: readonly ForeignStatus[];
  /** For `differs`: per changed field, which of `managers` own it (from managedFields, items by key). */
  readonly owners?: readonly FieldOwners[];
  /** The input that produced it, for an object of the tree; absent: the spread convention. */
  readonly input?: InputKind;
  /** Its health by its GroupKind's health rule (spread.yaml's, or one spread ships), when it has one and exists. */
  readonly health?: ObjectHealth;
}

/** An object's health by its GroupKind's rule: kstatus's word and the rule's message. */
export interface ObjectHealth {
  readonly status: 'Current' | 'InProgress' | 'Failed';
  readonly message: string;
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
  /** For a controller or a Pod of its own: the input that produced it; absent: the spread convention. */
  readonly input?: InputKind;
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
  /** YAML and JSON files of the directory that hold no Kubernetes object; absent when there are none. */
  readonly notDeployed?: readonly NotDeployedFile[];
  /** Folders rendered by kustomize or Helm, with the tool; absent when there are none. */
  readonly rendered?: readonly RenderedFolder[];
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
  readonly managers?: readonly FieldManagerEntry[];
  readonly foreign?: readonly ForeignStatus[];
  readonly owners?: readonly FieldOwners[];
  readonly health?: ObjectHealth;
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
 * An existing object whose GroupKind has a health rule (`health`, else one spread ships) has its
 * health by that rule. Pure.
 */
export function statesOfPlan(
  plan: readonly PlannedObject[],
  failures: readonly ObjectFailure[] = [],
  health?: HealthRules,
): Map<string, ClusterState> {
  const out = new Map<string, ClusterState>();
  const healthOf = new Map<string, ObjectHealth>();
  for (const p of plan) {
    const key = objectKey(p);
    const judged = p.live && ruleOf(formatGroupKind(groupKindOf(p.live)), health) ? p.live : undefined;
    if (judged) {
      const state = rolloutState(judged, { health });
      healthOf.set(key, { status: state.status, message: state.message });
    }
    if (p.action === 'create')
      out.set(key, { state: 'missing', ...(p.deferred ? { message: p.deferred } : {}) });
    else if (p.action === 'unchanged' && p.foreign)
      out.set(key, { state: 'differs', message: foreignNote(p.foreign), ...whoChanged(p) });
    else if (p.action === 'unchanged') out.set(key, { state: 'in sync' });
    else
      out.set(key, {
        state: 'differs',
        ...(p.changes ? { changes: p.changes } : {}),
        ...(p.deferred ? { message: p.deferred } : {}),
        ...whoChanged(p),
      });
  }
  for (const f of failures) out.set(objectKey(f.object), { state: 'rejected', message: f.message });
  for (const [key, h] of healthOf) {
    const state = out.get(key);
    if (state) out.set(key, { ...state, health: h });
  }
  return out;
}

/** The live object's other field managers, who owns each change, and the foreign fields with their values. */
function whoChanged(p: PlannedObject): Pick<ClusterState, 'managers' | 'foreign' | 'owners'> {
  const { live } = p;
  const managers = live ? managersOf(live, FIELD_MANAGER) : [];
  const owners = (p.changes ?? []).map((c): FieldOwners => {
    const o = ownersOf(c.path, managers, live);
    return {
      path: c.path,
      managers: o.owners.map((m) => managers.indexOf(m)),
      ...(o.list ? { list: o.list } : {}),
    };
  });
  const foreign = (p.foreign ?? []).map((f) =>
    live ? { ...f, values: f.fields.map((path) => shownValueAt(live, path) ?? null) } : f,
  );
  return {
    ...(managers.length > 0 ? { managers } : {}),
    ...(foreign.length > 0 ? { foreign } : {}),
    ...(managers.length > 0 && owners.length > 0 ? { owners } : {}),
  };
}

/** Who owns a changed field: indices into the object's `managers`, and the list when none owns the item. */
export interface FieldOwners {
  readonly path: string;
  readonly managers: readonly number[];
  /** Set when no manager owns the changed list item by its key: the list whose owners are given. */
  readonly list?: string;
}

/** Fields other managers set that the directory does not declare, with their live values when known. */
export interface ForeignStatus extends ForeignFields {
  /** Per field of `fields`, its live value as short JSON (Secret values redacted); null: not found. */
  readonly values?: readonly (string | null)[];
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
  const { root, all } = entityTree(application, deployment, options.states);
  const count = (s: ObjectState) => all.filter((o) => o.state === s).length;
  return {
    deployment: application.name,
    namespace: options.namespace,
    ...(options.context !== undefined ? { context: options.context } : {}),
    root,
    ...(options.notInDirectory ? { notInDirectory: options.notInDirectory.map(listed) } : {}),
    ...(options.kept ? { kept: options.kept.map((o) => ({ ...listed(o), message: o.reason })) } : {}),
    counts: {
      objects: all.length,
      compared: options.states !== undefined,
      missing: count('missing'),
      inSync: count('in sync'),
      differs: count('differs'),
      rejected: count('rejected'),
    },
    warnings: [...application.warnings, ...deployment.warnings].map(formatIssue),
    ...(application.notDeployed.length > 0 ? { notDeployed: application.notDeployed } : {}),
    ...(application.rendered.length > 0 ? { rendered: application.rendered } : {}),
  };
}

/**
 * The entity tree of `application` as statuses, each object as `deployment` has it (namespaced) with
 * its state from `states`, and every object status of the tree in `all`.
 */
function entityTree(
  application: Application,
  deployment: Deployment,
  states: ReadonlyMap<string, ClusterState> | undefined,
): { root: EntityStatus; all: ObjectStatus[] } {
  const normalised = new Map<string, SourcedObject>();
  const rank = new Map<string, number>();
  deployment.objects().forEach((o, i) => {
    const key = objectKey(o);
    normalised.set(key, o);
    rank.set(key, i);
  });
  const rankOf = (o: SourcedObject) => rank.get(objectKey(o)) ?? Number.MAX_SAFE_INTEGER;
  const all: ObjectStatus[] = [];
  const objectStatus = (o: AttachedObject, input = o.input): ObjectStatus => {
    const key = objectKey(o);
    // Without a state, `missing`, unless the deployment does not deploy it (a Helm test hook, Skip).
    const skip = states?.has(key) === false ? readPlace(o.object).skip : undefined;
    const absent: ClusterState = skip
      ? { state: 'in sync', message: `not deployed, not compared: ${skip}` }
      : { state: 'missing' };
    const cluster = states ? (states.get(key) ?? absent) : undefined;
    const status = objectStatusOf(normalised.get(key)?.object ?? o.object, o, cluster);
    const withInput = input && input !== 'convention' ? { ...status, input } : status;
    all.push(withInput);
    return withInput;
  };
  const node = (e: Entity): EntityStatus => {
    let object: ObjectStatus | undefined;
    if (e instanceof Controller) object = objectStatus({ object: e.toObject(), source: e.source });
    else if (e instanceof Pod && !e.template)
      object = objectStatus({ object: e.toObject(), source: e.source });
    // Attached objects are listed in apply order, as the Deployment iterates them.
    const objects = [...e.objects].sort((a, b) => rankOf(a) - rankOf(b)).map((o) => objectStatus(o));
    const input = object && e.input !== 'convention' ? { input: e.input } : {};
    return {
      ...entityFields(e),
      ...input,
      ...(object ? { object } : {}),
      objects,
      children: e.children().map(node),
    };
  };
  return { root: node(application), all };
}

/** An object's status: its identity, source and, when compared, its cluster state. */
export function objectStatusOf(
  object: KubeObject,
  o: SourcedObject,
  cluster: ClusterState | undefined,
): ObjectStatus {
  return {
    ...identity(object),
    source: formatSource(o.source),
    ...(cluster
      ? {
          state: cluster.state,
          ...(cluster.changes && cluster.changes.length > 0 ? { changes: cluster.changes } : {}),
          ...(cluster.message ? { message: cluster.message } : {}),
          ...(cluster.managers ? { managers: cluster.managers } : {}),
          ...(cluster.foreign ? { foreign: cluster.foreign } : {}),
          ...(cluster.owners ? { owners: cluster.owners } : {}),
          ...(cluster.health ? { health: cluster.health } : {}),
        }
      : {}),
  };
}

/** What an entity node says of the entity itself: type, name, source, and its kind's marks. */
function entityFields(e: Entity): Omit<EntityStatus, 'object' | 'objects' | 'children'> {
  return {
    type: e.type,
    name: e.name,
    source: formatSource(e.source),
    ...(e instanceof Pod && e.template ? { template: true as const } : {}),
    ...(e instanceof Container && e.init ? { init: true as const } : {}),
    ...(e instanceof Image
      ? { image: { reference: e.raw, ...(e.build ? { build: { context: e.build.contextDir } } : {}) } }
      : {}),
  };
}

/** An object listed outside the tree (to prune, or kept): identity and source. */
export function listed(o: SourcedObject): ObjectStatus {
  return { ...identity(o.object), source: formatSource(o.source) };
}

function identity(object: KubeObject): Pick<ObjectStatus, 'apiVersion' | 'kind' | 'namespace' | 'name'> {
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}),
    name: nameOf(object),
  };
}
