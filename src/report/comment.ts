// A plan or deploy as a pull request comment (Markdown): one comment per deployment, found again by a
// hidden marker so later runs update it, cut to GitHub's comment limit, never showing object data.
import type { FieldChange } from '../deployment/diff.js';
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
} from './report.js';

/** GitHub's limit on an issue or pull request comment body, in characters. */
export const COMMENT_LIMIT_CHARS = 65_536;

/**
 * The hidden marker that identifies a deployment's plan comment, so later runs update the same
 * comment: `<!-- spread-plan:<context>/<namespace>/<deployment> -->`.
 */
export function planMarker(report: Pick<DeployReport, 'context' | 'namespace' | 'deployment'>): string {
  return `<!-- spread-plan:${report.context}/${report.namespace}/${report.deployment} -->`;
}

/** Options of {@link formatPlanMarkdown} and {@link renderPlanComment}. */
export interface PlanMarkdownOptions {
  /** Heading level of the title (default 3). */
  readonly headingLevel?: number;
  /** Link to the run's job summary, given where the text is trimmed. */
  readonly runUrl?: string;
  /** The commit the plan is for, shown in the footer (first 7 characters). */
  readonly sha?: string;
  /** Link to that commit. */
  readonly commitUrl?: string;
  /** Upper limit of the text's length in characters (default: no limit). */
  readonly limit?: number;
  /**
   * `delete`: the report is of a deployment deleted whole (its objects listed as pruned), titled and
   * counted as such. Default: the report's mode.
   */
  readonly operation?: 'delete';
}

/** The order rows are shown in: what changes first. */
const RANK: Record<string, number> = {
  create: 0,
  created: 0,
  replace: 1,
  update: 1,
  configured: 1,
  prune: 2,
  pruned: 2,
};

/**
 * The report as GitHub-flavoured Markdown: a title naming the deployment, context and namespace,
 * the counts, a table of the objects that change (created, updated, pruned), each update's field
 * changes in a collapsed `diff` block, and the unchanged objects in one collapsed list. A report with
 * nothing to change says so in one line. Secret values never appear: updates carry field paths and
 * values already redacted by the diff stage, and the rest is names only.
 *
 * With `limit`, the text is trimmed to at most that many characters: diffs are dropped from the
 * last object back, then table rows, and a note links to `runUrl` for the whole plan.
 */
