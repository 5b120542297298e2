// The apply stage: the deploy's annotations on what changes, then the converge (parent, server-side
// apply step by step and group by group, prune, parent), its steps the deploy's phases and waves
// (steps.ts). Its output, Settling, is what the settle stage may read: the revision to record
// decided, the rest let go (trim.ts).

import type { SourcedObject } from '../../base/kube-object.js';
import { optionRef } from '../../base/option-ref.js';
import { formatSource } from '../../base/source.js';
import { comparePlaces, isHoisted, placeOf } from '../../deployment/phases.js';
import { ApplyError, type ObjectFailure } from '../../engine/apply/errors.js';
import type { ApplySet } from '../../engine/inventory/applyset.js';
import type { DeployLease } from '../../engine/inventory/deploy-lease.js';
import {
  type EncodedObjectSet,
  encodeObjectSet,
  listRevisions,
  type RevisionSummary,
  revisionOfParent,
} from '../../engine/inventory/history.js';
import {
  objectSetDigest,
  type RevisionCheck,
  readRevisionCheck,
} from '../../engine/inventory/revision-check.js';
import { withSourceLine } from '../../engine/inventory/revision-source.js';
import { type ApplyOptions, FIELD_MANAGER } from '../../engine/shared/options.js';
import type { PlannedObject } from '../../engine/shared/planned.js';
import type { RolloutResult } from '../../engine/wait/waiter.js';
import type { HealthRules } from '../../project/health.js';
import type { ObjectReport, SkippedObject } from '../../report/report.js';
import { appliedRef, type Converged, converge, pruneRefs, type Steps, sourceRef } from '../converge.js';
import { failedAt } from './failure.js';
import type { ReportBase, Run } from './options.js';
import type { PlannedForApply } from './plan.js';
import type { DirectoryRead } from './read.js';
import { deploySteps, PhaseError, runningJobNote } from './steps.js';
import { type ApplyingObject, forSettle, type SettlingConverged } from './trim.js';

/** What the apply did, and whether the deploy changed nothing at all. */
export interface Applied {
  readonly converged: Converged;
  readonly reported: ObjectReport[];
  /** The deployment's revision before this deploy. */
  readonly revisionBefore: number | undefined;
  /** Nothing changed: the current revision again, no new one recorded. */
  readonly unchanged: boolean;
  /** When nothing was to change: the read of the current revision, started beside the converge. */
  readonly revisionCheckPending: Promise<RevisionCheck | undefined> | undefined;
  /** Otherwise: the stored revisions, listed beside the converge for the record that follows it. */
  readonly revisionsPending: Promise<RevisionSummary[]> | undefined;
  /**
   * With phases or waves: every step's rollout, each object waited for once, in its step (without
   * `wait`, every step's but the last's); the settle stage does not wait for them again.
   */
  readonly stepsWaited: readonly RolloutResult[] | undefined;
  /** The objects of the steps after a failed one, which were not applied. */
  readonly skipped: readonly SkippedObject[];
}

