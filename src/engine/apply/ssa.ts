// The write requests of plan and apply, each as kubectl sends it: server-side apply (dry run or not),
// create of a generated name, the takeover of other managers' fields, and delete for --replace.
import type { KubeObject, ManagedFieldsEntry } from '../../base/kube-object.js';
import { poll } from '../../base/poll.js';
import { KubeApiError } from '../../cluster/client.js';
import { objectPath, type ResourceInfo } from '../../cluster/discovery.js';
import { type FieldsV1, removedFields, withoutFields } from '../../cluster/fieldset.js';
import type { KubeApi } from '../kube-api.js';
import { isTakenOver, upgradeManagedFields } from '../shared/managed-fields.js';
import { type ApplyOptions, adopts } from '../shared/options.js';
import { conflictManagers } from './errors.js';

/**
 * One server-side apply PATCH (`application/apply-patch+yaml`; JSON is YAML) with
 * `fieldValidation=Strict`, so unknown and duplicate fields are errors, as with
 * `kubectl apply --server-side`.
 */
export async function serverSideApply(
  client: KubeApi,
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
 * Creates an object the server names ({@link isGenerated}): a POST to its collection, with
 * spread's field manager and strict field validation, as `kubectl create` sends it.
 *
 * @returns the object as stored (or, with `dryRun`, as it would be), with its generated name.
 */
export async function createObject(
  client: KubeApi,
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

/**
 * The dry run of an object whose fields spread takes over from `takesOver`: a conflict with those
 * managers alone is none (the takeover makes spread their fields' owner before the apply), so the
 * dry run is sent again with `force`. Any other conflict stands.
 */
export async function dryRunTakingOver(
  client: KubeApi,
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
 * The object as it will be once spread has taken over `live`'s fields and applied: the dry run's
 * answer (`after`, made while the other managers still co-own their fields) without the fields
 * only the taken-over managers own (see removedFields), then defaulted by the server (a dry-run
 * PUT: a Service whose `type` goes becomes ClusterIP, and loses its node ports).
 */
export async function afterTakeover(
  client: KubeApi,
  path: string,
  live: KubeObject,
  after: KubeObject,
  options: ApplyOptions,
): Promise<KubeObject> {
  const entries = (after.metadata.managedFields ?? []) as ManagedFieldsEntry[];
  const takenOver = (e: ManagedFieldsEntry) =>
    isTakenOver(e, options.fieldManager, adopts(options.ownership));
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

/** Deletes an object (background propagation) and waits until it is gone, at most 2 minutes. */
export async function deleteAndWait(client: KubeApi, path: string, signal?: AbortSignal): Promise<void> {
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
  const gone = await poll(
    async () => ((await client.getOrUndefined(path, signal)) === undefined ? true : undefined),
    { intervalMs: 200, timeoutMs: 120_000, ...(signal ? { signal } : {}) },
  );
  if (!gone) throw new Error(`${path} was not deleted within 2 minutes (finalizers?)`);
}

/**
 * Moves the field ownership {@link upgradeManagedFields} selects (client-side `kubectl apply`'s; with
 * `adopt`, the kubectl family's) of a live object to spread's field manager with one JSON patch,
 * guarded by the object's resourceVersion. Controllers write status concurrently, so a failed guard
 * (the object changed since it was read) reads it again and retries, up to 5 times.
 *
 * @param live the object as last read; when it holds no client-side manager nothing is sent.
 * @returns whether ownership was moved.
 */
export async function takeOverFields(
  client: KubeApi,
  path: string,
  live: KubeObject,
  fieldManager: string,
  adopt: boolean,
  signal?: AbortSignal,
): Promise<boolean> {
  let current: KubeObject | undefined = live;
  for (let attempt = 1; current; attempt++) {
    const upgraded = upgradeManagedFields(
      current.metadata.managedFields as ManagedFieldsEntry[] | undefined,
      fieldManager,
      current.apiVersion,
      adopt,
    );
    if (!upgraded) return false;
    try {
      await client.request({
        method: 'PATCH',
        path,
        contentType: 'application/json-patch+json',
        body: [
          { op: 'test', path: '/metadata/resourceVersion', value: current.metadata.resourceVersion },
          { op: 'replace', path: '/metadata/managedFields', value: upgraded },
        ],
        signal,
      });
      return true;
    } catch (error) {
      const code = error instanceof KubeApiError ? error.code : 0;
      if (attempt >= 5 || (code !== 409 && code !== 422)) throw error;
      current = await client.getOrUndefined<KubeObject>(path, signal);
    }
  }
  return false;
}
