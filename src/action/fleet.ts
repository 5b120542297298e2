// The Action's fleet modes, a fleet deployed by the workflow's own matrix (docs/fleets.md):
// `fleet-plan` outputs each wave's matrix and plans every cluster into one comment; `fleet-report`
// gathers the legs' report files (artifacts, since a matrix keeps one leg's outputs) into one job
// summary and comment, and fails when a leg failed or did not run.
import path from 'node:path';
import * as core from '@actions/core';
import { defaultDeploymentName } from '../base/origin.js';
import type { KubeconfigSource } from '../cluster/kubeconfig.js';
import { fleetMatrix, fleetWaveNames, gatherFleet } from '../core/fleet/matrix.js';
import type { DeployRequest } from '../frontend/deploy.js';
import { type EnvironmentTarget, requireDeclaration } from '../frontend/environment.js';
import { deployFleet } from '../frontend/fleet.js';
import { type LegFileProblem, readLegReports } from '../frontend/fleet-reports.js';
import { deploymentOrigin } from '../frontend/origin.js';
import { ALL_ENVIRONMENTS, type Environment, environmentNamed } from '../project/environments.js';
import type { FleetReport } from '../report/fleet.js';
import { fleetMarker, formatFleetMarkdown } from '../report/fleet-markdown.js';
import { describeCommentError, upsertComment } from './comment.js';
import type { Inputs } from './inputs.js';
import { prepareKubeconfig } from './kubeconfig.js';
import { actionText, createActionLogger } from './logger.js';
import { writeReportFile } from './publish.js';
import { type RunnerEnv, runLinks } from './runner.js';

/** A fleet step failed after its summary and comment were written (main.ts publishes nothing more). */
export class FleetFailure extends Error {}

/**
 * Mode `fleet-plan`: outputs `matrix` (each wave's `{include, max-parallel?}` by name) and `waves`
 * (their names, in order), then plans every cluster (each a server-side dry run in its own context;
 * one failing does not stop the others) and writes the fleet's plan to the job summary and, on a
 * pull request, one comment. `request` is one cluster's plan as mode plan builds it.
 *
 * @throws FleetFailure naming the clusters whose plan failed, after the summary and comment.
 */
export async function runFleetPlan(
  inputs: Inputs,
  runner: RunnerEnv,
  signal: AbortSignal,
  request: (target: EnvironmentTarget, kubeconfig: KubeconfigSource) => DeployRequest,
): Promise<void> {
  const { dir, environment } = fleetOf(inputs, runner);
  const matrix = fleetMatrix(environment);
  core.setOutput('matrix', JSON.stringify(matrix));
  core.setOutput('waves', JSON.stringify(fleetWaveNames(environment)));
  core.info(`fleet ${environment.name}: ${JSON.stringify(matrix)}`);
  const kube = prepareKubeconfig(inputs.kubeconfig, '', runner);
  let report: FleetReport;
  try {
    report = await deployFleet({
      dir,
      environment,
      given: {
        context: inputs.context || undefined,
        namespace: inputs.namespace || undefined,
        helmValues: inputs.helmValues,
        helmSet: inputs.helmSet,
        pullRequest: runner.pullRequest?.number,
      },
      request: (target) => request(target, kube.source),
      logger: createActionLogger({ annotate: inputs.annotate, locate: (f) => f }),
      signal,
      mode: 'plan',
    });
  } finally {
    kube.cleanup();
  }
  await publishFleet('plan', report, [], inputs, runner, dir);
  failWhenFailed(report, [], 'plan');
}

/**
 * Mode `fleet-report`: reads the legs' report files under the input `reports` (src/frontend/fleet-reports.ts),
 * gathers the fleet's report (a cluster without one did not run), writes the job summary, on a pull
 * request the comment, the output `status` and `report-file`.
 *
 * @throws FleetFailure when a leg failed, did not run, or a file could not be read.
 */
