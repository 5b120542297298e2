// The built-in API versions Kubernetes stopped serving (extensions/v1beta1, policy/v1beta1…) and the
// server's version, so that an object in a removed API fails before anything is built or written,
// with the version that removed it and what replaces it.
import type { KubeObject } from '../base/kube-object.js';

/**
 * The version of Kubernetes an API server runs, as `GET /version` reports it.
 * Source: k8s.io/apimachinery/pkg/version.Info.
 */
export interface ServerVersion {
  /** As reported, e.g. `v1.30.14`, `v1.34.4-eks-1234`. */
  readonly gitVersion: string;
  readonly major: number;
  readonly minor: number;
}

/**
 * Reads the body of `GET /version`. Managed offerings report minors like `30+`; the number in front
 * counts. `undefined` when the body has no usable major and minor.
 */
export function parseServerVersion(body: unknown): ServerVersion | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const info = body as { major?: unknown; minor?: unknown; gitVersion?: unknown };
  const number = (v: unknown) => (typeof v === 'string' ? Number.parseInt(v, 10) : Number.NaN);
  const gitVersion = typeof info.gitVersion === 'string' ? info.gitVersion : '';
  let major = number(info.major);
  let minor = number(info.minor);
  // Some distributions leave major/minor empty; gitVersion still says it.
  const m = /^v(\d+)\.(\d+)\./.exec(gitVersion);
  if ((Number.isNaN(major) || Number.isNaN(minor)) && m) {
    major = Number(m[1]);
    minor = Number(m[2]);
  }
  if (Number.isNaN(major) || Number.isNaN(minor)) return undefined;
  return { gitVersion: gitVersion || `v${major}.${minor}`, major, minor };
}

/** A built-in API version of a kind that Kubernetes stopped serving. */
export interface RemovedApi {
  /** `group/version` of the removed API, e.g. `policy/v1beta1`. */
  readonly apiVersion: string;
  readonly kind: string;
  /** The minor (of Kubernetes 1.x) that deprecated it. */
  readonly deprecatedIn: number;
  /** The first minor (of Kubernetes 1.x) that no longer serves it. */
  readonly removedIn: number;
  /** What to use instead: `group/version` of the same kind, or advice when the kind itself is gone. */
  readonly replacement: string;
}

const removals = (
  removedIn: number,
  deprecatedIn: number,
  apiVersion: string,
  kinds: readonly string[],
  replacement: string | ((kind: string) => string),
): RemovedApi[] =>
  kinds.map((kind) => ({
    apiVersion,
    kind,
    deprecatedIn,
    removedIn,
    replacement: typeof replacement === 'string' ? `${replacement} ${kind}` : replacement(kind),
  }));

/**
 * The built-in APIs that Kubernetes 1.16 to 1.32 removed, from the Deprecated API Migration Guide
 * (https://kubernetes.io/docs/reference/using-api/deprecation-guide/). Later minors removed no
 * built-in API a user's files would hold.
 */
