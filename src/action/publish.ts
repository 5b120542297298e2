// Everything the Action leaves after a run (report file, outputs, job summary, comments), in one place
// so that a success and a failure publish alike; a failure to write any of them only warns.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as core from '@actions/core';
import { phraseOptionsIn } from '../base/option-ref.js';
import type { FailureTarget } from '../core/deploy/index.js';
import type { LocatedFailure } from '../core/errors.js';
import type { LegTag } from '../core/fleet/matrix.js';
import { capJsonArray, capText, OUTPUT_LIMIT_BYTES } from '../report/cap.js';
import {
  formatPlanMarkdown,
  planMarker,
  renderDeployComment,
  renderPlanComment,
  renderPlanFailureComment,
} from '../report/comment.js';
import { countActions } from '../report/report.js';
import { describeCommentError, pullRequestsOf, upsertComment } from './comment.js';
import type { Inputs } from './inputs.js';
import { actionOption } from './logger.js';
import { type RunnerEnv, runLinks } from './runner.js';
import { addDeploySummary, addFailureSummary, type Operation, type SummaryReport } from './summary.js';

// What a run of the Action leaves for its readers: the report file, the outputs, the job summary and
// the pull request's comment.

/** A failure as the Action shows it: options spelled as its inputs, files relative to the workspace. */
export interface ActionFailure {
  readonly error: string;
  readonly failures: readonly LocatedFailure[];
  /** The deployment the failure was about, when the directory had been read (see core's failureTarget). */
  readonly target?: FailureTarget;
}

/** What {@link publish} adds to a report: the failure, and the run's operation when it is not the report's mode. */
export interface PublishOptions {
  readonly error?: ActionFailure;
  readonly operation?: Operation;
}

/**
 * Writes the whole report to a JSON file in RUNNER_TEMP (output `report-file`): the report on
 * success, `{error, failures, report?}` on failure, the shape of the CLI's `--output json`. A name of
 * its own per step, so that several steps of a job keep theirs. Undefined when it cannot be written
 * (with a warning): the outputs then say so instead of naming it.
 */
export function writeReportFile(runner: RunnerEnv, content: unknown): string | undefined {
  const file = path.join(runner.temp, `spread-report-${randomBytes(6).toString('hex')}.json`);
  try {
    mkdirSync(runner.temp, { recursive: true });
    writeFileSync(file, `${JSON.stringify(content, null, 2)}\n`);
    core.setOutput('report-file', file);
    return file;
  } catch (error) {
    core.warning(`could not write the report file ${file}: ${(error as Error).message}`);
    return undefined;
  }
}

/**
 * Which leg of a fleet's matrix the report file is (inputs `environment` and `cluster`), so that
 * mode `fleet-report` knows it whatever the artifact's name, and even when the leg failed before it
 * had a report.
 */
function legOf(inputs: Pick<Inputs, 'environment' | 'cluster'>): { leg?: LegTag } {
  return inputs.cluster && inputs.environment
    ? { leg: { environment: inputs.environment, cluster: inputs.cluster } }
    : {};
}

/** The summary's operation of a mode: a fleet's modes are a plan and a deploy's report. */
function operationOf(mode: Inputs['mode']): Operation {
  return mode === 'fleet-plan' ? 'plan' : mode === 'fleet-report' || mode === 'fleet-soak' ? 'deploy' : mode;
}

/**
 * Publishes a report: the report file, the outputs, the job summary and, as the inputs ask, the plan
 * comment or the deploy comment. Writing any of them only warns when it fails.
 */
