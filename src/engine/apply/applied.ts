// What applying did to each object (created, configured, unchanged, later pruned or kept): the apply's
// result, which the rollout waiter, a failed apply's error and core's settle and rollback read.
import type { KubeObject, SourcedObject } from '../../base/kube-object.js';
import type { ResourceInfo } from '../../cluster/discovery.js';

/** What applying did to one object. `pruned` and `kept` (a prune candidate left in place) are added by prune. */
export type ObjectAction = 'created' | 'configured' | 'unchanged' | 'pruned' | 'kept';

/** One object of the set with what the server said about it. */
export interface AppliedObject extends SourcedObject {
  readonly resource: ResourceInfo;
  readonly action: ObjectAction;
  /** The object was deleted and created again (`--replace`, immutable fields changed). */
  readonly replaced?: boolean;
  /** Why a replaced object was run again though unchanged (PlannedObject's `rerun`). */
  readonly rerun?: string;
  /** The object as the API server stored it after the apply. */
  readonly live: KubeObject;
}
