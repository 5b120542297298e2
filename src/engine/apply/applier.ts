// The apply stage: writes the planned objects with server-side apply, group after group in the object
// set's order, waiting for CRDs between groups so their custom resources resolve. Objects the plan found
// unchanged are never sent.
import pLimit from 'p-limit';
import { isCrdEstablished } from '../../base/conditions.js';
import type { KubeObject, SourcedObject } from '../../base/kube-object.js';
import { formatGroupKind, groupKindOf, isCoreNamespace, isCrd, isGenerated } from '../../base/kube-object.js';
import { notServedMessage } from '../../cluster/api-removals.js';
import { isUnavailable } from '../../cluster/client.js';
import { objectPath, type ResourceInfo } from '../../cluster/discovery.js';
import type { KubeApi, KubeDiscovery } from '../kube-api.js';
import { type ApplyOptions, adopts } from '../shared/options.js';
import type { PlannedObject } from '../shared/planned.js';
import type { AppliedObject, ObjectAction } from './applied.js';
import { crdKinds, waitDiscovered, waitEstablished } from './crd.js';
import { ApplyError, type ObjectFailure, objectError, sortFailures } from './errors.js';
import { retryStaleSchema } from './schema-lag.js';
import { createObject, deleteAndWait, serverSideApply, takeOverFields } from './ssa.js';

/** What applying one object needs. */
interface ApplyContext {
  readonly client: KubeApi;
  readonly discovery: KubeDiscovery;
  readonly options: ApplyOptions;
  /** The CRDs of the set by the GroupKind they define: their custom resources' new schema. */
  readonly crds: ReturnType<typeof crdKinds>;
}

/**
 * A write of a custom resource whose CRD is in the set, retried while the server answers with the
 * CRD's old schema (see retryStaleSchema); any other write as it is.
 */
function withNewSchema<T>(c: ApplyContext, object: KubeObject, write: () => Promise<T>): Promise<T> {
  const crd = c.crds.get(formatGroupKind(groupKindOf(object)))?.crd.object;
  return retryStaleSchema(write, object, crd, c.options.signal);
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
  client: KubeApi,
  discovery: KubeDiscovery,
  plan: readonly PlannedObject[],
  groupOf: (o: SourcedObject) => number,
  options: ApplyOptions,
  onApplied?: (o: AppliedObject) => void,
): Promise<AppliedObject[]> {
  const groups = new Map<number, PlannedObject[]>();
  for (const p of plan) {
    const g = groupOf(p);
    const group = groups.get(g);
    if (group) group.push(p);
    else groups.set(g, [p]);
  }
  const c: ApplyContext = { client, discovery, options, crds: crdKinds(plan) };
  const applied: AppliedObject[] = [];
  const order = [...groups.keys()].sort((a, b) => a - b);
  const after = (g: number) => order.filter((x) => x > g).flatMap((x) => groups.get(x)!);
  const checked = new Set<PlannedObject>();
  // The deploy's own Namespaces, until applied: a deferred object in one waits for it (Namespaces are
  // the first group, so that is at most one group). Any other Namespace is as the plan found it: its
  // objects are dry-run without asking again, and one that does not exist fails that dry run, before
  // anything after it is written.
  const unapplied = new Set<string>();
  for (const p of plan) if (isCoreNamespace(p.object)) unapplied.add(p.object.metadata.name ?? '');
  for (const g of order) {
    const { done, failures, skipped } = await applyGroup(c, groups.get(g)!, onApplied);
    applied.push(...done);
    for (const d of done) if (isCoreNamespace(d.object)) unapplied.delete(d.object.metadata.name ?? '');
    if (failures.length > 0)
      throw new ApplyError('apply', sortFailures(failures, plan), applied, [...skipped, ...after(g)]);
    // A CRD left unchanged and already Established needs no wait, and discovery already serves its
    // kind, unless a later object could not be resolved when the plan was made.
    const crds = done.filter(
      (d) => isCrd(d.object) && !(d.action === 'unchanged' && isCrdEstablished(d.live)),
    );
    const unresolved = after(g).some((p) => !p.resource);
    if (crds.length > 0 || (unresolved && done.some((d) => isCrd(d.object)))) {
      // Discovery serves a CRD's kinds only once it is Established, and usually by the time the
      // watch reports it: read after, discovery is read once, not polled beside the wait.
      await Promise.all(crds.map((crd) => waitEstablished(client, crd, options.signal)));
      await waitDiscovered(discovery, crds, options.signal);
    }
    await options.afterGroup?.(g);
    // Objects that could not be dry-run before (their Namespace or CRD is created by this deploy) are
    // checked as soon as what they need exists, before anything after them is written: a bad custom
    // resource stops the deploy right after its CRD, with every such error at once.
    const late = await checkDeferred(c, after(g), checked, unapplied);
    if (late.length > 0) throw new ApplyError('apply', sortFailures(late, plan), applied, after(g));
  }
  return applied;
}

/**
 * Applies one group concurrently. Once the server is unreachable, the rest of the group is not
 * attempted (each would only time out): those are `skipped`.
 */