export async function publish(
  given: SummaryReport,
  inputs: Inputs,
  runner: RunnerEnv,
  options: PublishOptions = {},
): Promise<void> {
  // Messages of the core name options by key; the Action's readers know them as inputs.
  const report = phraseOptionsIn(given, actionOption);
  const links = runLinks(runner);
  const sha = runner.pullRequest?.headSha || runner.sha;
  const reportFile =
    writeReportFile(
      runner,
      options.error
        ? { error: options.error.error, failures: options.error.failures, report, ...legOf(inputs) }
        : { ...report, ...legOf(inputs) },
    ) ?? 'the job summary (the report file could not be written)';
  setReportOutputs(report, reportFile, { ...links, ...(sha ? { sha } : {}) }, options.operation);
  try {
    addDeploySummary(core.summary, report, {
      ...links,
      ...(sha ? { sha } : {}),
      ...(options.error ? { failure: options.error.error } : {}),
      ...(options.operation ? { operation: options.operation } : {}),
    });
    await core.summary.write();
  } catch (error) {
    core.warning(`could not write the job summary: ${(error as Error).message}`);
  }
  if (
    report.mode === 'deploy' &&
    inputs.deployComment &&
    !options.error &&
    options.operation !== 'delete' &&
    inputs.githubToken
  )
    await updateDeployComment(report, inputs, runner, { ...links, ...(sha ? { sha } : {}) });
  if (report.mode === 'plan' && runner.pullRequest && inputs.comment)
    await postPlanComment(report, inputs, runner, { ...links, ...(sha ? { sha } : {}) });
}

/** The step's outputs of `report`, each capped (report/cap.ts) with a pointer to `reportFile`. */
function setReportOutputs(
  report: SummaryReport,
  reportFile: string,
  links: { commitUrl?: string; runUrl?: string; sha?: string },
  operation: Operation | undefined,
): void {
  const c = countActions(report);
  const cap = { reportFile };
  const output = (name: string, value: string | number | boolean) =>
    core.setOutput(name, capText(String(value), cap));
  output('deployment', report.deployment);
  output('namespace', report.namespace);
  output('context', report.context);
  if (report.revision !== undefined) output('revision', String(report.revision));
  output('url', report.url ?? '');
  core.setOutput('objects', capJsonArray(report.objects, 'objects', cap));
  if (report.images !== undefined) core.setOutput('images', capJsonArray(report.images, 'images', cap));
  output('created', c.created + c.create);
  output('configured', c.configured + c.update + c.replace);
  output('unchanged', c.unchanged);
  output('pruned', c.pruned + c.prune);
  output('changed', c.created + c.create + c.configured + c.update + c.replace + c.pruned + c.prune > 0);
  output(
    'plan',
    planOutput(
      report,
      { ...links, ...(operation === 'delete' ? { operation: 'delete' as const } : {}) },
      reportFile,
    ),
  );
}

/** Mode `plan` on a pull request: the plan as the pull request's comment (input `comment`); problems only warn. */
async function postPlanComment(
  report: SummaryReport,
  inputs: Inputs,
  runner: RunnerEnv,
  links: { commitUrl?: string; runUrl?: string; sha?: string },
): Promise<void> {
  const pullRequest = runner.pullRequest!;
  if (!inputs.githubToken) {
    core.notice('no github-token: the plan is not posted on the pull request');
    return;
  }
  try {
    const body = renderPlanComment(report, links);
    const result = await upsertComment(
      {
        token: inputs.githubToken,
        apiUrl: runner.apiUrl,
        repository: runner.repository,
        pullRequest: pullRequest.number,
      },
      planMarker(report),
      body,
    );
    core.info(`plan comment ${result.action}: ${result.url}`);
    core.setOutput('comment-url', result.url);
  } catch (error) {
    // The plan is still in the summary and the outputs; posting it only warns.
    core.warning(
      `could not post the plan on pull request #${pullRequest.number}: ${describeCommentError(error, runner.apiUrl)}`,
    );
  }
}

/**
 * Input `deploy-comment`: the deployment's plan comment on its pull request (the event's, else those
 * the commit belongs to, e.g. the merged one of a push to main) says what was deployed, where, the URL
 * and the revision. A comment is created when the plan posted none. Problems only warn.
 */
