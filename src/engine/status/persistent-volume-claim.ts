// The readiness of a PersistentVolumeClaim: bound, or waiting for a first consumer by its StorageClass's
// choice; a claim that can never bind (Lost, missing StorageClass) fails instead of timing out.
import { current, failed, fieldsOf, inProgress, type StatusReader } from './types.js';

/**
 * A core/v1 PersistentVolumeClaim: phase Bound; Lost, or a StorageClass that does not exist, fails;
 * a class that binds on first consumer (`WaitForFirstConsumer`) is ready unbound.
 */
export const persistentVolumeClaimStatus: StatusReader = {
  state(o, context) {
    const { spec, status } = fieldsOf(o);
    const phase = status.phase as string | undefined;
    if (phase === 'Bound') return current('bound');
    if (phase === 'Lost') return failed('lost: its PersistentVolume is gone');
    const storageClass = String(spec.storageClassName ?? '');
    if (context.storageClassMissing) return failed(`StorageClass ${storageClass} does not exist`);
    if (context.volumeBindingMode === 'WaitForFirstConsumer')
      return current(`pending until a pod uses it (StorageClass ${storageClass} binds on first consumer)`);
    return inProgress(`${phase ?? 'Pending'}, not bound yet`);
  },
};
