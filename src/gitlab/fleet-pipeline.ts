// The child pipeline of the GitLab component's mode fleet-plan (docs/fleets.md): from spread.yaml's
// fleet, a stage per wave (a wave with maxParallel: a stage per batch, GitLab having no max-parallel
// for `parallel:matrix`), one include of the component per stage whose job is a `parallel:matrix` of
// its clusters, each leg a deploy of its cluster, and a last stage with the fleet-report job. The
// parent runs it with `trigger: include: - artifact: … job: …` and `strategy: depend`.
import { stringify } from 'yaml';
import { fleetBatches } from '../core/fleet/matrix.js';
import { SETTINGS } from '../frontend/settings.js';
import type { Environment } from '../project/environments.js';

/** The stage and job of the fleet's report in the child pipeline. */
export const FLEET_REPORT_JOB = 'fleet-report';

/**
 * The inputs every leg and the report job take from the fleet-plan job: the deploy's own (path,
 * name, values, timeouts, package…), not the ones the child pipeline sets itself or that apply to
 * other modes.
 */
const SET_HERE = new Set(['mode', 'cluster', 'environment', 'component', 'from', 'fail-on-drift', 'heal']);

/**
 * Inputs whose values may be credentials (the component's log shows their keys only): the plan job
 * sees them with its variables expanded, and the child pipeline is an artifact anyone who can read
 * the job can download, so they are not written into it.
 */
export const WITHHELD_INPUTS: readonly string[] = ['build-args', 'helm-set'];

/** What {@link fleetPipeline} writes besides the fleet. */
export interface FleetPipelineOptions {
  /** The input `component`: a component's address, or a file of the project (`….yml`: `include: local`). */
  readonly component: string;
  /** The fleet-plan job's environment (its CI/CD variables): its SPREAD_INPUT_* variables are its inputs. */
  readonly env: NodeJS.ProcessEnv;
  /** The file spread.yaml the fleet was read from, named in the header. */
  readonly source: string;
}

/**
 * The child pipeline's YAML. Stage names are the waves' (`canary`; `rest-1`, `rest-2` for the batches
 * of a wave), then `fleet-report`; each leg's resource group is `spread-ENVIRONMENT-CLUSTER`, so the
 * legs of a stage run at once and two pipelines never deploy one cluster together.
 *
 * @throws Error when two stages would have one name (a wave named as another's batch, or `fleet-report`).
 */
export function fleetPipeline(environment: Environment, options: FleetPipelineOptions): string {
  const batches = fleetBatches(environment).map((b) => ({
    ...b,
    stage: b.of > 1 ? `${b.wave}-${b.batch}` : b.wave,
  }));
  const stages = [...batches.map((b) => b.stage), FLEET_REPORT_JOB];
  const twice = stages.filter((s, i) => stages.indexOf(s) !== i);
  if (twice.length > 0)
    throw new Error(
      `environment ${environment.name}: the child pipeline would have two stages ${twice[0]} (its stages: ${stages.join(', ')}): rename the wave`,
    );
  const given = passedInputs(options.env);
  const base = { environment: environment.name, ...given };
  const include = (inputs: Record<string, unknown>) =>
    /\.ya?ml$/.test(options.component)
      ? { local: options.component, inputs }
      : { component: options.component, inputs };
  const jobs: Record<string, unknown> = {};
  const includes = batches.map((b) => {
    const job = `deploy-${b.stage}`;
    jobs[job] = { parallel: { matrix: [{ CLUSTER: b.include.map((e) => e.cluster) }] } };
    return include({
      ...base,
      'job-name': job,
      stage: b.stage,
      mode: 'deploy',
      cluster: '$CLUSTER',
      'resource-group': `spread-${environment.name}-$CLUSTER`,
    });
  });
  includes.push(
    include({
      ...base,
      'job-name': FLEET_REPORT_JOB,
      stage: FLEET_REPORT_JOB,
      mode: 'fleet-report',
      'environment-action': 'verify',
      'resource-group': `spread-${environment.name}-${FLEET_REPORT_JOB}`,
      // After a failed stage too: it gathers every earlier job's artifacts and names the legs that failed.
      rules: [{ when: 'always' }],
    }),
  );
  const header = [
    `# The fleet ${environment.name} of ${options.source}, written by spread's GitLab component (mode`,
    '# fleet-plan, docs/fleets.md): a stage per wave (per batch of maxParallel), a job per cluster, and',
    '# the fleet-report job. Each leg deploys its cluster and, for a wave with a soak, keeps reading its',
    '# rollout state for the soak time before its job ends.',
  ];
  const body = stringify({ stages, include: includes, ...jobs }, { lineWidth: 0 });
  return `${header.join('\n')}\n${body}`;
}

/**
 * The fleet-plan job's inputs that its legs take too, read back from its SPREAD_INPUT_* variables
 * (src/frontend/settings.ts): those that differ from the input's default, booleans as booleans, but
 * {@link WITHHELD_INPUTS}. The job's image is CI_JOB_IMAGE.
 */
export function passedInputs(env: NodeJS.ProcessEnv): Record<string, string | boolean> {
  const inputs: Record<string, string | boolean> = {};
  for (const s of SETTINGS) {
    const variable = s.gitlab?.variable;
    if (!variable || SET_HERE.has(s.key) || WITHHELD_INPUTS.includes(s.key) || env[variable] === undefined)
      continue;
    const value = s.gitlab!.type === 'boolean' ? env[variable] === 'true' : env[variable]!;
    if (value !== s.gitlab!.default) inputs[s.key] = value;
  }
  const image = env.CI_JOB_IMAGE;
  if (image && image !== SETTINGS.find((s) => s.key === 'image')?.gitlab?.default) inputs.image = image;
  return inputs;
}

/** The {@link WITHHELD_INPUTS} the fleet-plan job was given (not empty), which its legs do not get. */
export function withheldInputs(env: NodeJS.ProcessEnv): string[] {
  return WITHHELD_INPUTS.filter((key) => {
    const variable = SETTINGS.find((s) => s.key === key)?.gitlab?.variable;
    return variable !== undefined && (env[variable] ?? '').trim() !== '';
  });
}
