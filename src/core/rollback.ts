// The one rollback path, shared by `spread rollback` and a deploy's `--rollback-on-failure`: a stored
// revision goes through plan, apply, prune and the rollout wait like a deploy, so it is checked the same.
import { groupKindOf, type KubeObject, type SourcedObject } from '../base/kube-object.js';
import { DEPLOY_ANNOTATION_KEYS, SPREAD } from '../base/labels.js';
import type { Logger } from '../base/logger.js';
import { formatSource } from '../base/source.js';
import type { Discovery } from '../cluster/discovery.js';
import { applyGroup } from '../deployment/deployment.js';
import { formatPlace, placeOf, recreateOf } from '../deployment/phases.js';
import type { AppliedObject } from '../engine/apply/applied.js';
import { type ApplySet, readParent } from '../engine/inventory/applyset.js';
import { type Revision, recordRollback } from '../engine/inventory/history.js';
import type { DeployLock } from '../engine/inventory/lock.js';
import { splitSourceLine } from '../engine/inventory/revision-source.js';
import type { ClusterPort } from '../engine/kube-api.js';
import { planObjects } from '../engine/plan/planner.js';
import type { ApplyOptions } from '../engine/shared/options.js';
import type { PlannedObject } from '../engine/shared/planned.js';
import { RolloutError, type RolloutResult, type WaitOptions, waitForRollout } from '../engine/wait/waiter.js';
import type { ObjectReport } from '../report/report.js';
import { appliedRef, converge, pruneRefs } from './converge.js';
import { cutShort } from './cut-short.js';

/** What {@link rollbackTo} needs: the cluster, the deployment, the revision and how to apply and wait. */
export interface RollbackStep {
  readonly client: ClusterPort;
  readonly discovery: Discovery;
  readonly set: ApplySet;
  /** The revision to apply again, and its number. */
  readonly stored: Revision;
  readonly target: number;
  /**
   * How to plan and apply (field manager, conflicts, ownership policy…). A rollback refuses what a
   * deploy refuses: objects made by hand since the revision, or another deployment's.
   */
  readonly apply: ApplyOptions;
  /** Wait for the rollout with these options; absent: no wait. */
  readonly wait?: Omit<WaitOptions, 'onProgress' | 'signal'>;
  readonly logger: Logger;
  /** Checked before prune: a rollback that lost its lock does not prune. */
  readonly lock?: DeployLock;
  /** Recorded in the revision a failed rollback records. */
  readonly runUrl?: string;
  /** Revisions kept. */
  readonly keep: number;
  /** A failed rollout's description for its revision (see failureDescription). */
  readonly describeFailure: (error: RolloutError) => string;
  /**
   * `--rollback-on-failure`: the Jobs and Pods the failed deploy created or ran, by objectKey, with
   * why they stay: not pruned though the revision does not hold them, since they hold its logs.
   */
  readonly ran?: ReadonlyMap<string, string>;
}

/** What a rollback did; `failure` when its rollout failed (recorded as a failed revision). */
export interface RolledBack {
  readonly applied: readonly AppliedObject[];
  /** The report lines: applied, then pruned. */
  readonly objects: readonly ObjectReport[];
  readonly rollout: readonly RolloutResult[];
  readonly failure?: { readonly error: RolloutError; readonly revision?: number };
}

/**
 * The one rollback, for `spread rollback` and for a deploy's `--rollback-on-failure`: a stored
 * revision goes through the path of a deploy — server-side dry run of every object (nothing written
 * if one fails), parent listing the union, server-side apply in apply order, prune of what the
 * revision does not hold — then its rollout is waited for, less a phase's Job or Pod and any hook
 * (kept as they are, not run: docs/phases.md). A failed rollout is recorded as a failed revision
 * `rollback to N` (a failure to record only warns) and answered in `failure`; recording a
 * successful rollback is the caller's.
 *
 * @throws ApplyError (plan or apply), LockLostError, KubeApiError, the signal's reason.
 */
