/**
 * The label and annotation keys and the object names spread writes, and the Kubernetes ones it
 * reads, each spelled here once.
 */

/** Labels and annotations of the ApplySet convention (KEP-3659), as `kubectl apply --applyset` writes them. */
export const APPLYSET = {
  id: 'applyset.kubernetes.io/id',
  partOf: 'applyset.kubernetes.io/part-of',
  tooling: 'applyset.kubernetes.io/tooling',
  containsGroupKinds: 'applyset.kubernetes.io/contains-group-kinds',
  additionalNamespaces: 'applyset.kubernetes.io/additional-namespaces',
} as const;

/** spread's own labels and annotations on every object it applies. */
export const SPREAD = {
  managedBy: 'app.kubernetes.io/managed-by',
  /** The deployment's name, on the parent. */
  deployment: 'spread.rsprd.com/deployment',
  /**
   * On the parent: the repository the deployment comes from (`github.com/acme/shop`), and the
   * deployed folder's path inside it (else its absolute path). See base/origin.ts.
   */
  repository: 'spread.rsprd.com/repository',
  path: 'spread.rsprd.com/path',
  /** On the parent: the spread.yaml environment the deployment was last deployed as, when one was. */
  environment: 'spread.rsprd.com/environment',
  /**
   * On an object `spread delete` kept (a CRD, a Namespace still in use): the ApplySet id it was part
   * of. Its part-of label is removed, so no ApplySet claims it, but the next deploy of the same
   * deployment takes it back without `--adopt`.
   */
  releasedFrom: 'spread.rsprd.com/released-from',
  /**
   * On an object: `keep` leaves it in the cluster when the directory drops it (and through `spread
   * delete`), released from the ApplySet (engine/inventory/prune-policy.ts).
   */
  prune: 'spread.rsprd.com/prune',
  /** The object's file, relative to the deployed directory. */
  source: 'spread.rsprd.com/source',
  /** The commit, run URL and time of the deploy that last changed the object. */
  commit: 'spread.rsprd.com/commit',
  runUrl: 'spread.rsprd.com/run-url',
  deployedAt: 'spread.rsprd.com/deployed-at',
  /**
   * On an object the server named (generateName): its prefix without the trailing `-`, `.` or `_`
   * (a label value ends with a letter or digit), so `kubectl get jobs -l
   * spread.rsprd.com/generate-name=smoke` lists every `smoke-…` Job a deploy created.
   */
  generateName: 'spread.rsprd.com/generate-name',
} as const;

/** The per-deploy annotations: their values change with every deploy, so comparisons keep the live ones. */
export const DEPLOY_ANNOTATION_KEYS: readonly string[] = [SPREAD.commit, SPREAD.runUrl, SPREAD.deployedAt];

/** Labels and annotations of revision Secrets, and the parent's current-revision annotation. */
export const HISTORY = {
  /** Secret type of a revision (like Helm's `helm.sh/release.v1`). */
  type: 'spread.rsprd.com/revision',
  /** Label: the ApplySet id of the deployment (not `applyset.kubernetes.io/part-of`: revisions are never pruned). */
  applySet: 'spread.rsprd.com/applyset-id',
  /** Label and annotation: the revision number; on the parent, the current revision. */
  revision: 'spread.rsprd.com/revision',
  time: 'spread.rsprd.com/time',
  commit: SPREAD.commit,
  runUrl: SPREAD.runUrl,
  /** JSON array of {@link RevisionImage}. */
  images: 'spread.rsprd.com/images',
  /** Why the revision was made beyond a deploy, e.g. `rollback to 3`. */
  description: 'spread.rsprd.com/description',
  /** {@link RevisionStatus} of the revision; absent on revisions recorded before it existed (deployed). */
  status: 'spread.rsprd.com/status',
  objectCount: 'spread.rsprd.com/object-count',
  /**
   * `"false"` on a revision deployed without the rollout wait (`--no-wait`): applied, its rollout
   * never checked, so promote refuses it. Absent (revisions recorded before it existed): checked.
   */
  rolloutChecked: 'spread.rsprd.com/rollout-checked',
  /** Digest of the parent's fingerprints when the revision was recorded (fingerprintsDigest). */
  appliedState: 'spread.rsprd.com/applied-state',
  /** Field manager of the parent's current-revision annotation: a manager of its own, so that the
   * parent's own apply (manager `spread`, which does not list it) does not remove it. */
  fieldManager: 'spread-history',
} as const;

/**
 * Annotation spread puts on a ReplicationController's pod template: a digest of the template as
 * applied. Pods made from the template carry it, so the pods of an older template can be told apart
 * (ReplicationControllers, unlike Deployments, have no pod-template-hash of their own).
 */
export const TEMPLATE_HASH = 'spread.rsprd.com/template-hash';

/** The label spread puts on built images: the context digest they were built from. */
export const CONTEXT_DIGEST_LABEL = 'spread.rsprd.com/context-digest';

/** The value of `app.kubernetes.io/managed-by` on what spread writes (Kubernetes recommended labels). */
export const MANAGED_BY_SPREAD = 'spread';

/** Secret type of an ApplySet parent. */
export const APPLYSET_PARENT_TYPE = 'spread.rsprd.com/applyset';

/** Keys that Kubernetes and kubectl write and spread reads. */
export const KUBERNETES = {
  /** Where client-side `kubectl apply` keeps the applied object (a Secret's values with it). */
  lastApplied: 'kubectl.kubernetes.io/last-applied-configuration',
  /** Label of an EndpointSlice: the Service it belongs to. */
  serviceName: 'kubernetes.io/service-name',
  /** Annotation of a Deployment and its ReplicaSets: the rollout revision. */
  appsDeploymentRevision: 'deployment.kubernetes.io/revision',
} as const;

/**
 * The name of a deployment's own objects, `spread.<deployment>`: its ApplySet parent Secret and its
 * Lease; revision Secrets add `.v<N>` ({@link revisionSecretName}).
 */
export function spreadObjectName(deployment: string): string {
  return `spread.${deployment}`;
}

/** The revision Secret's name: `spread.<deployment>.v<N>` (Helm's `sh.helm.release.v1.<name>.v<N>` in spread's words). */
export function revisionSecretName(deployment: string, revision: number): string {
  return `${spreadObjectName(deployment)}.v${revision}`;
}