async function applyGroup(
  c: ApplyContext,
  group: readonly PlannedObject[],
  onApplied: ((o: AppliedObject) => void) | undefined,
): Promise<{ done: AppliedObject[]; failures: ObjectFailure[]; skipped: PlannedObject[] }> {
  const limit = pLimit(c.options.concurrency);
  const failures: ObjectFailure[] = [];
  const skipped: PlannedObject[] = [];
  let unavailable = false;
  const done = await Promise.all(
    group.map((p) =>
      limit(async () => {
        if (unavailable) {
          skipped.push(p);
          return undefined;
        }
        try {
          const result = await applyOne(c, p);
          onApplied?.(result);
          return result;
        } catch (error) {
          if (isUnavailable(error)) unavailable = true;
          failures.push({ object: p, message: objectError(p.object, error, c.options) });
          return undefined;
        }
      }),
    ),
  );
  return { done: done.filter((d): d is AppliedObject => d !== undefined), failures, skipped };
}

/**
 * One object by its plan's strategy: `create` of a server-named object (POST), `replace` (delete,
 * wait until gone, apply), `unchanged` (nothing sent), or `create`/`update` by server-side apply.
 */
async function applyOne(c: ApplyContext, p: PlannedObject): Promise<AppliedObject> {
  const resource = p.resource ?? (await c.discovery.resolve(p.object.apiVersion, p.object.kind));
  if (!resource) throw new Error(notServedMessage(p.object, c.discovery.serverVersion));
  if (isGenerated(p.object)) return createGenerated(c, p, resource);
  if (p.action === 'replace') return replaceObject(c, p, resource);
  // The dry run showed the apply would change nothing: skip the write.
  if (p.action === 'unchanged' && p.live)
    return { object: p.object, source: p.source, resource, action: 'unchanged', live: p.live };
  return applyChange(c, p, resource);
}

async function createGenerated(
  c: ApplyContext,
  p: PlannedObject,
  resource: ResourceInfo,
): Promise<AppliedObject> {
  const live = await withNewSchema(c, p.object, () =>
    createObject(c.client, resource, p.object, c.options, false),
  );
  // Named as the server named it from here on: the wait, the report and prune see that name.
  const object = { ...p.object, metadata: { ...p.object.metadata, name: live.metadata.name } };
  return { object, source: p.source, resource, action: 'created', live };
}

async function replaceObject(
  c: ApplyContext,
  p: PlannedObject,
  resource: ResourceInfo,
): Promise<AppliedObject> {
  const path = objectPath(resource, p.object.metadata.namespace, p.object.metadata.name);
  await deleteAndWait(c.client, path, c.options.signal);
  const live = await serverSideApply(c.client, resource, p.object, c.options, false);
  return {
    object: p.object,
    source: p.source,
    resource,
    action: 'configured',
    replaced: true,
    live,
    ...(p.rerun ? { rerun: p.rerun } : {}),
  };
}

async function applyChange(
  c: ApplyContext,
  p: PlannedObject,
  resource: ResourceInfo,
): Promise<AppliedObject> {
  const { client, options } = c;
  const beforeVersion = p.live?.metadata.resourceVersion;
  // Objects last written by client-side `kubectl apply`: take kubectl's field ownership over first,
  // as `kubectl apply --server-side` does, so dropped fields really go.
  const tookOver =
    p.live !== undefined &&
    (await takeOverFields(
      client,
      objectPath(resource, p.object.metadata.namespace, p.object.metadata.name),
      p.live,
      options.fieldManager,
      adopts(options.ownership),
      options.signal,
    ));
  const live = await withNewSchema(c, p.object, () =>
    serverSideApply(client, resource, p.object, options, false),
  );
  const action: ObjectAction = !p.live
    ? 'created'
    : tookOver || live.metadata.resourceVersion !== beforeVersion
      ? 'configured'
      : 'unchanged';
  return { object: p.object, source: p.source, resource, action, live };
}

/**
 * Dry-runs the deferred objects among `pending` whose kind is now served and whose Namespace is not
 * among the deploy's `unapplied` ones (each once, remembered in `checked`); returns the failures. An
 * object whose prerequisite is still missing waits for a later group.
 */
async function checkDeferred(
  c: ApplyContext,
  pending: readonly PlannedObject[],
  checked: Set<PlannedObject>,
  unapplied: ReadonlySet<string>,
): Promise<ObjectFailure[]> {
  const { client, discovery, options } = c;
  const failures: ObjectFailure[] = [];
  const limit = pLimit(options.concurrency);
  await Promise.all(
    pending
      // A replaced object waits for nothing: its dry run is known to fail on the immutable field.
      .filter((p) => p.deferred && p.action !== 'replace' && !checked.has(p))
      .map((p) =>
        limit(async () => {
          const resource = await discovery.resolve(p.object.apiVersion, p.object.kind);
          if (!resource) return;
          const ns = p.object.metadata.namespace;
          if (resource.namespaced && ns && unapplied.has(ns)) return;
          checked.add(p);
          try {
            await withNewSchema(c, p.object, () =>
              isGenerated(p.object)
                ? createObject(client, resource, p.object, options, true)
                : serverSideApply(client, resource, p.object, options, true),
            );
          } catch (error) {
            failures.push({ object: p, message: objectError(p.object, error, options) });
          }
        }),
      ),
  );
  return failures;
}
