// The rules of server-side apply's field ownership that plan and apply both follow: which entries are
// spread's own, which other managers' entries spread takes over (kubectl's migration, or adopting),
// and how their field sets merge. Pure functions of managedFields; apply/ssa.ts sends the PATCH.
import type { KubeObject, ManagedFieldsEntry } from '../../base/kube-object.js';

/** The server-side apply entries of `fieldManager` on the object itself (not on a subresource). */
export function applyEntries(o: KubeObject, fieldManager: string): ManagedFieldsEntry[] {
  return ((o.metadata.managedFields ?? []) as ManagedFieldsEntry[]).filter(
    (e) => e.manager === fieldManager && e.operation === 'Apply' && !e.subresource,
  );
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
 * Field manager names taken for a controller's (a program that keeps writing its fields, which no
 * deploy should take from it): Kubernetes' own components (`kube-controller-manager`,
 * `kube-scheduler`, `kubelet`, `kube-apiserver`, `cloud-controller-manager`) and the usual names of
 * operators and their helpers (`…-controller`, `…-operator`, controller-runtime's default `manager`,
 * `cert-manager-cainjector`, a `…-webhook`, an `…-injector`, an autoscaler).
 */
const CONTROLLER_NAME =
  /controller|operator|manager|scheduler|kubelet|apiserver|injector|webhook|autoscaler/i;

/**
 * Whether a managedFields entry is a controller's: one of a subresource (`status`, `scale`: what
 * controllers and `kubectl scale` write), or of a manager named as {@link CONTROLLER_NAME} says.
 */
export function isControllerEntry(entry: ManagedFieldsEntry): boolean {
  return Boolean(entry.subresource) || CONTROLLER_NAME.test(entry.manager ?? '');
}

/**
 * Whether spread takes a managedFields entry over (merges its fields into its own Apply entry).
 * Always: the `Update` entries of client-side `kubectl apply` ({@link CLIENT_SIDE_MANAGERS}), as
 * `kubectl apply --server-side` does. When adopting (`adopt`), also every other manager's that is
 * not a controller's ({@link isControllerEntry}), `Apply` or `Update`: the kubectl family's
 * (`kubectl` of `kubectl apply --server-side`, `kubectl-create`, `kubectl-edit`, `kubectl-label`…),
 * another deploy tool's (`helm`, Terraform's, a script's `Go-http-client`) and spread's own `Update`
 * entry. Flux's server-side apply manager takes over the kubectl family on takeover (fluxcd/pkg ssa,
 * `PatchReplaceFieldsManagers`); spread goes further, since what another tool set and the directory
 * does not declare would otherwise stay for good while the object looks in sync. Controllers'
 * entries (kube-controller-manager, an operator) and subresource entries are never taken over.
 */
export function isTakenOver(entry: ManagedFieldsEntry, fieldManager: string, adopt: boolean): boolean {
  if (entry.subresource || entry.manager === undefined) return false;
  if (entry.operation === 'Update' && CLIENT_SIDE_MANAGERS.has(entry.manager)) return true;
  if (!adopt) return false;
  if (entry.manager === fieldManager) return entry.operation === 'Update';
  return !isControllerEntry(entry) && (entry.operation === 'Apply' || entry.operation === 'Update');
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
function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
