// The deployment stage: spread's Deployment, the object set of one deploy (the seed's term, not the
// Kubernetes kind), keyed by GroupKind, namespace and name, with namespaces defaulted, spread's labels
// added, duplicates refused and every object given its apply group.
// This file is over 400 lines because it is the whole object set (keys, namespaces, labels, duplicates, apply order).

import {
  formatGroupKind,
  type GroupKind,
  groupKindOf,
  identityProblem,
  type KubeObject,
  nameOf,
  type SourcedObject,
} from '../base/kube-object.js';
import { formatSource, type InputIssue, IssueList, type Source, type Trace } from '../base/source.js';
import { isMapping } from '../decode/decode.js';
import { Application, Controller, type Entity, Pod } from '../entity/entity.js';
import { readPlace, stepOrderIssues } from './phases.js';
import { pruneAnnotationError } from './prune-annotation.js';
import { isBuiltinClusterScoped } from './scope.js';
import { builtinHasStatus, dropServerFields, type ExportedFile, exportedWarning } from './server-fields.js';

/** Options of a Deployment: what spread applies to every object (seed "Deployment"). */
export interface DeploymentOptions {
  /** Namespace given to namespaced objects that name none (the context's namespace, else `default`). */
  readonly namespace: string;
  /**
   * The namespace was given explicitly (`-n`, the input `namespace`): a namespaced object that names
   * another one is an error, as kubectl's "the namespace from the provided object does not match".
   */
  readonly enforceNamespace?: boolean;
  /**
   * Whether a kind is namespaced, from API discovery; undefined when discovery does not know it.
   * Then a CustomResourceDefinition of the same set decides (`spec.scope`), then the built-in
   * table of cluster-scoped kinds (scope.ts); anything else is namespaced.
   */
  readonly isNamespaced?: (gk: GroupKind) => boolean | undefined;
  /**
   * Whether a kind has a `status` subresource, from API discovery; undefined when discovery does not
   * know it. Then a CustomResourceDefinition of the same set decides (a version with
   * `subresources.status`), then the table of built-in kinds (server-fields.ts); otherwise no.
   * Such a kind's `status` is dropped from the objects (the server ignores it).
   */
  readonly hasStatusSubresource?: (gk: GroupKind) => boolean | undefined;
  /** Labels set on every object's metadata, overwriting the object's own of the same key. */
  readonly labels?: Readonly<Record<string, string>>;
  /** Annotations set on every object's metadata, overwriting the object's own of the same key. */
  readonly annotations?: Readonly<Record<string, string>>;
  /** Traces the defaults applied to each object (namespace defaulted or dropped). See {@link Trace}. */
  readonly trace?: Trace;
}

interface KindEntry {
  readonly gk: GroupKind;
  readonly namespaced: boolean;
  /** `namespace/name` (`/name` for cluster-scoped) → object. */
  readonly objects: Map<string, SourcedObject>;
}

/**
 * A set of Kubernetes objects to deploy (seed "Deployment", data type A of the seed's
 * "revisit Deployment"): a map GroupKind → `namespace/name` → object, for fast lookups by kind.
 * Each object is unique by GroupKind, namespace and name. Objects are stored normalised: namespace
 * defaulted, common labels and annotations set. Iteration ({@link objects}) is in apply order and
 * deterministic.
 *
 * Build one with {@link Deployment.fromObjects} or {@link deploymentOf}; combine with {@link merge}.
 */
export class Deployment {
  private readonly kinds = new Map<string, KindEntry>();
  /** Warnings found while building the set (e.g. a namespace on a cluster-scoped object, dropped). */
  readonly warnings: InputIssue[] = [];
  /**
   * The objects that held server-populated fields (uid, resourceVersion, managedFields…, see
   * server-fields.ts), dropped from them: {@link deploymentOf} warns once for all their files.
   */
  readonly exported: ExportedFile[] = [];

  private constructor() {}

  /** An empty set. */
  static empty(): Deployment {
    return new Deployment();
  }

