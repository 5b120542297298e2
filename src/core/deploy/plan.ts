// The plan stage: the ApplySet parent read under the lock, and every object planned against it with a
// server-side dry run (nothing is written if any fails). A deploy keeps of the plan only what the apply
// reads (PlannedForApply, trim.ts); `spread plan` reports it whole, with what a deploy would prune.
import { formatObjectRef, isGenerated, nameOf, type SourcedObject } from '../../base/kube-object.js';
import { formatSource } from '../../base/source.js';
import { helmHookSkipped } from '../../deployment/phases.js';
import {
  findPruneCandidates,
  labelForApplySet,
  type ParentState,
  readParent,
} from '../../engine/inventory/applyset.js';
import { findForeignObjects } from '../../engine/inventory/foreign.js';
import { revisionOfParent } from '../../engine/inventory/history.js';
import { objectKey, splitPrune } from '../../engine/inventory/prune.js';
import type { ListedMembers } from '../../engine/plan/live.js';
import { planObjects } from '../../engine/plan/planner.js';
import { foreignNote } from '../../engine/plan/takeover.js';
import type { PlannedObject } from '../../engine/shared/planned.js';
import { withTemplateHash } from '../../engine/wait/rc-roll.js';
import type { DeployReport, ObjectReport } from '../../report/report.js';
import { pruneRefs, sourceRef } from '../converge.js';
import { originConflict } from '../identity.js';
import type { ReportBase, Run } from './options.js';
import type { DirectoryRead } from './read.js';
import { placesOf, runningJobNote } from './steps.js';
import { type ApplyingObject, forApply } from './trim.js';

/** The plan: the parent as read, the objects labelled for the ApplySet, and each one's dry run. */
export interface Planned<P extends PlannedObject = PlannedObject> {
  readonly previous: ParentState;
  /** The directory's objects as applied (images pinned, ApplySet label, template hash). */
  readonly objects: readonly SourcedObject[];
  readonly planned: readonly P[];
  /** Whether the deploy prunes: with `prune`, unless the directory is empty without `allowEmpty`. */
  readonly mayPrune: boolean;
  /**
   * The Helm hooks this deploy does not run ({@link forEvent}), by objectKey, each with why: prune
   * keeps their live objects in the set (splitPrune's `notRun`).
   */
  readonly notRun: ReadonlyMap<string, string>;
  /**
   * The set's other members the plan's LISTs saw (`listMembers`), by collection: under the deploy's
   * lock, what the apply adds to the set is in the plan, so a collection where the plan saw no other
   * member has nothing to prune, and prune does not list it again after the apply.
   */
  readonly members?: ListedMembers | undefined;
}

/** A deploy's plan, each object held as the apply needs it ({@link forApply}). */
export type PlannedForApply = Planned<ApplyingObject>;

/** Reads the ApplySet parent and plans the labelled objects against it. */
export async function planStage(
  run: Run,
  read: DirectoryRead,
  prepared: readonly SourcedObject[],
  how: {
    readonly title?: string;
    /**
     * Note the set's other members the plan's LISTs see ({@link Planned.members}): a deploy under its
     * lock; by default a plan (`mode: 'plan'`), which writes nothing.
     */
    readonly listMembers?: boolean;
  } = {},
): Promise<Planned> {
  const { api, discovery, options, logger, namespace } = run;
  const { set } = read;
  const previous = await readParent(api, set);
  if (previous.exists && previous.tooling && !previous.tooling.startsWith('spread/')) {
    throw new Error(
      `the ApplySet parent secret/${set.parentName} in ${namespace} is managed by ${previous.tooling}, not spread; choose another --name`,
    );
  }
  // Checked again under the lock: another folder may have deployed since the read.
  const conflict = originConflict(set.name, namespace, previous, options.origin, options.adopt === true);
  if (conflict) throw conflict;
  const notRun = new Map<string, string>();
  const objects = forEvent(run, previous, prepared, notRun).map((o) => ({
    ...o,
    object: withTemplateHash(labelForApplySet(o, set)),
  }));
  const mayPrune = options.prune && (objects.length > 0 || options.allowEmpty === true);
  // Not with phases or waves: their steps wait between applies, and hooks come and go.
  const members: ListedMembers | undefined =
    (how.listMembers ?? options.mode === 'plan') && mayPrune && !placesOf(objects)
      ? { partOf: set.id, byCollection: new Map() }
      : undefined;
  const planned = await logger.group(how.title ?? 'Plan', () =>
    planObjects(
      api,
      discovery,
      objects,
      {
        ...read.applyOptions,
        // A plan (a pull request's check) dry-runs everything: admission policies and CRD schemas
        // may have changed since the last deploy, and only a dry run shows that.
        ...(options.mode === 'deploy' ? { fingerprints: previous.fingerprints } : {}),
      },
      members,
    ),
  );
  return { previous, objects, planned, mayPrune, notRun, members };
}

