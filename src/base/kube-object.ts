// The shape of a Kubernetes object as every layer handles it (any kind, any version; only apiVersion,
// kind and metadata known), with its file and line (SourcedObject), GroupKind, and the one way objects
// are named in messages.
import type { Source } from './source.js';

/**
 * A Kubernetes object as decoded from YAML or JSON: any kind, any version. Only `apiVersion`,
 * `kind` and `metadata` are known; the rest is whatever the API schema of that kind allows.
 */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** The part of metav1.ObjectMeta that spread reads or writes. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [field: string]: unknown;
}

/**
 * One entry of `metadata.managedFields` (metav1.ManagedFieldsEntry, Kubernetes API reference): which
 * field manager owns which fields (`fieldsV1`, a FieldsV1 set), by apply or by update.
 */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  /** RFC 3339 time of the last change by this manager. */
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  /** The subresource the entry is for (`status`, `scale`); absent for the object itself. */
  subresource?: string;
}

/**
 * A group and kind, as in k8s.io/apimachinery's schema.GroupKind. The core group is `''`.
 * Written as `Kind` for the core group and `Kind.group` otherwise (kubectl's notation, also the
 * ApplySet `contains-group-kinds` notation).
 */
export interface GroupKind {
  readonly group: string;
  readonly kind: string;
}

/** The group of an apiVersion: `apps/v1` → `apps`, `v1` → `''`. */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** The GroupKind of an object. */
export function groupKindOf(object: Pick<KubeObject, 'apiVersion' | 'kind'>): GroupKind {
  return { group: groupOf(object.apiVersion), kind: object.kind };
}

/** `Kind` or `Kind.group`, kubectl's and the ApplySet annotation's notation. */
export function formatGroupKind(gk: GroupKind): string {
  return gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
}

/** Whether an object is a core/v1 Secret (a custom kind named Secret in another group is not). */
export function isCoreSecret(object: Pick<KubeObject, 'apiVersion' | 'kind'>): boolean {
  return object.kind === 'Secret' && object.apiVersion === 'v1';
}

/** Whether an object is a core/v1 Namespace. */
export function isCoreNamespace(object: Pick<KubeObject, 'apiVersion' | 'kind'>): boolean {
  return object.kind === 'Namespace' && object.apiVersion === 'v1';
}

/** Whether an object is an apiextensions.k8s.io CustomResourceDefinition (any version). */
export function isCrd(object: Pick<KubeObject, 'apiVersion' | 'kind'>): boolean {
  return object.kind === 'CustomResourceDefinition' && object.apiVersion.startsWith('apiextensions.k8s.io/');
}

/** An object of the set with the place it was read from. */
export interface SourcedObject {
  readonly object: KubeObject;
  readonly source: Source;
}

/**
 * `o` without `metadata.managedFields` (a shallow copy; `o` itself when it has none), as client-go's
 * TransformStripManagedFields keeps objects that are only read: the entries' field sets are often
 * half of an object.
 */
export function withoutManagedFields(o: KubeObject): KubeObject {
  if (!o.metadata?.managedFields) return o;
  const { managedFields: _managedFields, ...metadata } = o.metadata;
  return { ...o, metadata };
}

/**
 * Whether an object is named by the API server: `metadata.generateName` and no `metadata.name`
 * (ObjectMeta.generateName: "the server will append a unique suffix"). spread creates one such
 * object per deploy (POST; server-side apply needs a name); docs/inputs.md says why (Objects the server names).
 */
export function isGenerated(object: KubeObject): boolean {
  const m = object.metadata;
  return !m.name && typeof m.generateName === 'string' && m.generateName !== '';
}

/** The object's name, or for one the server names ({@link isGenerated}), its prefix and `*`: `smoke-*`. */
export function nameOf(object: KubeObject): string {
  return isGenerated(object) ? `${object.metadata.generateName}*` : (object.metadata.name ?? '');
}

/** What names an object in kubectl's notation: its kind and name, its namespace and apiVersion when known. */
export interface ObjectRef {
  readonly kind: string;
  readonly name?: string | undefined;
  readonly namespace?: string | undefined;
  readonly apiVersion?: string;
}

/**
 * kubectl's `kind/name` notation, the kind lower-cased as `kubectl get deployment/web` takes it:
 * `deployment/web -n prod` (` -n NAMESPACE` when `ref.namespace` is set). With `group`, the API group
 * after the kind and no namespace, as kubectl prints objects: `deployment.apps/web`.
 */
export function formatObjectRef(ref: ObjectRef, options: { group?: boolean } = {}): string {
  const kind = ref.kind.toLowerCase();
  if (options.group) {
    const group = ref.apiVersion?.includes('/') ? `.${ref.apiVersion.split('/')[0]}` : '';
    return `${kind}${group}/${ref.name}`;
  }
  return `${kind}/${ref.name}${ref.namespace ? ` -n ${ref.namespace}` : ''}`;
}

/** An object for messages: its GroupKind, then `namespace/name` (or the name alone): `Deployment.apps prod/web`. */
export function formatObject(object: KubeObject): string {
  const namespace = object.metadata.namespace;
  return `${formatGroupKind(groupKindOf(object))} ${namespace ? `${namespace}/` : ''}${nameOf(object)}`;
}

/**
 * What keeps a decoded value from being a Kubernetes object spread can apply: not a mapping, or no
 * apiVersion, kind, or metadata.name or generateName. Returns the problem as a message, or
 * undefined when the object is fine.
 */
export function identityProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'expected a Kubernetes object (a mapping)';
  }
  const o = value as Partial<KubeObject>;
  const missing: string[] = [];
  if (typeof o.apiVersion !== 'string' || o.apiVersion === '') missing.push('apiVersion');
  if (typeof o.kind !== 'string' || o.kind === '') missing.push('kind');
  const meta = o.metadata as ObjectMeta | undefined;
  const hasMeta = typeof meta === 'object' && meta !== null && !Array.isArray(meta);
  const named = (v: unknown) => typeof v === 'string' && v !== '';
  if (!hasMeta || (!named(meta.name) && !named(meta.generateName)))
    missing.push('metadata.name (or metadata.generateName)');
  if (missing.length === 0) return undefined;
  return `${typeof o.kind === 'string' && o.kind ? `${o.kind} ` : ''}object has no ${missing.join(', ')}`;
}
