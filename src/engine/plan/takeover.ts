import type { KubeObject, ManagedFieldsEntry } from '../../base/kube-object.js';
import { optionRef } from '../../base/option-ref.js';
import { KubeApiError } from '../../cluster/client.js';
import { type FieldPath, type FieldsV1, removedFields } from '../../cluster/fieldset.js';
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

/** Fields of one other field manager that the directory does not declare (see {@link foreignFields}). */
export interface ForeignFields {
  readonly manager: string;
  /** e.g. `data.b`, `metadata.labels.team`, `spec.ports[port=80,protocol=TCP].nodePort`. */
  readonly fields: readonly string[];
}

/**
 * The fields of `object` (as the dry run answers it, or as live) that a manager other than
 * `fieldManager` set, that `fieldManager` does not own (the directory does not declare them) and
 * that no controller owns ({@link isControllerEntry}): a deploy leaves them as they are, so the
 * object is not what the directory says. Managers taken over (`adopt`) are left out: the deploy
 * takes their fields and removes those.
 */
export function foreignFields(object: KubeObject, fieldManager: string, adopt: boolean): ForeignFields[] {
  const entries = (object.metadata.managedFields ?? []) as ManagedFieldsEntry[];
  const ours = entries.filter((e) => e.manager === fieldManager && !e.subresource);
  const controllers = entries.filter(isControllerEntry);
  const out: ForeignFields[] = [];
  for (const e of entries) {
    if (ours.includes(e) || controllers.includes(e) || isTakenOver(e, fieldManager, adopt)) continue;
    const fields = removedFields(
      [(e.fieldsV1 ?? {}) as FieldsV1],
      ours.reduce<FieldsV1>((acc, o) => mergeFieldSets(acc, o.fieldsV1 ?? {}), {}),
      controllers.map((c) => (c.fieldsV1 ?? {}) as FieldsV1),
    );
    if (fields.length > 0)
      out.push({ manager: e.manager ?? '(unnamed)', fields: fields.map(formatFieldPath) });
  }
  return out;
}

/** Fields named per manager in {@link foreignNote}; the others are counted. */
const FOREIGN_FIELDS_SHOWN = 5;

/**
 * What plan and status say of {@link foreignFields}: `helm owns data.b, metadata.labels.team, which
 * the directory does not declare: a deploy leaves them; adopting takes them over and removes them
 * (--adopt), or declare them in the directory`.
 */
export function foreignNote(foreign: readonly ForeignFields[]): string {
  const parts = foreign.map((f) => {
    const shown = f.fields.slice(0, FOREIGN_FIELDS_SHOWN).join(', ');
    const more = f.fields.length - FOREIGN_FIELDS_SHOWN;
    return `${f.manager} owns ${shown}${more > 0 ? ` and ${more} more` : ''}`;
  });
  const them = foreign.length === 1 && foreign[0]!.fields.length === 1 ? 'it' : 'them';
  return `${parts.join('; ')}, which the directory does not declare: a deploy leaves ${them}; adopting takes ${them} over and removes ${them} (${optionRef('adopt')}), or declare ${them} in the directory`;
}

/** `["f:spec","f:ports",'k:{"port":80}',"f:nodePort"]` → `spec.ports[port=80].nodePort`. */
export function formatFieldPath(path: FieldPath): string {
  let out = '';
  for (const step of path) {
    const value = step.slice(2);
    if (step.startsWith('f:')) out += `${out ? '.' : ''}${value}`;
    else if (step.startsWith('k:')) {
      const key = JSON.parse(value) as Record<string, unknown>;
      out += `[${Object.entries(key)
        .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join(',')}]`;
    } else if (step.startsWith('v:')) out += `[=${value}]`;
    else if (step.startsWith('i:')) out += `[${value}]`;
  }
  return out;
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
