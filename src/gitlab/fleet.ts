// The GitLab component's mode fleet-report (dist/gitlab/fleet.js, run by templates/deploy.yml): the
// fleet's legs ran as `parallel:matrix` jobs, one stage per wave, each leaving
// `.spread/spread-report-CLUSTER.json` as an artifact; this final job gathers them into one fleet
// report (job log, fleet-report.md, fleet-report.json, SPREAD_OUTCOME in spread.env) and a merge
// request note, and fails when a leg failed or did not run. It reads CI_* and SPREAD_INPUT_* variables and never prints the token.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { defaultDeploymentName } from '../base/origin.js';
import { gatherFleet } from '../core/fleet/matrix.js';
import { requireDeclaration } from '../frontend/environment.js';
import { type LegFileProblem, readLegReports } from '../frontend/fleet-reports.js';
import { deploymentOrigin } from '../frontend/origin.js';
import { ALL_ENVIRONMENTS, type Environment, environmentNamed } from '../project/environments.js';
import { type FleetReport, formatFleetText } from '../report/fleet.js';
import { fleetMarker, formatFleetMarkdown } from '../report/fleet-markdown.js';
import { upsertNote } from './note.js';

/** GitLab's limit on a note's body, in characters. */
const NOTE_LIMIT = 1_000_000;

/** The usage line, printed with exit code 2 when an argument is missing. */
export const FLEET_USAGE = 'usage: node dist/gitlab/fleet.js REPORTS_DIR OUT_DIR';

/**
 * Gathers every `spread-report-*.json` under `reportsDir` (src/frontend/fleet-reports.ts) into the
 * report of the fleet SPREAD_INPUT_ENVIRONMENT names in SPREAD_INPUT_PATH's spread.yaml (a cluster
 * without a file did not run), prints it, writes `fleet-report.md`, `fleet-report.json` and
 * `spread.env` (SPREAD_OUTCOME) into `outDir` and, in a merge request pipeline with SPREAD_GITLAB_TOKEN, updates one note.
 *
 * @returns 0 when every leg succeeded, 1 when a leg failed or did not run, or a file was not read.
 * @throws Error when the environment is not declared (nothing is written then).
 */
export async function writeFleetReport(
  reportsDir: string,
  outDir: string,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const { dir, environment } = declaredFleet(env, 'fleet-report');
  const read = readLegReports(reportsDir, environment);
  console.log(`spread: ${read.files} report file(s) under ${reportsDir}`);
  const report = gatherFleet(environment, read.legs);
  process.stdout.write(formatFleetText(report));
  const deployment = env.SPREAD_INPUT_NAME || defaultDeploymentName(deploymentOrigin(env, dir));
  const marker = fleetMarker('report', deployment, report.environment);
  const sha = env.CI_COMMIT_SHA;
  const markdown = (limit?: number) =>
    `${marker}\n${formatFleetMarkdown(report, {
      deployment,
      problems: read.problems,
      ...(env.CI_JOB_URL ? { runUrl: env.CI_JOB_URL } : {}),
      ...(sha ? { sha } : {}),
      ...(env.CI_PROJECT_URL && sha ? { commitUrl: `${env.CI_PROJECT_URL}/-/commit/${sha}` } : {}),
      ...(limit ? { limit } : {}),
    })}`;
  const content = read.problems.length > 0 ? { ...report, problems: read.problems } : report;
  writeFileSync(path.join(outDir, 'fleet-report.json'), `${JSON.stringify(content, null, 2)}\n`);
  writeFileSync(path.join(outDir, 'fleet-report.md'), markdown());
  const code = failures(report, read.problems);
  // The job's dotenv report (the component declares one): later jobs read the fleet's outcome.
  writeFileSync(path.join(outDir, 'spread.env'), `SPREAD_OUTCOME=${code === 0 ? 'success' : 'failure'}\n`);
  await postNote(markdown(NOTE_LIMIT), marker, env);
  return code;
}

/**
 * The environment SPREAD_INPUT_ENVIRONMENT names in SPREAD_INPUT_PATH's spread.yaml, and that folder.
 *
 * @throws Error when the input is empty or `all`, or the environment is not declared there.
 */
export function declaredFleet(
  env: NodeJS.ProcessEnv,
  mode: 'fleet-plan' | 'fleet-report',
): { dir: string; environment: Environment; file: string } {
  const dir = path.resolve(env.SPREAD_INPUT_PATH || '.');
  const name = env.SPREAD_INPUT_ENVIRONMENT ?? '';
  if (!name || name === ALL_ENVIRONMENTS)
    throw new Error(`mode ${mode} needs the input environment: the fleet's environment in spread.yaml`);
  const declaration = requireDeclaration(dir, name);
  const environment = environmentNamed(declaration, name);
  if (environment === undefined)
    throw new Error(
      `environment ${name} is not declared in ${declaration.file} (declared: ${declaration.environments.map((e) => e.name).join(', ')})`,
    );
  return { dir, environment, file: declaration.file };
}

/** In a merge request pipeline with SPREAD_MR_NOTE not `false`: the fleet's report (or plan) as one note. */
export async function postNote(
  body: string,
  marker: string,
  env: NodeJS.ProcessEnv,
  what: 'plan' | 'report' = 'report',
): Promise<void> {
  if (!env.CI_MERGE_REQUEST_IID || env.SPREAD_MR_NOTE === 'false') return;
  if (!env.SPREAD_GITLAB_TOKEN) {
    console.log(`spread: no SPREAD_GITLAB_TOKEN: the fleet's ${what} is not posted on the merge request`);
    return;
  }
  try {
    const target = {
      apiUrl: String(env.CI_API_V4_URL),
      projectId: String(env.CI_PROJECT_ID),
      mergeRequestIid: env.CI_MERGE_REQUEST_IID,
      token: env.SPREAD_GITLAB_TOKEN,
    };
    console.log(`spread: fleet ${what} note ${await upsertNote(target, body, marker)}`);
  } catch (error) {
    // The report is in the log and the artifacts; a note that cannot be posted does not decide the job.
    console.log(
      `spread: WARNING: could not post the fleet's ${what} on the merge request: ${(error as Error).message}`,
    );
  }
}

/** 1 after a line per failed or missing leg and per file not read on stderr; 0 when there are none. */
function failures(report: FleetReport, problems: readonly LegFileProblem[]): number {
  const bad = report.waves.flatMap((w) => w.clusters.filter((c) => c.status !== 'succeeded'));
  if (bad.length === 0 && problems.length === 0) return 0;
  const total = report.waves.flatMap((w) => w.clusters).length;
  const lines = [
    `spread: fleet ${report.environment}: the deploy of ${bad.length} of ${total} cluster(s) did not succeed${problems.length > 0 ? `, ${problems.length} report file(s) not read` : ''}:`,
    ...bad.map(
      (c) => `${c.cluster} (wave ${c.wave}): ${c.status}${c.error ? `: ${c.error.split('\n')[0]}` : ''}`,
    ),
    ...problems.map((p) => `${p.file}: ${p.error}`),
  ];
  console.error(lines.join('\n'));
  return 1;
}
