import pLimit from 'p-limit';
import {
  formatGroupKind,
  formatObjectRef,
  groupKindOf,
  type KubeObject,
  nameOf,
  type SourcedObject,
} from '../base/kube-object.js';
import { SPREAD } from '../base/labels.js';
import type { Logger } from '../base/logger.js';
import { patchedBy } from '../base/source.js';
import type { Discovery } from '../cluster/discovery.js';
import { formatPlace, placeOf } from '../deployment/phases.js';
import type { AppliedObject } from '../engine/apply/applied.js';
import { applyObjects } from '../engine/apply/applier.js';
import { type Halted, type HookDeletion, type Steps, stepper } from '../engine/apply/steps.js';
import {
  type ApplySet,
  deleteObjects,
  findPruneCandidates,
  type ParentState,
  type PruneCandidate,
  parentHolds,
  parentObject,
  writeParent,
} from '../engine/inventory/applyset.js';
import { findForeignObjects } from '../engine/inventory/foreign.js';
import { type DeployLock, LockLostError } from '../engine/inventory/lock.js';
import { type KeptObject, keptWhy, type PruneDecision, splitPrune } from '../engine/inventory/prune.js';
import { releaseFromApplySet } from '../engine/inventory/prune-policy.js';
import type { ClusterPort } from '../engine/kube-api.js';
import { MAX_FINGERPRINTS, objectFingerprint, sameOwnFields } from '../engine/plan/fingerprint.js';
import type { ListedMembers } from '../engine/plan/live.js';
import { type ApplyOptions, FIELD_MANAGER } from '../engine/shared/options.js';
import type { PlannedObject } from '../engine/shared/planned.js';
import type { RolloutResult } from '../engine/wait/waiter.js';
import type { ObjectReport, RolloutReport } from '../report/report.js';

export type { Halted, StepOutcome, Steps } from '../engine/apply/steps.js';

/** Options of {@link converge}. */
export interface ConvergeOptions {
  readonly apply: ApplyOptions;
  /** The apply group of an object (the Deployment's apply order). */
  readonly groupOf: (o: SourcedObject) => number;
  /** Prune objects of the set that `plan` does not hold. */
  readonly prune: boolean;
  /**
   * Prune CustomResourceDefinitions the directory dropped too (deleting one deletes every custom
   * resource of it). Default false: such a CRD is kept, and reported so, with its custom resources counted.
   */
  readonly pruneCrds?: boolean;
  readonly logger: Logger;
  /** The deploy lock: checked before prune, so a deploy that lost its lock never prunes. */
  readonly lock?: DeployLock;
  /** Called after each apply group (e.g. to take the lock once a new Namespace exists). */
  readonly afterGroup?: (group: number) => Promise<void>;
  /**
   * The fingerprints the parent keeps while applying: only when the plan changes no object (then
   * every recorded state stays true). Absent: the first parent write clears them, so that a deploy
   * or rollback that fails halfway leaves none that could describe a state it changed.
   */
  readonly keepFingerprints?: ReadonlySet<string>;
  /** After a complete apply (and prune), record the fingerprints of the applied states in the parent. */
  readonly recordFingerprints?: boolean;
  /** Objects of the directory this deploy does not run, kept by prune (splitPrune's `notRun`). */
  readonly notRun?: ReadonlyMap<string, string>;
  /** Keep every Helm hook from prune, with this reason (a rollback's: splitPrune's `keepHooks`). */
  readonly keepHooks?: string;
  /** The Jobs and Pods a failed deploy ran, kept by its rollback's prune (splitPrune's `ran`). */
  readonly ran?: ReadonlyMap<string, string>;
  /** The deploy's phases and waves (see {@link Steps}); absent, the plan is one step. */
  readonly steps?: Steps;
  /**
   * The set's other members the plan's LISTs saw, under the lock (the plan stage's `members`): prune
   * does not list again a collection where they hold none (findPruneCandidates' `listed`).
   */
  readonly members?: ListedMembers | undefined;
}

