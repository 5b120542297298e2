// The Action's fleet modes, a fleet deployed by the workflow's own matrix (docs/fleets.md):
// `fleet-plan` outputs each wave's matrix and plans every cluster into one comment; `fleet-soak`, a
// job between waves, keeps reading a wave's rollout state for its soak time (src/core/fleet/soak.ts);
// `fleet-report` gathers the legs' report files (artifacts, since a matrix keeps one leg's outputs)
// into one job summary and comment, and fails when a leg failed or did not run.
import path from 'node:path';
import * as core from '@actions/core';
import { defaultDeploymentName } from '../base/origin.js';
import type { KubeconfigSource } from '../cluster/kubeconfig.js';
import type { LegConnection } from '../core/fleet/index.js';
import { fleetMatrix, fleetWaveNames, gatherFleet, type LegFile } from '../core/fleet/matrix.js';
import { type SoakedLeg, soak } from '../core/fleet/soak.js';
import type { DeployRequest } from '../frontend/deploy.js';
import { type EnvironmentTarget, requireDeclaration } from '../frontend/environment.js';
import { deployFleet, fleetPlan } from '../frontend/fleet.js';
import { type LegFileProblem, readLegReports } from '../frontend/fleet-reports.js';
import { deploymentOrigin } from '../frontend/origin.js';
import { ALL_ENVIRONMENTS, type Environment, environmentNamed } from '../project/environments.js';
import { fleetWaves } from '../project/fleet-waves.js';
import type { FleetReport } from '../report/fleet.js';
import { fleetMarker, formatFleetMarkdown } from '../report/fleet-markdown.js';
import type { DeployReport } from '../report/report.js';
import { describeCommentError, pullRequestsOf, upsertComment } from './comment.js';
import type { Inputs } from './inputs.js';
import { prepareKubeconfig } from './kubeconfig.js';
import { actionText, createActionLogger } from './logger.js';
import { writeReportFile } from './publish.js';
import { type RunnerEnv, runLinks } from './runner.js';

/** A fleet step failed after its summary and comment were written (main.ts publishes nothing more). */
export class FleetFailure extends Error {}

/** How a fleet mode plans one cluster (`request`), as mode plan builds it. */
type LegRequest = (target: EnvironmentTarget, kubeconfig: KubeconfigSource) => DeployRequest;

/** Runs mode `fleet-plan`, `fleet-soak` or `fleet-report`; `request` builds one cluster's plan. */
export async function runFleetMode(
  inputs: Inputs,
  runner: RunnerEnv,
  signal: AbortSignal,
  request: LegRequest,
): Promise<void> {
  if (inputs.mode === 'fleet-report') return await runFleetReport(inputs, runner);
  if (inputs.mode === 'fleet-soak') return await runFleetSoak(inputs, runner, signal, request);
  return await runFleetPlan(inputs, runner, signal, request);
}

/**
 * Mode `fleet-plan`: outputs `matrix` (each wave's `{include, max-parallel, clusters, soak}` by name,
 * every declared wave) and `waves`
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
  request: LegRequest,
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
  if (kind === 'plan' && (!runner.pullRequest || !inputs.comment)) return;
  await commentFleet(kind, fleetMarker(kind, deployment, report.environment), body, inputs, runner);
}

/**
 * The fleet's comment on its pull request: the event's, else (a report on `push`) those the pushed
 * commit belongs to (REST "List pull requests associated with a commit": the merged one). Only warns.
 */
