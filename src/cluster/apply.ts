import pLimit from 'p-limit';
import { conditionsOf, isCrdEstablished } from '../base/conditions.js';
import { stableJson } from '../base/json.js';
import type { KubeObject, ManagedFieldsEntry, SourcedObject } from '../base/kube-object.js';
import {
  formatGroupKind,
  formatObject,
  groupKindOf,
  isCoreNamespace,
  isCoreSecret,
  isCrd,
  isGenerated,
} from '../base/kube-object.js';
import { APPLYSET, SPREAD } from '../base/labels.js';
import { optionRef } from '../base/option-ref.js';
import { formatSource } from '../base/source.js';
import { diffObjects, type FieldChange } from '../deployment/diff.js';
import { notServedMessage, removedApi } from './api-removals.js';
import { isUnavailable, KubeApiError, type KubeClient } from './client.js';
import { apiVersionOf, type Discovery, objectPath, type ResourceInfo } from './discovery.js';
import { type FieldsV1, removedFields, withoutFields } from './fieldset.js';
import { applyEntries, objectFingerprint } from './fingerprint.js';
import { isTakenOver, takenOverManagers, takeOverFields } from './takeover.js';

/** What applying did to one object. `pruned` and `kept` (a prune candidate left in place) are added by prune. */
export type ObjectAction = 'created' | 'configured' | 'unchanged' | 'pruned' | 'kept';

/**
 * What the plan expects applying to do to one object. `replace`: an immutable field changes and
 * `--replace` was given, so the object is deleted and created again. `keep`: a prune candidate that
 * stays (a Namespace still in use, a CRD), with the reason in the report's `note`.
 */
export type PlannedAction = 'create' | 'update' | 'unchanged' | 'prune' | 'replace' | 'keep';

/** One object of the set with what the server said about it. */
export interface AppliedObject extends SourcedObject {
  readonly resource: ResourceInfo;
  readonly action: ObjectAction;
  /** The object was deleted and created again (`--replace`, immutable fields changed). */
  readonly replaced?: boolean;
  /** The object as the API server stored it after the apply. */
  readonly live: KubeObject;
}

/** One object the plan looked at. */
export interface PlannedObject extends SourcedObject {
  readonly resource: ResourceInfo | undefined;
  readonly action: PlannedAction;
  /** The object as it is in the cluster now; absent for `create`. */
  readonly live?: KubeObject;
  /** The object as the dry run says it would be; absent when the dry run could not run yet (see `deferred`). */
  readonly after?: KubeObject;
  /**
   * Why the object could not be checked by a dry run before the deploy: its Namespace or its
   * CustomResourceDefinition is created by the same deploy. It is checked when it is applied.
   */
  readonly deferred?: string;
  /** For `update`: the fields that change (Secret values redacted). */
  readonly changes?: readonly FieldChange[];
  /**
   * For `update`: the field managers whose fields spread takes over (see takeover.ts); the fields
   * they set that the directory does not declare are removed, and `after` and `changes` show it.
   */
  readonly takesOver?: readonly string[];
  /**
   * For `unchanged` found by a recorded fingerprint: that fingerprint (of this object and `live`), so
   * that recording the deploy's fingerprints does not compute it again.
   */
  readonly fingerprint?: string;
}

/** Options of {@link planObjects} and {@link applyObjects}. */
export interface ApplyOptions {
  /** The server-side apply field manager; spread's is `spread`. */
  readonly fieldManager: string;
  /** Take fields over from other field managers instead of failing on conflicts (`--force-conflicts`). */
  readonly forceConflicts: boolean;
  /** Requests in flight at once within one ordering group. */
  readonly concurrency: number;
  /** Delete and re-create objects whose immutable fields change, instead of failing (`--replace`). */
  readonly replace?: boolean;
  /**
   * Annotation keys whose live values are kept in the planned object (spread's per-deploy
   * annotations: commit, run URL, time), so that they alone never make an object differ.
   */
  readonly preserveAnnotations?: readonly string[];
  /**
   * Annotation keys whose live values are kept while nothing else about the object changes, and
   * written anew with any other change (spread's source annotation: a moved or renamed file alone
   * changes no object, and the plan does not show it).
   */
  readonly keepUnlessChanged?: readonly string[];
  /**
   * The ApplySet id of this deployment: an object labelled part of another ApplySet is refused in
   * the plan (as Helm refuses another release's objects), unless `adopt`.
   */
  readonly applySetId?: string;
  /**
   * Take over objects that belong to another deployment, or that exist without an ApplySet label
   * (made by hand or another tool) (`--adopt`). Without it, both are plan failures.
   */
  readonly adopt?: boolean;
  /**
   * Called for each `Warning` the API server sends about an object in the dry run (deprecated API
   * versions, for example), so the front end can show it on the object's file.
   */
  readonly onWarning?: (object: KubeObject, warning: string) => void;
  /**
   * Fingerprints of the states the last completed deploy left (the ApplySet parent's): an object whose
   * live state has one of them is planned `unchanged` without a dry run (see {@link objectFingerprint}).
   */
  readonly fingerprints?: ReadonlySet<string>;
  /** Called after each apply group completed (applyObjects only). */
  readonly afterGroup?: (group: number) => Promise<void>;
  readonly signal?: AbortSignal;
}

/** A problem with one object, as the API server (or discovery) reported it. */
export interface ObjectFailure {
  readonly object: SourcedObject;
  readonly message: string;
  /** The server refused the apply with 409 Conflict: another field manager owns fields it sets. */
  readonly conflict?: boolean;
}

/**
 * Some objects could not be planned or applied. Each failure names the object and its file and
 * line; after a failed apply, the message also says which objects were applied and which were not.
 */