/** What {@link converge} did: what it applied, and what prune deleted and kept. */
export interface Converged extends PruneDecision {
  readonly applied: AppliedObject[];
  /** The fingerprints the parent holds after the converge (see objectFingerprint). */
  readonly fingerprints: readonly string[];
  /** The step that failed, when one did: what came after it was not applied, nothing was pruned. */
  readonly halted?: Halted;
  /**
   * Hooks applied, then deleted by their delete policy once their step was waited for: not in
   * `applied` (nothing waits for them or records their state), but created (or configured) all the same.
   */
  readonly deletedHooks?: ReadonlyMap<AppliedObject, HookDeletion>;
}

/**
 * Makes the cluster hold exactly the planned objects for ApplySet `set` — the write half of a deploy
 * and of a rollback, in kubectl's ApplySet order:
 * 1. the parent lists the union of the group-kinds and namespaces it held and those applied now, so
 *    an interrupted deploy still knows every object it may have created;
 * 2. server-side apply, group after group;
 * 3. prune (only after every object applied, and only while the lock is held) of the set's objects
 *    that the plan does not hold; a Namespace still holding objects of the set is kept, and an
 *    object whose annotations keep it (splitPrune) is kept and released from the set;
 * 4. the parent lists exactly what is applied, and the fingerprints of the applied states
 *    (`recordFingerprints`), which the parent held only through step 1 when nothing changes.
 * When the parent's own namespace is created by this apply, the parent is written after the first group.
 *
 * @throws ApplyError (objects applied before the failure are in it), LockLostError, KubeApiError.
 */
// over 80 lines because it is kubectl's ApplySet order in one place: parent, apply step by step, prune, parent.
export async function converge(
  client: ClusterPort,
  discovery: Discovery,
  set: ApplySet,
  previous: ParentState,
  plan: readonly PlannedObject[],
  options: ConvergeOptions,
): Promise<Converged> {
  const { logger } = options;
  const gks = (l: readonly SourcedObject[]) => l.map((o) => formatGroupKind(groupKindOf(o.object)));
  const nss = (l: readonly SourcedObject[]) => l.map((o) => o.object.metadata.namespace ?? '');
  const unionGks = [...previous.groupKinds, ...gks(plan)];
  const unionNss = [...previous.namespaces, ...nss(plan)];
  const union = parentObject(set, unionGks, unionNss, options.keepFingerprints);
  const parentNamespaceIsNew = plan.some(
    (p) => p.object.kind === 'Namespace' && p.object.metadata.name === set.namespace && p.action === 'create',
  );
  // The parent as it is in the cluster; a write that would change nothing is skipped (a no-op deploy
  // writes no parent at all).
  let parentNow = previous.object;
  const write = async (parent: KubeObject) => {
    if (parentHolds(parentNow, parent)) return;
    await writeParent(client, parent, FIELD_MANAGER);
    parentNow = parent;
  };
  if (!parentNamespaceIsNew) await write(union);
  let parentWritten = !parentNamespaceIsNew;
  const stepping = stepper(options.steps, options.groupOf, plan);
  const applied = await logger.group('Apply', () =>
    stepping.run(() =>
      applyObjects(
        client,
        discovery,
        plan,
        stepping.groupOf,
        {
          ...options.apply,
          afterGroup: async (group) => {
            if (!parentWritten) {
              await write(union);
              parentWritten = true;
            }
            await options.afterGroup?.(group);
            await stepping.afterGroup(group);
          },
        },
        (a) => {
          stepping.applied(a);
          logger.info(
            `${describe(a)} ${a.action}${a.replaced ? ` (replaced${a.rerun ? `: ${a.rerun}` : ''})` : ''}`,
          );
        },
      ),
    ),
  );
  // Every object is applied from here: an error says so, as a failed apply says what it applied.
  const finish = async (): Promise<Converged> => {
    if (!parentWritten) await write(union);
    const deletedHooks = stepping.deleted;
    if (stepping.halted)
      return {
        applied,
        pruned: [],
        kept: [],
        notes: new Map(),
        fingerprints: [],
        halted: stepping.halted,
        deletedHooks,
      };
    const prints = options.recordFingerprints
      ? fingerprintsOf(plan, applied, options.apply.fieldManager)
      : undefined;
    if (prints && prints.length === 0 && applied.length > MAX_FINGERPRINTS)
      logger.debug(
        `${applied.length} objects: more than ${MAX_FINGERPRINTS}, so no fingerprints are recorded`,
      );
    if (!options.prune) {
      if (prints) await write(parentObject(set, unionGks, unionNss, prints));
      return {
        applied,
        pruned: [],
        kept: [],
        notes: new Map(),
        fingerprints: prints ?? [...(options.keepFingerprints ?? [])],
        deletedHooks,
      };
    }
    options.lock?.assertHeld();
    const { pruned, kept, notes } = await logger.group('Prune', () =>
      prune(client, discovery, set, previous, plan, applied, options),
    );
    // Kept objects stay in the set's group-kinds, so a later deploy still finds them (and prunes a
    // kept Namespace once it is empty of ours); those released by their annotation left the set.
    const held = kept.filter((k) => !k.released);
    await write(
      parentObject(
        set,
        [...gks(plan), ...held.map((k) => formatGroupKind(groupKindOf(k.candidate.object)))],
        [...nss(plan), ...held.map((k) => k.candidate.object.metadata.namespace ?? '')],
        prints,
      ),
    );
    return { applied, pruned, kept, notes, fingerprints: prints ?? [], deletedHooks };
  };
  return finish().catch((error: unknown) => {
    throw allApplied(error, applied.length);
  });
}

