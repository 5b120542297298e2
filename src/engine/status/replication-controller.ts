// The readiness of a core/v1 ReplicationController, the seed's controller: no rollout status exists for
// it, so spread judges its pods by template itself, as its one-at-a-time replacement (wait/rc-roll.ts) needs.
import { conditionsOf, isPodReady } from '../../base/conditions.js';
import type { KubeObject } from '../../base/kube-object.js';
import { TEMPLATE_HASH } from '../../base/labels.js';
import { ownedPods } from './pods.js';
import {
  current,
  fieldsOf,
  inProgress,
  NOT_OBSERVED,
  num,
  type RolloutContext,
  type RolloutState,
  replicaFailure,
  type StatusReader,
} from './types.js';

type Containers = { name: string; image?: string }[] | undefined;

/**
 * A core/v1 ReplicationController: observedGeneration caught up and every replica ready and
 * available (`status.availableReplicas`: Ready for `spec.minReadySeconds`, as kstatus reads a
 * ReplicaSet); given its pods, `spec.replicas` pods of its current template Ready and none of an
 * older template left.
 */
export const replicationControllerStatus: StatusReader = {
  withPods: true,
  state(o, context: RolloutContext) {
    const { spec, status, generation, observed } = fieldsOf(o);
    if (observed < generation) return inProgress(NOT_OBSERVED);
    const cannotCreate = replicaFailure(conditionsOf(o));
    if (cannotCreate) return cannotCreate;
    const want = num(spec.replicas ?? 1);
    if (context.pods) {
      const currentOnes = rcCurrentPods(o, context.pods);
      const old = ownedPods(o, context.pods).filter(
        (p) => !currentOnes.includes(p) && !p.metadata.deletionTimestamp,
      );
      const currentReady = currentOnes.filter(isPodReady).length;
      if (currentReady < want)
        return inProgress(`${currentReady}/${want} pods of the current template ready`);
      if (old.length > 0) return inProgress(`${old.length} pods of an older template remain`);
      return availability(spec, status, want) ?? current(`${currentReady}/${want} replicas ready`);
    }
    const readyCount = num(status.readyReplicas);
    const labeled = num(status.fullyLabeledReplicas);
    if (readyCount < want || labeled < want) return inProgress(`${readyCount}/${want} replicas ready`);
    return availability(spec, status, want) ?? current(`${readyCount}/${want} replicas ready`);
  },
  currentPods: (o, pods) => rcCurrentPods(o, pods),
};

/**
 * In progress while fewer than `want` replicas are available: a pod counts only once Ready for
 * `minReadySeconds`, and the controller says so in `status.availableReplicas` (0 is left out).
 */
function availability(
  spec: Record<string, unknown>,
  status: Record<string, unknown>,
  want: number,
): RolloutState | undefined {
  const available = num(status.availableReplicas);
  if (available >= want) return undefined;
  const minReady = num(spec.minReadySeconds);
  return inProgress(
    `${available}/${want} replicas available${minReady > 0 ? ` (minReadySeconds: ${minReady})` : ''}`,
  );
}

/**
 * The pods it owns whose {@link TEMPLATE_HASH} annotation equals its template's; without the
 * annotation, those whose containers' names and images equal the template's.
 */
function rcCurrentPods(o: KubeObject, pods: readonly KubeObject[]): KubeObject[] {
  const template = (
    o.spec as
      | {
          template?: {
            metadata?: { annotations?: Record<string, string> };
            spec?: { containers?: Containers };
          };
        }
      | undefined
  )?.template;
  const owned = ownedPods(o, pods);
  const want = template?.metadata?.annotations?.[TEMPLATE_HASH];
  if (want) return owned.filter((p) => p.metadata.annotations?.[TEMPLATE_HASH] === want);
  const signature = (cs: Containers) => (cs ?? []).map((c) => `${c.name}=${c.image ?? ''}`).join(',');
  const templateSig = signature(template?.spec?.containers);
  return owned.filter((p) => signature((p.spec as { containers?: Containers })?.containers) === templateSig);
}
