// The readiness of an apps/v1 DaemonSet, read as `kubectl rollout status` reads it, and which of its
// pods belong to the generation rolling out.
import { generationUnobserved, labelOf, ownedPods } from './pods.js';
import { current, fieldsOf, inProgress, NOT_OBSERVED, num, type StatusReader } from './types.js';

/**
 * An apps/v1 DaemonSet, as `kubectl rollout status` reads it: observed, every scheduled pod updated
 * (unless OnDelete) and available. Its current pods carry `pod-template-generation` = its generation.
 */
export const daemonSetStatus: StatusReader = {
  withPods: true,
  state(o) {
    const { spec, status, generation, observed } = fieldsOf(o);
    if (observed < generation) return inProgress(NOT_OBSERVED);
    const want = num(status.desiredNumberScheduled);
    const updated = num(status.updatedNumberScheduled);
    const available = num(status.numberAvailable);
    const onDelete = (spec.updateStrategy as { type?: string } | undefined)?.type === 'OnDelete';
    if (!onDelete && updated < want) return inProgress(`${updated}/${want} pods updated`);
    if (available < want) return inProgress(`${available}/${want} pods available`);
    return current(`${available}/${want} pods available`);
  },
  currentPods(o, pods) {
    if (generationUnobserved(o)) return [];
    const generation = o.metadata.generation;
    const owned = ownedPods(o, pods);
    return generation !== undefined
      ? owned.filter((p) => labelOf(p, 'pod-template-generation') === String(generation))
      : owned;
  },
};
