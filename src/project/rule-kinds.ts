// The kinds a rule of spread.yaml names (a health rule's GroupKind, an ignoreDifferences rule's group
// and kind), checked against Kubernetes' built-in kinds: kinds are case-sensitive, so `deployment` or
// a Deployment of the core group names no object, and a rule that matches nothing says nothing.

/**
 * Kubernetes' built-in kinds by group (`kubectl api-resources` of a v1.34 cluster; "" is the core
 * group). A kind missing here is taken as a custom resource's and not checked.
 */
const BUILTIN_KINDS: Readonly<Record<string, readonly string[]>> = {
  '': [
    'Binding',
    'ComponentStatus',
    'ConfigMap',
    'Endpoints',
    'Event',
    'LimitRange',
    'Namespace',
    'Node',
    'PersistentVolume',
    'PersistentVolumeClaim',
    'Pod',
    'PodTemplate',
    'ReplicationController',
    'ResourceQuota',
    'Secret',
    'Service',
    'ServiceAccount',
  ],
  'admissionregistration.k8s.io': [
    'MutatingAdmissionPolicy',
    'MutatingAdmissionPolicyBinding',
    'MutatingWebhookConfiguration',
    'ValidatingAdmissionPolicy',
    'ValidatingAdmissionPolicyBinding',
    'ValidatingWebhookConfiguration',
  ],
  'apiextensions.k8s.io': ['CustomResourceDefinition'],
  'apiregistration.k8s.io': ['APIService'],
  apps: ['ControllerRevision', 'DaemonSet', 'Deployment', 'ReplicaSet', 'StatefulSet'],
  autoscaling: ['HorizontalPodAutoscaler'],
  batch: ['CronJob', 'Job'],
  'certificates.k8s.io': ['CertificateSigningRequest', 'ClusterTrustBundle'],
  'coordination.k8s.io': ['Lease', 'LeaseCandidate'],
  'discovery.k8s.io': ['EndpointSlice'],
  'events.k8s.io': ['Event'],
  'flowcontrol.apiserver.k8s.io': ['FlowSchema', 'PriorityLevelConfiguration'],
  'networking.k8s.io': ['IPAddress', 'Ingress', 'IngressClass', 'NetworkPolicy', 'ServiceCIDR'],
  'node.k8s.io': ['RuntimeClass'],
  policy: ['PodDisruptionBudget'],
  'rbac.authorization.k8s.io': ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'],
  'resource.k8s.io': ['DeviceClass', 'ResourceClaim', 'ResourceClaimTemplate', 'ResourceSlice'],
  'scheduling.k8s.io': ['PriorityClass'],
  'storage.k8s.io': [
    'CSIDriver',
    'CSINode',
    'CSIStorageCapacity',
    'StorageClass',
    'VolumeAttachment',
    'VolumeAttributesClass',
  ],
};

/** The groups of each built-in kind, by its name in lower case. */
const GROUPS_BY_KIND = new Map<string, { kind: string; groups: string[] }>();
for (const [group, kinds] of Object.entries(BUILTIN_KINDS))
  for (const kind of kinds) {
    const entry = GROUPS_BY_KIND.get(kind.toLowerCase()) ?? { kind, groups: [] };
    entry.groups.push(group);
    GROUPS_BY_KIND.set(kind.toLowerCase(), entry);
  }

/** A GroupKind as spread writes it: `Kind.group`, the Kind alone for the core group. */
export function groupKindText(kind: string, group: string): string {
  return group === '' ? kind : `${kind}.${group}`;
}

/**
 * Why a rule's kind names no object, with the kind it likely means; undefined when it may name one.
 *
 * - a kind spelt in another case than a built-in kind (`deployment`, `Configmap`), or starting in
 *   lower case (kinds are case-sensitive, and Kubernetes' and its projects' kinds start upper-case);
 * - a built-in kind of another group given the core group (`Deployment` without `apps`; the core
 *   group holds no custom resource, so nothing else of that name is there).
 *
 * @param group the rule's group: "" for the core group, `*` (or undefined) for any.
 * @returns the reason and the likely kind and group (`undefined` group: keep the rule's).
 */
export function kindMistake(
  kind: string,
  group: string | undefined,
): { reason: string; kind: string; group?: string } | undefined {
  if (kind === '*' || kind === '') return undefined;
  const builtin = GROUPS_BY_KIND.get(kind.toLowerCase());
  if (builtin && builtin.kind !== kind)
    return {
      reason: `kinds are case-sensitive: ${JSON.stringify(kind)} names no object; the built-in kind is ${builtin.kind}`,
      kind: builtin.kind,
      ...(group === '' && !builtin.groups.includes('') ? { group: builtin.groups[0] } : {}),
    };
  if (!builtin && /^[a-z]/.test(kind)) {
    const capital = `${kind[0]!.toUpperCase()}${kind.slice(1)}`;
    return {
      reason: `kinds are case-sensitive and start upper-case: ${JSON.stringify(kind)} names no object`,
      kind: capital,
    };
  }
  if (builtin && group === '' && !builtin.groups.includes(''))
    return {
      reason: `${kind} is not in the core group but in ${builtin.groups.join(', ')}`,
      kind,
      group: builtin.groups[0],
    };
  return undefined;
}
