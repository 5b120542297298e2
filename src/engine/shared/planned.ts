// What the plan found for each object: the action it expects the apply to take, and the states behind
// it. The planner produces it and the applier consumes it, so it lives below both; report/ and core/
// read it to show and settle a deploy.
import type { KubeObject, SourcedObject } from '../../base/kube-object.js';
import type { ResourceInfo } from '../../cluster/discovery.js';
import type { FieldChange } from '../../deployment/diff.js';

/**
 * What the plan expects applying to do to one object. `replace`: an immutable field changes and
 * `--replace` was given, so the object is deleted and created again. `keep`: a prune candidate that
 * stays (a Namespace still in use, a CRD), with the reason in the report's `note`.
 */
export type PlannedAction = 'create' | 'update' | 'unchanged' | 'prune' | 'replace' | 'keep';

/** One object the plan looked at. */
export interface PlannedObject extends SourcedObject {
  readonly resource: ResourceInfo | undefined;
  readonly action: PlannedAction;
  /** The object as it is in the cluster now; absent for `create`. */
  readonly live?: KubeObject;
  /** The object as the dry run says it would be; absent when the dry run could not run yet (see `deferred`). */
  readonly after?: KubeObject;
  /**
   * Why the object could not be checked by a dry run before the deploy: its Namespace or its
   * CustomResourceDefinition is created by the same deploy. It is checked when it is applied.
   */
  readonly deferred?: string;
  /**
   * For `replace` of an object that did not change: why it runs again (a `pre` or `post` Job:
   * `re-run: failed in an earlier deploy`; a hook: `hook: re-created each deploy,
   * before-hook-creation`), for the plan's and the deploy's reports.
   */
  readonly rerun?: string;
  /** For `update`: the fields that change (Secret values redacted). */
  readonly changes?: readonly FieldChange[];
  /**
   * For `update`: the field managers whose fields spread takes over (see isTakenOver); the fields
   * they set that the directory does not declare are removed, and `after` and `changes` show it.
   */
  readonly takesOver?: readonly string[];
  /**
   * Fields of the live object that other field managers (not controllers) set and the directory does
   * not declare: the apply leaves them, so an `unchanged` object with them is not in sync (see
   * foreignFields).
   */
  readonly foreign?: readonly ForeignFields[];
  /**
   * For `unchanged` found by a recorded fingerprint: that fingerprint (of this object and `live`), so
   * that recording the deploy's fingerprints does not compute it again. `live` and `after` are then
   * one object, without its managedFields (which only the fingerprint reads).
   */
  readonly fingerprint?: string;
}

/** Fields of one other field manager that the directory does not declare (see foreignFields in plan/takeover.ts). */
export interface ForeignFields {
  readonly manager: string;
  /** e.g. `data.b`, `metadata.labels.team`, `spec.ports[port=80,protocol=TCP].nodePort`. */
  readonly fields: readonly string[];
}
