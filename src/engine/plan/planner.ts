// The plan stage: every object sent as a server-side dry run and compared with the cluster, all failures
// collected in one error before anything is written; also the removed-API check run right after reading.
import pLimit from 'p-limit';
import { isConditionTrue } from '../../base/conditions.js';
import type { KubeObject, ManagedFieldsEntry, SourcedObject } from '../../base/kube-object.js';
import {
  formatGroupKind,
  groupKindOf,
  isCoreNamespace,
  isCrd,
  isGenerated,
  withoutManagedFields,
} from '../../base/kube-object.js';
import { optionRef } from '../../base/option-ref.js';
import { notServedMessage, removedApi } from '../../cluster/api-removals.js';
import { KubeApiError } from '../../cluster/client.js';
import { objectPath, type ResourceInfo } from '../../cluster/discovery.js';
import { diffObjects } from '../../deployment/diff.js';
import { crdKinds } from '../apply/crd.js';
import {
  ApplyError,
  isImmutableFieldError,
  type ObjectFailure,
  objectError,
  sortFailures,
} from '../apply/errors.js';
import { ownsStringData, secretAsStored, secretShapeProblem } from '../apply/secret.js';
import { afterTakeover, createObject, dryRunTakingOver } from '../apply/ssa.js';
import type { KubeApi, KubeDiscovery } from '../kube-api.js';
import { type ApplyOptions, adopts } from '../shared/options.js';
import type { PlannedObject } from '../shared/planned.js';
import { managedBy, sameObject } from './compare.js';
import { objectFingerprint } from './fingerprint.js';
import { keepAnnotations, type ListedMembers, liveReader, namespaceLookup } from './live.js';
import { ownershipProblem } from './ownership.js';
import { foreignFields, takenOverManagers } from './takeover.js';

/**
 * The objects written in a built-in API version that Kubernetes removed (see REMOVED_APIS) and that
 * the server does not serve: one failure each, naming the API, the version that removed it, the
 * server's version and the replacement. Checked right after reading, before any image is built or
 * object written; a removed API the server still serves (re-enabled by its operator) passes.
 */
export async function removedApiFailures(
  discovery: KubeDiscovery,
  objects: readonly SourcedObject[],
): Promise<ObjectFailure[]> {
  const failures: ObjectFailure[] = [];
  for (const o of objects) {
    if (!removedApi(o.object)) continue;
    if (await discovery.resolve(o.object.apiVersion, o.object.kind)) continue;
    failures.push({ object: o, message: notServedMessage(o.object, discovery.serverVersion) });
  }
  return failures;
}

/** A problem spread finds itself (not the server's answer): its message is the failure's as it is. */
class Refusal extends Error {}

/** What planning one object needs: the cluster, the set's facts, and the failures found so far. */
interface PlanContext {
  readonly client: KubeApi;
  readonly discovery: KubeDiscovery;
  readonly options: ApplyOptions;
  readonly resources: ReadonlyMap<SourcedObject, ResourceInfo | undefined>;
  /** Namespaces the set creates. */
  readonly newNamespaces: ReadonlySet<string>;
  /** The CRDs of the set by the GroupKind they define. */
  readonly newKinds: ReturnType<typeof crdKinds>;
  /**
   * The kinds whose CRD this deploy creates or changes: their objects are checked against the new
   * schema, once the CRD is applied (so the CRDs are planned first).
   */
  readonly changingKinds: Set<string>;
  readonly readLive: ReturnType<typeof liveReader>;
  readonly namespaceExists: (ns: string) => Promise<boolean>;
}

/**
 * The plan: every object sent as a server-side dry-run apply (`dryRun=All`, strict field validation),
 * compared with what is in the cluster. All objects are checked; failures are collected and thrown
 * together, so that one run names every problem.
 *
 * Objects whose Namespace or CustomResourceDefinition the same set creates cannot be dry-run yet;
 * they are planned as `create` with `deferred` set, and so are (as `create` or `update`, with `live`)
 * custom resources whose CRD the set changes: the CRDs are planned first, and a dry run now would
 * check them against the old schema. A custom resource in a version its CRD in the set does not
 * serve is a failure. A Secret's `stringData` is planned (and so applied) as `data`, see
 * secretAsStored. An object a recorded fingerprint matches is planned `unchanged` without a dry
 * run (see objectFingerprint). Live objects the ownership policy refuses are failures. With
 * `members`, the LISTs also note the ApplySet's other members (see {@link ListedMembers}).
 *
 * @throws ApplyError listing every object the server rejected (schema, admission, RBAC, immutable
 *   fields, conflicts), or that names a kind the server does not serve.
 */