async function commentFleet(
  kind: 'plan' | 'report',
  marker: string,
  body: string,
  inputs: Inputs,
  runner: RunnerEnv,
): Promise<void> {
  if (!runner.pullRequest && !runner.sha) return;
  if (!inputs.githubToken) {
    core.notice(`no github-token: the fleet's ${kind} is not posted on a pull request`);
    return;
  }
  const target = { token: inputs.githubToken, apiUrl: runner.apiUrl, repository: runner.repository };
  try {
    const numbers = runner.pullRequest
      ? [runner.pullRequest.number]
      : await pullRequestsOf(target, runner.sha);
    if (numbers.length === 0) core.info(`fleet ${kind}: commit ${runner.sha} belongs to no pull request`);
    for (const pullRequest of numbers) {
      const result = await upsertComment({ ...target, pullRequest }, marker, body);
      core.info(`fleet ${kind} comment ${result.action} on pull request #${pullRequest}: ${result.url}`);
      core.setOutput('comment-url', result.url);
    }
  } catch (error) {
    core.warning(
      `could not post the fleet's ${kind} on its pull request: ${describeCommentError(error, runner.apiUrl)}`,
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

/** How often the soak reads the rollout state, as the CLI's fleet deploy does. */
const SOAK_INTERVAL_MS = 5000;

/**
 * Mode `fleet-soak`: the clusters of the input `wave` of `environment`, each with its leg's report
 * file under `reports` (a successful deploy), are watched for the wave's `soak` (spread.yaml): every
 * 5 s the rollout state of what the leg waited for is read again; an object failed, gone or
 * unreadable fails its cluster at once, one not ready fails it when still so at the end. A wave without
 * a soak passes at once. Writes the job summary and the output `status`.
 *
 * @throws FleetFailure naming each cluster of the wave without a successful report or that did not stay
 *   healthy, after the summary; Error when the input `wave` names no wave of the environment.
 */
export async function runFleetSoak(
  inputs: Inputs,
  runner: RunnerEnv,
  signal: AbortSignal,
  request: LegRequest,
): Promise<void> {
  const { dir, environment } = fleetOf(inputs, runner);
  const waves = fleetWaves(environment);
  const wave = waves.find((w) => w.name === inputs.wave);
  if (wave === undefined)
    throw new Error(
      `mode fleet-soak needs the input wave: one of environment ${environment.name}'s waves (${waves.map((w) => w.name).join(', ')}), got "${inputs.wave}"`,
    );
  const soakMs = wave.soakMs ?? 0;
  const { legs } = readLegReports(path.resolve(runner.workspace, inputs.reports), environment);
  const problems = new Map<string, string>();
  const deployed = new Map<string, DeployReport>();
  for (const name of wave.clusters) {
    const file: LegFile | undefined = legs.get(name);
    if (file === undefined) problems.set(name, 'no report: the leg did not run');
    else if ('error' in file) problems.set(name, `its leg failed: ${file.error.split('\n')[0]}`);
    else deployed.set(name, file);
  }
  core.info(`wave ${wave.name}: ${deployed.size} of ${wave.clusters.length} leg(s) deployed`);
  if (soakMs === 0)
    core.info(
      `wave ${wave.name} has no soak in spread.yaml: nothing to watch, the wave passes when its legs succeeded (skip this job with the matrix's soak: 0)`,
    );
  if (problems.size === 0 && soakMs > 0 && deployed.size > 0) {
    core.info(`wave ${wave.name}: soaking for ${Math.round(soakMs / 1000)}s`);
    const kube = prepareKubeconfig(inputs.kubeconfig, '', runner);
    try {
      const clusters = fleetPlan({
        dir,
        environment,
        given: { namespace: inputs.namespace || undefined },
        only: wave.clusters,
        request: (target) => request(target, kube.source),
        logger: createActionLogger({ annotate: inputs.annotate, locate: (f) => f }),
        signal,
        mode: 'plan',
      }).flatMap((w) => w.clusters);
      const connections: LegConnection[] = [];
      try {
        const soaked: SoakedLeg[] = [];
        for (const c of clusters) {
          const connection = await c.connect(signal).catch((error: unknown) => {
            problems.set(c.name, `cannot connect: ${(error as Error).message}`);
          });
          if (!connection) continue;
          connections.push(connection);
          soaked.push({ name: c.name, cluster: connection.cluster, report: deployed.get(c.name)! });
        }
        const found = await soak(soaked, soakMs, SOAK_INTERVAL_MS, signal);
        for (const [name, message] of found) problems.set(name, message);
      } finally {
        for (const c of connections) c.close();
      }
    } finally {
      kube.cleanup();
    }
  }
  await publishSoak(environment.name, wave.name, wave.clusters, soakMs, problems);
  if (problems.size > 0)
    throw new FleetFailure(
      actionText(
        `fleet ${environment.name}: wave ${wave.name} ${soakMs > 0 ? `did not stay healthy for its soak (${Math.round(soakMs / 1000)}s)` : 'has no soak, and not every leg of it succeeded'}:\n${[...problems].map(([c, m]) => `${c}: ${m}`).join('\n')}`,
      ),
    );
}

/** The output `status` and the job summary: a row per cluster of the wave. Writing the summary only warns. */
async function publishSoak(
  environment: string,
  wave: string,
  clusters: readonly string[],
  soakMs: number,
  problems: ReadonlyMap<string, string>,
): Promise<void> {
  core.setOutput('status', problems.size > 0 ? 'failed' : 'succeeded');
  const rows = clusters.map((c) => {
    const problem = problems.get(c);
    return `| ${problem ? '❌' : '✅'} | \`${c}\` | ${problem ? problem.replace(/\|/g, '\\|').replace(/\n/g, ' ') : 'healthy'} |`;
  });
  const heading = `## ${problems.size > 0 ? '❌' : '✅'} Soak of wave \`${wave}\` → environment \`${environment}\``;
  const body = [
    heading,
    '',
    soakMs > 0
      ? `The rollout state of each cluster's deploy, read for ${Math.round(soakMs / 1000)}s.`
      : 'The wave has no soak time in spread.yaml.',
    '',
    '| | cluster | |',
    '|---|---|---|',
    ...rows,
    '',
  ].join('\n');
  try {
    await core.summary.addRaw(body, true).write();
  } catch (error) {
    core.warning(`could not write the job summary: ${(error as Error).message}`);
  }
}