/** Annotates what changes, checks annotation conflicts, and converges: apply, prune, parent. */
export async function applyStage(
  run: Run,
  read: DirectoryRead,
  { previous, planned, mayPrune, notRun, members }: PlannedForApply,
  lease: DeployLease,
): Promise<Applied> {
  const { options, logger, api } = run;
  // The deploy's annotations (commit, run URL, time) go on what this deploy changes only, so an
  // unchanged object stays unchanged and records the deploy that last changed it.
  const plan = options.annotations ? planned.map((p) => annotate(p, options.annotations!)) : planned;
  // The dry run sent the live values of these annotations; the apply sends new ones. Where another
  // manager owns one (an object re-created from a `kubectl get` export), only the apply would
  // conflict: find that now, while nothing is written.
  if (options.annotations && !options.forceConflicts) {
    const conflicts = annotationConflicts(plan, options.annotations, FIELD_MANAGER);
    if (conflicts.length > 0) throw new ApplyError('plan', conflicts);
  }
  // The parent read above, under the lock: the plan wrote nothing since.
  const revisionBefore = revisionOfParent(previous.object);
  const nothingToChange = plan.every((p) => p.action === 'unchanged');
  // A deploy that changes nothing needs that revision's status at the end; converging writes no
  // revision, so it is read now, alongside, rather than as one more round trip afterwards.
  const revisionCheckPending =
    revisionBefore !== undefined && nothingToChange
      ? readRevisionCheck(api, read.set, revisionBefore)
      : undefined;
  revisionCheckPending?.catch(() => {});
  // Only under the lock (a new namespace's is taken after its first group, and it holds none yet).
  const revisionsPending = !revisionCheckPending && lease.lock ? listRevisions(api, read.set) : undefined;
  revisionsPending?.catch(() => {});
  for (const w of helmReleasesTakenOver(plan)) logger.warn(w);
  for (const p of plan) {
    const running = p.action === 'replace' ? runningJobNote(p.live) : undefined;
    if (running) logger.warn(`Job ${p.object.metadata.name} (${formatSource(p.source)}): ${running}`);
  }
  const steps = deploySteps(run, plan, read.read.health);
  const converged = await converge(api, run.discovery, read.set, previous, plan, {
    apply: read.applyOptions,
    groupOf: read.read.groupOf,
    prune: mayPrune,
    notRun,
    pruneCrds: options.pruneCrds ?? false,
    logger,
    ...(lease.lock ? { lock: lease.lock } : {}),
    ...(nothingToChange ? { keepFingerprints: previous.fingerprints } : {}),
    recordFingerprints: true,
    afterGroup: () => lease.takeOnceNamespaceExists(read.name),
    members,
    ...withSteps(steps),
  }).catch((error: unknown) => {
    throw failedAt(error, run, read.name, true);
  });
  const reported = [
    ...converged.applied.map(appliedRef),
    ...deletedHookRefs(converged),
    ...pruneRefs(converged, 'deploy'),
  ];
  // A deploy that changed nothing is the current revision again; it records no new one (unless
  // that revision's rollout had failed and now succeeds).
  const unchanged =
    revisionBefore !== undefined && reported.every((o) => o.action === 'unchanged' || o.action === 'kept');
  const halt = converged.halted?.error;
  // A failed step stops the deploy: what the steps after it hold was not written.
  const skipped =
    halt instanceof PhaseError
      ? plan
          .filter((p) => !isHoisted(p.object) && comparePlaces(placeOf(p.object), halt.place) > 0)
          .map(sourceRef)
      : [];
  return {
    converged,
    reported,
    revisionBefore,
    unchanged,
    revisionCheckPending,
    revisionsPending,
    stepsWaited: steps?.waited,
    skipped,
  };
}

/**
 * What the revision records of the directory's objects, decided before the rollout wait so that
 * they are let go before it: the current revision `kept`, or the objects `encoded` for a new one.
 */
export type ToRecord =
  | { readonly kept: RevisionCheck; readonly encoded?: undefined }
  | { readonly kept?: undefined; readonly encoded: EncodedObjectSet };

/**
 * What the settle stage may read: the deployment's ApplySet and apply options (for a rollback),
 * what to record, the apply's outcome with only the objects the wait and the URL read, and the
 * report's base. Nothing of the directory as read, of the plan, or of the objects' dry runs.
 */
export interface Settling {
  readonly set: ApplySet;
  readonly applyOptions: ApplyOptions;
  readonly toRecord: ToRecord;
  readonly converged: SettlingConverged;
  readonly reported: readonly ObjectReport[];
  readonly revisionBefore: number | undefined;
  readonly unchanged: boolean;
  /** The stored revisions, listed beside the converge (see {@link Applied}). */
  readonly revisionsPending: Promise<RevisionSummary[]> | undefined;
  /** The project file's health rules, for the wait (and a rollback's). */
  readonly health: HealthRules;
  readonly base: ReportBase;
  /** Every step's rollout, with phases or waves ({@link Applied}). */
  readonly stepsWaited: readonly RolloutResult[] | undefined;
  /** The objects of the steps after a failed one ({@link Applied}). */
  readonly skipped: readonly SkippedObject[];
}

/** The apply's outcome as the settle stage holds it ({@link Settling}). */
export async function settlingOf(
  run: Run,
  read: DirectoryRead,
  objects: readonly SourcedObject[],
  applied: Applied,
  base: ReportBase,
): Promise<Settling> {
  const { reported, revisionBefore, unchanged, revisionsPending, stepsWaited, skipped } = applied;
  const toRecord = await forRecord(run, read.set, objects, applied);
  const converged = forSettle(applied.converged, { ...run.options, health: read.read.health });
  const { set, applyOptions } = read;
  return {
    set,
    applyOptions,
    toRecord,
    converged,
    reported,
    revisionBefore,
    unchanged,
    revisionsPending,
    base,
    health: read.read.health,
    stepsWaited,
    skipped,
  };
}

/**
 * Nothing changed: the current revision is kept, if it holds these objects and its rollout did not
 * fail. A deploy interrupted after its apply (SIGKILL, SIGTERM during the wait) left the cluster as
 * the directory says without recording it: the rerun changes nothing and records it. A current
 * revision that cannot be read is not kept: the objects are recorded again (which only warns if
 * that fails too), and the rollout is waited for either way.
 */