export async function runFleetReport(inputs: Inputs, runner: RunnerEnv): Promise<void> {
  const { dir, environment } = fleetOf(inputs, runner);
  const reports = path.resolve(runner.workspace, inputs.reports);
  const read = readLegReports(reports, environment);
  core.info(`${read.files} report file(s) under ${reports}`);
  const report = gatherFleet(environment, read.legs);
  await publishFleet('report', report, read.problems, inputs, runner, dir);
  failWhenFailed(report, read.problems, 'deploy');
}

/** The environment the input names, which must be declared (a fleet, or one cluster: one leg). */
function fleetOf(inputs: Inputs, runner: RunnerEnv): { dir: string; environment: Environment } {
  const dir = path.resolve(runner.workspace, inputs.path);
  if (!inputs.environment || inputs.environment === ALL_ENVIRONMENTS)
    throw new Error(
      `mode ${inputs.mode} needs the input environment: the fleet's environment in spread.yaml`,
    );
  const declaration = requireDeclaration(dir, inputs.environment);
  const environment = environmentNamed(declaration, inputs.environment);
  if (environment === undefined)
    throw new Error(
      `environment ${inputs.environment} is not declared in ${declaration.file} (declared: ${declaration.environments.map((e) => e.name).join(', ')})`,
    );
  return { dir, environment };
}

/** The report file, output `status`, the job summary and (on a pull request) the comment; problems only warn. */
async function publishFleet(
  kind: 'plan' | 'report',
  report: FleetReport,
  problems: readonly LegFileProblem[],
  inputs: Inputs,
  runner: RunnerEnv,
  dir: string,
): Promise<void> {
  const failed = report.status === 'failed' || problems.length > 0;
  core.setOutput('status', failed ? 'failed' : 'succeeded');
  writeReportFile(runner, problems.length > 0 ? { ...report, problems } : report);
  const deployment = inputs.name || defaultDeploymentName(deploymentOrigin(process.env, dir));
  const sha = runner.pullRequest?.headSha || runner.sha;
  const body = `${fleetMarker(kind, deployment, report.environment)}\n${formatFleetMarkdown(report, {
    deployment,
    problems,
    ...runLinks(runner),
    ...(sha ? { sha } : {}),
  })}`;
  try {
    await core.summary.addRaw(body, true).write();
  } catch (error) {
    core.warning(`could not write the job summary: ${(error as Error).message}`);
  }
  if (!runner.pullRequest || (kind === 'plan' && !inputs.comment)) return;
  if (!inputs.githubToken) {
    core.notice(`no github-token: the fleet's ${kind} is not posted on the pull request`);
    return;
  }
  try {
    const target = { token: inputs.githubToken, apiUrl: runner.apiUrl, repository: runner.repository };
    const result = await upsertComment(
      { ...target, pullRequest: runner.pullRequest.number },
      fleetMarker(kind, deployment, report.environment),
      body,
    );
    core.info(`fleet ${kind} comment ${result.action}: ${result.url}`);
    core.setOutput('comment-url', result.url);
  } catch (error) {
    core.warning(
      `could not post the fleet's ${kind} on pull request #${runner.pullRequest.number}: ${describeCommentError(error, runner.apiUrl)}`,
    );
  }
}

/** @throws FleetFailure naming each failed or missing leg and each file not read. */
function failWhenFailed(
  report: FleetReport,
  problems: readonly LegFileProblem[],
  mode: 'plan' | 'deploy',
): void {
  const bad = report.waves.flatMap((w) => w.clusters.filter((c) => c.status !== 'succeeded'));
  if (bad.length === 0 && problems.length === 0) return;
  const lines = [
    ...bad.map(
      (c) => `${c.cluster} (wave ${c.wave}): ${c.status}${c.error ? `: ${c.error.split('\n')[0]}` : ''}`,
    ),
    ...problems.map((p) => `${p.file}: ${p.error}`),
  ];
  const what = mode === 'plan' ? 'plan' : 'deploy';
  throw new FleetFailure(
    actionText(
      `fleet ${report.environment}: the ${what} of ${bad.length} of ${report.waves.flatMap((w) => w.clusters).length} cluster(s) did not succeed${problems.length > 0 ? `, ${problems.length} report file(s) not read` : ''}:\n${lines.join('\n')}`,
    ),
  );
}
