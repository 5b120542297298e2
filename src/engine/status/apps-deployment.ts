// The readiness of an apps/v1 Deployment (the Kubernetes kind, not spread's object set), read as
// `kubectl rollout status` reads it, and which of its pods belong to the revision rolling out.
import { conditionsOf } from '../../base/conditions.js';
import type { KubeObject } from '../../base/kube-object.js';
import { KUBERNETES } from '../../base/labels.js';
import { generationUnobserved, labelOf, ownedBy } from './pods.js';
import {
  current,
  failed,
  fieldsOf,
  inProgress,
  NOT_OBSERVED,
  num,
  replicaFailure,
  type StatusReader,
} from './types.js';

/**
 * An apps/v1 Deployment, as `kubectl rollout status` reads it: observedGeneration caught up, no
 * ProgressDeadlineExceeded or ReplicaFailure, every replica updated, no old replica left, and every
 * updated replica available. Its current pods are those of the ReplicaSet of its revision.
 */
export const appsDeploymentStatus: StatusReader = {
  withPods: true,
  state(o) {
    const { spec, status, generation, observed } = fieldsOf(o);
    if (observed < generation) return inProgress(NOT_OBSERVED);
    const conditions = conditionsOf(o);
    const progressing = conditions.find((c) => c.type === 'Progressing');
    if (progressing?.reason === 'ProgressDeadlineExceeded')
      return failed(`progress deadline exceeded: ${progressing.message ?? ''}`);
    const cannotCreate = replicaFailure(conditions);
    if (cannotCreate) return cannotCreate;
    const want = num(spec.replicas ?? 1);
    const updated = num(status.updatedReplicas);
    const available = num(status.availableReplicas);
    const total = num(status.replicas);
    if (updated < want) return inProgress(`${updated}/${want} replicas updated`);
    if (total > updated) return inProgress(`${total - updated} old replicas pending termination`);
    if (available < updated) return inProgress(`${available}/${want} replicas available`);
    return current(`${available}/${want} replicas available`);
  },
  currentPods(o, pods, replicaSets) {
    if (generationUnobserved(o)) return [];
    const revision = o.metadata.annotations?.[KUBERNETES.appsDeploymentRevision];
    const rs = replicaSets.find(
      (r: KubeObject) =>
        ownedBy(r, o) &&
        revision !== undefined &&
        r.metadata.annotations?.[KUBERNETES.appsDeploymentRevision] === revision,
    );
    if (!rs) return replicaSets.length > 0 ? [] : [...pods];
    const hash = labelOf(rs, 'pod-template-hash');
    return pods.filter(
      (p) => ownedBy(p, rs) && (hash === undefined || labelOf(p, 'pod-template-hash') === hash),
    );
  },
};
