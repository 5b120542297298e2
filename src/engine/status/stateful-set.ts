// The readiness of an apps/v1 StatefulSet, read as `kubectl rollout status` reads it (partitions,
// OnDelete), and which of its pods belong to the revision rolling out.
import { generationUnobserved, labelOf, ownedPods } from './pods.js';
import { current, fieldsOf, inProgress, NOT_OBSERVED, num, type StatusReader } from './types.js';

/**
 * An apps/v1 StatefulSet, as `kubectl rollout status` reads it: observed, every replica ready, and
 * for RollingUpdate the update done (up to its partition); OnDelete sets are ready once ready.
 * Its current pods carry `controller-revision-hash` = `status.updateRevision`.
 */
export const statefulSetStatus: StatusReader = {
  withPods: true,
  state(o) {
    const { spec, status, generation, observed } = fieldsOf(o);
    if (observed === 0 || observed < generation) return inProgress(NOT_OBSERVED);
    const want = num(spec.replicas ?? 1);
    const readyCount = num(status.readyReplicas);
    if (readyCount < want) return inProgress(`${readyCount}/${want} replicas ready`);
    const update = spec.updateStrategy as
      | { type?: string; rollingUpdate?: { partition?: number } }
      | undefined;
    if ((update?.type ?? 'RollingUpdate') !== 'RollingUpdate')
      return current(`${readyCount}/${want} replicas ready (${update?.type} updates)`);
    const partition = num(update?.rollingUpdate?.partition);
    if (partition > 0) {
      const updated = num(status.updatedReplicas);
      if (updated < want - partition)
        return inProgress(`${updated}/${want - partition} replicas updated (partition ${partition})`);
      return current(`${readyCount}/${want} replicas ready, ${updated} updated (partition ${partition})`);
    }
    if (status.updateRevision !== status.currentRevision)
      return inProgress(`${num(status.updatedReplicas)}/${want} replicas updated`);
    return current(`${readyCount}/${want} replicas ready`);
  },
  currentPods(o, pods) {
    if (generationUnobserved(o)) return [];
    const revision = (o.status as { updateRevision?: string } | undefined)?.updateRevision;
    const owned = ownedPods(o, pods);
    return revision ? owned.filter((p) => labelOf(p, 'controller-revision-hash') === revision) : owned;
  },
};