export async function planObjects(
  client: KubeApi,
  discovery: KubeDiscovery,
  input: readonly SourcedObject[],
  options: ApplyOptions,
  members?: ListedMembers,
): Promise<PlannedObject[]> {
  // What the server stores: a Secret's stringData is sent as data (see secretAsStored).
  const objects = input.map((o) => {
    const object = secretAsStored(o.object);
    return object === o.object ? o : { ...o, object };
  });
  const resources = new Map<SourcedObject, ResourceInfo | undefined>();
  for (const o of objects) resources.set(o, await discovery.resolve(o.object.apiVersion, o.object.kind));
  const context: PlanContext = {
    client,
    discovery,
    options,
    resources,
    newNamespaces: new Set(
      objects.filter((o) => isCoreNamespace(o.object)).map((o) => o.object.metadata.name ?? ''),
    ),
    newKinds: crdKinds(objects),
    changingKinds: new Set<string>(),
    readLive: liveReader(client, objects, resources, options.concurrency, options.signal, members),
    namespaceExists: namespaceLookup(client, options.signal),
  };
  const failures: ObjectFailure[] = [];
  const limit = pLimit(options.concurrency);
  const planOne = (o: SourcedObject) =>
    limit(async () => {
      const planned = await planObject(context, o);
      if ('action' in planned) return planned;
      failures.push(planned);
      return undefined;
    });
  const plannedCrds = new Map<SourcedObject, PlannedObject | undefined>();
  await Promise.all(
    objects.filter((o) => isCrd(o.object)).map(async (o) => plannedCrds.set(o, await planOne(o))),
  );
  for (const [gk, { crd }] of context.newKinds) {
    const p = plannedCrds.get(crd);
    if (p && p.action !== 'unchanged') context.changingKinds.add(gk);
  }
  const planned = await Promise.all(
    objects.map((o) => (plannedCrds.has(o) ? plannedCrds.get(o) : planOne(o))),
  );
  if (failures.length > 0) throw new ApplyError('plan', sortFailures(failures, objects));
  return planned as PlannedObject[];
}

/** One object's plan, or its failure (naming the object as given, which sortFailures orders by). */
async function planObject(c: PlanContext, o: SourcedObject): Promise<PlannedObject | ObjectFailure> {
  const shape = secretShapeProblem(o.object);
  if (shape) return { object: o, message: shape };
  const resource = c.resources.get(o);
  if (!resource) return planUnresolved(c, o);
  if (isGenerated(o.object)) return planGenerated(c, o, resource);
  try {
    return await planExisting(c, o, resource);
  } catch (error) {
    if (error instanceof Refusal) return { object: o, message: error.message };
    return {
      object: o,
      message: objectError(o.object, error, c.options),
      ...(error instanceof KubeApiError && error.code === 409 ? { conflict: true } : {}),
    };
  }
}

/** A kind discovery does not serve: deferred when a CRD of the set defines it (in that version). */
function planUnresolved(c: PlanContext, o: SourcedObject): PlannedObject | ObjectFailure {
  const definer = c.newKinds.get(formatGroupKind(groupKindOf(o.object)));
  const version = o.object.apiVersion.split('/').pop()!;
  if (definer && !definer.served.includes(version))
    return {
      object: o,
      message: `its CustomResourceDefinition ${definer.crd.object.metadata.name} (${definer.crd.source.file}) does not serve version ${version}${definer.served.length ? ` (it serves ${definer.served.join(', ')})` : ''}`,
    };
  if (definer)
    return { ...o, resource: undefined, action: 'create', deferred: 'its CRD is created by this deploy' };
  return { object: o, message: notServedMessage(o.object, c.discovery.serverVersion) };
}

/** Why an object cannot be dry-run before the deploy (its Namespace or CRD comes with it), if so. */
async function deferral(c: PlanContext, o: SourcedObject, resource: ResourceInfo, live: boolean) {
  const ns = o.object.metadata.namespace;
  if (!live && resource.namespaced && ns && c.newNamespaces.has(ns) && !(await c.namespaceExists(ns)))
    return `its Namespace ${ns} is created by this deploy`;
  return undefined;
}

