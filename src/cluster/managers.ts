// Who changed an object: its managedFields entries as readable records (manager, operation,
// subresource, time, the fields it owns), and which of them own a given field. What drift reports.
import type { KubeObject, ManagedFieldsEntry } from '../base/kube-object.js';
import { type FieldPath, type FieldsV1, fieldPaths } from './fieldset.js';

/**
 * One field manager of a live object, from its managedFields entry (metav1.ManagedFieldsEntry):
 * `kubectl scale` is `kubectl`, `Update`, subresource `scale`; `kubectl edit` is `kubectl-edit`,
 * `Update`; an HPA is `kube-controller-manager`, `Update`, subresource `scale`.
 */
export interface FieldManagerEntry {
  readonly manager: string;
  readonly operation?: 'Apply' | 'Update';
  /** `scale`, `status`…; absent for the object itself. */
  readonly subresource?: string;
  /** RFC 3339 time of the manager's last change; the API server leaves it out of some entries (a scale). */
  readonly time?: string;
  /**
   * The fields it owns, in the notation of a field change (`spec.replicas`, `data.a`,
   * `metadata.annotations["kubectl.kubernetes.io/restartedAt"]`), a list item as `[name=web]`.
   */
  readonly fields: readonly string[];
}

/**
 * The managedFields entries of `live` other than `fieldManager`'s own Apply entry, without the
 * entries of the `status` subresource (a controller's report of what it saw, never a change of the
 * object's spec) and without fields under `status`. Entries that own nothing else are left out.
 */
export function managersOf(live: KubeObject, fieldManager: string): FieldManagerEntry[] {
  const entries = (live.metadata.managedFields ?? []) as ManagedFieldsEntry[];
  const out: FieldManagerEntry[] = [];
  for (const e of entries) {
    if (e.subresource === 'status') continue;
    if (e.manager === fieldManager && e.operation === 'Apply' && !e.subresource) continue;
    const fields = fieldPaths((e.fieldsV1 ?? {}) as FieldsV1)
      .filter((p) => p[0] !== 'f:status' && !isParentOnly(p, e))
      .map(formatManagedPath);
    if (fields.length === 0) continue;
    out.push({
      manager: e.manager ?? '(unnamed)',
      ...(e.operation ? { operation: e.operation } : {}),
      ...(e.subresource ? { subresource: e.subresource } : {}),
      ...(e.time ? { time: e.time } : {}),
      fields,
    });
  }
  return out;
}

/** A map marked `.` (it exists because of this manager) with members of its own listed too: only the members count. */
function isParentOnly(path: FieldPath, e: ManagedFieldsEntry): boolean {
  let node: unknown = e.fieldsV1 ?? {};
  for (const step of path) node = (node as Record<string, unknown>)[step];
  return Object.keys((node ?? {}) as object).some((k) => k !== '.');
}

