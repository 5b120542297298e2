// The GitLab component's report step (dist/gitlab/report.js, run by templates/deploy.yml after the
// CLI): turns what `spread deploy|plan -o json` wrote into the job's dotenv report and Markdown
// artifacts, and in a merge request pipeline posts the plan as one note per deployment.
// It reads CI_* and SPREAD_INPUT_* variables (the job's inputs) and never prints the token.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DeployReport } from '../report/report.js';
import {
  code,
  DOTENV_VALUE_LIMIT,
  dotenvText,
  failureMarkdown,
  fenced,
  type Links,
  type Outcome,
  promotionMarkdown,
  rolloutMarkdown,
} from './markdown.js';
import { upsertNote } from './note.js';

/** GitLab's limit on a note's body, in characters. */
const NOTE_LIMIT = 1_000_000;

/** The usage line, printed with exit code 2 when an argument is missing. */
export const REPORT_USAGE = 'usage: node dist/gitlab/report.js REPORT.json OUT_DIR [EXIT_STATUS]';

/**
 * An error as a few short lines: name, message (at most 20 lines) and at most 20 `at` frames, each
 * line cut to 300 characters. Never the source line Node puts first in an uncaught error's output
 * or in a SyntaxError's stack: in the minified bundle that is one line of 400,000 characters.
 */
export function describeError(error: unknown): string {
  const clip = (s: string) => (s.length > 300 ? `${s.slice(0, 299)}…` : s);
  const head = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const frames = String((error as Error | undefined)?.stack ?? '')
    .split('\n')
    .filter((l) => /^\s+at /.test(l))
    .slice(0, 20);
  return [...head.split('\n').slice(0, 20), ...frames].map(clip).join('\n');
}

/** The Markdown formatters the step shares with the Action, loaded when the step runs. */
type Formatters = typeof import('../report/comment.js') & typeof import('../report/cap.js');

/**
 * Writes spread.env (the dotenv report GitLab reads the job's dynamic `environment:url` from),
 * plan.md (the plan, or the deploy's report, as the Action's Markdown) and summary.md (plan.md and
 * the rollout with durations) into `outDir`, from `reportFile`: a report, a failure `{error, failures,
 * report?}` (report: what a failed rollout applied), or nothing when spread failed before writing
 * (`status`, spread's exit code, then says so). All three files are written in every case, a
 * failure's with its error, so a failed job's artifacts say why.
 *
 * @returns 0 when the files were written, 1 when something went wrong here (said on stderr, and in
 *   the files where possible).
 */
export async function writeReport(
  reportFile: string,
  outDir: string,
  status: number | undefined,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  mkdirSync(outDir, { recursive: true });
  const links = linksOf(env);
  /** Problems of this step itself; they are added to the files and make the exit code 1. */
  const problems: string[] = [];
  const outcome = readOutcome(reportFile, status, problems);
  const formatters: Formatters | undefined = await Promise.all([
    import('../report/comment.js'),
    import('../report/cap.js'),
  ])
    .then(([comment, cap]) => ({ ...comment, ...cap }))
    .catch((error: unknown) => {
      problems.push(`could not load spread's report formatters: ${describeError(error)}`);
      return undefined;
    });
  const context = { env, links, formatPlan: formatters?.formatPlanMarkdown };
  let plan: string;
  try {
    plan = planMarkdown(outcome, formatters, context);
  } catch (error) {
    problems.push(`could not format the report: ${describeError(error)}`);
    plan = failureMarkdown(
      { error: outcome.error ?? 'the report could not be formatted', failures: [] },
      context,
    );
  }
  if (problems.length > 0) plan += `\n${fenced(problems.map((p) => `spread report: ${p}`).join('\n'))}\n`;
  writeFileSync(path.join(outDir, 'plan.md'), plan);
  let rollout = '';
  try {
    rollout = rolloutMarkdown(outcome.report);
  } catch (error) {
    problems.push(`could not format the rollout: ${describeError(error)}`);
  }
  writeFileSync(path.join(outDir, 'summary.md'), plan + rollout);
  const images = (list: readonly unknown[]) => imagesValue(list, reportFile, formatters);
  let dotenv: string;
  try {
    dotenv = dotenvText(outcome, env, images);
  } catch (error) {
    problems.push(`could not write the dotenv report: ${describeError(error)}`);
    dotenv = dotenvText({ error: outcome.error ?? 'the report could not be read' }, env, images);
  }
  writeFileSync(path.join(outDir, 'spread.env'), dotenv);
  const written = ['spread.env', 'plan.md', 'summary.md', ...legFile(outcome, outDir, env, problems)];
  console.log(`spread: wrote ${written.map((f) => path.join(outDir, f)).join(', ')}`);
  for (const p of problems) console.error(`spread report: ${p}`);
  if (formatters) await postPlanNote(outcome, formatters, env, links);
  return problems.length > 0 ? 1 : 0;
}

