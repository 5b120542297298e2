import { isGenerated, type SourcedObject } from '../base/kube-object.js';
import { optionRef } from '../base/option-ref.js';
import { ApplyError, type ObjectFailure } from '../engine/apply/errors.js';
import { findPruneCandidates, type ParentState } from '../engine/inventory/applyset.js';
import { findForeignObjects } from '../engine/inventory/foreign.js';
import { listRevisions, type RevisionSummary, revisionOfParent } from '../engine/inventory/history.js';
import { splitPrune } from '../engine/inventory/prune.js';
import { type RevisionCheck, readRevisionCheck } from '../engine/inventory/revision-check.js';
import type { PlannedObject } from '../engine/plan/options.js';
import { foreignNote } from '../engine/plan/takeover.js';
import type { DeployReport, ObjectReport } from '../report/report.js';
import { appliedRef, type Converged, converge, FIELD_MANAGER, pruneRefs, sourceRef } from './converge.js';
import {
  type DeployContext,
  deploymentNamespaceExists,
  type ReadStep,
  type ReportBase,
} from './deploy-context.js';

/** `spread plan`'s report: the plan, and what a deploy would prune or keep. */
export async function planReport(
  ctx: DeployContext,
  step: ReadStep,
  previous: ParentState,
  objects: readonly SourcedObject[],
  planned: readonly PlannedObject[],
  mayPrune: boolean,
  base: ReportBase,
): Promise<DeployReport> {
  const { client, discovery, options, logger } = ctx;
  const { set } = step;
  const decision = mayPrune
    ? await splitPrune(
        client,
        await findPruneCandidates(client, discovery, set, previous, objects, {
          onForbidden: (what) =>
            logger.warn(
              `cannot list ${what} (no list right): objects of it that the directory dropped would not be pruned`,
            ),
        }),
        objects,
        {
          pruneCrds: options.pruneCrds ?? false,
          foreign: (ns) => findForeignObjects(client, discovery, ns, set),
        },
      )
    : { pruned: [], kept: [], notes: new Map() };
  return {
    ...base,
    mode: 'plan',
    objects: [...planned.map(plannedRef), ...pruneRefs(decision, 'plan')],
    rollout: [],
    durationMs: Date.now() - ctx.started,
  };
}

/** What the apply did, and whether the deploy changed nothing at all. */
export interface Applied {
  readonly converged: Converged;
  readonly reported: ObjectReport[];
  /** The deployment's revision before this deploy. */
  readonly revisionBefore: number | undefined;
  /** Nothing changed: the current revision again, no new one recorded. */
  readonly unchanged: boolean;
  /** When nothing was to change: the read of the current revision, started beside the converge. */
  readonly revisionBeforeRead: Promise<RevisionCheck | undefined> | undefined;
  /** Otherwise: the stored revisions, listed beside the converge for the record that follows it. */
  readonly revisionsRead: Promise<RevisionSummary[]> | undefined;
}

/** Annotates what changes, checks annotation conflicts, and converges: apply, prune, parent. */
export async function applyStep(
  ctx: DeployContext,
  step: ReadStep,
  previous: ParentState,
  planned: readonly PlannedObject[],
  mayPrune: boolean,
  takeLock: () => Promise<void>,
): Promise<Applied> {
  const { options, logger } = ctx;
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
  // A deploy that changes nothing needs that revision's status at the end; converging writes no
  // revision, so it is read now, alongside, rather than as one more round trip afterwards.
  const revisionBeforeRead =
    revisionBefore !== undefined && plan.every((p) => p.action === 'unchanged')
      ? readRevisionCheck(ctx.client, step.set, revisionBefore)
      : undefined;
  revisionBeforeRead?.catch(() => {});
  // Only under the lock (a new namespace's is taken after its first group, and it holds none yet).
  const revisionsRead = !revisionBeforeRead && ctx.lock ? listRevisions(ctx.client, step.set) : undefined;
  revisionsRead?.catch(() => {});
  for (const w of helmReleasesTakenOver(plan)) logger.warn(w);
  ctx.written = true;
  const converged = await converge(ctx.client, ctx.discovery, step.set, previous, plan, {
    apply: step.applyOptions,
    groupOf: step.read.groupOf,
    prune: mayPrune,
    pruneCrds: options.pruneCrds ?? false,
    logger,
    ...(ctx.lock ? { lock: ctx.lock } : {}),
    ...(plan.every((p) => p.action === 'unchanged') ? { keepFingerprints: previous.fingerprints } : {}),
    recordFingerprints: true,
    afterGroup: async () => {
      if (!ctx.lock && (await deploymentNamespaceExists(ctx))) await takeLock();
    },
  });
  const reported = [...converged.applied.map(appliedRef), ...pruneRefs(converged, 'deploy')];
  // A deploy that changed nothing is the current revision again; it records no new one (unless
  // that revision's rollout had failed and now succeeds).
  const unchanged =
    revisionBefore !== undefined && reported.every((o) => o.action === 'unchanged' || o.action === 'kept');
  return { converged, reported, revisionBefore, unchanged, revisionBeforeRead, revisionsRead };
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

function annotate(p: PlannedObject, annotations: Readonly<Record<string, string>>): PlannedObject {
  if (p.action === 'unchanged') return p;
  const metadata = {
    ...p.object.metadata,
    annotations: { ...p.object.metadata.annotations, ...annotations },
  };
  return { ...p, object: { ...p.object, metadata } };
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
