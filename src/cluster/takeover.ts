import type { KubeObject } from '../deployment/kube-object.js';
import { KubeApiError, type KubeClient } from './client.js';

/** managedFields entry of metav1.ObjectMeta. */
interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

/**
 * Field managers that client-side `kubectl apply` (and `kubectl create`/`edit` before a first
 * apply) leave on an object. While they co-own fields, a server-side apply that drops a field (a
 * renamed container, a removed port) cannot remove it: the field stays, owned by kubectl.
 */
export const CLIENT_SIDE_MANAGERS: ReadonlySet<string> = new Set([
  'kubectl-client-side-apply',
  'before-first-apply',
]);

/**
 * The managedFields after taking over client-side-apply ownership, or `undefined` when nothing is to
 * take over. Follows kubectl's own migration (k8s.io/client-go/util/csaupgrade.UpgradeManagedFields,
 * used by `kubectl apply --server-side`): every `Update` entry of a client-side manager (main
 * resource, not a subresource) is merged into `fieldManager`'s `Apply` entry and removed, so that the
 * next server-side apply owns — and can remove — everything kubectl applied.
 */
export function upgradeManagedFields(
  managedFields: readonly ManagedFieldsEntry[] | undefined,
  fieldManager: string,
  apiVersion: string,
): ManagedFieldsEntry[] | undefined {
  const entries = managedFields ?? [];
  const csa = entries.filter(
    (e) =>
      e.operation === 'Update' &&
      !e.subresource &&
      e.manager !== undefined &&
      CLIENT_SIDE_MANAGERS.has(e.manager),
  );
  if (csa.length === 0) return undefined;
  const kept = entries.filter((e) => !csa.includes(e));
  let ours = kept.find((e) => e.manager === fieldManager && e.operation === 'Apply' && !e.subresource);
  if (!ours) {
    ours = { manager: fieldManager, operation: 'Apply', apiVersion, fieldsType: 'FieldsV1', fieldsV1: {} };
    kept.push(ours);
  }
  const merged = csa.reduce((acc, e) => mergeFieldSets(acc, e.fieldsV1 ?? {}), ours.fieldsV1 ?? {});
  return kept.map((e) => (e === ours ? { ...e, fieldsV1: merged, time: e.time ?? csa[0]?.time } : e));
}

/** The union of two FieldsV1 sets (nested objects keyed `f:<field>`, `k:<key>`, `v:<value>`, `i:<index>`, `.`). */
export function mergeFieldSets(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const mine = out[key];
    out[key] =
      isObject(mine) && isObject(value) ? mergeFieldSets(mine, value) : mine !== undefined ? mine : value;
  }
  return out;
}

/**
 * Moves client-side-apply ownership of a live object to spread's field manager with one JSON patch,
 * guarded by the object's resourceVersion. Controllers write status concurrently, so a failed guard
 * (the object changed since it was read) reads it again and retries, up to 5 times.
 *
 * @param live the object as last read; when it holds no client-side manager nothing is sent.
 * @returns whether ownership was moved.
 */
export async function takeOverClientSideApply(
  client: KubeClient,
  path: string,
  live: KubeObject,
  fieldManager: string,
  signal?: AbortSignal,
): Promise<boolean> {
  let current: KubeObject | undefined = live;
  for (let attempt = 1; current; attempt++) {
    const upgraded = upgradeManagedFields(
      current.metadata.managedFields as ManagedFieldsEntry[] | undefined,
      fieldManager,
      current.apiVersion,
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

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