/**
 * An object the server names is created anew by every deploy: no live object to read, own or
 * compare, only a dry-run create.
 */
async function planGenerated(
  c: PlanContext,
  o: SourcedObject,
  resource: ResourceInfo,
): Promise<PlannedObject | ObjectFailure> {
  const deferred = await deferral(c, o, resource, false);
  if (deferred) return { ...o, resource, action: 'create', deferred };
  if (c.changingKinds.has(formatGroupKind(groupKindOf(o.object))))
    return { ...o, resource, action: 'create', deferred: 'its CRD changes in this deploy' };
  try {
    const after = await createObject(c.client, resource, o.object, c.options, true);
    return { ...o, resource, action: 'create', after };
  } catch (error) {
    return { object: o, message: objectError(o.object, error, c.options) };
  }
}

/**
 * An object with a name: read live, checked against the ownership policy, deferred, matched
 * against a recorded fingerprint, or dry-run and compared.
 */
async function planExisting(
  c: PlanContext,
  given: SourcedObject,
  resource: ResourceInfo,
  reads = 0,
): Promise<PlannedObject> {
  const { options } = c;
  const path = objectPath(resource, given.object.metadata.namespace, given.object.metadata.name);
  const live =
    reads === 0
      ? await c.readLive(resource, given, path)
      : await c.client.getOrUndefined<KubeObject>(path, options.signal);
  const refused = await ownershipProblem(c.client, live, options.ownership, options.signal);
  if (refused) throw new Refusal(refused);
  if (live && options.recreate?.(given.object) === 'always')
    return {
      ...given,
      resource,
      action: 'replace',
      live,
      deferred:
        'a hook with the delete policy before-hook-creation: deleted and created again on every deploy',
      rerun: HOOK_RECREATED,
    };
  if (live && failedPhaseJob(given.object, live, options))
    return { ...given, resource, action: 'replace', live, deferred: RERUN_FAILED, rerun: RERUN_FAILED };
  const deferred = await deferral(c, given, resource, live !== undefined);
  if (deferred) return { ...given, resource, action: 'create', deferred };
  // `object` is what the dry run and the fingerprint see; `o` what an update or create writes.
  const declared = keepAnnotations(given.object, live, options.preserveAnnotations ?? []);
  const object = keepAnnotations(declared, live, options.keepUnlessChanged ?? []);
  const o = { ...given, object: declared };
  // Before the fingerprint: a recorded state says nothing about the CRD's new schema.
  if (c.changingKinds.has(formatGroupKind(groupKindOf(o.object))))
    return {
      ...o,
      resource,
      action: live ? 'update' : 'create',
      ...(live ? { live } : {}),
      deferred: 'its CRD changes in this deploy',
    };
  // The state a completed deploy left, untouched since: unchanged, no dry run needed. Not when a
  // manager is to be taken over: the fingerprint leaves other managers' fields out, and the takeover
  // (with the removals it brings) is a change.
  const adopting = adopts(options.ownership);
  const takeover = live
    ? takenOverManagers(live.metadata.managedFields as ManagedFieldsEntry[], options.fieldManager, adopting)
    : [];
  if (live && options.fingerprints?.size && takeover.length === 0) {
    const print = objectFingerprint(object, live, options.fieldManager);
    if (print !== undefined && options.fingerprints.has(print)) {
      // Held until the wait ends (it reads spec and status); the fingerprint was all that reads its
      // managedFields, a large part of a small object.
      const kept = withoutManagedFields(live);
      const foreign = foreignFields(live, options.fieldManager, adopting);
      return {
        ...o,
        object,
        resource,
        action: 'unchanged',
        after: kept,
        live: kept,
        fingerprint: print,
        ...(foreign.length > 0 ? { foreign } : {}),
      };
    }
  }
  const planned = await planDryRun(c, o, object, resource, path, live);
  // A dry run answers the object as stored now, with its resourceVersion; another one than the read's
  // means the object changed since (the LIST is from the plan's start; a controller writing a rollout's
  // status and revision): read it again, or what others wrote would count as this deploy's change.
  const now = planned.after?.metadata.resourceVersion;
  if (live && now !== undefined && now !== live.metadata.resourceVersion && reads < MAX_REREADS)
    return planExisting(c, given, resource, reads + 1);
  return planned;
}

