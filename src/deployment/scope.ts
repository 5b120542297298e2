// Which built-in kinds are cluster-scoped, for when no cluster is asked (render, status without a
// context): namespaces are defaulted only on namespaced objects.
import { formatGroupKind, type GroupKind } from '../base/kube-object.js';

/**
 * Built-in cluster-scoped kinds of Kubernetes (from `kubectl api-resources --namespaced=false` of
 * a v1.30+ cluster), used when discovery is not available. Written `Kind.group` like kubectl.
 */
export const CLUSTER_SCOPED: ReadonlySet<string> = new Set([
  'Namespace',
  'Node',
  'PersistentVolume',
  'ComponentStatus',
  'MutatingWebhookConfiguration.admissionregistration.k8s.io',
  'ValidatingWebhookConfiguration.admissionregistration.k8s.io',
  'ValidatingAdmissionPolicy.admissionregistration.k8s.io',
  'ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io',
  'MutatingAdmissionPolicy.admissionregistration.k8s.io',
  'MutatingAdmissionPolicyBinding.admissionregistration.k8s.io',
  'CustomResourceDefinition.apiextensions.k8s.io',
  'APIService.apiregistration.k8s.io',
  'TokenReview.authentication.k8s.io',
  'SelfSubjectReview.authentication.k8s.io',
  'SelfSubjectAccessReview.authorization.k8s.io',
  'SelfSubjectRulesReview.authorization.k8s.io',
  'SubjectAccessReview.authorization.k8s.io',
  'CertificateSigningRequest.certificates.k8s.io',
  'ClusterTrustBundle.certificates.k8s.io',
  'FlowSchema.flowcontrol.apiserver.k8s.io',
  'PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io',
  'IngressClass.networking.k8s.io',
  'IPAddress.networking.k8s.io',
  'ServiceCIDR.networking.k8s.io',
  'RuntimeClass.node.k8s.io',
  'ClusterRole.rbac.authorization.k8s.io',
  'ClusterRoleBinding.rbac.authorization.k8s.io',
  'PriorityClass.scheduling.k8s.io',
  'CSIDriver.storage.k8s.io',
  'CSINode.storage.k8s.io',
  'StorageClass.storage.k8s.io',
  'VolumeAttachment.storage.k8s.io',
  'VolumeAttributesClass.storage.k8s.io',
  'DeviceClass.resource.k8s.io',
  'ResourceSlice.resource.k8s.io',
  // Removed in v1.25 (no server serves them any more); listed so that a file still holding one is
  // reported as the cluster-scoped object it was (see REMOVED_APIS).
  'PodSecurityPolicy.policy',
  'PodSecurityPolicy.extensions',
]);

/** True when the built-in table knows `gk` as cluster-scoped. Unknown kinds are namespaced. */
export function isBuiltinClusterScoped(gk: GroupKind): boolean {
  return CLUSTER_SCOPED.has(formatGroupKind(gk));
}