  /**
   * Builds a set from objects: checks each has apiVersion, kind and metadata.name; defaults the
   * namespace of namespaced objects (an object that names its namespace keeps it; a cluster-scoped
   * object's namespace is dropped with a warning, as the API server ignores it); applies the common
   * labels and annotations. Objects are deep-copied, except those in `owned`.
   *
   * @param owned objects made for this set alone (e.g. by an entity's `toObject()`), which it takes
   *   and normalises as they are instead of copying them once more.
   * @throws InputError naming file:line of every invalid object and both sources of every object
   *   defined twice.
   */
  static fromObjects(
    objects: Iterable<SourcedObject>,
    options: DeploymentOptions,
    owned: ReadonlySet<KubeObject> = new Set(),
  ): Deployment {
    const { deployment, issues } = Deployment.build(objects, options, owned);
    issues.throwIfErrors();
    return deployment;
  }

  /**
   * {@link fromObjects} without the throw: the set of the valid objects, and every issue (its
   * warnings in the set's too), so that {@link deploymentOf} can check the valid objects' order
   * beside the invalid ones' errors.
   */
  static build(
    objects: Iterable<SourcedObject>,
    options: DeploymentOptions,
    owned: ReadonlySet<KubeObject> = new Set(),
  ): { deployment: Deployment; issues: IssueList } {
    const list = [...objects];
    const issues = new IssueList();
    const deployment = new Deployment();
    const scope = scopeResolver(list, options);
    const hasStatus = statusResolver(list, options);
    for (const item of list)
      deployment.addNormalised(item, options, scope, hasStatus, issues, owned.has(item.object));
    deployment.warnings.push(...issues.warnings);
    return { deployment, issues };
  }

  /**
   * The union of sets (the seed's Application merges its entities' deployments). Objects keep the
   * normalisation of the set they come from.
   *
   * @throws InputError when the same object (GroupKind, namespace, name) is in two sets.
   */
  static merge(...deployments: readonly Deployment[]): Deployment {
    const issues = new IssueList();
    const merged = new Deployment();
    for (const d of deployments) {
      merged.warnings.push(...d.warnings);
      merged.exported.push(...d.exported);
      for (const entry of d.kinds.values()) {
        for (const [key, item] of entry.objects) merged.insert(entry.gk, entry.namespaced, key, item, issues);
      }
    }
    issues.throwIfErrors();
    return merged;
  }

  /** The number of objects. */
  get size(): number {
    let n = 0;
    for (const entry of this.kinds.values()) n += entry.objects.size;
    return n;
  }

  /** The object of `gk` named `name` in `namespace` (`''` for cluster-scoped), if any. */
  get(gk: GroupKind, namespace: string, name: string): SourcedObject | undefined {
    return this.kinds.get(formatGroupKind(gk))?.objects.get(`${namespace}/${name}`);
  }

  /** The objects of one GroupKind, sorted by namespace then name. */
  ofKind(gk: GroupKind): SourcedObject[] {
    const entry = this.kinds.get(formatGroupKind(gk));
    return entry ? sortedObjects(entry) : [];
  }

  /** The GroupKinds in the set, in apply order. */
  groupKinds(): GroupKind[] {
    return this.sortedKinds().map((e) => e.gk);
  }

  /** Whether objects of `gk` in this set are namespaced; undefined when the set has none. */
  isNamespaced(gk: GroupKind): boolean | undefined {
    return this.kinds.get(formatGroupKind(gk))?.namespaced;
  }

  /**
   * Every object in apply order (DESIGN.md "Order"): Namespaces, CustomResourceDefinitions, other
   * cluster-scoped objects, config (ServiceAccount, Secret, ConfigMap, PersistentVolumeClaim,
   * Role, RoleBinding, LimitRange, ResourceQuota), Services, workloads (Deployment,
   * ReplicationController, StatefulSet, DaemonSet, Job, CronJob, Pod, ReplicaSet), then the rest;
   * ties by group, kind, namespace, name (code-unit order, independent of locale).
   */
  objects(): SourcedObject[] {
    return this.sortedKinds().flatMap(sortedObjects);
  }