export function formatPlanMarkdown(report: DeployReport, options: PlanMarkdownOptions = {}): string {
  const plan = report.mode === 'plan';
  const c = countActions(report);
  const hashes = '#'.repeat(options.headingLevel ?? 3);
  const deleted = options.operation === 'delete';
  const title = `${hashes} ${plan ? 'Plan' : deleted ? 'Delete' : 'Deploy'}: \`${code(report.deployment)}\` → context \`${code(report.context)}\`, namespace \`${code(report.namespace)}\``;
  // An unchanged object with a note holds what the directory does not declare (another manager's
  // fields, see foreignNote): it is listed, never folded into "already matches".
  const changing = report.objects
    .filter((o) => o.action !== 'unchanged' || o.note)
    .map((o, i) => ({ o, i }))
    .sort((a, b) => (RANK[a.o.action] ?? 3) - (RANK[b.o.action] ?? 3) || a.i - b.i)
    .map(({ o }) => o);
  const unchanged = report.objects.filter((o) => o.action === 'unchanged' && !o.note);
  const counts = deleted
    ? `**${c.pruned}** deleted`
    : plan
      ? `**${c.create}** to create · **${c.update}** to update${c.replace ? ` · **${c.replace}** to replace` : ''} · **${c.prune}** to prune${c.keep ? ` · **${c.keep}** kept from prune` : ''} · ${c.unchanged} unchanged`
      : `**${c.created}** created · **${c.configured}** configured · **${c.pruned}** pruned${c.kept ? ` · **${c.kept}** kept from prune` : ''} · ${c.unchanged} unchanged`;
  const footer = footerLine(options);
  const environment = environmentLine(report);
  // What the input rendered and did not deploy, in a code span so that file names stay literal.
  const inputs = [
    environment,
    renderedLine(report.rendered),
    notDeployedLine(report.notDeployed),
    skippedLine(report),
  ]
    .filter((l): l is string => l !== undefined)
    .map((l) => `\`${code(l)}\``)
    .join('\n');

  if (changing.length === 0) {
    const none = plan
      ? `✅ **No changes.** The cluster already matches the directory (${plural(unchanged.length, 'object')} up to date).`
      : `✅ **Nothing changed.** ${plural(unchanged.length, 'object')} already up to date.`;
    return join([title, none, inputs, footer]);
  }

  const head = [title, counts, inputs];
  const rows = changing.map((o) =>
    tableRow(deleted && o.action === 'pruned' ? { ...o, action: 'deleted' } : o),
  );
  const diffs = changing.filter((o) => (o.changes?.length ?? 0) > 0).map(diffBlock);
  const rest = unchangedBlock(unchanged);
  const render = (rowCount: number, diffCount: number, trimmed: boolean): string => {
    const omittedRows = rows.length - rowCount;
    const table = [
      '| | Object | Namespace | Source |',
      '| --- | --- | --- | --- |',
      ...rows.slice(0, rowCount),
      ...(omittedRows > 0 ? [`| | … and ${plural(omittedRows, 'more object')} | | |`] : []),
    ].join('\n');
    const shownDiffs = diffs.slice(0, diffCount);
    const note = trimmed
      ? `> [!NOTE]\n> This plan was trimmed to fit ${options.limit} characters.${options.runUrl ? ` The [run's summary](${options.runUrl}) has more of it; all of it is in the file the step's output report-file names, which a workflow can upload as an artifact.` : ''}`
      : '';
    return join([...head, table, ...shownDiffs, trimmed ? '' : rest, note, footer]);
  };

  const text = render(rows.length, diffs.length, false);
  const limit = options.limit;
  if (limit === undefined || text.length <= limit) return text;
  const fits = (s: string) => s.length <= limit;
  // Drop diffs from the end, then table rows, keeping as many as fit (both grow the text monotonically).
  const d = largestFitting(diffs.length, (n) => fits(render(rows.length, n, true)));
  if (d >= 0) return render(rows.length, d, true);
  const r = Math.max(
    0,
    largestFitting(rows.length, (n) => fits(render(n, 0, true))),
  );
  const last = render(r, 0, true);
  return fits(last) ? last : `${last.slice(0, limit - 1)}…`;
}

/** The largest n in [0, max] with ok(n), given ok is monotonic (true then false); -1 when none. */
function largestFitting(max: number, ok: (n: number) => boolean): number {
  if (!ok(0)) return -1;
  let lo = 0;
  let hi = max;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (ok(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * A pull request comment with the plan: the hidden {@link planMarker} first, then
 * {@link formatPlanMarkdown}, trimmed to GitHub's {@link COMMENT_LIMIT_CHARS} (or `options.limit`).
 */
export function renderPlanComment(report: DeployReport, options: PlanMarkdownOptions = {}): string {
  const marker = planMarker(report);
  const limit = (options.limit ?? COMMENT_LIMIT_CHARS) - marker.length - 1;
  return `${marker}\n${formatPlanMarkdown(report, { ...options, limit })}`;
}

function tableRow(o: Omit<ObjectReport, 'action'> & { readonly action: string }): string {
  const icon = ACTION_ICON[o.action] ?? '';
  const note = o.note ? ` (${cell(o.note)})` : '';
  const phase = o.phase ? ` [${cell(o.phase)}]` : '';
  return `| ${icon} ${o.action}${phase} | \`${code(objectRef(o))}\`${note} | ${cell(o.namespace ?? '')} | ${o.source ? `\`${code(o.source)}\`` : ''} |`;
}

function diffBlock(o: ObjectReport): string {
  const lines: string[] = [];
  for (const ch of o.changes ?? []) lines.push(...diffLines(ch));
  const body = lines.join('\n');
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(body) + 1));
  const n = o.changes?.length ?? 0;
  return [
    `<details><summary>✏️ <code>${html(objectRef(o))}</code>${o.namespace ? ` in <code>${html(o.namespace)}</code>` : ''}: ${plural(n, 'field')} changed</summary>`,
    '',
    `${fence}diff`,
    body,
    fence,
    '',
    '</details>',
  ].join('\n');
}

/** A field change as `diff` lines, so GitHub colours what goes and what comes. */
function diffLines(c: FieldChange): string[] {
  if (c.op === 'add') return [`+ ${c.path}: ${c.after}`];
  if (c.op === 'remove') return [`- ${c.path}: ${c.before}`];
  // A line diff's own `-`/`+` lines, indented under the field, still colour as diff lines.
  if (c.lines)
    return [
      `  ${c.path}:`,
      ...c.lines.map((l) => (/^[-+]/.test(l) ? `${l[0]}   ${l.slice(1)}` : `    ${l}`)),
    ];
  return [`- ${c.path}: ${c.before}`, `+ ${c.path}: ${c.after}`];
}

function unchangedBlock(unchanged: readonly ObjectReport[]): string {
  if (unchanged.length === 0) return '';
  const items = unchanged.map(
    (o) => `<code>${html(objectRef(o))}</code>${o.namespace ? ` (${html(o.namespace)})` : ''}`,
  );
  return `<details><summary>${plural(unchanged.length, 'object')} unchanged</summary>\n\n${items.join(' · ')}\n\n</details>`;
}

function footerLine(options: PlanMarkdownOptions): string {
  const parts: string[] = [];
  if (options.sha) {
    const short = options.sha.slice(0, 7);
    parts.push(options.commitUrl ? `commit [\`${short}\`](${options.commitUrl})` : `commit \`${short}\``);
  }
  if (options.runUrl) parts.push(`[run](${options.runUrl})`);
  return parts.length > 0 ? `<sub>spread · ${parts.join(' · ')}</sub>` : '';
}

function join(parts: readonly string[]): string {
  return `${parts.filter((p) => p !== '').join('\n\n')}\n`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Text inside a Markdown code span: backticks cannot be escaped there, so they become ' . */
function code(s: string): string {
  return s.replace(/`/g, "'").replace(/\|/g, '\\|');
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/[<>]/g, (ch) => (ch === '<' ? '&lt;' : '&gt;'));
}

function html(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function longestBacktickRun(s: string): number {
  let max = 0;
  for (const m of s.matchAll(/`+/g)) max = Math.max(max, m[0].length);
  return max;
}

/**
 * The pull request comment after a deploy, replacing the deployment's plan comment (same
 * {@link planMarker}): a title saying it was deployed, the revision, the application's URL, the
 * commit and run, then the deploy's report as {@link formatPlanMarkdown} gives it; trimmed to GitHub's
 * {@link COMMENT_LIMIT_CHARS} (or `options.limit`).
 */
export function renderDeployComment(report: DeployReport, options: PlanMarkdownOptions = {}): string {
  const marker = planMarker(report);
  const where = `\`${code(report.deployment)}\` → context \`${code(report.context)}\`, namespace \`${code(report.namespace)}\``;
  const failed = failedStep(report);
  const title = report.failedBeforeMain
    ? `### ❌ Deploy of ${where} failed in ${report.failedBeforeMain}, before the main phase${rolledBack(report)}`
    : failed
      ? `### ❌ Deploy of ${where} failed in ${failed}${rolledBack(report)}`
      : `### 🚀 Deployed ${where}`;
  const facts = [
    ...(report.revision !== undefined ? [`revision **${report.revision}**`] : []),
    ...(report.url ? [`<${report.url}>`] : []),
    ...(options.sha
      ? [
          options.commitUrl
            ? `commit [\`${options.sha.slice(0, 7)}\`](${options.commitUrl})`
            : `commit \`${options.sha.slice(0, 7)}\``,
        ]
      : []),
  ];
  const head = join([title, facts.join(' · ')]);
  const limit = (options.limit ?? COMMENT_LIMIT_CHARS) - marker.length - head.length - 2;
  return `${marker}\n${head}\n${formatPlanMarkdown(report, { ...options, headingLevel: 4, limit })}`;
}

/** One located problem of a failed plan, as {@link renderPlanFailureComment} lists it. */
export interface CommentFailure {
  readonly message: string;
  /** The file as the reader finds it in the repository; absent when the problem has no place. */
  readonly file?: string;
  readonly line?: number;
}

/** Problems listed in a failure comment; the rest are counted and left to the run's summary. */
const FAILURES_SHOWN = 50;

/**
 * The pull request comment of a plan that failed (the server refused objects of the directory),
 * replacing the deployment's plan comment (same {@link planMarker}) so that the pull request does not
 * show the plan of an earlier push: a title, the error's first line, then each problem at its
 * `file:line` (the field the server named, where it named one), at most 50, within GitHub's
 * {@link COMMENT_LIMIT_CHARS} (or `options.limit`).
 */
export function renderPlanFailureComment(
  target: Pick<DeployReport, 'context' | 'namespace' | 'deployment'>,
  error: string,
  failures: readonly CommentFailure[],
  options: PlanMarkdownOptions = {},
): string {
  const title = `### ❌ Plan failed: \`${code(target.deployment)}\` → context \`${code(target.context)}\`, namespace \`${code(target.namespace)}\``;
  const rows = failures.slice(0, FAILURES_SHOWN).map((f) => {
    const place = f.file ? `\`${code(`${f.file}${f.line ? `:${f.line}` : ''}`)}\`: ` : '';
    return `- ${place}${cell(f.message.split('\n')[0] ?? '')}`;
  });
  const more = failures.length - rows.length;
  if (more > 0)
    rows.push(
      `- … and ${plural(more, 'more problem')}${options.runUrl ? ` ([run](${options.runUrl}))` : ''}`,
    );
  const text = `${planMarker(target)}\n${join([title, cell(error.split('\n')[0] ?? ''), rows.join('\n'), footerLine(options)])}`;
  const limit = options.limit ?? COMMENT_LIMIT_CHARS;
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}
