// The readiness of a Pod applied as such (spread's pod.yaml without a controller): its Ready
// condition, or Succeeded; a Failed phase fails the deploy at once.
import { isPodReady } from '../../base/conditions.js';
import { current, failed, fieldsOf, inProgress, type StatusReader } from './types.js';

/** A core/v1 Pod: Succeeded, or its Ready condition; phase Failed fails. Its current pod is itself. */
export const podStatus: StatusReader = {
  state(o) {
    const { status } = fieldsOf(o);
    const phase = status.phase as string | undefined;
    if (phase === 'Succeeded') return current('succeeded');
    if (phase === 'Failed') return failed(`failed: ${String(status.message ?? status.reason ?? '')}`);
    if (isPodReady(o)) return current('ready');
    return inProgress(`phase ${phase ?? 'Pending'}, not ready`);
  },
  currentPods: (o, pods) => pods.filter((p) => p.metadata.name === o.metadata.name),
};