/**
 * Deletes the set's objects the plan no longer holds (see splitPrune for what is kept and why),
 * concurrently like the apply, logging each pruned and kept object.
 */
async function prune(
  client: ClusterPort,
  discovery: Discovery,
  set: ApplySet,
  previous: ParentState,
  plan: readonly PlannedObject[],
  applied: readonly AppliedObject[],
  options: ConvergeOptions,
): Promise<PruneDecision> {
  const { logger } = options;
  const decision = await splitPrune(
    client,
    // With the applied objects: one the server named (generateName) is in the set by its new name.
    await findPruneCandidates(client, discovery, set, previous, [...plan, ...applied], {
      listed: options.members,
      concurrency: options.apply.concurrency,
      onForbidden: (what) =>
        logger.warn(
          `cannot list ${what} (no list right): objects of it that the directory dropped are not pruned`,
        ),
    }),
    plan,
    {
      pruneCrds: options.pruneCrds ?? false,
      foreign: (namespace) => findForeignObjects(client, discovery, namespace, set),
      ...(options.notRun ? { notRun: options.notRun } : {}),
      ...(options.keepHooks ? { keepHooks: options.keepHooks } : {}),
      ...(options.ran ? { ran: options.ran } : {}),
    },
  );
  // Concurrently, like the apply (one DELETE each; a prune of 500 objects took seconds one by one).
  const limit = pLimit(options.apply.concurrency);
  const released = decision.kept.filter((k) => k.released);
  await Promise.all(released.map((k) => limit(() => releaseFromApplySet(client, set, k.candidate))));
  for (const k of decision.kept) {
    const line = `${candidateRef(k.candidate)} kept: ${keptWhy(k)}`;
    if (k.warning) logger.warn(line);
    else logger.info(line);
  }
  await Promise.all(decision.pruned.map((c) => limit(() => deleteObjects(client, [c]))));
  for (const c of decision.pruned) {
    const note = decision.notes.get(c);
    logger.info(`${candidateRef(c)} pruned${note ? ` (${note})` : ''}`);
  }
  return decision;
}

/**
 * The fingerprints of the states an apply left: of every applied object, except those the dry run
 * found unchanged in value while spread's field ownership would change (see sameOwnFields); none
 * beyond {@link MAX_FINGERPRINTS} objects.
 */
function fingerprintsOf(
  plan: readonly PlannedObject[],
  applied: readonly AppliedObject[],
  fieldManager: string,
): string[] {
  if (applied.length > MAX_FINGERPRINTS) return [];
  const ownershipWouldChange = new Set(
    plan
      .filter(
        (p) => p.action === 'unchanged' && p.after && p.live && !sameOwnFields(p.after, p.live, fieldManager),
      )
      .map((p) => p.object),
  );
  // An object the plan found unchanged by its fingerprint is still in that state (nothing was sent).
  const known = new Map(plan.flatMap((p) => (p.fingerprint && p.live ? [[p.object, p]] : [])));
  return applied.flatMap((a) => {
    if (ownershipWouldChange.has(a.object)) return [];
    const p = known.get(a.object);
    if (p && a.action === 'unchanged' && a.live === p.live) return [p.fingerprint!];
    return objectFingerprint(a.object, a.live, fieldManager) ?? [];
  });
}