/**
 * A fleet's leg (inputs `environment` and one `cluster`, `$CLUSTER` of a `parallel:matrix` job):
 * `spread-report-CLUSTER.json`, the report (or `{error, failures, report?}`) with `leg:
 * {environment, cluster}` as the Action's report file of a leg, for mode fleet-report to gather from
 * the job's artifacts. Written after a failure too, so the report job sees a failed leg as failed.
 *
 * @returns the file's name, or none when this job is no leg or the file could not be written.
 */
function legFile(outcome: Outcome, outDir: string, env: NodeJS.ProcessEnv, problems: string[]): string[] {
  const cluster = env.SPREAD_INPUT_CLUSTER?.trim() ?? '';
  const environment = env.SPREAD_INPUT_ENVIRONMENT ?? '';
  if (!cluster || cluster.includes(',') || !environment) return [];
  if (env.SPREAD_INPUT_MODE !== 'deploy' && env.SPREAD_INPUT_MODE !== 'plan') return [];
  const leg = { environment, cluster };
  const { report, error, failures } = outcome;
  const content =
    error !== undefined ? { error, failures, ...(report ? { report } : {}), leg } : { ...report, leg };
  const name = `spread-report-${cluster.replace(/[^A-Za-z0-9._-]/g, '_')}.json`;
  try {
    writeFileSync(path.join(outDir, name), `${JSON.stringify(content, null, 2)}\n`);
    return [name];
  } catch (error) {
    problems.push(`could not write the leg's report ${name}: ${describeError(error)}`);
    return [];
  }
}

/** The job's and the commit's links (CI_JOB_URL, CI_COMMIT_SHA, CI_PROJECT_URL), those that are set. */
function linksOf(env: NodeJS.ProcessEnv): Links {
  const sha = env.CI_COMMIT_SHA;
  const commitUrl = env.CI_PROJECT_URL && sha ? `${env.CI_PROJECT_URL}/-/commit/${sha}` : undefined;
  return {
    ...(env.CI_JOB_URL ? { runUrl: env.CI_JOB_URL } : {}),
    ...(sha ? { sha } : {}),
    ...(commitUrl ? { commitUrl } : {}),
  };
}

/** In a merge request pipeline in mode plan with SPREAD_MR_NOTE not `false`: the plan as one note. */
async function postPlanNote(
  outcome: Outcome,
  formatters: Formatters,
  env: NodeJS.ProcessEnv,
  links: Links,
): Promise<void> {
  const { report } = outcome;
  if (outcome.error !== undefined || report?.mode !== 'plan') return;
  if (!env.CI_MERGE_REQUEST_IID || env.SPREAD_MR_NOTE === 'false') return;
  if (!env.SPREAD_GITLAB_TOKEN) {
    console.log('spread: no SPREAD_GITLAB_TOKEN: the plan is not posted on the merge request');
    return;
  }
  try {
    const url = await upsertNote(
      {
        apiUrl: String(env.CI_API_V4_URL),
        projectId: String(env.CI_PROJECT_ID),
        mergeRequestIid: env.CI_MERGE_REQUEST_IID,
        token: env.SPREAD_GITLAB_TOKEN,
      },
      formatters.renderPlanComment(report, { ...links, limit: NOTE_LIMIT }),
      formatters.planMarker(report),
    );
    console.log(`spread: plan note ${url}`);
  } catch (error) {
    // The plan is still in the artifacts; a note that cannot be posted does not fail the job.
    console.log(`spread: WARNING: could not post the plan on the merge request: ${(error as Error).message}`);
  }
}

