// The job summary of a deploy, plan or delete, and of a failure, built with `core.summary` within
// GitHub's 1 MiB limit, never showing a Secret's values.
import type * as core from '@actions/core';
import { formatObjectRef } from '../base/kube-object.js';
import type { PromoteReport, Promotion } from '../core/promote.js';
import { formatPlanMarkdown } from '../report/comment.js';
import {
  ACTION_ICON,
  countActions,
  type DeployReport,
  environmentLine,
  failedStep,
  notDeployedLine,
  type ObjectReport,
  objectRef,
  renderedLine,
  rolledBack,
  skippedLine,
} from '../report/report.js';

/** GitHub's limit on one step's job summary, in bytes. */
export const SUMMARY_LIMIT_BYTES = 1024 * 1024;

/**
 * The report the summary and the Action's outputs read: a {@link DeployReport} (whose `images` the
 * image stage fills), plus the deployment's history revision, which the core is to add to
 * DeployReport (shown when present).
 */
export type SummaryReport = DeployReport & {
  /** The deployment's revision after this deploy (1 for the first). */
  readonly revision?: number;
};

/** What a run of spread did: the word its summary's heading uses. */
export type Operation = 'deploy' | 'plan' | 'delete' | 'drift' | 'promote';

/** Options of {@link addDeploySummary}. */
export interface SummaryOptions {
  readonly commitUrl?: string;
  readonly runUrl?: string;
  /** The commit, shown shortened beside its link. */
  readonly sha?: string;
  /**
   * What the run did, for the heading: `plan` and `deploy` follow the report's mode; `delete` (the
   * Action's mode delete, whose report lists the deleted objects as pruned) is named as such.
   */
  readonly operation?: Operation;
  /** Why the deploy failed, when it did (the report then says what was done before). */
  readonly failure?: string;
  /** Upper limit in bytes (default {@link SUMMARY_LIMIT_BYTES}). */
  readonly limitBytes?: number;
}

/**
 * Fills `summary` (replacing its buffer) with the deploy's job summary: a heading with the
 * deployment, context and revision; namespace, commit and run links; counts; a table of objects with
 * their action and source; images with digests; the rollout with durations; and the plan
 * (with field diffs) in a collapsed `<details>`. Names only: no object data, so no Secret value.
 *
 * The result stays within `limitBytes`: the plan is trimmed first, then object rows, each with a note.
 * Call `summary.write()` afterwards.
 */
export function addDeploySummary(
  summary: typeof core.summary,
  report: SummaryReport,
  options: SummaryOptions = {},
): void {
  const limit = options.limitBytes ?? SUMMARY_LIMIT_BYTES;
  const build = (rows: number, planChars: number | undefined): number => {
    summary.emptyBuffer();
    fill(summary, report, options, rows, planChars);
    return Buffer.byteLength(summary.stringify());
  };
  const total = report.objects.length;
  if (build(total, undefined) <= limit) return;
  // Bytes are at most 4 a character; shrink the plan until the whole fits, then the table.
  const base = build(total, 0);
  if (base <= limit) {
    let chars = Math.floor((limit - base) / 2);
    while (chars > 200 && build(total, chars) > limit) chars = Math.floor(chars / 2);
    if (build(total, chars) <= limit) return;
  }
  let lo = 0;
  let hi = total;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (build(mid, 0) <= limit) lo = mid;
    else hi = mid - 1;
  }
  build(lo, 0);
}

function fill(
  summary: typeof core.summary,
  report: SummaryReport,
  options: SummaryOptions,
  rows: number,
  planChars: number | undefined,
): void {
  const plan = report.mode === 'plan';
  const operation = plan ? 'plan' : (options.operation ?? 'deploy');
  addHead(summary, report, options, operation);
  if ('promotion' in report) addPromotion(summary, (report as PromoteReport).promotion);
  if (report.objects.length > 0) addObjects(summary, report, rows);
  if (report.rolledBackTo !== undefined && report.rollback) addRollback(summary, report, rows);
  if (report.images && report.images.length > 0) addImages(summary, report.images);
  if (report.rollout.length > 0) addRollout(summary, report.rollout);
  if (planChars !== 0) {
    const markdown = formatPlanMarkdown(report, {
      headingLevel: 4,
      ...(operation === 'delete' ? { operation: 'delete' as const } : {}),
      ...(options.runUrl ? { runUrl: options.runUrl } : {}),
      ...(planChars !== undefined ? { limit: planChars } : {}),
    });
    const changes = report.objects.reduce((n, o) => n + (o.changes?.length ?? 0), 0);
    const label = plan ? `Plan${changes > 0 ? ` (${changes} field changes)` : ''}` : 'Report as Markdown';
    summary.addRaw(`<details><summary>${label}</summary>\n\n${markdown}\n</details>`, true);
  } else if (report.objects.length > 0) {
    summary.addRaw('<p><em>The plan was left out to fit the summary limit.</em></p>', true);
  }
}

