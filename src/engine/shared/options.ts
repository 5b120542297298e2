// The options plan and apply share: one object, so that the dry run and the write send the same field
// manager, force and ownership rules, and the ownership policy a deploy writes under.
import type { KubeObject } from '../../base/kube-object.js';
import type { DeploymentOrigin } from '../../base/origin.js';

/**
 * spread's server-side apply field manager: the `fieldManager` of every deploy, rollback and delete,
 * and the manager whose fields a plan, status and prune read as spread's.
 */
export const FIELD_MANAGER = 'spread';

/**
 * Which live objects a deploy may write, as Helm and kapp decide it: an object labelled part of
 * another deployment's ApplySet, or one that exists without an ApplySet label (made by hand or by
 * another tool), is refused (`refuse`, the default: once applied, it would be pruned with this
 * deployment), or taken over (`adopt`, `--adopt`; Helm's `--take-ownership`). Adopting also takes
 * over the fields of the kubectl family's field managers (see isTakenOver in managed-fields.ts).
 */
export interface OwnershipPolicy {
  /** The ApplySet id of this deployment (`applyset.kubernetes.io/id`). */
  readonly applySetId: string;
  readonly foreign: 'refuse' | 'adopt';
  /** This deployment, to say how to reach another one of the same origin (`--name`, `-n`). */
  readonly deployment?: {
    readonly name: string;
    readonly namespace: string;
    readonly origin?: DeploymentOrigin;
  };
}

/** Whether the policy adopts foreign objects (absent: no). */
export function adopts(policy: OwnershipPolicy | undefined): boolean {
  return policy?.foreign === 'adopt';
}
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
   * Objects re-created by the deploy without `--replace` (a phase's Jobs, docs/phases.md): `always`,
   * deleted and created again whenever they exist (a hook's before-hook-creation policy: it runs on
   * every deploy); `immutable`, when an immutable field changes (a Job whose template changed);
   * `keep`, never: when an immutable field changes, the live object is kept as it is (a rollback).
   */
  readonly recreate?: (object: KubeObject) => 'always' | 'immutable' | 'keep' | undefined;
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