export async function forRecord(
  run: Pick<Run, 'api'>,
  set: ApplySet,
  objects: readonly SourcedObject[],
  applied: Pick<Applied, 'revisionBefore' | 'unchanged' | 'revisionCheckPending'>,
): Promise<ToRecord> {
  const { revisionBefore: before, unchanged } = applied;
  const read = unchanged
    ? (applied.revisionCheckPending ?? readRevisionCheck(run.api, set, before!))
    : undefined;
  const current = await read?.catch(() => undefined);
  const asApplied = objects.map((o) => o.object);
  if (current && current.status !== 'failed' && current.objectSet === objectSetDigest(asApplied))
    return { kept: current };
  // Stored with their lines, for a rollback's messages (revision-source.ts).
  return { encoded: encodeObjectSet(objects.map(withSourceLine)) };
}

/**
 * The planned updates whose new deploy annotations another field manager owns with another value: the
 * server-side apply would fail with a conflict on them (Kubernetes "Server-Side Apply", Conflicts).
 */
function annotationConflicts(
  plan: readonly PlannedObject[],
  annotations: Readonly<Record<string, string>>,
  fieldManager: string,
): ObjectFailure[] {
  const failures: ObjectFailure[] = [];
  for (const p of plan) {
    if (p.action !== 'update' || !p.live) continue;
    const live = p.live.metadata.annotations ?? {};
    const entries = (p.live.metadata.managedFields ?? []) as {
      manager?: string;
      fieldsV1?: { 'f:metadata'?: { 'f:annotations'?: Record<string, unknown> } };
    }[];
    for (const [key, value] of Object.entries(annotations)) {
      if (live[key] === value) continue;
      const owner = entries.find(
        (e) =>
          e.manager !== fieldManager &&
          // A manager spread takes over (--adopt) hands its fields to spread before the apply.
          !p.takesOver?.includes(e.manager ?? '') &&
          e.fieldsV1?.['f:metadata']?.['f:annotations']?.[`f:${key}`] !== undefined,
      );
      if (owner)
        failures.push({
          object: p,
          message: `conflict with "${owner.manager}": it owns the annotation ${key}, which spread sets on every object it changes (another manager's copy, e.g. an object re-created from an export); use ${optionRef('force-conflicts')} to take it over`,
        });
    }
  }
  return failures;
}

function annotate(p: ApplyingObject, annotations: Readonly<Record<string, string>>): ApplyingObject {
  if (p.action === 'unchanged') return p;
  const metadata = {
    ...p.object.metadata,
    annotations: { ...p.object.metadata.annotations, ...annotations },
  };
  return { ...p, object: { ...p.object, metadata } };
}

/** Helm's annotations on the objects of a release (`helm install` sets them; `--take-ownership` reads them). */
const HELM_RELEASE = {
  name: 'meta.helm.sh/release-name',
  namespace: 'meta.helm.sh/release-namespace',
} as const;

/**
 * One message per Helm release whose objects this deploy takes over (`--adopt`): Helm's release
 * records (Secrets `sh.helm.release.v1.NAME.vN`, labelled `owner=helm,name=NAME`) are left alone,
 * and saying how to remove them keeps `helm uninstall`, which would delete the objects, from being
 * the way a team cleans up.
 */
export function helmReleasesTakenOver(plan: readonly PlannedObject[]): string[] {
  const releases = new Map<string, { name: string; namespace: string; objects: number }>();
  for (const p of plan) {
    if (!p.live || !p.takesOver?.includes('helm')) continue;
    const annotations = p.live.metadata.annotations ?? {};
    const name = annotations[HELM_RELEASE.name];
    if (!name) continue;
    const namespace = annotations[HELM_RELEASE.namespace] ?? p.live.metadata.namespace ?? 'default';
    const key = `${namespace}/${name}`;
    const r = releases.get(key) ?? { name, namespace, objects: 0 };
    r.objects++;
    releases.set(key, r);
  }
  return [...releases.values()].map(
    (r) =>
      `${r.objects} object${r.objects === 1 ? '' : 's'} of Helm release ${r.name} (namespace ${r.namespace}) taken over; Helm's release records are left as they were: remove them with kubectl delete secret -n ${r.namespace} -l owner=helm,name=${r.name} (not helm uninstall, which deletes the objects)`,
  );
}

function withSteps(steps: Steps | undefined): { steps?: Steps } {
  return steps ? { steps } : {};
}

/**
 * The hooks applied and then deleted by their delete policy, as report lines: created (or
 * configured) by this deploy, and counted so, with the policy that removed them in the note.
 */
function deletedHookRefs(converged: Converged): ObjectReport[] {
  return [...(converged.deletedHooks ?? [])].map(([a, policy]) => ({
    ...appliedRef(a),
    note: `deleted by its hook-delete-policy ${policy}`,
  }));
}
