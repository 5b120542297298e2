// managedFields' field sets (FieldsV1) as paths: which fields only other managers own, and an object
// without given fields; what takeover, foreign fields and field-level errors are computed with.
import { stableJson } from '../base/json.js';

/**
 * A field set as managedFields stores it (`fieldsType: FieldsV1`): nested objects keyed
 * `f:<field>` (a field of a map or struct), `k:<JSON of the key fields>` (an item of an associative
 * list), `v:<JSON value>` (an item of a set), `i:<index>` (an item of an atomic list), and `.` (the
 * node itself is a member). Source: the Kubernetes API reference, ManagedFieldsEntry.fieldsV1, and
 * sigs.k8s.io/structured-merge-diff fieldpath.
 */
export type FieldsV1 = Record<string, unknown>;

/** One member of a field set: its steps from the object's root, each a FieldsV1 key (`f:spec`, `k:{"port":80}`…). */
export type FieldPath = readonly string[];

/**
 * The members of a field set: each leaf (`{}`) and each node marked `.`, as paths from the root,
 * in the set's key order.
 */
export function fieldPaths(set: FieldsV1): FieldPath[] {
  const out: FieldPath[] = [];
  const walk = (node: FieldsV1, prefix: string[]) => {
    for (const [key, child] of Object.entries(node)) {
      if (key === '.') continue;
      const path = [...prefix, key];
      const children = isObject(child) ? child : {};
      const keys = Object.keys(children);
      if (keys.length === 0 || keys.includes('.')) out.push(path);
      walk(children, path);
    }
  };
  walk(set, []);
  return out;
}

/**
 * The fields server-side apply removes once `fieldManager` owns `taken` too: members of `taken`
 * that neither `declared` (the manager's own set after the apply) nor `others` (every other
 * manager's set) holds. A member with a descendant that another set still holds is not removed
 * (its item or map stays, with what the others own), nor one whose ancestor is removed already.
 */
export function removedFields(
  taken: readonly FieldsV1[],
  declared: FieldsV1,
  others: readonly FieldsV1[],
): FieldPath[] {
  // Every member of the kept sets and each of its ancestors.
  const keptPrefixes = new Set(
    [declared, ...others].flatMap(fieldPaths).flatMap((p) => p.map((_, i) => pathKey(p.slice(0, i + 1)))),
  );
  const candidates = taken.flatMap(fieldPaths).filter((p) => !keptPrefixes.has(pathKey(p)));
  const removed = new Set(candidates.map(pathKey));
  const unique = new Map(candidates.map((p) => [pathKey(p), p]));
  return [...unique.values()].filter(
    (p) => !p.slice(0, -1).some((_, i) => removed.has(pathKey(p.slice(0, i + 1)))),
  );
}

/**
 * A copy of `object` without the fields at `paths` (map keys deleted, list items spliced out);
 * a path that does not lead to a value is skipped.
 */
export function withoutFields<T>(object: T, paths: readonly FieldPath[]): T {
  const copy = structuredClone(object);
  for (const path of paths) removeAt(copy, path);
  return copy;
}

function removeAt(root: unknown, path: FieldPath): void {
  let node: unknown = root;
  for (let i = 0; i < path.length; i++) {
    const step = path[i]!;
    const last = i === path.length - 1;
    if (step.startsWith('f:') && isObject(node)) {
      const key = step.slice(2);
      if (!(key in node)) return;
      if (last) delete node[key];
      else node = node[key];
    } else if (Array.isArray(node)) {
      const index = itemIndex(node, step);
      if (index < 0) return;
      if (last) node.splice(index, 1);
      else node = node[index];
    } else return;
  }
}

/** The index of the list item a `k:`, `v:` or `i:` step names, or -1. */
function itemIndex(list: unknown[], step: string): number {
  const kind = step.slice(0, 2);
  const text = step.slice(2);
  if (kind === 'i:') {
    const n = Number(text);
    return Number.isInteger(n) && n < list.length ? n : -1;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return -1;
  }
  if (kind === 'v:') return list.findIndex((item) => stableJson(item) === stableJson(value));
  if (kind === 'k:' && isObject(value)) {
    const keys = Object.entries(value);
    return list.findIndex(
      (item) => isObject(item) && keys.every(([k, v]) => stableJson(item[k]) === stableJson(v)),
    );
  }
  return -1;
}

function pathKey(path: FieldPath): string {
  return JSON.stringify(path);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