export async function rollbackTo(step: RollbackStep): Promise<RolledBack> {
  const { client, discovery, set, logger } = step;
  const objects = sortForApply(step.stored.objects.map(revisionObject), discovery);
  // A revision holds no per-deploy annotations: their live values are kept, so that an object the
  // rollback does not change is not written.
  const planned = await logger.group('Plan', () =>
    planObjects(client, discovery, objects, {
      ...step.apply,
      // A rollback runs no phase (as Helm's runs no upgrade hook): a phase's Job or a hook whose
      // revision differs from the one in the cluster is left as it is, neither re-created nor run.
      recreate: (o) => (recreateOf(o) ? 'keep' : undefined),
      preserveAnnotations: DEPLOY_ANNOTATION_KEYS,
      keepUnlessChanged: [SPREAD.source],
    }),
  );
  const plan = withoutPhaseCreates(planned, logger);
  const converged = await converge(client, discovery, set, await readParent(client, set), plan, {
    apply: step.apply,
    groupOf: groupOfLive(discovery),
    prune: true,
    // A hook the target revision did not run (an install-only one) is not in it, yet stays.
    keepHooks: 'a Helm hook, and a rollback runs none',
    ...(step.ran ? { ran: step.ran } : {}),
    logger,
    ...(step.lock ? { lock: step.lock } : {}),
  });
  // A phase's Job or Pod, or a hook, is kept as the cluster has it (a failed one too): not waited for.
  const notRun = converged.applied.filter((a) => runsInPhase(a.object));
  for (const a of notRun)
    logger.info(
      `${a.object.kind} ${a.object.metadata.name} (${formatPlace(placeOf(a.object))}) ${notRunNote(a, 'log')}`,
    );
  const report = [
    ...converged.applied.map((a) =>
      notRun.includes(a) ? { note: notRunNote(a), ...appliedRef(a) } : appliedRef(a),
    ),
    ...pruneRefs(converged, 'deploy'),
  ];
  if (!step.wait) return { applied: converged.applied, objects: report, rollout: [] };
  const waited = converged.applied.filter((a) => !notRun.includes(a));
  try {
    const rollout = await logger.group('Wait', () =>
      waitForRollout(client, waited, {
        ...step.wait!,
        onProgress: (line) => logger.info(line),
        ...(step.apply.signal ? { signal: step.apply.signal } : {}),
      }),
    );
    return { applied: converged.applied, objects: report, rollout };
  } catch (error) {
    if (!(error instanceof RolloutError))
      throw cutShort(
        error,
        report,
        "the rollback's rollout",
        'the rollback was not recorded (roll back again to record it)',
      );
    // The cluster holds the revision again, failing: recorded so, as a deploy's failed rollout.
    const failed = await recordRollback(client, set, step.stored, step.target, {
      ...(step.runUrl ? { runUrl: step.runUrl } : {}),
      keep: step.keep,
      failure: step.describeFailure(error),
    }).catch((recordError: unknown) => {
      logger.warn(`the failed rollback was not recorded: ${(recordError as Error).message}`);
      return undefined;
    });
    return {
      applied: converged.applied,
      objects: report,
      rollout: error.results,
      failure: { error, ...(failed ? { revision: failed.revision } : {}) },
    };
  }
}

/**
 * The plan without the creates of what would run: a Job or a Pod of the pre or post phase, and any
 * hook. A rollback runs no phase (docs/phases.md), so one absent from the cluster (a hook its
 * hook-succeeded policy deleted, a Job deleted by hand) is not created again, which would run it;
 * each is reported as not run. The phases' other objects (a ConfigMap, a Secret, a ServiceAccount
 * a Job used) run nothing: they are created again like the main phase's, since the revision's
 * workloads may read them.
 */
function withoutPhaseCreates(plan: readonly PlannedObject[], logger: Logger): PlannedObject[] {
  return plan.filter((p) => {
    if (p.action !== 'create') return true;
    const place = placeOf(p.object);
    if (!place.hook && (place.phase === 'main' || !runs(p.object))) return true;
    logger.info(
      `${p.object.kind} ${p.object.metadata.name} (${formatSource(p.source)}, ${place.hook ? 'a hook in ' : ''}${formatPlace(place)}) not run: a rollback runs no phase, and it is not in the cluster`,
    );
    return false;
  });
}

/**
 * The log's and report's note on a phase's Job or Pod, or a hook, that a rollback applied: a Job or
 * a Pod is kept as it is, not run; a hook that runs nothing (a Secret) is applied like any object,
 * only not waited for.
 */
function notRunNote(a: AppliedObject, where: 'log' | 'report' = 'report'): string {
  if (!runs(a.object)) return 'applied, not waited for: a rollback runs no phase, and waits for no hook';
  return where === 'log'
    ? 'not run nor waited for: a rollback runs no phase'
    : 'not run: a rollback runs no phase';
}

/**
 * Whether `o` is what a deploy runs outside its main phase: a hook, or a Job or Pod of the pre or
 * post phase. A rollback neither runs nor waits for it: kept as it is, it may hold the failure the
 * rollback undoes.
 */
function runsInPhase(o: KubeObject): boolean {
  const place = placeOf(o);
  return place.hook !== undefined || (place.phase !== 'main' && runs(o));
}

/** Whether creating `o` runs something: a Job (batch) or a Pod (core). */
function runs(o: KubeObject): boolean {
  const { group, kind } = groupKindOf(o);
  return (group === 'batch' && kind === 'Job') || (group === '' && kind === 'Pod');
}

/** Apply groups from discovery, for objects read back from a revision. */
export function groupOfLive(discovery: Pick<Discovery, 'isNamespaced'>): (o: SourcedObject) => number {
  return (o) => {
    const gk = groupKindOf(o.object);
    return applyGroup(gk, discovery.isNamespaced(gk) ?? true);
  };
}

/**
 * A stored object with its source back from spread's `file:line` annotation (`(revision)`, line 0,
 * without one), so that errors name the file and line it was deployed from; the annotation as a
 * deploy applies it (the file only).
 */
export function revisionObject(stored: KubeObject): SourcedObject {
  const { object, source } = splitSourceLine(stored);
  return { object: structuredClone(object), source };
}

function sortForApply(objects: SourcedObject[], discovery: Pick<Discovery, 'isNamespaced'>): SourcedObject[] {
  const rank = groupOfLive(discovery);
  return objects
    .map((o, i) => ({ o, i }))
    .sort((x, y) => rank(x.o) - rank(y.o) || x.i - y.i)
    .map((x) => x.o);
}
