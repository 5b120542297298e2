// The texts of the GitLab component's report step (src/gitlab/report.ts) that are its own: a failure
// as Markdown, the rollout table of summary.md and the dotenv report. The plan itself is the Action's
// Markdown (src/report/comment.ts), loaded lazily by the step.
import path from 'node:path';
import type { LocatedFailure } from '../core/errors.js';
import type { Promotion } from '../core/promote.js';
import type { DeployReport, RolloutReport } from '../report/report.js';

/** Longest value written to the dotenv report, in characters (an error can be long). */
export const DOTENV_VALUE_LIMIT = 1_000;

/**
 * What spread wrote: `report` a DeployReport (a success's, or what a failed rollout applied), `error`
 * the message when spread failed, with each located problem.
 */
export interface Outcome {
  readonly report?: DeployReport;
  readonly error?: string;
  readonly failures: readonly Partial<LocatedFailure>[];
}

/** The links of the job and the commit, as the plan's Markdown takes them. */
export interface Links {
  readonly runUrl?: string;
  readonly sha?: string;
  readonly commitUrl?: string;
}

/** What the failure's Markdown reads besides the outcome: the job's inputs, links, the plan formatter. */
export interface FailureContext {
  readonly env: NodeJS.ProcessEnv;
  readonly links: Links;
  readonly formatPlan?: (report: DeployReport, options: Links & { headingLevel: number }) => string;
}

/** A failure as Markdown: a title, the error and each located problem in a code block, what was applied. */
export function failureMarkdown(
  { report, error, failures }: Outcome & { error: string },
  { env, links, formatPlan }: FailureContext,
): string {
  const mode = report?.mode ?? (env.SPREAD_INPUT_MODE === 'plan' ? 'plan' : 'deploy');
  const context = report?.context || env.SPREAD_INPUT_CONTEXT;
  const namespace = report?.namespace || env.SPREAD_INPUT_NAMESPACE;
  const what = [
    report?.deployment
      ? `\`${code(report.deployment)}\``
      : `directory \`${code(env.SPREAD_INPUT_PATH || '.')}\``,
    context ? `context \`${code(context)}\`` : '',
    namespace ? `namespace \`${code(namespace)}\`` : '',
  ].filter(Boolean);
  const lines = [
    `error: ${error}`,
    // The CLI's error message often lists the located problems already.
    ...failures
      .filter((f) => f && typeof f.message === 'string' && !error.includes(f.message))
      .map(
        (f) =>
          `  ${f.file ? `${projectPath(f.file, env)}${f.line ? `:${f.line}` : ''}: ` : ''}${f.severity === 'warning' ? 'warning: ' : ''}${f.message}`,
      ),
  ];
  // The step that failed (a report's failedIn: `post`, `main wave 2`, `rollout`), as the CLI says it.
  const step = report?.failedIn ?? report?.failedBeforeMain;
  const where = step ? ` in ${step === 'rollout' ? 'the rollout' : code(step)}` : '';
  const back = report?.rolledBackTo !== undefined ? `, rolled back to revision ${report.rolledBackTo}` : '';
  const parts = [
    `### ❌ ${mode === 'plan' ? 'Plan' : 'Deploy'} failed${where}${back}: ${what.join(', ')}`,
    fenced(lines.join('\n')),
  ];
  if (report && formatPlan)
    parts.push(
      '#### What was applied before the failure',
      formatPlan(report, { ...links, headingLevel: 4 }).trimEnd(),
    );
  else if (Object.keys(links).length > 0)
    parts.push(
      `<sub>spread${links.sha ? ` · commit \`${links.sha.slice(0, 7)}\`` : ''}${links.runUrl ? ` · [job](${links.runUrl})` : ''}</sub>`,
    );
  return `${parts.join('\n\n')}\n`;
}

/** The rollout table of summary.md, empty without waited workloads. */
export function rolloutMarkdown(report: Pick<DeployReport, 'rollout'> | undefined): string {
  const rows = (report?.rollout ?? []).map(
    (r: RolloutReport) =>
      `| \`${code(`${String(r.kind).toLowerCase()}/${r.name}`)}\` | ${r.ready ? '✅' : '❌'} | ${String(r.message).replace(/\|/g, '\\|').replace(/\n/g, ' ')} | ${(Number(r.durationMs) / 1000).toFixed(1)}s |`,
  );
  return rows.length > 0
    ? `\n#### Rollout\n\n| Workload | Ready | Status | Time |\n| --- | --- | --- | --- |\n${rows.join('\n')}\n`
    : '';
}