/**
 * Whether `live` is a phase's Job (recreate `immutable`) that failed in an earlier deploy: it runs
 * again, as Helm's and Argo CD's hooks run on every sync; unchanged, it would be left failed, and the
 * wait would fail on the old status. Failed, or FailureTarget (Kubernetes ≥ 1.31: failed, its pods
 * still terminating); a Job still running (an interrupted deploy's) is waited for, not cut short.
 */
function failedPhaseJob(declared: KubeObject, live: KubeObject, options: ApplyOptions): boolean {
  return (
    options.recreate?.(declared) === 'immutable' &&
    (isConditionTrue(live, 'Failed') || isConditionTrue(live, 'FailureTarget'))
  );
}

/** Why a phase's Job is deleted and created again though its template did not change. */
export const RERUN_FAILED = 're-run: failed in an earlier deploy';

/**
 * Why a hook is `replace` on every deploy though nothing changed: its delete policy is
 * before-hook-creation (Helm's and Argo CD's default, Argo CD's `BeforeHookCreation`), so it runs again.
 */
export const HOOK_RECREATED = 'hook: re-created each deploy, before-hook-creation';

/** How many times an object that changed while it was planned is read and dry-run again. */
const MAX_REREADS = 3;

/**
 * The dry run of one object and what it changes: `create`, `update` (with the changed fields and
 * the managers taken over), `unchanged`, or — with `--replace` and an immutable field changing —
 * `replace`.
 */
async function planDryRun(
  c: PlanContext,
  o: SourcedObject,
  object: KubeObject,
  resource: ResourceInfo,
  path: string,
  live: KubeObject | undefined,
): Promise<PlannedObject> {
  const { client, options } = c;
  // Field managers whose fields this deploy takes over (client-side kubectl apply's; when
  // adopting, the kubectl family's): what they set and the directory does not declare goes.
  const takesOver = live
    ? takenOverManagers(
        live.metadata.managedFields as ManagedFieldsEntry[],
        options.fieldManager,
        adopts(options.ownership),
      )
    : [];
  let after: KubeObject;
  try {
    after = await dryRunTakingOver(client, resource, object, takesOver, options);
    if (live && takesOver.length > 0) after = await afterTakeover(client, path, live, after, options);
  } catch (error) {
    const recreate = options.recreate?.(o.object);
    if (live && recreate === 'keep' && isImmutableFieldError(error))
      return { ...o, object: live, resource, action: 'unchanged', after: live, live };
    const replaces = options.replace || (recreate !== undefined && recreate !== 'keep');
    if (!live || !replaces || !isImmutableFieldError(error)) throw error;
    // Never a CRD: deleting it deletes every custom resource of it.
    if (isCrd(o.object))
      throw new Refusal(
        `${objectError(o.object, error)}; ${optionRef('replace')} does not re-create a CustomResourceDefinition, since deleting it deletes every custom resource of it`,
      );
    return {
      ...o,
      resource,
      action: 'replace',
      live,
      deferred: `immutable fields change: ${objectError(o.object, error)}`,
    };
  }
  if (!live) return { ...o, resource, action: 'create', after };
  const changes = diffObjects(live, after);
  const foreign = foreignFields(after, options.fieldManager, adopts(options.ownership));
  const others = foreign.length > 0 ? { foreign } : {};
  // Unchanged only when spread already owns the object's fields: otherwise the apply is what makes
  // spread a manager, so that later removals take effect. A Secret an earlier spread wrote with
  // stringData is applied once more, so that spread owns the data it sets (see secretAsStored).
  const owned = managedBy(live, options.fieldManager) && !ownsStringData(live, options.fieldManager);
  // Unchanged: the object as the dry run saw it, which its recorded fingerprint then matches.
  if (owned && takesOver.length === 0 && changes.length === 0 && sameObject(live, after))
    return { ...o, object, resource, action: 'unchanged', after, live, ...others };
  return {
    ...o,
    resource,
    action: 'update',
    after,
    live,
    changes,
    ...others,
    ...(takesOver.length > 0 ? { takesOver } : {}),
  };
}