  private sortedKinds(): KindEntry[] {
    return [...this.kinds.values()].sort(
      (a, b) =>
        applyRank(a.gk, a.namespaced) - applyRank(b.gk, b.namespaced) ||
        compare(a.gk.group, b.gk.group) ||
        compare(a.gk.kind, b.gk.kind),
    );
  }

  private addNormalised(
    item: SourcedObject,
    options: DeploymentOptions,
    scope: (gk: GroupKind) => boolean,
    hasStatus: (gk: GroupKind) => boolean,
    issues: IssueList,
    owned: boolean,
  ): void {
    const problem = identityProblem(item.object);
    if (problem) {
      issues.error(item.source, problem);
      return;
    }
    const where = readPlace(item.object);
    const what = `${item.object.kind} ${nameOf(item.object)}`;
    const prune = pruneAnnotationError(item.object);
    const errors = prune === undefined ? where.errors : [...where.errors, prune];
    for (const e of errors) issues.error(...annotationIssue(item.source, what, e));
    for (const w of where.warnings) issues.warning(...annotationIssue(item.source, what, w));
    if (errors.length > 0) return;
    if (where.skip) {
      issues.warning(item.source, `${what} is not deployed: ${where.skip}`);
      return;
    }
    const object = owned ? item.object : structuredClone(item.object);
    const gk = groupKindOf(object);
    const dropped = dropServerFields(object, hasStatus(gk));
    if (dropped.length > 0) this.exported.push({ source: item.source, fields: dropped });
    const namespaced = scope(gk);
    const meta = object.metadata;
    if (namespaced && !meta.namespace) {
      // Rebuilt so the namespace reads right after the name, as kubectl writes it.
      const { name, generateName, ...rest } = meta;
      object.metadata = {
        ...(name !== undefined ? { name } : {}),
        ...(generateName !== undefined ? { generateName } : {}),
        namespace: options.namespace,
        ...rest,
      };
      options.trace?.(
        `${formatSource(item.source)}: ${formatGroupKind(gk)} ${nameOf(object)}: namespace defaulted to ${options.namespace}`,
      );
    } else if (namespaced && options.enforceNamespace && meta.namespace !== options.namespace) {
      issues.error(
        item.source,
        `${formatGroupKind(gk)} ${nameOf(object)}: its namespace ${String(meta.namespace)} does not match the namespace ${options.namespace} given explicitly; drop its metadata.namespace, or deploy to ${String(meta.namespace)}`,
      );
      return;
    } else if (!namespaced && meta.namespace !== undefined) {
      issues.warning(
        item.source,
        `${formatGroupKind(gk)} ${nameOf(object)} is cluster-scoped; its metadata.namespace ${String(meta.namespace)} is ignored`,
      );
      delete meta.namespace;
    }
    if (options.labels && Object.keys(options.labels).length > 0) {
      object.metadata.labels = { ...(object.metadata.labels ?? {}), ...options.labels };
    }
    if (options.annotations && Object.keys(options.annotations).length > 0) {
      object.metadata.annotations = { ...(object.metadata.annotations ?? {}), ...options.annotations };
    }
    const key = `${namespaced ? (object.metadata.namespace ?? '') : ''}/${nameOf(object)}`;
    this.insert(gk, namespaced, key, { object, source: item.source }, issues);
  }

