import type { KubeObject, ManagedFieldsEntry } from '../../base/kube-object.js';
import { KubeApiError } from '../../cluster/client.js';
import type { KubeApi } from '../kube-api.js';

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
 * The field managers Helm leaves on the objects of a release: `helm`, with operation `Update` from
 * Helm 3 (client-side create and three-way merge patches) and `Apply` from Helm 4 (server-side
 * apply), Helm naming its manager after its binary.
 */
export const HELM_MANAGERS: ReadonlySet<string> = new Set(['helm']);

/**
 * Whether spread takes a managedFields entry over (merges its fields into its own Apply entry).
 * Always: the `Update` entries of client-side `kubectl apply` ({@link CLIENT_SIDE_MANAGERS}), as
 * `kubectl apply --server-side` does. When adopting (`adopt`), also what the kubectl family
 * wrote by hand: every manager named `kubectl…` (`kubectl` of `kubectl apply --server-side`,
 * `kubectl-create`, `kubectl-edit`, `kubectl-patch`, `kubectl-label`…), `Apply` or `Update`, and
 * spread's own `Update` entry; the rule of Flux's server-side apply manager on takeover
 * (fluxcd/pkg ssa, `PatchReplaceFieldsManagers` with kustomize-controller's managers `kubectl`
 * Apply/Update and `before-first-apply` Update, matched by prefix), and Helm's ({@link HELM_MANAGERS}),
 * so a release made by `helm install`/`upgrade` moves to spread. Controllers' entries
 * (kube-controller-manager, an autoscaler) and subresource entries (`status`, `scale`) are
 * never taken over.
 */
export function isTakenOver(entry: ManagedFieldsEntry, fieldManager: string, adopt: boolean): boolean {
  if (entry.subresource || entry.manager === undefined) return false;
  if (entry.operation === 'Update' && CLIENT_SIDE_MANAGERS.has(entry.manager)) return true;
  if (!adopt) return false;
  if (entry.manager === fieldManager) return entry.operation === 'Update';
  return (
    (entry.manager.startsWith('kubectl') || HELM_MANAGERS.has(entry.manager)) &&
    (entry.operation === 'Apply' || entry.operation === 'Update')
  );
}

/**
 * The managedFields after taking over the entries {@link isTakenOver} selects, or `undefined` when
 * nothing is to take over. Follows kubectl's own migration (k8s.io/client-go/util/csaupgrade
 * UpgradeManagedFields, used by `kubectl apply --server-side`): every selected entry is merged into
 * `fieldManager`'s `Apply` entry and removed, so that the next server-side apply owns (and can
 * remove) every field those managers set.
 */
export function upgradeManagedFields(
  managedFields: readonly ManagedFieldsEntry[] | undefined,
  fieldManager: string,
  apiVersion: string,
  adopt = false,
): ManagedFieldsEntry[] | undefined {
  const entries = managedFields ?? [];
  const taken = entries.filter((e) => isTakenOver(e, fieldManager, adopt));
  if (taken.length === 0) return undefined;
  const kept = entries.filter((e) => !taken.includes(e));
  let ours = kept.find((e) => e.manager === fieldManager && e.operation === 'Apply' && !e.subresource);
  if (!ours) {
    ours = { manager: fieldManager, operation: 'Apply', apiVersion, fieldsType: 'FieldsV1', fieldsV1: {} };
    kept.push(ours);
  }
  const merged = taken.reduce((acc, e) => mergeFieldSets(acc, e.fieldsV1 ?? {}), ours.fieldsV1 ?? {});
  return kept.map((e) => (e === ours ? { ...e, fieldsV1: merged, time: e.time ?? taken[0]?.time } : e));
}

/** The managers {@link isTakenOver} selects on an object, sorted, each once (empty: nothing to take over). */
export function takenOverManagers(
  managedFields: readonly ManagedFieldsEntry[] | undefined,
  fieldManager: string,
  adopt: boolean,
): string[] {
  const names = (managedFields ?? [])
    .filter((e) => isTakenOver(e, fieldManager, adopt))
    .map((e) => e.manager!);
  return [...new Set(names)].sort();
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

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
