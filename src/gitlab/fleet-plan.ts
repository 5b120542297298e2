// The GitLab component's mode fleet-plan (dist/gitlab/fleet-plan.js, run by templates/deploy.yml
// after `spread plan --environment E -o json`): writes the fleet's child pipeline
// (`fleet-pipeline.yml`, src/gitlab/fleet-pipeline.ts) for the parent's `trigger: include: artifact:`
// job, and the fleet's plan (every cluster's server-side dry run) to the log, fleet-plan.md and, in a
// merge request pipeline with SPREAD_GITLAB_TOKEN, one note. Reads CI_* and SPREAD_* variables and
// never prints the token.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { defaultDeploymentName } from '../base/origin.js';
import { deploymentOrigin } from '../frontend/origin.js';
import { type FleetReport, formatFleetText } from '../report/fleet.js';
import { fleetMarker, formatFleetMarkdown } from '../report/fleet-markdown.js';
import { declaredFleet, postNote } from './fleet.js';
import { fleetPipeline, withheldInputs } from './fleet-pipeline.js';

/** GitLab's limit on a note's body, in characters. */
const NOTE_LIMIT = 1_000_000;

/** The child pipeline's file in OUT_DIR: the parent's trigger job names `.spread/fleet-pipeline.yml`. */
export const FLEET_PIPELINE_FILE = 'fleet-pipeline.yml';

/** The usage line, printed with exit code 2 when an argument is missing. */
export const FLEET_PLAN_USAGE = 'usage: node dist/gitlab/fleet-plan.js REPORT_JSON OUT_DIR EXIT_CODE';

/**
 * Writes `fleet-pipeline.yml` into `outDir` from the fleet SPREAD_INPUT_ENVIRONMENT names (before
 * reading the plan: the pipeline depends on spread.yaml alone), then reads `reportFile`, the output
 * of `spread plan --environment E -o json` (a fleet report, or `{error}` when the fleet could not be
 * planned), prints it, writes `fleet-plan.md`, `spread.env` (SPREAD_OUTCOME) and updates the note.
 *
 * @returns 0 when every cluster was planned, 1 when one was not (after the note) or the report is
 *   no fleet report.
 * @throws Error when the environment is not declared or the pipeline cannot be written.
 */
export async function writeFleetPlan(
  reportFile: string,
  outDir: string,
  exitCode: number,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const { dir, environment, file } = declaredFleet(env, 'fleet-plan');
  const pipeline = fleetPipeline(environment, {
    component: env.SPREAD_INPUT_COMPONENT || '',
    env,
    source: path.join(env.SPREAD_INPUT_PATH || '.', file),
  });
  writeFileSync(path.join(outDir, FLEET_PIPELINE_FILE), pipeline);
  const withheld = withheldInputs(env);
  if (withheld.length > 0)
    console.log(
      `spread: WARNING: the input(s) ${withheld.join(', ')} are not written into the child pipeline (an artifact; their values may be credentials): the legs deploy without them; declare Helm values in spread.yaml (helmSet, helmValues)`,
    );
  console.log(`spread: the fleet's child pipeline: .spread/${FLEET_PIPELINE_FILE}`);
  process.stdout.write(pipeline);
  const report = readPlan(reportFile);
  const ok = typeof report !== 'string' && report.status === 'succeeded' && exitCode === 0;
  writeFileSync(path.join(outDir, 'spread.env'), `SPREAD_OUTCOME=${ok ? 'success' : 'failure'}\n`);
  if (typeof report === 'string') {
    console.error(`spread fleet-plan: ${report}`);
    return 1;
  }
  process.stdout.write(formatFleetText(report));
  const deployment = env.SPREAD_INPUT_NAME || defaultDeploymentName(deploymentOrigin(env, dir));
  const marker = fleetMarker('plan', deployment, report.environment);
  const sha = env.CI_COMMIT_SHA;
  const markdown = (limit?: number) =>
    `${marker}\n${formatFleetMarkdown(report, {
      deployment,
      ...(env.CI_JOB_URL ? { runUrl: env.CI_JOB_URL } : {}),
      ...(sha ? { sha } : {}),
      ...(env.CI_PROJECT_URL && sha ? { commitUrl: `${env.CI_PROJECT_URL}/-/commit/${sha}` } : {}),
      ...(limit ? { limit } : {}),
    })}`;
  writeFileSync(path.join(outDir, 'fleet-plan.md'), markdown());
  await postNote(markdown(NOTE_LIMIT), marker, env, 'plan');
  if (ok) return 0;
  const failed = report.waves.flatMap((w) => w.clusters.filter((c) => c.status !== 'succeeded'));
  console.error(
    `spread: fleet ${report.environment}: the plan of ${failed.map((c) => c.cluster).join(', ') || 'the fleet'} failed`,
  );
  return 1;
}

/** The fleet report in `file`, or why there is none (the CLI's `{error}`, or no JSON). */
function readPlan(file: string): FleetReport | string {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return `the plan's output ${file} is not JSON: ${(error as Error).message}`;
  }
  const value = json as { waves?: unknown; error?: unknown };
  if (Array.isArray(value?.waves)) return json as FleetReport;
  return typeof value?.error === 'string'
    ? `the fleet could not be planned: ${value.error}`
    : `the plan's output ${file} is no fleet report`;
}