/** `["f:spec","f:containers",'k:{"name":"web"}',"f:image"]` → `spec.containers[name=web].image`. */
export function formatManagedPath(path: FieldPath): string {
  let out = '';
  for (const step of path) {
    const value = step.slice(2);
    if (step.startsWith('f:'))
      out += /^[A-Za-z_][A-Za-z0-9_-]*$/.test(value)
        ? out
          ? `.${value}`
          : value
        : `[${JSON.stringify(value)}]`;
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
 * A field path of either notation (a field change's `a.b[0]["x.y"]`, a manager's `a.b[name=web]`) as
 * steps: names, and `*` for any list item, so that both compare; with `indices`, a list index stays
 * (`0`), as a JSON pointer names it.
 */
export function pathSteps(path: string, indices = false): string[] {
  const steps: string[] = [];
  const re = /([A-Za-z_][A-Za-z0-9_-]*)|\[("(?:[^"\\]|\\.)*")\]|\[[^\]]*\]|\./g;
  for (const m of path.matchAll(re)) {
    if (m[1] !== undefined) steps.push(m[1]);
    else if (m[2] !== undefined) steps.push(JSON.parse(m[2]) as string);
    else if (m[0] !== '.') steps.push(indices && /^\[\d+\]$/.test(m[0]) ? m[0].slice(1, -1) : '*');
  }
  return steps;
}

/** Who owns a changed field: the managers, and the list they own when none owns the changed item. */
export interface Ownership {
  readonly owners: FieldManagerEntry[];
  /** Set when no manager owns the changed list item (by its key): the list whose owners are given. */
  readonly list?: string;
}

/**
 * The managers that own the field at `path` (a field change's path, list items by index), or a field
 * within it, or the map or item that holds it: who changed it, as server-side apply's ownership has
 * it. A list item is matched by the key managedFields gives it (`k:{"name":"web"}`, `v:"a"`, `i:2`),
 * read from `live`'s item at that index, so an item is blamed on its own owners, not on the owners of
 * the list's other items. When no manager owns the item (or there is no `live` to read its key), the
 * owners of the list itself (or of a map above it) are given, and `list` names it. Empty owners when
 * none of them does (the field is spread's).
 */
export function ownersOf(path: string, managers: readonly FieldManagerEntry[], live?: unknown): Ownership {
  const change = tokens(path);
  const lastItem = change.map((t) => t.startsWith('[')).lastIndexOf(true);
  const matches = managers
    .map((m) => ({ m, depths: m.fields.map((f) => matchDepth(change, tokens(f), live)) }))
    .filter((x) => x.depths.some((d) => d !== undefined));
  const exact = matches.filter((x) => x.depths.some((d) => d !== undefined && d > lastItem));
  if (lastItem < 0 || exact.length > 0) return { owners: exact.map((x) => x.m) };
  const listOwners = matches.filter((x) => x.depths.some((d) => d !== undefined && d <= lastItem));
  if (listOwners.length === 0) return { owners: [] };
  const listPath = change
    .slice(0, lastItem)
    .map((t, i) => (t.startsWith('[') || i === 0 ? t : `.${t}`))
    .join('');
  return { owners: listOwners.map((x) => x.m), list: listPath };
}

/** A path as steps: names (`spec`), quoted keys (`["a.b"]` → `a.b`) and item selectors kept as `[…]`. */
function tokens(path: string): string[] {
  const out: string[] = [];
  for (const m of path.matchAll(/([A-Za-z_][A-Za-z0-9_-]*)|\[("(?:[^"\\]|\\.)*")\]|(\[[^\]]*\])/g)) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(JSON.parse(m[2]) as string);
    else out.push(m[3] as string);
  }
  return out;
}

/**
 * How far a manager's field and a change's path agree when one begins the other: the length of the
 * manager's field; undefined when they part. A change's `[N]` meets the field's selector through
 * `live`'s item N.
 */
function matchDepth(change: readonly string[], field: readonly string[], live: unknown): number | undefined {
  let node: unknown = live;
  const n = Math.min(change.length, field.length);
  for (let i = 0; i < n; i++) {
    const c = change[i] as string;
    const f = field[i] as string;
    if (!c.startsWith('[')) {
      if (c !== f) return undefined;
      node = (node as Record<string, unknown> | undefined)?.[c];
      continue;
    }
    const index = Number(c.slice(1, -1));
    const item = Array.isArray(node) ? node[index] : undefined;
    if (!f.startsWith('[') || item === undefined || !selects(f.slice(1, -1), item, index)) return undefined;
    node = item;
  }
  return field.length;
}

/** Whether a managedFields selector (`name=web,port=80`, `="a"`, `2`) names `item` at `index`. */
function selects(selector: string, item: unknown, index: number): boolean {
  if (/^\d+$/.test(selector)) return Number(selector) === index;
  if (selector.startsWith('=')) return JSON.stringify(item) === selector.slice(1);
  return selector.split(',').every((kv) => {
    const at = kv.indexOf('=');
    const got = (item as Record<string, unknown> | null)?.[kv.slice(0, at)];
    return got !== undefined && (typeof got === 'string' ? got : JSON.stringify(got)) === kv.slice(at + 1);
  });
}