async function updateDeployComment(
  report: SummaryReport,
  inputs: Inputs,
  runner: RunnerEnv,
  links: { commitUrl?: string; runUrl?: string; sha?: string },
): Promise<void> {
  const api = { token: inputs.githubToken, apiUrl: runner.apiUrl, repository: runner.repository };
  try {
    const numbers = runner.pullRequest
      ? [runner.pullRequest.number]
      : links.sha
        ? await pullRequestsOf(api, links.sha)
        : [];
    if (numbers.length === 0) core.info('deploy-comment: the commit belongs to no pull request');
    for (const pullRequest of numbers) {
      const result = await upsertComment(
        { ...api, pullRequest },
        planMarker(report),
        renderDeployComment(report, links),
      );
      core.info(`deploy comment ${result.action} on pull request #${pullRequest}: ${result.url}`);
      core.setOutput('comment-url', result.url);
    }
  } catch (error) {
    core.warning(
      `could not update the pull request comment after the deploy: ${describeCommentError(error, runner.apiUrl)}`,
    );
  }
}

/**
 * The `plan` output: the plan as Markdown within the output limit. Trimmed by formatPlanMarkdown
 * (diffs first, then rows) to fit, with a line naming the report file, which holds every change.
 */
function planOutput(
  report: SummaryReport,
  links: { commitUrl?: string; runUrl?: string; sha?: string; operation?: 'delete' },
  reportFile: string,
): string {
  const whole = formatPlanMarkdown(report, links);
  if (Buffer.byteLength(whole) <= OUTPUT_LIMIT_BYTES) return whole;
  const note = `\n\nThe whole report, every object and change, is in ${reportFile} (output report-file).`;
  // Characters are at most 4 bytes: shrink the character limit until the bytes fit.
  let chars = OUTPUT_LIMIT_BYTES - Buffer.byteLength(note);
  let text = formatPlanMarkdown(report, { ...links, limit: chars });
  while (Buffer.byteLength(text) + Buffer.byteLength(note) > OUTPUT_LIMIT_BYTES && chars > 1024) {
    chars = Math.floor(chars * 0.8);
    text = formatPlanMarkdown(report, { ...links, limit: chars });
  }
  return capText(`${text}${note}`, { reportFile });
}

/**
 * A run that failed before it had a report: the report file with the error, and a job summary
 * with it. Writing the summary only warns when it fails.
 */
export async function publishFailure(
  failure: ActionFailure,
  inputs: Inputs | undefined,
  runner: RunnerEnv,
): Promise<void> {
  writeReportFile(runner, {
    error: failure.error,
    failures: failure.failures,
    ...(inputs ? legOf(inputs) : {}),
  });
  if (inputs?.mode === 'plan' && runner.pullRequest && inputs.comment && failure.target)
    await postFailureComment(failure, failure.target, inputs, runner);
  try {
    const runUrl = runLinks(runner).runUrl;
    addFailureSummary(core.summary, failure.error, failure.failures, {
      operation: operationOf(inputs?.mode ?? 'deploy'),
      ...(inputs ? { target: inputs.name || inputs.path } : {}),
      ...(runUrl ? { runUrl } : {}),
    });
    await core.summary.write();
  } catch (error) {
    core.warning(`could not write the job summary: ${(error as Error).message}`);
  }
}

/**
 * Mode `plan` on a pull request whose plan the server refused: the deployment's plan comment says so,
 * each problem at its file and line, instead of showing the plan of an earlier push. Problems only warn.
 */
async function postFailureComment(
  failure: ActionFailure,
  target: FailureTarget,
  inputs: Inputs,
  runner: RunnerEnv,
): Promise<void> {
  const pullRequest = runner.pullRequest!.number;
  if (!inputs.githubToken) return;
  const links = runLinks(runner);
  const sha = runner.pullRequest?.headSha || runner.sha;
  try {
    const body = renderPlanFailureComment(target, failure.error, failure.failures, {
      ...links,
      ...(sha ? { sha } : {}),
    });
    const api = { token: inputs.githubToken, apiUrl: runner.apiUrl, repository: runner.repository };
    const result = await upsertComment({ ...api, pullRequest }, planMarker(target), body);
    core.info(`plan comment ${result.action} with the failure: ${result.url}`);
    core.setOutput('comment-url', result.url);
  } catch (error) {
    core.warning(
      `could not post the failed plan on pull request #${pullRequest}: ${describeCommentError(error, runner.apiUrl)}`,
    );
  }
}