/** What spread wrote in `reportFile`, read with its exit `status` (see {@link Outcome}). */
function readOutcome(reportFile: string, status: number | undefined, problems: string[]): Outcome {
  let text = '';
  try {
    text = readFileSync(reportFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException)?.code !== 'ENOENT')
      problems.push(`could not read ${reportFile}: ${(error as Error).message}`);
  }
  const failed = status !== undefined && status !== 0;
  if (text.trim() === '') {
    return failed
      ? {
          error: `spread exited with status ${status} before writing a report; its errors are in the job log`,
          failures: [],
        }
      : { error: `spread wrote no report to ${reportFile}`, failures: [] };
  }
  let json: { error?: unknown; failures?: unknown; report?: unknown } | null;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { error: `spread's report ${reportFile} is not JSON (${(error as Error).message})`, failures: [] };
  }
  const leg = onlyLeg(json);
  if (leg !== undefined) json = leg;
  if (typeof json?.error === 'string') {
    return {
      error: json.error,
      failures: Array.isArray(json.failures) ? json.failures : [],
      ...(isReport(json.report) ? { report: json.report } : {}),
    };
  }
  if (!isReport(json))
    return { error: `spread's report ${reportFile} holds no deployment report`, failures: [] };
  if (failed)
    return {
      error: `spread exited with status ${status} after writing its report`,
      failures: [],
      report: json,
    };
  return { report: json, failures: [] };
}

/**
 * The one cluster of a fleet's report (`spread deploy --environment E --cluster C -o json` prints a
 * fleet report, of one cluster for a leg) as one deploy's output: its report, or `{error, report?}`.
 * Undefined when `json` is no fleet report of exactly one cluster.
 */
function onlyLeg(json: unknown): { error?: unknown; report?: unknown } | undefined {
  const waves = (json as { waves?: unknown } | null)?.waves;
  if (!Array.isArray(waves)) return undefined;
  const legs = waves.flatMap((w: { clusters?: unknown }) => (Array.isArray(w?.clusters) ? w.clusters : []));
  if (legs.length !== 1) return undefined;
  const leg = legs[0] as { status?: unknown; error?: unknown; report?: unknown };
  if (leg.status === 'succeeded' && isReport(leg.report)) return leg.report as { report?: unknown };
  return {
    error: typeof leg.error === 'string' ? leg.error : `the leg ${String(leg.status)}`,
    ...(isReport(leg.report) ? { report: leg.report } : {}),
  };
}

/** A report as far as the step needs to trust it: an object with an `objects` array. */
function isReport(value: unknown): value is DeployReport {
  return typeof value === 'object' && value !== null && Array.isArray((value as DeployReport).objects);
}

/** plan.md: the report's Markdown; after a failure the error first, then what was done. */
function planMarkdown(
  outcome: Outcome,
  formatters: Formatters | undefined,
  context: Parameters<typeof failureMarkdown>[1],
): string {
  const { report, error } = outcome;
  if (error !== undefined) return failureMarkdown({ ...outcome, error }, context);
  if (!report) throw new Error('no report');
  if (formatters) return promotionMarkdown(report) + formatters.formatPlanMarkdown(report, context.links);
  return `### ${report.mode === 'plan' ? 'Plan' : 'Deploy'}: \`${code(report.deployment)}\` → context \`${code(report.context)}\`, namespace \`${code(report.namespace)}\`\n\nThe report could not be formatted; the whole report is in report.json.\n`;
}

/**
 * The images as a JSON array that still parses when cut to GitLab's dotenv limit (capJsonArray: the
 * first images, then an object saying how many were left out); `[]` when too long and the formatters
 * could not be loaded.
 */
function imagesValue(
  images: readonly unknown[],
  reportFile: string,
  formatters: Formatters | undefined,
): string {
  const whole = JSON.stringify(images);
  if (whole.length <= DOTENV_VALUE_LIMIT) return whole;
  if (!formatters) return '[]';
  return formatters.capJsonArray(images, 'images', {
    reportFile,
    reportFileName: `the artifact ${path.basename(reportFile)}`,
    limitName: "a dotenv value's limit in GitLab",
    limitBytes: DOTENV_VALUE_LIMIT,
  });
}
