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

/** Whether one of two step lists is the other or begins it (`*` matches any step). */
export function overlaps(a: readonly string[], b: readonly string[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i] && a[i] !== '*' && b[i] !== '*') return false;
  return true;
}

/**
 * The managers that own the field at `path` (a field change's path), or a field within it, or the
 * map or item that holds it: who changed it. Empty when none of them does (the field is spread's).
 */
export function ownersOf(path: string, managers: readonly FieldManagerEntry[]): FieldManagerEntry[] {
  const steps = pathSteps(path);
  return managers.filter((m) => m.fields.some((f) => overlaps(pathSteps(f), steps)));
}
