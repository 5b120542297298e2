import type * as core from '@actions/core';
import { countActions, type DeployReport, objectRef } from './report.js';

/** GitHub's limit on one step's summary. */
export const SUMMARY_LIMIT_BYTES = 1024 * 1024;

/** Links shown under the summary's heading. */
export interface SummaryLinks {
  readonly commitUrl?: string;
  readonly runUrl?: string;
}

/**
 * Writes the deploy's job summary: a heading with the deployment, context and namespace, counts,
 * a table of objects with their action and source, and the rollout with durations. Names only: no
 * object data, so no Secret value can reach it.
 */
export function addDeploySummary(
  summary: typeof core.summary,
  report: DeployReport,
  links: SummaryLinks = {},
): void {
  const c = countActions(report);
  const title = report.mode === 'plan' ? 'spread plan' : 'spread deploy';
  summary.addHeading(`${title}: ${report.deployment}`, 2);
  summary.addRaw(
    `Context <code>${escapeHtml(report.context)}</code>, namespace <code>${escapeHtml(report.namespace)}</code>`,
    true,
  );
  const linkParts = [
    links.commitUrl ? `<a href="${links.commitUrl}">commit</a>` : '',
    links.runUrl ? `<a href="${links.runUrl}">run</a>` : '',
  ].filter(Boolean);
  if (linkParts.length > 0) summary.addRaw(` · ${linkParts.join(' · ')}`, true);
  summary.addRaw(
    report.mode === 'plan'
      ? `<p>${c.create} to create, ${c.update} to update, ${c.unchanged} unchanged, ${c.prune} to prune</p>`
      : `<p>${c.created} created, ${c.configured} configured, ${c.unchanged} unchanged, ${c.pruned} pruned in ${(report.durationMs / 1000).toFixed(1)}s</p>`,
    true,
  );
  summary.addTable([
    [
      { data: 'Object', header: true },
      { data: 'Namespace', header: true },
      { data: 'Action', header: true },
      { data: 'Source', header: true },
    ],
    ...report.objects.map((o) => [
      escapeHtml(objectRef(o)),
      escapeHtml(o.namespace ?? ''),
      o.action,
      `<code>${escapeHtml(o.source)}</code>`,
    ]),
  ]);
  if (report.rollout.length > 0) {
    summary.addHeading('Rollout', 3);
    summary.addTable([
      [
        { data: 'Workload', header: true },
        { data: 'Ready', header: true },
        { data: 'Status', header: true },
        { data: 'Time', header: true },
      ],
      ...report.rollout.map((r) => [
        escapeHtml(`${r.kind.toLowerCase()}/${r.name}`),
        r.ready ? '✅' : '❌',
        escapeHtml(r.message),
        `${(r.durationMs / 1000).toFixed(1)}s`,
      ]),
    ]);
  }
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
