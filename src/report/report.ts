// The report of a deploy, plan or delete that every front end prints, writes and publishes: the objects
// with their actions and sources, the rollout, images and inputs; names and places only, never data.
import { formatObjectRef } from '../base/kube-object.js';
import type { FieldChange } from '../deployment/diff.js';
import type { ObjectAction } from '../engine/apply/applied.js';
import { formatPromotedFrom, type PromotedFrom } from '../engine/inventory/provenance.js';
import type { PlannedAction } from '../engine/shared/planned.js';
import type { NotDeployedFile, RenderedFolder } from '../entity/entity.js';
import type { ImageReport } from '../image/index.js';
import { formatChange } from './diff.js';

/** One object in a report. Names and places only: never an object's data. */
export interface ObjectReport {
  readonly apiVersion: string;
  readonly kind: string;
  /** Absent for cluster-scoped objects. */
  readonly namespace?: string;
  readonly name: string;
  readonly action: ObjectAction | PlannedAction;
  /** `file:line` relative to the deployed directory. */
  readonly source: string;
  /**
   * Its phase and wave when not the main phase's wave 0 (docs/phases.md): `pre`, `main wave 2`,
   * `post`.
   */
  readonly phase?: string;
  /** The object was deleted and created again because immutable fields changed (`--replace`). */
  readonly replaced?: boolean;
  /** Plan only, for `update`: the fields that change (Secret values redacted). */
  readonly changes?: readonly FieldChange[];
  /**
   * Plan only: why the object could not be dry-run yet, e.g. `its CRD changes in this deploy`; the
   * deploy checks it as soon as that exists, before anything after it is written.
   */
  readonly deferred?: string;
  /**
   * For `keep`/`kept`: why a candidate of prune stays (a Namespace still in use, a CRD that holds
   * custom resources); for a CRD's `prune`/`pruned`: how many custom resources go with it; for an
   * `update` that takes over other field managers' fields (`--adopt`, client-side kubectl apply): whose.
   */
  readonly note?: string;
}

/** An object of the directory a failed deploy did not apply (see {@link DeployReport.skipped}). */
export type SkippedObject = Omit<ObjectReport, 'action' | 'replaced' | 'changes' | 'deferred' | 'note'>;

/** One waited object's rollout outcome. */
export interface RolloutReport {
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly ready: boolean;
  readonly message: string;
  /** Milliseconds from the start of the wait to readiness (or to the end of the wait). */
  readonly durationMs: number;
}

/**
 * What a deploy (or plan) did: the machine-readable report of `--output json` and the Action's
 * outputs. Fields are only ever added, never renamed.
 */
export interface DeployReport {
  readonly deployment: string;
  readonly namespace: string;
  readonly context: string;
  /** The environment of spread.yaml deployed to (`--environment`, the input `environment`); absent without one. */
  readonly environment?: string;
  /** Set by a promotion (`spread promote`): the revision of the environment it deployed again. */
  readonly promotedFrom?: PromotedFrom;
  readonly mode: 'deploy' | 'plan';
  readonly objects: readonly ObjectReport[];
  /**
   * Images marked `&` in the directory: built and pushed (or found unchanged), with their digests.
   * Always set by deploy and plan (empty without `&` images).
   */
  readonly images?: readonly ImageReport[];
  readonly rollout: readonly RolloutReport[];
  /**
   * The deployment's revision after this deploy, as recorded in its history (deploy mode): the new
   * one, or the current one when nothing changed; after a failed rollout, the revision recorded as
   * failed, or with `rolledBackTo`, the rollback's revision.
   */
  readonly revision?: number;
  /**
   * Where the deployed application answers (deploy mode, after success): an Ingress's host, an
   * HTTPRoute's hostname or a LoadBalancer Service's address (report/url.ts); absent when none has one.
   */
  readonly url?: string;
  /** Set when the rollout failed and the previous revision was applied again (`--rollback-on-failure`). */
  readonly rolledBackTo?: number;
  /**
   * With `rolledBackTo`, what the rollback did, one line an object as in `objects`: restored
   * (created, configured), unchanged, pruned, and kept (the failed deploy's Jobs and Pods, with their logs).
   */
  readonly rollback?: readonly ObjectReport[];
  /**
   * Set when a step of the pre phase failed (`pre`, `pre wave 2`): the deploy stopped before
   * anything of the main phase was written.
   */
  readonly failedBeforeMain?: string;
  /**
   * Set when the deploy failed after it began writing: the step whose wait failed (`pre`, `main
   * wave 2`, `post`, as `phase` spells it), or `rollout` for a deploy without phases or waves.
   */
  readonly failedIn?: string;
  /**
   * The directory's objects not applied because an earlier step failed (docs/phases.md); absent when
   * every object was applied.
   */
  readonly skipped?: readonly SkippedObject[];
  /** Whole run, in milliseconds. */
  readonly durationMs: number;
  /** YAML and JSON files of the directory that hold no Kubernetes object; absent when there are none. */
  readonly notDeployed?: readonly NotDeployedFile[];
  /** Folders rendered by kustomize or Helm, with the tool's version; absent when there are none. */
  readonly rendered?: readonly RenderedFolder[];
}

