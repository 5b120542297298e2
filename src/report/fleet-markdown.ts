// A fleet's report as Markdown, for the job summary and the one pull request comment of a fleet: a
// table per wave (a row per cluster: status, context, revision, changes, rollout or error) and, for a
// plan, each cluster's own plan folded under it; within GitHub's comment limit.
import { COMMENT_LIMIT_CHARS, formatPlanMarkdown } from './comment.js';
import type { FleetLegReport, FleetReport, LegStatus } from './fleet.js';

/** Options of {@link formatFleetMarkdown}. */
export interface FleetMarkdownOptions {
  /** The deployment's name, in the title. */
  readonly deployment: string;
  /** Files that could not be put on a cluster (mode fleet-report): each named with why. */
  readonly problems?: readonly { readonly file: string; readonly error: string }[];
  readonly runUrl?: string;
  readonly sha?: string;
  readonly commitUrl?: string;
  /** Upper limit of the text's length in characters; default GitHub's comment limit. */
  readonly limit?: number;
}

const ICON: Record<LegStatus, string> = { succeeded: '✅', failed: '❌', skipped: '⏭️' };

/** The hidden marker of a deployment's fleet comment: one for the plan, one for the report. */
export function fleetMarker(kind: 'plan' | 'report', deployment: string, environment: string): string {
  return `<!-- spread-fleet-${kind}:${environment}/${deployment} -->`;
}

/**
 * The fleet as Markdown: a title, the counts, a heading and table per wave, every cluster of the
 * declared fleet in it (one without a report says `no report: the leg did not run`), the files that
 * could not be read, and for a plan each cluster's plan in a collapsed block, each given an equal
 * share of the limit.
 */
export function formatFleetMarkdown(report: FleetReport, options: FleetMarkdownOptions): string {
  const plan = report.mode === 'plan';
  const legs = report.waves.flatMap((w) => w.clusters);
  const count = (s: LegStatus) => legs.filter((l) => l.status === s).length;
  const ok = report.status === 'succeeded' && (options.problems ?? []).length === 0;
  const title = `## ${ok ? '✅' : '❌'} Fleet ${plan ? 'plan' : 'deploy'}: \`${code(options.deployment)}\` → environment \`${code(report.environment)}\``;
  const counts = `${legs.length} cluster(s) in ${report.waves.length} wave(s): **${count('succeeded')}** ${plan ? 'planned' : 'succeeded'} · **${count('failed')}** failed · **${count('skipped')}** ${plan ? 'not planned' : 'did not run'}`;
  const limit = options.limit ?? COMMENT_LIMIT_CHARS;
  const planned = legs.filter((l) => l.report).length;
  const share = Math.floor((limit - 2000 - legs.length * 300) / Math.max(planned, 1));
  const waves = report.waves.map((wave) => {
    const rows = wave.clusters.map((l) => row(l, plan));
    const plans = plan ? wave.clusters.flatMap((l) => planBlock(l, share)) : [];
    return [
      `### Wave \`${code(wave.name)}\` (${wave.status})`,
      '| | Cluster | Context | Namespace | Revision | Changes | Rollout, URL or error |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      ...rows,
      ...plans.map((p) => `\n${p}`),
    ].join('\n');
  });
  const problems = (options.problems ?? []).map((p) => `- \`${code(p.file)}\`: ${cell(p.error)}`);
  const parts = [
    title,
    counts,
    ...waves,
    ...(problems.length > 0 ? [`### Report files not read\n${problems.join('\n')}`] : []),
    footer(options),
  ];
  return `${parts.filter((p) => p !== '').join('\n\n')}\n`;
}

function row(leg: FleetLegReport, plan: boolean): string {
  const c = leg.changes;
  const changes = c
    ? plan
      ? `${c.created} to create, ${c.configured} to update, ${c.pruned} to prune, ${c.unchanged} unchanged`
      : `${c.created} created, ${c.configured} configured, ${c.pruned} pruned, ${c.unchanged} unchanged`
    : '';
  const last = leg.error
    ? `${leg.status === 'failed' ? '**error:** ' : ''}${firstLine(leg.error)}`
    : [leg.rollout && `rollout ${leg.rollout}`, leg.url].filter(Boolean).join(' · ');
  const cells = [
    ICON[leg.status],
    `\`${code(leg.cluster)}\``,
    leg.context ? `\`${code(leg.context)}\`` : '',
    leg.namespace ? `\`${code(leg.namespace)}\`` : '',
    leg.revision !== undefined ? String(leg.revision) : '',
    changes,
    cell(last),
  ];
  return `| ${cells.join(' | ')} |`;
}

/** A cluster's plan, collapsed under its name and counts. */
function planBlock(leg: FleetLegReport, limit: number): string[] {
  if (!leg.report) return [];
  const body = formatPlanMarkdown(leg.report, { headingLevel: 4, limit: Math.max(limit, 500) });
  return [`<details><summary>Plan of cluster ${html(leg.cluster)}</summary>\n\n${body}\n</details>`];
}

function footer(options: FleetMarkdownOptions): string {
  const parts: string[] = [];
  if (options.sha) {
    const short = options.sha.slice(0, 7);
    parts.push(options.commitUrl ? `commit [\`${short}\`](${options.commitUrl})` : `commit \`${short}\``);
  }
  if (options.runUrl) parts.push(`[run](${options.runUrl})`);
  return parts.length > 0 ? `<sub>spread · ${parts.join(' · ')}</sub>` : '';
}

/** The error's first line, with the next one when the first only introduces it (`rollout failed:`). */
function firstLine(error: string): string {
  const [first = '', second] = error.split('\n');
  return first.endsWith(':') && second ? `${first} ${second.trim()}` : first;
}

function code(s: string): string {
  return s.replace(/`/g, "'").replace(/\|/g, '\\|');
}

function cell(s: string): string {
  return s
    .replace(/\|/g, '\\|')
    .replace(/[<>]/g, (ch) => (ch === '<' ? '&lt;' : '&gt;'))
    .replace(/\n/g, ' ');
}

function html(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