/**
 * A deploy's {@link planStage}: its dry runs let go as soon as planned ({@link forApply}); the set's
 * other members noted from the plan's LISTs when the deploy holds its lock (`locked`).
 */
export async function planForApply(
  run: Run,
  read: DirectoryRead,
  prepared: readonly SourcedObject[],
  locked: boolean,
): Promise<PlannedForApply> {
  const { planned, ...plan } = await planStage(run, read, prepared, { listMembers: locked });
  return { ...plan, planned: planned.map((p) => forApply(p, { ...run.options, health: read.read.health })) };
}

/** `spread plan`'s report: the plan, and what a deploy would prune or keep. */
export async function planReport(
  run: Run,
  read: DirectoryRead,
  plan: Planned,
  base: ReportBase,
): Promise<DeployReport> {
  const { api, discovery, options, logger } = run;
  const { set } = read;
  const { previous, objects, planned } = plan;
  const decision = plan.mayPrune
    ? await splitPrune(
        api,
        await findPruneCandidates(api, discovery, set, previous, objects, {
          listed: plan.members,
          onForbidden: (what) =>
            logger.warn(
              `cannot list ${what} (no list right): objects of it that the directory dropped would not be pruned`,
            ),
        }),
        objects,
        {
          pruneCrds: options.pruneCrds ?? false,
          foreign: (ns) => findForeignObjects(api, discovery, ns, set),
          notRun: plan.notRun,
        },
      )
    : { pruned: [], kept: [], notes: new Map() };
  for (const k of decision.kept.filter((x) => x.warning))
    logger.warn(
      `${formatObjectRef({ kind: k.candidate.object.kind, name: k.candidate.object.metadata.name })} would be kept: ${k.reason}`,
    );
  return {
    ...base,
    mode: 'plan',
    objects: [...planned.map(plannedRef), ...pruneRefs(decision, 'plan')],
    rollout: [],
    durationMs: Date.now() - run.started,
  };
}

function plannedRef(p: PlannedObject): ObjectReport {
  const notes = [
    isGenerated(p.object)
      ? 'generateName: each deploy creates a new one; those of earlier deploys are pruned'
      : '',
    p.takesOver
      ? `takes over the fields of ${p.takesOver.join(', ')}: those the directory does not declare are removed`
      : '',
    p.foreign ? foreignNote(p.foreign) : '',
    p.rerun ?? '',
    p.action === 'replace' ? (runningJobNote(p.live) ?? '') : '',
  ].filter(Boolean);
  return {
    ...sourceRef(p),
    action: p.action,
    ...(p.changes ? { changes: p.changes } : {}),
    ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
    // A replace's reason is its immutable-field error, not a check still to come.
    ...(p.deferred && p.action !== 'replace' ? { deferred: p.deferred } : {}),
  };
}

/**
 * The objects without the Helm hooks that do not run on this deploy (see helmHookSkipped): an
 * install-only hook on an upgrade, an upgrade-only one on the first deploy. Each is said in the log
 * and put in `notRun` (by objectKey, with why), so that prune leaves the live one alone: for a hook
 * named by `generateName`, every live object made from it, as Helm and Argo CD delete a hook's
 * object only by its delete policy, never for not running it.
 */
function forEvent(
  run: Run,
  previous: ParentState,
  objects: readonly SourcedObject[],
  notRun: Map<string, string>,
): SourcedObject[] {
  const event = revisionOfParent(previous.object) === undefined ? 'install' : 'upgrade';
  return objects.filter((o) => {
    const why = helmHookSkipped(o.object, event);
    if (why) run.logger.info(`${o.object.kind} ${nameOf(o.object)} (${formatSource(o.source)}): ${why}`);
    // A generateName hook by its template (generatedKey): every object earlier deploys made from it.
    if (why) notRun.set(objectKey(o.object), why);
    return !why;
  });
}