export class ApplyError extends Error {
  readonly failures: readonly ObjectFailure[];
  /**
   * The failures that are only an interrupt (Ctrl-C, a cancelled job) stopping the request: reported
   * as one line, not one per object as if each had failed.
   */
  readonly interrupted: readonly ObjectFailure[];
  /** Objects already applied before the failure (empty for a failed plan). */
  readonly applied: readonly AppliedObject[];
  /** Objects not attempted: later apply groups, or the rest of the group once the server became unavailable. */
  readonly notApplied: readonly SourcedObject[];
  constructor(
    phase: 'plan' | 'apply',
    failures: readonly ObjectFailure[],
    applied: readonly AppliedObject[] = [],
    notApplied: readonly SourcedObject[] = [],
  ) {
    const interrupted: ObjectFailure[] = [];
    const real: ObjectFailure[] = [];
    for (const f of failures) (f.message.startsWith('interrupted by ') ? interrupted : real).push(f);
    const lines = groupedFailureLines(real);
    if (interrupted.length > 0)
      lines.push(
        `  ${interrupted[0]!.message}: ${interrupted.length} object(s) not finished${phase === 'apply' ? ' (a request in flight may have reached the server)' : ''}`,
      );
    const head =
      real.length === 0 && interrupted.length > 0
        ? phase === 'plan'
          ? `${interrupted[0]!.message} during the plan; nothing was written`
          : `${interrupted[0]!.message}: ${applied.length} applied, ${interrupted.length + notApplied.length} not applied; nothing was pruned`
        : phase === 'plan'
          ? // The server's dry run, or spread's own checks before it (ownership, Secret shape, versions).
            `the plan failed for ${failures.length} object(s); nothing was written`
          : `${failures.length} object(s) failed to apply; ${applied.length} applied, ${notApplied.length} not applied; nothing was pruned`;
    // At most 20 names a list: the counts are in the head, and a list of thousands helps no one.
    const names = (list: readonly SourcedObject[]) =>
      list
        .slice(0, 20)
        .map((o) => describeObject(o))
        .join(', ') + (list.length > 20 ? `, … and ${list.length - 20} more` : '');
    const tail =
      phase === 'apply'
        ? [
            `applied: ${applied.length > 0 ? names(applied) : 'none'}`,
            ...(notApplied.length > 0 ? [`not applied: ${names(notApplied)}`] : []),
          ]
        : [];
    super([`${head}:`, ...lines, ...tail].join('\n'));
    this.name = 'ApplyError';
    this.failures = failures;
    this.interrupted = interrupted;
    this.applied = applied;
    this.notApplied = notApplied;
  }
}

/** Names shown under a cause that several objects share; the count is on the cause's line. */
const NAMES_PER_CAUSE = 5;

/**
 * One line per failure, `  Kind ns/name (file:line): message`, except that failures with the very
 * same message are one entry, in the order of their first object: `  76 objects: namespaces
 * "monitoring" not found`, then an indented line naming the first few of them (`… and 71 more`).
 */
export function groupedFailureLines(failures: readonly ObjectFailure[]): string[] {
  const byMessage = new Map<string, ObjectFailure[]>();
  for (const f of failures) byMessage.set(f.message, [...(byMessage.get(f.message) ?? []), f]);
  return [...byMessage].flatMap(([message, group]) => {
    if (group.length === 1) return [`  ${describeObject(group[0]!.object)}: ${message}`];
    const shown = group.slice(0, NAMES_PER_CAUSE).map((f) => describeObject(f.object));
    const more = group.length - shown.length;
    return [
      `  ${group.length} objects: ${message}`,
      `      ${shown.join(', ')}${more > 0 ? `, … and ${more} more` : ''}`,
    ];
  });
}

/** `Deployment default/web (deployment.yaml:1)` */
export function describeObject(o: SourcedObject): string {
  return `${formatObject(o.object)} (${formatSource(o.source)})`;
}

/**
 * The objects written in a built-in API version that Kubernetes removed (see REMOVED_APIS) and that
 * the server does not serve: one failure each, naming the API, the version that removed it, the
 * server's version and the replacement. Checked right after reading, before any image is built or
 * object written; a removed API the server still serves (re-enabled by its operator) passes.
 */