/** An applied object as a report line. */
export function appliedRef(a: AppliedObject): ObjectReport {
  return {
    ...sourceRef(a),
    action: a.action,
    ...(a.replaced ? { replaced: true } : {}),
    ...(a.rerun ? { note: a.rerun } : {}),
  };
}

/** A pruned (or, in a plan, to-be-pruned) object as a report line; its source is read from its annotation. */
export function prunedRef(c: PruneCandidate, action: 'prune' | 'pruned', note?: string): ObjectReport {
  const m = c.object.metadata;
  return {
    apiVersion: c.object.apiVersion,
    kind: c.object.kind,
    ...(m.namespace ? { namespace: m.namespace } : {}),
    name: m.name ?? '',
    action,
    source: m.annotations?.[SPREAD.source] ?? '',
    ...(note ? { note } : {}),
  };
}

/** A kept prune candidate (see {@link splitPrune}) as a report line, saying why it stays. */
export function keptRef(k: KeptObject, action: 'keep' | 'kept'): ObjectReport {
  return { ...prunedRef(k.candidate, 'prune'), action, note: k.reason };
}

/** The report lines of a prune decision: what is (or would be) pruned, then what is kept. */
export function pruneRefs(d: PruneDecision, mode: 'plan' | 'deploy'): ObjectReport[] {
  return [
    ...d.pruned.map((c) => prunedRef(c, mode === 'plan' ? 'prune' : 'pruned', d.notes.get(c))),
    ...d.kept.map((k) => keptRef(k, mode === 'plan' ? 'keep' : 'kept')),
  ];
}

function candidateRef(c: PruneCandidate): string {
  return formatObjectRef({ kind: c.object.kind, name: c.object.metadata.name });
}

/** One waited object's rollout outcome as a report line. */
export function rolloutRef(r: RolloutResult): RolloutReport {
  const m = r.object.object.metadata;
  return {
    kind: r.object.object.kind,
    ...(m.namespace ? { namespace: m.namespace } : {}),
    name: m.name ?? '',
    ready: r.ready,
    message: r.message,
    durationMs: r.durationMs,
  };
}

/** The identity part of a report line: apiVersion, kind, namespace, name and `file:line`. */
export function sourceRef(o: SourcedObject): Omit<ObjectReport, 'action'> {
  const m = o.object.metadata;
  return {
    apiVersion: o.object.apiVersion,
    kind: o.object.kind,
    ...(m.namespace ? { namespace: m.namespace } : {}),
    // Before the server named it (a plan): its generateName prefix, as `smoke-*`.
    name: nameOf(o.object),
    ...phaseRef(o.object),
    source: `${o.source.line > 0 ? `${o.source.file}:${o.source.line}` : o.source.file}${patchedBy(o.source)}`,
  };
}

function describe(a: AppliedObject): string {
  return formatObjectRef(sourceRef(a));
}

/** An object's phase and wave for its report line, when not the main phase's wave 0. */
function phaseRef(object: KubeObject): { phase?: string } {
  const p = placeOf(object);
  return p.phase === 'main' && p.wave === 0 ? {} : { phase: formatPlace(p) };
}

/**
 * An error after every object was applied (the parent's write, the prune's lists and deletes): its
 * first line says so, as a failed apply says what it applied (a lost Lease and errors that say what
 * was applied are left as they are).
 */
function allApplied(error: unknown, count: number): unknown {
  if (!(error instanceof Error) || error instanceof LockLostError || /\bapplied\b/.test(error.message))
    return error;
  const [first, ...rest] = error.message.split('\n');
  error.message = [
    `${first}; ${count} object(s) were applied before it, the prune and the parent's update may not have finished (deploy again to converge)`,
    ...rest,
  ].join('\n');
  return error;
}
