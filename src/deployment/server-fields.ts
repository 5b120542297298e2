// Fields the API server fills in that a manifest exported with `kubectl get -o yaml` still holds: sent
// back, managedFields fails the apply and uid or resourceVersion fail as stale preconditions, so they
// (and a status the server ignores) are dropped, with a warning naming them.
import { formatGroupKind, type GroupKind, type KubeObject } from '../base/kube-object.js';
import type { Source } from '../base/source.js';

/**
 * The `metadata` fields the API server fills in and a manifest never sets (ObjectMeta in the
 * Kubernetes API reference: "Populated by the system. Read-only."). A manifest exported with
 * `kubectl get -o yaml` holds them; sent back, `managedFields` fails server-side apply ("must be
 * nil"), and `uid` and `resourceVersion` are preconditions that fail once the object was re-created
 * or changed ("uid mismatch", "the object has been modified").
 */
export const SERVER_POPULATED_METADATA = [
  'uid',
  'resourceVersion',
  'creationTimestamp',
  'generation',
  'managedFields',
  'selfLink',
] as const;

/**
 * Built-in kinds served with a `status` subresource (kube-apiserver 1.30+), for when discovery
 * cannot say (`spread render` without a cluster). Their `status` is written only through the
 * subresource: sent with the object, the server ignores it.
 */
const BUILTIN_STATUS_KINDS = new Set([
  'Namespace',
  'Node',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'Pod',
  'ReplicationController',
  'ResourceQuota',
  'Service',
  'Deployment.apps',
  'DaemonSet.apps',
  'ReplicaSet.apps',
  'StatefulSet.apps',
  'HorizontalPodAutoscaler.autoscaling',
  'Job.batch',
  'CronJob.batch',
  'CertificateSigningRequest.certificates.k8s.io',
  'Ingress.networking.k8s.io',
  'PodDisruptionBudget.policy',
  'CustomResourceDefinition.apiextensions.k8s.io',
  'APIService.apiregistration.k8s.io',
  'FlowSchema.flowcontrol.apiserver.k8s.io',
  'PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io',
]);

/** Whether a built-in kind has a `status` subresource; undefined for kinds spread does not know. */
export function builtinHasStatus(gk: GroupKind): boolean | undefined {
  return BUILTIN_STATUS_KINDS.has(formatGroupKind(gk)) ? true : undefined;
}

/**
 * Removes, in place, what the API server populates (see {@link SERVER_POPULATED_METADATA}) and
 * `status` when `hasStatus` (the kind has a status subresource, so the server ignores it).
 *
 * @returns the names of the removed fields that held a value; `creationTimestamp: null` and an
 *   empty `status`, which `kubectl create --dry-run -o yaml` writes, are removed without a name.
 */
export function dropServerFields(object: KubeObject, hasStatus: boolean): string[] {
  const dropped: string[] = [];
  const meta = object.metadata as Record<string, unknown>;
  for (const key of SERVER_POPULATED_METADATA) {
    if (!(key in meta)) continue;
    if (!isEmpty(meta[key])) dropped.push(key);
    delete meta[key];
  }
  if (hasStatus && 'status' in object) {
    if (!isEmpty(object.status)) dropped.push('status');
    delete object.status;
  }
  return dropped;
}

function isEmpty(v: unknown): boolean {
  return v === null || v === undefined || (typeof v === 'object' && Object.keys(v as object).length === 0);
}

/** One file of exported manifests: where, and the server-populated fields found in it. */
export interface ExportedFile {
  readonly source: Source;
  readonly fields: readonly string[];
}

/**
 * The one warning for every file that held server-populated fields (placed at the first file's
 * first such object), or undefined when none did:
 * `server-populated fields dropped (an export of kubectl get -o yaml?): a.yaml (uid, status), b.yaml (…)`.
 */
export function exportedWarning(
  files: readonly ExportedFile[],
): { source: Source; message: string } | undefined {
  if (files.length === 0) return undefined;
  const byFile = new Map<string, Set<string>>();
  for (const f of files) {
    const set = byFile.get(f.source.file) ?? new Set<string>();
    for (const field of f.fields) set.add(field);
    byFile.set(f.source.file, set);
  }
  const order = [...SERVER_POPULATED_METADATA, 'status'] as string[];
  const sorted = [...byFile].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const list = sorted.map(
    ([file, fields]) =>
      `${file} (${[...fields].sort((a, b) => order.indexOf(a) - order.indexOf(b)).join(', ')})`,
  );
  return {
    // The first file listed, at its first object.
    source: files.find((f) => f.source.file === sorted[0]![0])!.source,
    message: `server-populated fields dropped, as the API server sets them itself (manifests exported with kubectl get -o yaml?): ${list.join(', ')}`,
  };
}
