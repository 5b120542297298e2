import type { KubeObject, SourcedObject } from '../../base/kube-object.js';
import type { ResourceInfo } from '../../cluster/discovery.js';
import type { FieldChange } from '../../deployment/diff.js';
import type { OwnershipPolicy } from './ownership.js';
import type { ForeignFields } from './takeover.js';

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
  /** For `update`: the fields that change (Secret values redacted). */
  readonly changes?: readonly FieldChange[];
  /**
   * For `update`: the field managers whose fields spread takes over (see takeover.ts); the fields
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

/**
 * spread's server-side apply field manager: the `fieldManager` of every deploy, rollback and delete,
 * and the manager whose fields a plan, status and prune read as spread's.
 */
export const FIELD_MANAGER = 'spread';

/** Options of {@link planObjects} and {@link applyObjects}. */
export interface ApplyOptions {
  /** The server-side apply field manager; spread's is `spread`. */
  readonly fieldManager: string;
  /** Take fields over from other field managers instead of failing on conflicts (`--force-conflicts`). */
  readonly forceConflicts: boolean;
  /** Requests in flight at once within one ordering group. */
  readonly concurrency: number;
  /** Delete and re-create objects whose immutable fields change, instead of failing (`--replace`). */
  readonly replace?: boolean;
  /**
   * Annotation keys whose live values are kept in the planned object (spread's per-deploy
   * annotations: commit, run URL, time), so that they alone never make an object differ.
   */
  readonly preserveAnnotations?: readonly string[];
  /**
   * Annotation keys whose live values are kept while nothing else about the object changes, and
   * written anew with any other change (spread's source annotation: a moved or renamed file alone
   * changes no object, and the plan does not show it).
   */
  readonly keepUnlessChanged?: readonly string[];
  /**
   * Which live objects the deploy may write (see {@link OwnershipPolicy}); absent, the plan checks
   * no ownership (an object set that is no deployment's).
   */
  readonly ownership?: OwnershipPolicy;
  /**
   * Called for each `Warning` the API server sends about an object in the dry run (deprecated API
   * versions, for example), so the front end can show it on the object's file.
   */
  readonly onWarning?: (object: KubeObject, warning: string) => void;
  /**
   * Fingerprints of the states the last completed deploy left (the ApplySet parent's): an object whose
   * live state has one of them is planned `unchanged` without a dry run (see {@link objectFingerprint}).
   */
  readonly fingerprints?: ReadonlySet<string>;
  /** Called after each apply group completed (applyObjects only). */
  readonly afterGroup?: (group: number) => Promise<void>;
  readonly signal?: AbortSignal;
}