  private insert(
    gk: GroupKind,
    namespaced: boolean,
    key: string,
    item: SourcedObject,
    issues: IssueList,
  ): void {
    const id = formatGroupKind(gk);
    let entry = this.kinds.get(id);
    if (!entry) {
      entry = { gk: { group: gk.group, kind: gk.kind }, namespaced, objects: new Map() };
      this.kinds.set(id, entry);
    }
    const first = entry.objects.get(key);
    if (first) {
      const name = key.startsWith('/') ? key.slice(1) : key;
      issues.error(
        item.source,
        `${id} ${name} is defined twice: ${formatSource(first.source)} and ${formatSource(item.source)}`,
      );
      return;
    }
    entry.objects.set(key, item);
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedObjects(entry: KindEntry): SourcedObject[] {
  return [...entry.objects.entries()].sort(([a], [b]) => compare(a, b)).map(([, item]) => item);
}

const CONFIG_KINDS = new Set([
  'ServiceAccount',
  'Secret',
  'ConfigMap',
  'PersistentVolumeClaim',
  'LimitRange',
  'ResourceQuota',
  'Role.rbac.authorization.k8s.io',
  'RoleBinding.rbac.authorization.k8s.io',
]);
const WORKLOAD_KINDS = new Set([
  'Deployment.apps',
  'ReplicationController',
  'StatefulSet.apps',
  'DaemonSet.apps',
  'Job.batch',
  'CronJob.batch',
  'Pod',
  'ReplicaSet.apps',
]);

/**
 * The apply group of a kind: objects of one group are applied together, each group after the one
 * before. Its {@link applyRank}, except that config and Services share a group (DESIGN.md: "then
 * config and Services, then workloads"): neither needs the other, and the API server allocates
 * Service IPs one at a time, so a group of Services alone kept a first deploy waiting with the config
 * objects already written (bench/RESULTS.md, "Deploy, by hand", issue 19 sixth part).
 */
export function applyGroup(gk: GroupKind, namespaced: boolean): number {
  const rank = applyRank(gk, namespaced);
  return rank === SERVICE_RANK ? CONFIG_RANK : rank;
}

const CONFIG_RANK = 3;
const SERVICE_RANK = 4;

/** The apply-order bucket of a kind (see {@link Deployment.objects}). */
export function applyRank(gk: GroupKind, namespaced: boolean): number {
  const id = formatGroupKind(gk);
  if (id === 'Namespace') return 0;
  if (id === 'CustomResourceDefinition.apiextensions.k8s.io') return 1;
  if (!namespaced) return 2;
  if (CONFIG_KINDS.has(id)) return CONFIG_RANK;
  if (id === 'Service') return SERVICE_RANK;
  if (WORKLOAD_KINDS.has(id)) return 5;
  return 6;
}

/** Decides scope: discovery, then CRDs of the set, then the built-in table; namespaced otherwise. */
function scopeResolver(
  objects: readonly SourcedObject[],
  options: DeploymentOptions,
): (gk: GroupKind) => boolean {
  const crdScopes = new Map<string, boolean>();
  for (const { object } of objects) {
    if (!isMapping(object) || object.kind !== 'CustomResourceDefinition') continue;
    const spec = object.spec as { group?: unknown; scope?: unknown; names?: { kind?: unknown } } | undefined;
    if (typeof spec?.group === 'string' && typeof spec.names?.kind === 'string') {
      crdScopes.set(formatGroupKind({ group: spec.group, kind: spec.names.kind }), spec.scope !== 'Cluster');
    }
  }
  return (gk) =>
    options.isNamespaced?.(gk) ?? crdScopes.get(formatGroupKind(gk)) ?? !isBuiltinClusterScoped(gk);
}

/** Decides whether a kind has a status subresource: discovery, then CRDs of the set, then the built-in table. */
function statusResolver(
  objects: readonly SourcedObject[],
  options: DeploymentOptions,
): (gk: GroupKind) => boolean {
  const crdStatus = new Map<string, boolean>();
  for (const { object } of objects) {
    if (!isMapping(object) || object.kind !== 'CustomResourceDefinition') continue;
    const spec = object.spec as
      | { group?: unknown; names?: { kind?: unknown }; versions?: { subresources?: { status?: unknown } }[] }
      | undefined;
    if (typeof spec?.group === 'string' && typeof spec.names?.kind === 'string') {
      const versions = Array.isArray(spec.versions) ? spec.versions : [];
      crdStatus.set(
        formatGroupKind({ group: spec.group, kind: spec.names.kind }),
        versions.some((v) => isMapping(v) && isMapping(v.subresources) && 'status' in v.subresources),
      );
    }
  }
  return (gk) =>
    options.hasStatusSubresource?.(gk) ?? crdStatus.get(formatGroupKind(gk)) ?? builtinHasStatus(gk) ?? false;
}

/**
 * Where a problem with an annotation (`annotation KEY: …`) is reported, and its text: at the overlay
 * that set the annotation (its kustomization's `commonAnnotations`, see Source `annotations`), naming
 * the object's own file, else at the object.
 */
function annotationIssue(source: Source, what: string, message: string): [Source, string] {
  const key = /^annotation ([^:\s]+):/.exec(message)?.[1];
  const set = key === undefined ? undefined : source.annotations?.[key];
  if (!set) return [source, `${what}: ${message}`];
  const overlay = set.line > 0 ? '' : ', set by the overlay';
  return [set, `${what} (${formatSource(source)}${overlay}): ${message}`];
}

/** Adds to `deployment` the one warning for the files of exported manifests it read, if any. */
function warnExported(deployment: Deployment): Deployment {
  const w = exportedWarning(deployment.exported);
  if (w) deployment.warnings.push({ severity: 'warning', source: w.source, message: w.message });
  return deployment;
}

/**
 * The objects an entity deploys with their sources: a controller with its pod template filled in,
 * a Pod of its own, and the objects attached at every level below, in tree order.
 */
export function entityObjects(entity: Entity): SourcedObject[] {
  return entityParts(entity).objects;
}

/** {@link entityObjects}, and which of them were made by `toObject()` for the caller alone. */
function entityParts(entity: Entity): { objects: SourcedObject[]; made: Set<KubeObject> } {
  const objects: SourcedObject[] = [];
  const made = new Set<KubeObject>();
  for (const e of entity.walk()) {
    if (e instanceof Controller || (e instanceof Pod && !e.template)) {
      const object = e.toObject();
      made.add(object);
      objects.push({ object, source: e.source });
    }
    objects.push(...e.objects);
  }
  return { objects, made };
}

/**
 * The Deployment of an entity (seed `Deployable.Deployment()`). For an Application, the merge of
 * its entities' deployments and its own objects, so an object defined in two entities is reported.
 *
 * @throws InputError as {@link Deployment.fromObjects} and {@link Deployment.merge}.
 */
export function deploymentOf(entity: Entity, options: DeploymentOptions): Deployment {
  if (!(entity instanceof Application)) {
    const { objects, made } = entityParts(entity);
    return warnExported(Deployment.fromObjects(objects, options, made));
  }
  // Scope of custom resources is decided by CRDs anywhere in the application, so each part sees them all.
  // Only attached objects can be CRDs (a controller or pod object never is): no toObject() copies here.
  const crds: SourcedObject[] = [];
  for (const e of entity.walk()) {
    for (const o of e.objects) {
      if (isMapping(o.object) && o.object.kind === 'CustomResourceDefinition') crds.push(o);
    }
  }
  const crdScope = scopeResolver(crds, {
    namespace: options.namespace,
    ...(options.isNamespaced ? { isNamespaced: options.isNamespaced } : {}),
  });
  const crdStatus = statusResolver(crds, options);
  const partOptions: DeploymentOptions = {
    ...options,
    isNamespaced: crdScope,
    hasStatusSubresource: crdStatus,
  };
  const issues = new IssueList();
  const parts: Deployment[] = [];
  const collect = (objects: SourcedObject[], made?: Set<KubeObject>) => {
    const part = Deployment.build(objects, partOptions, made);
    parts.push(part.deployment);
    // A part's warnings are in its set, and in the error with its errors when it has any.
    if (part.issues.hasErrors) issues.add(part.issues.issues);
  };
  collect(entity.objects);
  // The controllers' and pods' objects are copies made here: taken as they are, not copied again.
  for (const child of entity.entities) {
    const { objects, made } = entityParts(child);
    collect(objects, made);
  }
  // A Namespace or CRD placed after an object that needs it, with the objects' own errors: all at once.
  issues.add(stepOrderIssues(parts.flatMap((p) => p.objects())));
  issues.throwIfErrors();
  return warnExported(Deployment.merge(...parts));
}