/** The heading (mark, operation, deployment, context, revision), the facts line, the failure, the counts. */
function addHead(
  summary: typeof core.summary,
  report: SummaryReport,
  options: SummaryOptions,
  operation: Operation,
): void {
  const plan = operation === 'plan';
  const c = countActions(report);
  const mark = options.failure ? '❌' : MARKS[operation];
  const revision = report.revision !== undefined ? ` · revision ${report.revision}` : '';
  // A failed step (post, a wave, the rollout) said in the heading, as the text report's first line says it.
  const step = options.failure ? failedStep(report) : undefined;
  const failed = step ? ` failed in ${escapeHtml(step)}${escapeHtml(rolledBack(report))}` : '';
  summary.addHeading(
    `${mark} spread ${operation}${failed}: ${escapeHtml(report.deployment)} → ${escapeHtml(report.context)}${revision}`,
    2,
  );
  const facts = [`namespace <code>${escapeHtml(report.namespace)}</code>`];
  // The environment, and where a promotion came from: `environment production (promoted from …)`.
  const environment = environmentLine(report);
  if (environment) facts.unshift(escapeHtml(environment));
  if (options.commitUrl)
    facts.push(
      `commit <a href="${attr(options.commitUrl)}">${escapeHtml((options.sha ?? 'commit').slice(0, 7))}</a>`,
    );
  if (options.runUrl) facts.push(`<a href="${attr(options.runUrl)}">run</a>`);
  if (!plan) facts.push(`${(report.durationMs / 1000).toFixed(1)}s`);
  summary.addRaw(`<p>${facts.join(' · ')}</p>`, true);
  if (options.failure) summary.addRaw(`<p><strong>Failed:</strong> ${escapeHtml(options.failure)}</p>`, true);
  summary.addRaw(
    plan
      ? `<p><strong>${c.create}</strong> to create · <strong>${c.update}</strong> to update${c.replace ? ` · <strong>${c.replace}</strong> to replace` : ''} · <strong>${c.prune}</strong> to prune · ${c.unchanged} unchanged</p>`
      : operation === 'delete'
        ? `<p><strong>${c.pruned}</strong> deleted</p>`
        : `<p><strong>${c.created}</strong> created · <strong>${c.configured}</strong> configured · <strong>${c.pruned}</strong> pruned · ${c.unchanged} unchanged</p>`,
    true,
  );
  // What the input rendered and what it did not deploy: a file a team believes deployed is seen here.
  for (const line of [
    renderedLine(report.rendered),
    notDeployedLine(report.notDeployed),
    skippedLine(report),
  ])
    if (line) summary.addRaw(`<p>${escapeHtml(line)}</p>`, true);
}

/**
 * What `--rollback-on-failure` did after the deploy failed: a heading with the revision, a count
 * line, and its objects (restored, pruned, kept with their logs), as many rows as the objects table.
 */
function addRollback(summary: typeof core.summary, report: SummaryReport, rows: number): void {
  const objects = report.rollback ?? [];
  const r = countActions({ objects });
  summary.addHeading(`Rolled back to revision ${report.rolledBackTo}`, 3);
  summary.addRaw(
    `<p><strong>${r.created}</strong> created · <strong>${r.configured}</strong> configured · <strong>${r.pruned}</strong> pruned · <strong>${r.kept}</strong> kept · ${r.unchanged} unchanged</p>`,
    true,
  );
  if (objects.length > 0) addObjects(summary, { ...report, objects }, rows);
}

/** The objects table: the first `rows` objects, then a row saying how many were left out. */
function addObjects(summary: typeof core.summary, report: SummaryReport, rows: number): void {
  const omitted = report.objects.length - rows;
  summary.addTable([
    [
      { data: 'Action', header: true },
      { data: 'Object', header: true },
      { data: 'Namespace', header: true },
      { data: 'Source', header: true },
    ],
    ...report.objects.slice(0, rows).map(objectRow),
    ...(omitted > 0
      ? [
          [
            '',
            `… and ${omitted} more (trimmed to fit the summary limit; every object is in the file the output report-file names)`,
            '',
            '',
          ],
        ]
      : []),
  ]);
}

function addImages(summary: typeof core.summary, images: NonNullable<SummaryReport['images']>): void {
  summary.addHeading('Images', 3);
  summary.addTable([
    [
      { data: 'Image', header: true },
      { data: 'Digest', header: true },
      { data: 'Built', header: true },
      { data: 'Pushed', header: true },
      { data: 'Source', header: true },
    ],
    ...images.map((i) => [
      `<code>${escapeHtml(i.name)}:${escapeHtml(i.tag)}</code>`,
      i.digest ? `<code>${escapeHtml(i.digest)}</code>` : '',
      i.built ? '✅' : i.wouldBuild ? 'to build' : '',
      i.pushed ? '✅' : '',
      `<code>${escapeHtml(i.source)}</code>`,
    ]),
  ]);
}