/** The input's part of a report: what was not deployed and what was rendered, only when there is any. */
export function inputReport(application: {
  readonly notDeployed: readonly NotDeployedFile[];
  readonly rendered: readonly RenderedFolder[];
}): Pick<DeployReport, 'notDeployed' | 'rendered'> {
  return {
    ...(application.notDeployed.length > 0 ? { notDeployed: application.notDeployed } : {}),
    ...(application.rendered.length > 0 ? { rendered: application.rendered } : {}),
  };
}

/** How many files {@link notDeployedLine} names before it counts the rest. */
const NOT_DEPLOYED_NAMED = 10;

/**
 * One line naming the input's files that hold no Kubernetes object, so a file a team believes it
 * deployed is seen at once: `not deployed (no Kubernetes object): docker-compose.yml, empty.yaml
 * (empty)`. The usual reason (no apiVersion or kind) is left out; undefined when there are none.
 */
export function notDeployedLine(files: readonly NotDeployedFile[] | undefined): string | undefined {
  if (!files || files.length === 0) return undefined;
  const named = files
    .slice(0, NOT_DEPLOYED_NAMED)
    .map((f) => (f.reason === 'no apiVersion or kind' ? f.file : `${f.file} (${f.reason})`));
  const more = files.length - named.length;
  return `not deployed (no Kubernetes object): ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

/** `rendered with kustomize v5.7.1: overlays/prod/; with helm v3.21.4: chart/`; undefined when nothing was rendered. */
export function renderedLine(folders: readonly RenderedFolder[] | undefined): string | undefined {
  if (!folders || folders.length === 0) return undefined;
  const byTool = new Map<string, string[]>();
  for (const f of folders)
    byTool.set(f.tool, [...(byTool.get(f.tool) ?? []), f.dir === '.' ? './' : `${f.dir}/`]);
  return `rendered ${[...byTool].map(([tool, dirs]) => `with ${tool}: ${dirs.join(', ')}`).join('; ')}`;
}

/**
 * `environment production (promoted from staging revision 3)`: the environment a report's deploy went
 * to and, for a promotion, where it came from; undefined without an environment.
 */
export function environmentLine(
  report: Pick<DeployReport, 'environment' | 'promotedFrom'>,
): string | undefined {
  if (!report.environment) return undefined;
  const promoted = report.promotedFrom ? ` (promoted from ${formatPromotedFrom(report.promotedFrom)})` : '';
  return `environment ${report.environment}${promoted}`;
}

/**
 * Where a failed deploy failed, in words: `post`, `main wave 2`, `the rollout`; undefined for a
 * deploy that did not fail (or failed before it wrote anything, which has no report).
 */
export function failedStep(report: Pick<DeployReport, 'failedIn' | 'failedBeforeMain'>): string | undefined {
  const step = report.failedIn ?? report.failedBeforeMain;
  return step === 'rollout' ? 'the rollout' : step;
}

/** `, rolled back to revision 3` after a failure undone by `--rollback-on-failure`; else empty. */
export function rolledBack(report: Pick<DeployReport, 'rolledBackTo'>): string {
  return report.rolledBackTo !== undefined ? `, rolled back to revision ${report.rolledBackTo}` : '';
}

/** `3 objects not applied (an earlier step failed): job/smoke, …`; undefined when none were skipped. */
export function skippedLine(report: Pick<DeployReport, 'skipped'>): string | undefined {
  const skipped = report.skipped ?? [];
  if (skipped.length === 0) return undefined;
  const named = skipped.slice(0, NOT_DEPLOYED_NAMED).map((o) => objectRef(o));
  const more = skipped.length - named.length;
  return `${skipped.length} not applied (an earlier step failed): ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

/** A symbol per action, for the Markdown of the job summary and the pull-request comment. */
export const ACTION_ICON: Readonly<Record<string, string>> = {
  create: '➕',
  created: '➕',
  update: '✏️',
  configured: '✏️',
  prune: '🗑️',
  pruned: '🗑️',
  deleted: '🗑️',
  replace: '♻️',
  keep: '🔒',
  kept: '🔒',
  unchanged: '·',
};

/** Counts of objects per action. */
export function countActions(
  report: Pick<DeployReport, 'objects'>,
): Record<ObjectAction | PlannedAction, number> {
  const counts: Record<string, number> = {
    created: 0,
    configured: 0,
    unchanged: 0,
    pruned: 0,
    create: 0,
    update: 0,
    prune: 0,
    replace: 0,
    keep: 0,
    kept: 0,
  };
  for (const o of report.objects) counts[o.action] = (counts[o.action] ?? 0) + 1;
  return counts as Record<ObjectAction | PlannedAction, number>;
}

/** `replicationcontroller/mattermost` — kubectl's `kind/name` notation, lower-case kind. */
export function objectRef(o: Pick<ObjectReport, 'kind' | 'name' | 'apiVersion'>): string {
  return formatObjectRef(o, { group: true });
}

/** What happened to an image, in words: `built and pushed`, `built`, `pushed`, `unchanged`, or (plan) `to build`. */
export function imageAction(i: Pick<ImageReport, 'built' | 'pushed' | 'wouldBuild'>): string {
  if (i.wouldBuild) return 'to build';
  if (i.built) return i.pushed ? 'built and pushed' : 'built';
  return i.pushed ? 'pushed' : 'unchanged';
}

/**
 * The report as text for a terminal, one line an object as `kubectl apply` prints them
 * (`deployment.apps/web created`), with the namespace and source file, then the rollout and a total.
 */
export function formatReportText(report: DeployReport): string {
  const lines: string[] = [];
  const where = `${report.deployment} to namespace ${report.namespace} (context ${report.context})`;
  const failed = failedStep(report);
  lines.push(
    report.failedBeforeMain
      ? `Deploy of ${where} FAILED in ${report.failedBeforeMain}, before the main phase (nothing of it written)${rolledBack(report)}:`
      : failed
        ? `Deploy of ${where} FAILED in ${failed}${rolledBack(report)}:`
        : `${report.mode === 'plan' ? 'Plan for' : 'Deployed'} ${where}:`,
  );
  const environment = environmentLine(report);
  if (environment) lines.push(`  ${environment}`);
  lines.push(...objectLines(report.objects, report.mode));
  for (const o of report.skipped ?? []) {
    const ns = o.namespace ? ` -n ${o.namespace}` : '';
    const phase = o.phase ? ` [${o.phase}]` : '';
    lines.push(`  ${objectRef(o)} not applied${ns}${phase}  (${o.source})`);
  }
  for (const i of report.images ?? []) lines.push(`  image ${i.reference} ${imageAction(i)}  (${i.source})`);
  for (const r of report.rollout) {
    const mark = r.ready ? 'ready' : 'NOT READY';
    lines.push(
      `  rollout ${formatObjectRef({ kind: r.kind, name: r.name })}: ${mark} — ${r.message} (${(r.durationMs / 1000).toFixed(1)}s)`,
    );
  }
  if (report.url) lines.push(`  url ${report.url}`);
  for (const line of [renderedLine(report.rendered), notDeployedLine(report.notDeployed)])
    if (line) lines.push(`  ${line}`);
  const c = countActions(report);
  lines.push(
    report.mode === 'plan'
      ? `${c.create} to create, ${c.update} to update, ${c.replace} to replace, ${c.unchanged} unchanged, ${c.prune} to prune${c.keep ? `, ${c.keep} kept from prune` : ''}`
      : `${c.created} created, ${c.configured} configured, ${c.unchanged} unchanged, ${c.pruned} pruned${c.kept ? `, ${c.kept} kept from prune` : ''} in ${(report.durationMs / 1000).toFixed(1)}s`,
  );
  if (report.rolledBackTo !== undefined && report.rollback) {
    lines.push(`Rolled back to revision ${report.rolledBackTo}:`);
    lines.push(...objectLines(report.rollback, 'deploy'));
    const r = countActions({ objects: report.rollback });
    lines.push(
      `rollback: ${r.created} created, ${r.configured} configured, ${r.unchanged} unchanged, ${r.pruned} pruned${r.kept ? `, ${r.kept} kept` : ''}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The report's object lines (`configmap/main configured -n app [pre]  (main.yaml:1)`), with notes and changes. */
function objectLines(objects: readonly ObjectReport[], mode: DeployReport['mode']): string[] {
  const lines: string[] = [];
  for (const o of objects) {
    const ns = o.namespace ? ` -n ${o.namespace}` : '';
    const phase = o.phase ? ` [${o.phase}]` : '';
    lines.push(`  ${objectRef(o)} ${o.action}${o.replaced ? ' (replaced)' : ''}${ns}${phase}  (${o.source})`);
    for (const c of o.changes ?? []) lines.push(`      ${formatChange(c, '      ')}`);
    if (o.note) lines.push(`      (${o.note})`);
    if (mode === 'plan' && o.deferred)
      lines.push(`      (not checked yet: ${o.deferred}; the deploy checks it before going on)`);
    // An update whose values all stay: the apply moves field ownership to spread (an object kubectl
    // or another tool applied, a Secret an earlier spread applied as stringData) or metadata only.
    else if (mode === 'plan' && o.action === 'update' && (o.changes?.length ?? 0) === 0)
      lines.push('      (no value changes: spread takes over field ownership)');
  }
  return lines;
}