export const REMOVED_APIS: readonly RemovedApi[] = [
  ...removals(16, 9, 'extensions/v1beta1', ['DaemonSet', 'Deployment', 'ReplicaSet'], 'apps/v1'),
  ...removals(16, 9, 'extensions/v1beta1', ['NetworkPolicy'], 'networking.k8s.io/v1'),
  ...removals(16, 9, 'extensions/v1beta1', ['PodSecurityPolicy'], 'policy/v1beta1'),
  ...removals(16, 9, 'apps/v1beta1', ['Deployment', 'StatefulSet'], 'apps/v1'),
  ...removals(16, 9, 'apps/v1beta2', ['DaemonSet', 'Deployment', 'ReplicaSet', 'StatefulSet'], 'apps/v1'),
  ...removals(
    22,
    16,
    'admissionregistration.k8s.io/v1beta1',
    ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'],
    'admissionregistration.k8s.io/v1',
  ),
  ...removals(
    22,
    16,
    'apiextensions.k8s.io/v1beta1',
    ['CustomResourceDefinition'],
    'apiextensions.k8s.io/v1',
  ),
  ...removals(22, 19, 'apiregistration.k8s.io/v1beta1', ['APIService'], 'apiregistration.k8s.io/v1'),
  ...removals(22, 19, 'certificates.k8s.io/v1beta1', ['CertificateSigningRequest'], 'certificates.k8s.io/v1'),
  ...removals(22, 19, 'coordination.k8s.io/v1beta1', ['Lease'], 'coordination.k8s.io/v1'),
  ...removals(22, 14, 'extensions/v1beta1', ['Ingress'], 'networking.k8s.io/v1'),
  ...removals(22, 19, 'networking.k8s.io/v1beta1', ['Ingress', 'IngressClass'], 'networking.k8s.io/v1'),
  ...removals(
    22,
    17,
    'rbac.authorization.k8s.io/v1beta1',
    ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'],
    'rbac.authorization.k8s.io/v1',
  ),
  ...removals(22, 14, 'scheduling.k8s.io/v1beta1', ['PriorityClass'], 'scheduling.k8s.io/v1'),
  ...removals(
    22,
    19,
    'storage.k8s.io/v1beta1',
    ['CSIDriver', 'CSINode', 'StorageClass', 'VolumeAttachment'],
    'storage.k8s.io/v1',
  ),
  ...removals(25, 21, 'batch/v1beta1', ['CronJob'], 'batch/v1'),
  ...removals(25, 21, 'discovery.k8s.io/v1beta1', ['EndpointSlice'], 'discovery.k8s.io/v1'),
  ...removals(25, 21, 'events.k8s.io/v1beta1', ['Event'], 'events.k8s.io/v1'),
  ...removals(25, 23, 'autoscaling/v2beta1', ['HorizontalPodAutoscaler'], 'autoscaling/v2'),
  ...removals(25, 21, 'policy/v1beta1', ['PodDisruptionBudget'], 'policy/v1'),
  ...removals(
    25,
    21,
    'policy/v1beta1',
    ['PodSecurityPolicy'],
    () =>
      'no replacement: PodSecurityPolicy is gone; use Pod Security Admission (pod-security.kubernetes.io labels on the Namespace)',
  ),
  ...removals(25, 22, 'node.k8s.io/v1beta1', ['RuntimeClass'], 'node.k8s.io/v1'),
  ...removals(
    26,
    23,
    'flowcontrol.apiserver.k8s.io/v1beta1',
    ['FlowSchema', 'PriorityLevelConfiguration'],
    'flowcontrol.apiserver.k8s.io/v1',
  ),
  ...removals(26, 23, 'autoscaling/v2beta2', ['HorizontalPodAutoscaler'], 'autoscaling/v2'),
  ...removals(27, 24, 'storage.k8s.io/v1beta1', ['CSIStorageCapacity'], 'storage.k8s.io/v1'),
  ...removals(
    29,
    26,
    'flowcontrol.apiserver.k8s.io/v1beta2',
    ['FlowSchema', 'PriorityLevelConfiguration'],
    'flowcontrol.apiserver.k8s.io/v1',
  ),
  ...removals(
    32,
    29,
    'flowcontrol.apiserver.k8s.io/v1beta3',
    ['FlowSchema', 'PriorityLevelConfiguration'],
    'flowcontrol.apiserver.k8s.io/v1',
  ),
];

const byKey = new Map(REMOVED_APIS.map((r) => [`${r.apiVersion}|${r.kind}`, r]));

/** The removal of an object's apiVersion and kind, or `undefined` when Kubernetes never removed it. */
export function removedApi(object: Pick<KubeObject, 'apiVersion' | 'kind'>): RemovedApi | undefined {
  return byKey.get(`${object.apiVersion}|${object.kind}`);
}

/**
 * Why the server does not serve an object's apiVersion and kind, naming the server's version:
 * `policy/v1beta1 PodSecurityPolicy was removed in Kubernetes v1.25 (deprecated in v1.21); the
 * cluster runs v1.30.14: no replacement: …` for a removed built-in API, else
 * `the server (Kubernetes v1.30.14) does not serve Widget in example.com/v9`.
 */
export function notServedMessage(
  object: Pick<KubeObject, 'apiVersion' | 'kind'>,
  server: ServerVersion | undefined,
): string {
  const removed = removedApi(object);
  const runs = server ? `Kubernetes ${server.gitVersion}` : undefined;
  if (removed && (!server || server.major > 1 || server.minor >= removed.removedIn)) {
    const use = removed.replacement.startsWith('no replacement')
      ? removed.replacement
      : `use ${removed.replacement}`;
    return `${removed.apiVersion} ${removed.kind} was removed in Kubernetes v1.${removed.removedIn} (deprecated in v1.${removed.deprecatedIn})${runs ? `; the cluster runs ${server!.gitVersion}` : ''}: ${use}`;
  }
  return `the server${runs ? ` (${runs})` : ''} does not serve ${object.kind} in ${object.apiVersion}`;
}