function addRollout(summary: typeof core.summary, rollout: SummaryReport['rollout']): void {
  summary.addHeading('Rollout', 3);
  summary.addTable([
    [
      { data: 'Workload', header: true },
      { data: 'Ready', header: true },
      { data: 'Status', header: true },
      { data: 'Time', header: true },
    ],
    ...rollout.map((r) => [
      `<code>${escapeHtml(formatObjectRef({ kind: r.kind, name: r.name }))}</code>`,
      r.ready ? '✅' : '❌',
      escapeHtml(r.message),
      `${(r.durationMs / 1000).toFixed(1)}s`,
    ]),
  ]);
}

/**
 * What a promotion deployed: the environment and revision it came from, the commit, and each `&`
 * marker's digest (or that the target already ran them).
 */
function addPromotion(summary: typeof core.summary, p: Promotion): void {
  const from = `${escapeHtml(p.from.environment)} revision ${p.from.revision}`;
  summary.addRaw(
    `<p>${p.unchanged ? `<strong>${escapeHtml(p.to)}</strong> already runs ${from}: nothing changed` : `Promoted ${from} to <strong>${escapeHtml(p.to)}</strong>`} · commit <code>${escapeHtml(p.commit.slice(0, 12))}</code> · nothing built</p>`,
    true,
  );
  if (p.images.length > 0)
    summary.addTable([
      [
        { data: 'Image', header: true },
        { data: 'Digest', header: true },
      ],
      ...p.images.map((i) => [
        `<code>${escapeHtml(i.mark)}</code>`,
        `<code>${escapeHtml(i.reference)}</code>`,
      ]),
    ]);
}

const MARKS: Record<Operation, string> = {
  deploy: '🚀',
  plan: '📋',
  delete: '🗑️',
  drift: '🔎',
  promote: '⏩',
};

/** A failure to show in {@link addFailureSummary}: a message, and where it is when it has a place. */
export interface SummaryFailure {
  readonly message: string;
  /** The file as the reader finds it (the Action: relative to the workspace). */
  readonly file?: string;
  readonly line?: number;
  readonly severity: 'error' | 'warning';
}

/** Options of {@link addFailureSummary}. */
export interface FailureSummaryOptions {
  readonly operation: Operation;
  /** What was to be deployed, when known: the deployment's name or its directory. */
  readonly target?: string;
  readonly runUrl?: string;
  /** Upper limit in bytes (default {@link SUMMARY_LIMIT_BYTES}). */
  readonly limitBytes?: number;
}

/**
 * Fills `summary` (replacing its buffer) for a run that failed before it had a report (bad input,
 * an unknown context, a failed plan): a heading, the error, and a table of the located failures
 * (file, line, message), so the job summary says what went wrong. Rows are left out, with a note,
 * to stay within `limitBytes`. Call `summary.write()` afterwards.
 */
export function addFailureSummary(
  summary: typeof core.summary,
  error: string,
  failures: readonly SummaryFailure[],
  options: FailureSummaryOptions,
): void {
  const limit = options.limitBytes ?? SUMMARY_LIMIT_BYTES;
  const build = (rows: number): number => {
    summary.emptyBuffer();
    const target = options.target ? `: ${escapeHtml(options.target)}` : '';
    summary.addHeading(`❌ spread ${options.operation} failed${target}`, 2);
    if (options.runUrl) summary.addRaw(`<p><a href="${attr(options.runUrl)}">run</a></p>`, true);
    summary.addRaw(`<pre>${escapeHtml(error)}</pre>`, true);
    const located = failures.filter((f) => f.file);
    if (located.length > 0) {
      const omitted = located.length - rows;
      summary.addTable([
        [
          { data: 'Severity', header: true },
          { data: 'File', header: true },
          { data: 'Problem', header: true },
        ],
        ...located
          .slice(0, rows)
          .map((f) => [
            f.severity,
            `<code>${escapeHtml(`${f.file}${f.line ? `:${f.line}` : ''}`)}</code>`,
            escapeHtml(f.message),
          ]),
        ...(omitted > 0 ? [['', '', `… and ${omitted} more (trimmed to fit the summary limit)`]] : []),
      ]);
    }
    return Buffer.byteLength(summary.stringify());
  };
  const total = failures.filter((f) => f.file).length;
  if (build(total) <= limit) return;
  let lo = 0;
  let hi = total;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (build(mid) <= limit) lo = mid;
    else hi = mid - 1;
  }
  build(lo);
}

function objectRow(o: ObjectReport): string[] {
  return [
    `${ACTION_ICON[o.action] ?? ''} ${o.action}${o.replaced ? ' (replaced)' : ''}${o.phase ? ` [${escapeHtml(o.phase)}]` : ''}`,
    `<code>${escapeHtml(objectRef(o))}</code>${o.note ? ` (${escapeHtml(o.note)})` : ''}`,
    escapeHtml(o.namespace ?? ''),
    o.source ? `<code>${escapeHtml(o.source)}</code>` : '',
  ];
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function attr(s: string): string {
  return escapeHtml(s).replace(/"/g, '&quot;');
}