export async function removedApiFailures(
  discovery: Discovery,
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

/**
 * The plan: every object sent as a server-side dry-run apply (`dryRun=All`, strict field validation),
 * compared with what is in the cluster. All objects are checked; failures are collected and thrown
 * together, so that one run names every problem.
 *
 * Objects whose Namespace or CustomResourceDefinition the same set creates cannot be dry-run yet;
 * they are planned as `create` with `deferred` set, and so are (as `create` or `update`, with `live`)
 * custom resources whose CRD the set changes: the CRDs are planned first, and a dry run now would
 * check them against the old schema. A custom resource in a version its CRD in the set does not
 * serve is a failure. A Secret's `stringData` is planned (and so
 * applied) as `data`, see {@link secretAsStored}. An object a recorded fingerprint matches is planned
 * `unchanged` without a dry run (see objectFingerprint).
 *
 * @throws ApplyError listing every object the server rejected (schema, admission, RBAC, immutable
 *   fields, conflicts), or that names a kind the server does not serve.
 */
export async function planObjects(
  client: KubeClient,
  discovery: Discovery,
  input: readonly SourcedObject[],
  options: ApplyOptions,
): Promise<PlannedObject[]> {
  // What the server stores: a Secret's stringData is sent as data (see secretAsStored).
  const objects = input.map((o) => {
    const object = secretAsStored(o.object);
    return object === o.object ? o : { ...o, object };
  });
  const newNamespaces = new Set(
    objects.filter((o) => isCoreNamespace(o.object)).map((o) => o.object.metadata.name),
  );
  const newKinds = crdKinds(objects);
  const limit = pLimit(options.concurrency);
  const failures: ObjectFailure[] = [];
  const resources = new Map<SourcedObject, ResourceInfo | undefined>();
  for (const o of objects) resources.set(o, await discovery.resolve(o.object.apiVersion, o.object.kind));
  const readLive = liveReader(client, objects, resources, options.concurrency, options.signal);
  const namespaceExists = namespaceLookup(client, options.signal);
  // The kinds whose CRD this deploy creates or changes: their objects are checked against the new
  // schema, once the CRD is applied (so the CRDs are planned first).
  const changingKinds = new Set<string>();
  // An object the server names is created anew by every deploy: no live object to read, own or
  // compare, only a dry-run create.
  const planGenerated = async (
    o: SourcedObject,
    resource: ResourceInfo,
  ): Promise<PlannedObject | undefined> => {
    const ns = o.object.metadata.namespace;
    if (resource.namespaced && ns && newNamespaces.has(ns) && !(await namespaceExists(ns)))
      return { ...o, resource, action: 'create', deferred: `its Namespace ${ns} is created by this deploy` };
    if (changingKinds.has(formatGroupKind(groupKindOf(o.object))))
      return { ...o, resource, action: 'create', deferred: 'its CRD changes in this deploy' };
    try {
      const after = await createObject(client, resource, o.object, options, true);
      return { ...o, resource, action: 'create', after };
    } catch (error) {
      failures.push({ object: o, message: objectError(o.object, error, options) });
      return undefined;
    }
  };
  const planOne = (o: SourcedObject) =>
    limit(async (): Promise<PlannedObject | undefined> => {
      // Failures name the object as given, which is also what sortFailures orders them by.
      const given = o;
      const shape = secretShapeProblem(o.object);
      if (shape) {
        failures.push({ object: given, message: shape });
        return undefined;
      }
      const resource = resources.get(o);
      if (!resource) {
        const gk = formatGroupKind(groupKindOf(o.object));
        const definer = newKinds.get(gk);
        const version = o.object.apiVersion.split('/').pop()!;
        if (definer && !definer.served.includes(version)) {
          failures.push({
            object: o,
            message: `its CustomResourceDefinition ${definer.crd.object.metadata.name} (${definer.crd.source.file}) does not serve version ${version}${definer.served.length ? ` (it serves ${definer.served.join(', ')})` : ''}`,
          });
          return undefined;
        }
        if (definer)
          return { ...o, resource, action: 'create', deferred: `its CRD is created by this deploy` };
        failures.push({ object: o, message: notServedMessage(o.object, discovery.serverVersion) });
        return undefined;
      }
      const ns = o.object.metadata.namespace;
      if (isGenerated(o.object)) return planGenerated(o, resource);
      const path = objectPath(resource, ns, o.object.metadata.name);
      try {
        const live = await readLive(resource, o, path);
        const owner = live?.metadata.labels?.[APPLYSET.partOf];
        if (live && owner && options.applySetId && owner !== options.applySetId && !options.adopt) {
          const other = await ownerName(client, owner, live.metadata.namespace, options.signal);
          failures.push({
            object: o,
            message: `belongs to another deployment${other ? ` (${other})` : ''}: its ${APPLYSET.partOf} label is ${owner}; rename the object, or deploy it from that deployment (adopting takes it over: ${optionRef('adopt')})`,
          });
          return undefined;
        }
        // Like Helm, spread does not silently take over what it did not create: once applied, the
        // object would be pruned with this deployment (a hand-made Namespace with all it holds).
        if (live && !owner && options.applySetId && !options.adopt) {
          failures.push({
            object: o,
            message: `exists, but no spread deployment owns it (no ${APPLYSET.partOf} label: made by hand or by another tool, or the label was removed); taking it over would make a later deploy without it delete it. Adopt it to take it over (${optionRef('adopt')}; with ${optionRef('force-conflicts')} where another manager owns its fields)`,
          });
          return undefined;
        }
        if (!live && resource.namespaced && ns && newNamespaces.has(ns)) {
          if (!(await namespaceExists(ns)))
            return {
              ...o,
              resource,
              action: 'create',
              deferred: `its Namespace ${ns} is created by this deploy`,
            };
        }
        // `object` is what the dry run and the fingerprint see; `o` what an update or create writes.
        const declared = keepAnnotations(o.object, live, options.preserveAnnotations ?? []);
        const object = keepAnnotations(declared, live, options.keepUnlessChanged ?? []);
        o = { ...o, object: declared };
        // Before the fingerprint: a recorded state says nothing about the CRD's new schema.
        if (changingKinds.has(formatGroupKind(groupKindOf(o.object))))
          return {
            ...o,
            resource,
            action: live ? 'update' : 'create',
            ...(live ? { live } : {}),
            deferred: 'its CRD changes in this deploy',
          };
        // The state a completed deploy left, untouched since: unchanged, no dry run needed.
        if (live && options.fingerprints?.size) {
          const print = objectFingerprint(object, live, options.fieldManager);
          if (print !== undefined && options.fingerprints.has(print))
            return { ...o, object, resource, action: 'unchanged', after: live, live, fingerprint: print };
        }
        // Field managers whose fields this deploy takes over (client-side kubectl apply's; when
        // adopting, the kubectl family's): what they set and the directory does not declare goes.
        const takesOver = live
          ? takenOverManagers(
              live.metadata.managedFields as ManagedFieldsEntry[],
              options.fieldManager,
              options.adopt ?? false,
            )
          : [];
        let after: KubeObject;
        try {
          after = await dryRunTakingOver(client, resource, object, takesOver, options);
          if (live && takesOver.length > 0) after = await afterTakeover(client, path, live, after, options);
        } catch (error) {
          // Never a CRD: deleting it deletes every custom resource of it.
          if (live && options.replace && isImmutableFieldError(error) && !isCrd(o.object)) {
            return {
              ...o,
              resource,
              action: 'replace',
              live,
              deferred: `immutable fields change: ${objectError(o.object, error)}`,
            };
          }
          if (live && options.replace && isImmutableFieldError(error))
            throw new Error(
              `${objectError(o.object, error)}; ${optionRef('replace')} does not re-create a CustomResourceDefinition, since deleting it deletes every custom resource of it`,
            );
          throw error;
        }
        if (!live) return { ...o, resource, action: 'create', after };
        const changes = diffObjects(live, after);
        // Unchanged only when spread already owns the object's fields: otherwise the apply is
        // what makes spread a manager, so that later removals take effect.
        // A Secret an earlier spread wrote with stringData is applied once more, so that spread
        // owns the data it sets (see secretAsStored); nothing else about it changes.
        const owned = managedBy(live, options.fieldManager) && !ownsStringData(live, options.fieldManager);
        const action: PlannedAction =
          owned && takesOver.length === 0 && changes.length === 0 && sameObject(live, after)
            ? 'unchanged'
            : 'update';
        // Unchanged: the object as the dry run saw it, which its recorded fingerprint then matches.
        if (action === 'unchanged') return { ...o, object, resource, action, after, live };
        return {
          ...o,
          resource,
          action,
          after,
          live,
          changes,
          ...(takesOver.length > 0 ? { takesOver } : {}),
        };
      } catch (error) {
        failures.push({
          object: given,
          message: objectError(given.object, error, options),
          ...(error instanceof KubeApiError && error.code === 409 ? { conflict: true } : {}),
        });
        return undefined;
      }
    });
  const plannedCrds = new Map<SourcedObject, PlannedObject | undefined>();
  await Promise.all(
    objects.filter((o) => isCrd(o.object)).map(async (o) => plannedCrds.set(o, await planOne(o))),
  );
  for (const [gk, { crd }] of newKinds) {
    const p = plannedCrds.get(crd);
    if (p && p.action !== 'unchanged') changingKinds.add(gk);
  }
  const planned = await Promise.all(
    objects.map((o) => (plannedCrds.has(o) ? plannedCrds.get(o) : planOne(o))),
  );
  if (failures.length > 0) throw new ApplyError('plan', sortFailures(failures, objects));
  return planned as PlannedObject[];
}

/**
 * From this many objects of one resource in one namespace (or cluster-wide), the plan reads what is
 * in the cluster with one LIST instead of one GET per object.
 */
export const LIST_THRESHOLD = 8;

/**
 * How the plan reads the live state of each object. A resource with at least
 * {@link LIST_THRESHOLD} objects of the set in one namespace is read with one (paginated) LIST,
 * shared by those objects; the others, and every object when the LIST is refused (no `list` right:
 * 403, or 405), are read with a GET each. Answers `undefined` for an object that does not exist.
 *
 * Why: the GETs were a third of a deploy's requests (one GET, one dry-run PATCH, one PATCH per
 * object), and on a busy API server each request costs about the same; a LIST of 500 ConfigMaps
 * costs a few milliseconds.
 */
function liveReader(
  client: KubeClient,
  objects: readonly SourcedObject[],
  resources: ReadonlyMap<SourcedObject, ResourceInfo | undefined>,
  concurrency: number,
  signal: AbortSignal | undefined,
): (resource: ResourceInfo, o: SourcedObject, path: string) => Promise<KubeObject | undefined> {
  const counts = new Map<string, number>();
  for (const o of objects) {
    const r = resources.get(o);
    if (!r) continue;
    const collection = objectPath(r, o.object.metadata.namespace);
    counts.set(collection, (counts.get(collection) ?? 0) + 1);
  }
  // Every LIST starts now, `concurrency` at a time, rather than when the first object of its
  // resource comes up: the objects come kind after kind, so lazily started LISTs ran one by one.
  const limit = pLimit(Math.max(1, concurrency));
  const lists = new Map<string, Promise<Map<string, KubeObject> | undefined>>();
  for (const o of objects) {
    const r = resources.get(o);
    if (!r) continue;
    const collection = objectPath(r, o.object.metadata.namespace);
    if ((counts.get(collection) ?? 0) < LIST_THRESHOLD || lists.has(collection)) continue;
    const list = limit(() => listAll(client, r, collection, signal));
    // Awaited by the collection's objects; a plan that fails before them must not leave it unhandled.
    list.catch(() => {});
    lists.set(collection, list);
  }
  return async (resource, o, path) => {
    const list = lists.get(objectPath(resource, o.object.metadata.namespace));
    if (list) {
      const byName = await list;
      if (byName) return byName.get(o.object.metadata.name ?? '');
    }
    return client.getOrUndefined<KubeObject>(path, signal);
  };
}

/** Every object of a collection by name (pages of 500), or `undefined` when the LIST is not allowed. */
async function listAll(
  client: KubeClient,
  resource: ResourceInfo,
  collection: string,
  signal: AbortSignal | undefined,
): Promise<Map<string, KubeObject> | undefined> {
  const apiVersion = apiVersionOf(resource);
  const out = new Map<string, KubeObject>();
  let next: string | undefined;
  try {
    do {
      const page = await client.request<{ items?: KubeObject[]; metadata?: { continue?: string } }>({
        method: 'GET',
        path: collection,
        query: { limit: 500, continue: next },
        signal,
      });
      // A list's items carry no apiVersion and kind (the list does); a GET's object does.
      for (const item of page.body.items ?? [])
        out.set(item.metadata.name ?? '', { ...item, apiVersion, kind: resource.kind });
      next = page.body.metadata?.continue || undefined;
    } while (next);
  } catch (error) {
    if (error instanceof KubeApiError && (error.code === 403 || error.code === 405)) return undefined;
    throw error;
  }
  return out;
}

/**
 * Whether Namespace `ns` exists. A user without `get` on Namespaces (403; a Role limited to the
 * kinds it deploys) cannot tell: then it is taken to exist, and the requests in it say otherwise.
 *
 * @throws KubeApiError for any other failure.
 */
export function namespaceExists(client: KubeClient, ns: string, signal?: AbortSignal): Promise<boolean> {
  return client.getOrUndefined(`/api/v1/namespaces/${encodeURIComponent(ns)}`, signal).then(
    (n) => n !== undefined,
    (error: unknown) => {
      if (error instanceof KubeApiError && error.code === 403) return true;
      throw error;
    },
  );
}

/** {@link namespaceExists}, asked of the server once per name. */
function namespaceLookup(
  client: KubeClient,
  signal: AbortSignal | undefined,
): (ns: string) => Promise<boolean> {
  return memoize((ns) => namespaceExists(client, ns, signal));
}

/** A function of one string argument whose answers are kept (a promise per argument). */
function memoize<T>(f: (key: string) => Promise<T>): (key: string) => Promise<T> {
  const answers = new Map<string, Promise<T>>();
  return (key) => {
    let answer = answers.get(key);
    if (!answer) {
      answer = f(key);
      answers.set(key, answer);
    }
    return answer;
  };
}

/**
 * Applies the objects with server-side apply, group after group: each group is applied
 * concurrently (bounded by `concurrency`) and completes before the next starts. Groups come from
 * `groupOf` (the Deployment's apply order). Between groups, CRDs are waited for until Established
 * and discovery is refreshed so that their custom resources resolve.
 *
 * `created` when the object did not exist, `configured` when its resourceVersion changed,
 * `unchanged` otherwise. Objects the plan found unchanged are not sent at all.
 *
 * @throws ApplyError naming each object that failed, with the objects applied before it.
 */
export async function applyObjects(
  client: KubeClient,
  discovery: Discovery,
  plan: readonly PlannedObject[],
  groupOf: (o: SourcedObject) => number,
  options: ApplyOptions,
  onApplied?: (o: AppliedObject) => void,
): Promise<AppliedObject[]> {
  const groups = new Map<number, PlannedObject[]>();
  for (const p of plan) {
    const g = groupOf(p);
    groups.set(g, [...(groups.get(g) ?? []), p]);
  }
  const applied: AppliedObject[] = [];
  const limit = pLimit(options.concurrency);
  const order = [...groups.keys()].sort((a, b) => a - b);
  const checked = new Set<PlannedObject>();
  for (const g of order) {
    const failures: ObjectFailure[] = [];
    const skipped: PlannedObject[] = [];
    // Once the server is unreachable, the rest of the group is not attempted (each would only time out).
    let unavailable = false;
    const done = await Promise.all(
      groups.get(g)!.map((p) =>
        limit(async () => {
          if (unavailable) {
            skipped.push(p);
            return undefined;
          }
          try {
            const resource = p.resource ?? (await discovery.resolve(p.object.apiVersion, p.object.kind));
            if (!resource) throw new Error(notServedMessage(p.object, discovery.serverVersion));
            if (isGenerated(p.object)) {
              const live = await createObject(client, resource, p.object, options, false);
              // Named as the server named it from here on: the wait, the report and prune see that name.
              const object = { ...p.object, metadata: { ...p.object.metadata, name: live.metadata.name } };
              const result: AppliedObject = { object, source: p.source, resource, action: 'created', live };
              onApplied?.(result);
              return result;
            }
            if (p.action === 'replace') {
              await deleteAndWait(
                client,
                objectPath(resource, p.object.metadata.namespace, p.object.metadata.name),
                options.signal,
              );
              const live = await serverSideApply(client, resource, p.object, options, false);
              const result: AppliedObject = {
                object: p.object,
                source: p.source,
                resource,
                action: 'configured',
                replaced: true,
                live,
              };
              onApplied?.(result);
              return result;
            }
            if (p.action === 'unchanged' && p.live) {
              // The dry run showed the apply would change nothing: skip the write.
              const result: AppliedObject = {
                object: p.object,
                source: p.source,
                resource,
                action: 'unchanged',
                live: p.live,
              };
              onApplied?.(result);
              return result;
            }
            const beforeVersion = p.live?.metadata.resourceVersion;
            // Objects last written by client-side `kubectl apply`: take kubectl's field ownership
            // over first, as `kubectl apply --server-side` does, so dropped fields really go.
            const tookOver =
              p.live !== undefined &&
              (await takeOverFields(
                client,
                objectPath(resource, p.object.metadata.namespace, p.object.metadata.name),
                p.live,
                options.fieldManager,
                options.adopt ?? false,
                options.signal,
              ));
            const live = await serverSideApply(client, resource, p.object, options, false);
            const action: ObjectAction = !p.live
              ? 'created'
              : tookOver || live.metadata.resourceVersion !== beforeVersion
                ? 'configured'
                : 'unchanged';
            const result: AppliedObject = { object: p.object, source: p.source, resource, action, live };
            onApplied?.(result);
            return result;
          } catch (error) {
            if (isUnavailable(error)) unavailable = true;
            failures.push({ object: p, message: objectError(p.object, error, options) });
            return undefined;
          }
        }),
      ),
    );
    for (const d of done) if (d) applied.push(d);
    if (failures.length > 0) {
      const later = order.filter((x) => x > g).flatMap((x) => groups.get(x)!);
      throw new ApplyError('apply', sortFailures(failures, plan), applied, [...skipped, ...later]);
    }
    // A CRD left unchanged and already Established needs no wait, and discovery already serves its
    // kind, unless a later object could not be resolved when the plan was made.
    const crds = done.filter(
      (d): d is AppliedObject =>
        d !== undefined && isCrd(d.object) && !(d.action === 'unchanged' && isCrdEstablished(d.live)),
    );
    const unresolved = order.some((x) => x > g && groups.get(x)!.some((p) => !p.resource));
    if (crds.length > 0 || (unresolved && done.some((d) => d !== undefined && isCrd(d.object)))) {
      await Promise.all(crds.map((c) => waitEstablished(client, c, options.signal)));
      await waitDiscovered(discovery, crds, options.signal);
    }
    await options.afterGroup?.(g);
    // Objects that could not be dry-run before (their Namespace or CRD is created by this deploy) are
    // checked as soon as what they need exists, before anything after them is written: a bad custom
    // resource stops the deploy right after its CRD, with every such error at once.
    const later = order.filter((x) => x > g).flatMap((x) => groups.get(x)!);
    const late = await checkDeferred(client, discovery, later, checked, options);
    if (late.length > 0) throw new ApplyError('apply', sortFailures(late, plan), applied, later);
  }
  return applied;
}

/**
 * Dry-runs the deferred objects among `pending` whose Namespace and kind now exist (each once,
 * remembered in `checked`); returns the failures. An object whose prerequisite is still missing waits
 * for a later group.
 */
async function checkDeferred(
  client: KubeClient,
  discovery: Discovery,
  pending: readonly PlannedObject[],
  checked: Set<PlannedObject>,
  options: ApplyOptions,
): Promise<ObjectFailure[]> {
  const failures: ObjectFailure[] = [];
  const limit = pLimit(options.concurrency);
  // Once per Namespace and call (not per object: a deploy may defer thousands of custom resources).
  const namespaceExists = namespaceLookup(client, options.signal);
  await Promise.all(
    pending
      // A replaced object waits for nothing: its dry run is known to fail on the immutable field.
      .filter((p) => p.deferred && p.action !== 'replace' && !checked.has(p))
      .map((p) =>
        limit(async () => {
          const resource = await discovery.resolve(p.object.apiVersion, p.object.kind);
          if (!resource) return;
          const ns = p.object.metadata.namespace;
          if (resource.namespaced && ns && !(await namespaceExists(ns))) return;
          checked.add(p);
          try {
            if (isGenerated(p.object)) await createObject(client, resource, p.object, options, true);
            else await serverSideApply(client, resource, p.object, options, true);
          } catch (error) {
            failures.push({ object: p, message: objectError(p.object, error, options) });
          }
        }),
      ),
  );
  return failures;
}

/**
 * One server-side apply PATCH (`application/apply-patch+yaml`; JSON is YAML) with
 * `fieldValidation=Strict`, so unknown and duplicate fields are errors, as with
 * `kubectl apply --server-side`.
 */
export async function serverSideApply(
  client: KubeClient,
  resource: ResourceInfo,
  object: KubeObject,
  options: Pick<ApplyOptions, 'fieldManager' | 'forceConflicts' | 'signal' | 'onWarning'>,
  dryRun: boolean,
): Promise<KubeObject> {
  const res = await client.request<KubeObject>({
    method: 'PATCH',
    path: objectPath(resource, object.metadata.namespace, object.metadata.name),
    query: {
      fieldManager: options.fieldManager,
      force: options.forceConflicts ? true : undefined,
      fieldValidation: 'Strict',
      dryRun: dryRun ? 'All' : undefined,
    },
    body: object,
    contentType: 'application/apply-patch+yaml',
    signal: options.signal,
  });
  // The dry run is where every object is sent first: its warnings (a deprecated API version, a
  // field the server drops) are reported once, there.
  if (dryRun) for (const w of res.warnings) options.onWarning?.(object, w);
  return res.body;
}

/**
 * The dry run of an object whose fields spread takes over from `takesOver`: a conflict with those
 * managers alone is none (the takeover makes spread their fields' owner before the apply), so the
 * dry run is sent again with `force`. Any other conflict stands.
 */
async function dryRunTakingOver(
  client: KubeClient,
  resource: ResourceInfo,
  object: KubeObject,
  takesOver: readonly string[],
  options: ApplyOptions,
): Promise<KubeObject> {
  try {
    return await serverSideApply(client, resource, object, options, true);
  } catch (error) {
    const managers = conflictManagers(error);
    if (takesOver.length === 0 || !managers?.length || !managers.every((m) => takesOver.includes(m)))
      throw error;
    return serverSideApply(client, resource, object, { ...options, forceConflicts: true }, true);
  }
}

/**
 * The managers a 409 apply conflict names (its causes read `conflict with "kubectl" using v1`), or
 * undefined for any other error.
 */
export function conflictManagers(error: unknown): string[] | undefined {
  if (!(error instanceof KubeApiError) || error.code !== 409) return undefined;
  const texts = [...(error.status?.details?.causes ?? []).map((c) => c.message ?? ''), error.message];
  const names = texts.flatMap((t) => [...t.matchAll(/conflicts? with "([^"]+)"/g)].map((m) => m[1]!));
  return [...new Set(names)];
}

/**
 * The object as it will be once spread has taken over `live`'s fields and applied: the dry run's
 * answer (`after`, made while the other managers still co-own their fields) without the fields
 * only the taken-over managers own (see removedFields), then defaulted by the server (a dry-run
 * PUT: a Service whose `type` goes becomes ClusterIP, and loses its node ports).
 */
async function afterTakeover(
  client: KubeClient,
  path: string,
  live: KubeObject,
  after: KubeObject,
  options: ApplyOptions,
): Promise<KubeObject> {
  const entries = (after.metadata.managedFields ?? []) as ManagedFieldsEntry[];
  const takenOver = (e: ManagedFieldsEntry) => isTakenOver(e, options.fieldManager, options.adopt ?? false);
  const taken = ((live.metadata.managedFields ?? []) as ManagedFieldsEntry[]).filter(takenOver);
  const ours = entries.find(
    (e) => e.manager === options.fieldManager && e.operation === 'Apply' && !e.subresource,
  );
  const others = entries.filter((e) => e !== ours && !takenOver(e));
  const removed = removedFields(
    taken.map((e) => (e.fieldsV1 ?? {}) as FieldsV1),
    (ours?.fieldsV1 ?? {}) as FieldsV1,
    others.map((e) => (e.fieldsV1 ?? {}) as FieldsV1),
  );
  // What the apply leaves: spread's Apply entry as the dry run said, the others but the taken ones.
  const managedFields = entries.filter((e) => !takenOver(e));
  if (removed.length === 0) return { ...after, metadata: { ...after.metadata, managedFields } };
  const stripped = withoutFields(after, removed);
  const { managedFields: _m, ...metadata } = stripped.metadata;
  try {
    const res = await client.request<KubeObject>({
      method: 'PUT',
      path,
      query: { fieldManager: options.fieldManager, dryRun: 'All', fieldValidation: 'Strict' },
      body: { ...stripped, metadata: { ...metadata, resourceVersion: live.metadata.resourceVersion } },
      signal: options.signal,
    });
    return { ...res.body, metadata: { ...res.body.metadata, managedFields } };
  } catch (error) {
    // A controller wrote the object since it was read (its status): the fields go all the same,
    // only the server's defaults for them are not shown.
    if (!(error instanceof KubeApiError && error.code === 409)) throw error;
    return { ...stripped, metadata: { ...stripped.metadata, managedFields } };
  }
}

/**
 * Creates an object the server names ({@link isGenerated}): a POST to its collection, with
 * spread's field manager and strict field validation, as `kubectl create` sends it.
 *
 * @returns the object as stored (or, with `dryRun`, as it would be), with its generated name.
 */
export async function createObject(
  client: KubeClient,
  resource: ResourceInfo,
  object: KubeObject,
  options: Pick<ApplyOptions, 'fieldManager' | 'signal' | 'onWarning'>,
  dryRun: boolean,
): Promise<KubeObject> {
  const res = await client.request<KubeObject>({
    method: 'POST',
    path: objectPath(resource, object.metadata.namespace),
    query: {
      fieldManager: options.fieldManager,
      fieldValidation: 'Strict',
      dryRun: dryRun ? 'All' : undefined,
    },
    body: object,
    signal: options.signal,
  });
  if (dryRun) for (const w of res.warnings) options.onWarning?.(object, w);
  return res.body;
}

/** The deployment (`namespace/name`) whose ApplySet parent carries `id`, if it can be found. */
async function ownerName(
  client: KubeClient,
  id: string,
  namespace: string | undefined,
  signal?: AbortSignal,
) {
  try {
    const path = namespace
      ? `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets`
      : '/api/v1/secrets';
    const list = await client.request<{ items: KubeObject[] }>({
      method: 'GET',
      path,
      query: { labelSelector: `${APPLYSET.id}=${id}` },
      signal,
    });
    const parent = list.body.items[0];
    const name = parent?.metadata.annotations?.[SPREAD.deployment];
    return parent
      ? `spread deployment ${parent.metadata.namespace}/${name ?? parent.metadata.name}`
      : undefined;
  } catch {
    return undefined;
  }
}

/** A copy of `object` with the live values of `keys` (when the live object has them). */
function keepAnnotations(
  object: KubeObject,
  live: KubeObject | undefined,
  keys: readonly string[],
): KubeObject {
  const liveAnnotations = live?.metadata.annotations ?? {};
  const kept = Object.fromEntries(
    keys.filter((k) => k in liveAnnotations).map((k) => [k, liveAnnotations[k]!]),
  );
  if (Object.keys(kept).length === 0) return object;
  return {
    ...object,
    metadata: { ...object.metadata, annotations: { ...object.metadata.annotations, ...kept } },
  };
}

/**
 * A core/v1 Secret as the API server stores it: `stringData` merged into `data` (values base64 of
 * their UTF-8 bytes, a null value as the empty string, a `stringData` key winning over the same
 * `data` key) and removed. A Secret whose `data` or `stringData` is not a map of strings is left as
 * it is, for the plan to report ({@link secretShapeProblem}). Any other object is returned as it is
 * (the same reference).
 *
 * Source: the Secret API, "stringData ... is provided as a write-only input field for convenience.
 * All keys and values are merged into the data field on write, overwriting any existing values."
 * Applied as stringData, spread would own `stringData` fields that are never stored, and another
 * manager could change the stored `data` without a conflict and without touching spread's field
 * ownership (kubernetes#108008). Applied as data, a Secret is like any other object: spread owns
 * its values, a change by another manager conflicts (`--force-conflicts` takes it back), and an
 * unchanged Secret can have a fingerprint.
 */
export function secretAsStored(object: KubeObject): KubeObject {
  if (!isCoreSecret(object) || object.stringData === undefined) return object;
  // Anything but maps of strings is left as it is, for the plan to report (converting it would
  // store garbage).
  if (secretShapeProblem(object)) return object;
  const { stringData, ...rest } = object;
  if (stringData === null) return rest;
  const data: Record<string, unknown> = { ...((object.data as Record<string, unknown> | undefined) ?? {}) };
  for (const [key, value] of Object.entries(stringData as Record<string, string | null>))
    data[key] = Buffer.from(value ?? '', 'utf8').toString('base64');
  return { ...rest, data };
}

/** Whether `fieldManager`'s Apply entry owns `stringData` fields of a core/v1 Secret (applied as stringData). */
function ownsStringData(o: KubeObject, fieldManager: string): boolean {
  return (
    isCoreSecret(o) &&
    applyEntries(o, fieldManager).some(
      (e) => typeof e.fieldsV1 === 'object' && e.fieldsV1 !== null && 'f:stringData' in e.fieldsV1,
    )
  );
}

/** Whether `fieldManager` has an Apply entry in the object's managedFields. */
export function managedBy(o: KubeObject, fieldManager: string): boolean {
  const entries = (o.metadata.managedFields ?? []) as { manager?: string; operation?: string }[];
  return entries.some((e) => e.manager === fieldManager && e.operation === 'Apply');
}

/** Whether two states of an object are the same, ignoring what every write changes. */
export function sameObject(a: KubeObject, b: KubeObject): boolean {
  return stableJson(normalize(a)) === stableJson(normalize(b));
}

function normalize(o: KubeObject): unknown {
  const { managedFields: _m, resourceVersion: _r, generation: _g, ...metadata } = o.metadata;
  return { ...o, metadata };
}

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
function crdKinds(objects: readonly SourcedObject[]): Map<string, { crd: SourcedObject; served: string[] }> {
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
async function waitEstablished(client: KubeClient, crd: AppliedObject, signal?: AbortSignal): Promise<void> {
  const path = objectPath(crd.resource, undefined, crd.object.metadata.name);
  const deadline = Date.now() + 60_000;
  for (let pause = 10; ; pause = Math.min(pause * 2, 250)) {
    const live = await client.getOrUndefined<KubeObject>(path, signal);
    if (isCrdEstablished(live)) return;
    if (Date.now() > deadline) {
      // Why, as the server says it (e.g. NamesAccepted False, ListKindConflict, when another CRD
      // already defines the names).
      const why = conditionsOf(live)
        .filter((c) => c.status !== 'True')
        .map(
          (c) =>
            `${c.type} ${c.status}${c.reason ? `, ${c.reason}` : ''}${c.message ? `: ${c.message}` : ''}`,
        );
      throw new Error(
        `CustomResourceDefinition ${crd.object.metadata.name} was not Established within 60s${why.length ? ` (${why.join('; ')})` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/**
 * Refreshes discovery until it serves every version the CRDs serve. The API server publishes a new
 * CRD's resources in discovery shortly after the CRD is Established, not at the same time: a
 * discovery read right after Established can still lack them (then their custom resources would be
 * "not served"). Polls after 10 ms, doubling to 250 ms, for up to 30 s; then goes on, and what is
 * still missing fails as not served.
 */
async function waitDiscovered(
  discovery: Discovery,
  crds: readonly AppliedObject[],
  signal?: AbortSignal,
): Promise<void> {
  const wanted = crds.flatMap((c) => {
    const d = crdDefinition(c.object);
    return d ? d.served.map((v) => ({ apiVersion: `${d.group}/${v}`, kind: d.kind })) : [];
  });
  const deadline = Date.now() + 30_000;
  for (let pause = 10; ; pause = Math.min(pause * 2, 250)) {
    await discovery.refresh();
    const missing = await Promise.all(
      wanted.map(async (w) => !(await discovery.resolve(w.apiVersion, w.kind))),
    );
    if (!missing.some(Boolean) || Date.now() > deadline) return;
    signal?.throwIfAborted();
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/** Whether the server rejected a change of an immutable field (422 Invalid, "field is immutable"). */
export function isImmutableFieldError(error: unknown): boolean {
  if (!(error instanceof KubeApiError) || error.code !== 422) return false;
  const texts = [error.message, ...(error.status?.details?.causes ?? []).map((c) => c.message ?? '')];
  // A Pod's spec is immutable but for a few fields; its validation says so in other words.
  return texts.some((t) => /immutable|pod updates may not change fields/i.test(t));
}

/** Deletes an object (background propagation) and waits until it is gone, at most 2 minutes. */
async function deleteAndWait(client: KubeClient, path: string, signal?: AbortSignal): Promise<void> {
  try {
    await client.request({
      method: 'DELETE',
      path,
      body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' },
      signal,
    });
  } catch (error) {
    if (!(error instanceof KubeApiError && error.code === 404)) throw error;
  }
  const deadline = Date.now() + 120_000;
  while ((await client.getOrUndefined(path, signal)) !== undefined) {
    if (Date.now() > deadline) throw new Error(`${path} was not deleted within 2 minutes (finalizers?)`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A readable message for an API error, with what to do about it where spread knows. */
export function explainApiError(error: unknown, options?: Pick<ApplyOptions, 'forceConflicts'>): string {
  if (!(error instanceof KubeApiError)) return (error as Error).message ?? String(error);
  const causes = (error.status?.details?.causes ?? [])
    .map((c) => (c.field ? `${c.field}: ${c.message}` : c.message))
    .filter(Boolean);
  let message = error.message;
  if (error.code === 409 && error.reason === 'Conflict' && !options?.forceConflicts) {
    message += ` (another field manager owns these fields; use ${optionRef('force-conflicts')} to take them over)`;
  }
  if (error.code === 401) message = `unauthorized: the server refused the credentials (${message})`;
  if (error.code === 403) message = `forbidden: ${message}`;
  if (isImmutableFieldError(error))
    message += ` (use ${optionRef('replace')} to delete and re-create the object)`;
  if (causes.length > 0 && !causes.every((c) => message.includes(c!))) message += ` [${causes.join('; ')}]`;
  return message;
}

/**
 * Why a core/v1 Secret's `data` or `stringData` is not a map of strings (null values allowed), in
 * words that show no value; undefined when both are fine or the object is not a Secret. Checked
 * before the dry run, because the server's answer quotes the value (`.stringData: expected map, got
 * &{…}`), and a Secret's values never reach a log.
 */
export function secretShapeProblem(object: KubeObject): string | undefined {
  if (!isCoreSecret(object)) return undefined;
  for (const field of ['data', 'stringData'] as const) {
    const values = object[field];
    if (values === undefined || values === null) continue;
    if (typeof values !== 'object' || Array.isArray(values))
      return `${field} must map keys to strings, found ${shapeOf(values)} (value not shown)`;
    for (const [key, value] of Object.entries(values as Record<string, unknown>)) {
      if (typeof value === 'string' || value === null) continue;
      return `${field} ${key} must be a string, found ${shapeOf(value)} (value not shown)`;
    }
  }
  return undefined;
}

/** A value's YAML type without the value: `a sequence`, `a mapping`, `a number`… (not null). */
function shapeOf(value: unknown): string {
  if (Array.isArray(value)) return 'a sequence';
  return typeof value === 'object' ? 'a mapping' : `a ${typeof value}`;
}

/** The shortest Secret value {@link redactSecretValues} hides: shorter ones would mangle the message. */
const MIN_REDACTED = 3;

/**
 * An API error about `object` as text ({@link explainApiError}); for a core/v1 Secret, every value of
 * its `data` (as sent and base64-decoded) and `stringData` that the server's message quotes is
 * replaced by `<redacted>`, from 3 characters on.
 */
export function objectError(
  object: KubeObject,
  error: unknown,
  options?: Pick<ApplyOptions, 'forceConflicts'>,
): string {
  return redactSecretValues(explainApiError(error, options), object);
}

function redactSecretValues(message: string, object: KubeObject): string {
  if (!isCoreSecret(object)) return message;
  const secrets = new Set<string>();
  const collect = (v: unknown, decode: boolean) => {
    if (typeof v === 'string') {
      secrets.add(v);
      if (decode) secrets.add(Buffer.from(v, 'base64').toString('utf8'));
    } else if (v && typeof v === 'object') for (const x of Object.values(v)) collect(x, decode);
  };
  collect(object.data, true);
  collect(object.stringData, false);
  let out = message;
  // Longest first, so that a value containing another is hidden whole.
  for (const s of [...secrets].filter((s) => s.length >= MIN_REDACTED).sort((a, b) => b.length - a.length))
    out = out.split(s).join('<redacted>');
  return out;
}

function sortFailures(failures: ObjectFailure[], order: readonly SourcedObject[]): ObjectFailure[] {
  const index = new Map(order.map((o, i) => [o.object, i]));
  const at = (f: ObjectFailure) => index.get(f.object.object) ?? order.length;
  // By the order given, then by name, so that the same input always lists its failures alike.
  return [...failures].sort(
    (a, b) => at(a) - at(b) || describeObject(a.object).localeCompare(describeObject(b.object)),
  );
}