/**
 * spread.env: one KEY=value line each, values on one line and at most {@link DOTENV_VALUE_LIMIT}
 * characters. `images` is the SPREAD_IMAGES value, already within the limit.
 */
export function dotenvText(
  { report, error }: Pick<Outcome, 'report' | 'error'>,
  env: NodeJS.ProcessEnv,
  images: (images: readonly unknown[]) => string,
): string {
  // Without a report, a failed plan changed nothing, and a failed deploy may have changed anything.
  const changed =
    report === undefined
      ? env.SPREAD_INPUT_MODE === 'plan'
        ? 'false'
        : ''
      : String(report.objects.some((o) => o.action !== 'unchanged'));
  const values = {
    SPREAD_OUTCOME: error === undefined ? 'success' : 'failure',
    SPREAD_ERROR: error ?? '',
    SPREAD_DEPLOYMENT: report?.deployment ?? '',
    // A failure before the report still names where it was going (the inputs).
    SPREAD_NAMESPACE: report?.namespace ?? env.SPREAD_INPUT_NAMESPACE ?? '',
    SPREAD_CONTEXT: report?.context ?? env.SPREAD_INPUT_CONTEXT ?? '',
    SPREAD_REVISION: report?.revision === undefined ? '' : String(report.revision),
    SPREAD_IMAGES: images(report?.images ?? []),
    SPREAD_CHANGED: changed,
    // The input environment-url, else where the deployed application answers.
    SPREAD_ENVIRONMENT_URL: env.SPREAD_ENVIRONMENT_URL || (typeof report?.url === 'string' ? report.url : ''),
  };
  return `${Object.entries(values)
    .map(([k, v]) => {
      const line = String(v).replace(/\s*[\r\n]+\s*/g, ' ');
      return `${k}=${line.length > DOTENV_VALUE_LIMIT ? `${line.slice(0, DOTENV_VALUE_LIMIT - 1)}…` : line}`;
    })
    .join('\n')}\n`;
}

/** A file of the deployed directory as a path in the project (the component's `path` input joined to it). */
function projectPath(file: string, env: NodeJS.ProcessEnv): string {
  return path.isAbsolute(file) ? file : path.posix.join(env.SPREAD_INPUT_PATH || '.', file);
}

/**
 * What a promotion deployed (mode `promote`), above its report: where it came from, the commit, each
 * `&` marker's digest; empty for any other report.
 */
export function promotionMarkdown(report: object | undefined): string {
  const p = (report as { promotion?: Promotion } | undefined)?.promotion;
  if (!p) return '';
  const from = `${code(p.from.environment)} revision ${p.from.revision}`;
  const head = p.unchanged
    ? `**${code(p.to)}** already runs ${from}: nothing changed`
    : `Promoted ${from} to **${code(p.to)}**`;
  const rows = p.images.map((i) => `| \`${code(i.mark)}\` | \`${code(i.reference)}\` |`);
  return `${head} · commit \`${code(p.commit.slice(0, 12))}\` · nothing built\n\n${rows.length > 0 ? `| Image | Digest |\n| --- | --- |\n${rows.join('\n')}\n\n` : ''}`;
}

/** A fenced code block whose fence is longer than any run of backticks in the text. */
export function fenced(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}text\n${text}\n${fence}`;
}

/** Text inside a Markdown code span: backticks cannot be escaped there. */
export function code(s: unknown): string {
  return String(s).replace(/`/g, "'").replace(/\|/g, '\\|');
}
