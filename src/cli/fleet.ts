// `spread deploy --environment NAME` (and plan) when NAME is a fleet, or `--cluster` picks some of its
// clusters: the fleet deployed wave by wave (src/frontend/fleet.ts, src/core/fleet), printed as one
// fleet report in text or JSON; the command fails when any cluster failed.
import type { DeployRequest } from '../frontend/deploy.js';
import type { EnvironmentTarget } from '../frontend/environment.js';
import { requireDeclaration } from '../frontend/environment.js';
import { interruptSignal } from '../frontend/interrupts.js';
import { ALL_ENVIRONMENTS, type Environment, environmentNamed } from '../project/environments.js';
import type { FleetLegReport, FleetReport } from '../report/fleet.js';
import { contextOf } from './args.js';
import { pullRequestNumber } from './environment.js';
import { cliText, createCliLogger } from './logger.js';

/** The flags a fleet deploy reads besides those of one cluster's deploy. */
export interface FleetFlags {
  readonly environment?: string | undefined;
  readonly cluster?: string | undefined;
  readonly context?: string | undefined;
  readonly namespace?: string | undefined;
  readonly helmValues?: readonly string[] | undefined;
  readonly helmSet?: Readonly<Record<string, string>> | undefined;
  readonly output?: string | undefined;
  readonly verbose?: boolean | undefined;
}

/**
 * The fleet `--environment` names, when it is one (several clusters) or `--cluster` is given;
 * undefined for a single-cluster environment (deployed as before) or without `--environment`.
 *
 * @throws Error for `--cluster` without `--environment`, or naming no cluster (`--cluster ""`, which
 *   would otherwise deploy the whole fleet: a script's empty variable must not do that).
 */
export function fleetEnvironment(dir: string, flags: FleetFlags): Environment | undefined {
  if (flags.cluster !== undefined && clusterNames(flags.cluster).length === 0)
    throw new Error('--cluster needs a cluster name; omit it to deploy every cluster');
  if (!flags.environment || flags.environment === ALL_ENVIRONMENTS) {
    if (flags.cluster) throw new Error('--cluster picks clusters of a fleet: give --environment NAME too');
    return undefined;
  }
  const environment = environmentNamed(requireDeclaration(dir, flags.environment), flags.environment);
  if (environment === undefined) return undefined;
  return environment.clusters.length > 1 || flags.cluster ? environment : undefined;
}

/**
 * Deploys (or plans) the fleet and prints its report; `request` builds one cluster's deploy as for a
 * single-cluster environment.
 *
 * When a cluster failed, sets exit code 1 after printing the report and a line naming the failed ones.
 *
 * @throws what resolving the fleet throws (a contradiction, a missing context): nothing was deployed.
 */
export async function runFleet(
  mode: 'deploy' | 'plan',
  dir: string,
  environment: Environment,
  context: string | undefined,
  flags: FleetFlags,
  request: (target: EnvironmentTarget) => DeployRequest,
): Promise<void> {
  const [{ deployFleet }, { formatFleetText }] = await Promise.all([
    import('../frontend/fleet.js'),
    import('../report/fleet.js'),
  ]);
  const signal = interruptSignal();
  const only = clusterNames(flags.cluster ?? '');
  const report = await deployFleet({
    dir,
    environment,
    given: {
      context: contextOf(context, flags.context),
      namespace: flags.namespace,
      helmValues: flags.helmValues,
      helmSet: flags.helmSet,
      pullRequest: pullRequestNumber(process.env),
    },
    only,
    request,
    logger: createCliLogger(flags.verbose ?? false),
    ...(signal ? { signal } : {}),
    ...(mode === 'plan' ? { mode } : {}),
  });
  process.stdout.write(
    cliText(flags.output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : formatFleetText(report)),
  );
  // Interrupted, the fleet still returns its report (printed above); the command then fails as an
  // interrupted one does, its last line saying where the interrupt stopped it (exit 130 or 143).
  if (signal?.aborted)
    throw new Error(fleetFailureLine(report, (signal.reason as Error).message).replace(/^error: /, ''));
  if (report.status === 'failed') {
    // The report is on stdout already (JSON readers have it whole): a line and the exit code say it failed.
    process.stderr.write(cliText(`${fleetFailureLine(report)}\n`));
    process.exitCode = 1;
  }
}

/**
 * The last line of a failed fleet: the failed clusters and, for a deploy, the waves not started
 * because of them (none when the failure was in the last wave, or `--cluster` left no later one).
 * `interrupted` (the signal's reason, `interrupted by SIGINT`): the clusters it stopped, and whether
 * it came during their deploy or their wave's soak.
 */
export function fleetFailureLine(report: FleetReport, interrupted?: string): string {
  const failed = report.waves.flatMap((w) => w.clusters.filter((c) => c.status === 'failed'));
  const named = (c: FleetLegReport) =>
    `${c.cluster} (wave ${c.wave})${interrupted && c.error?.startsWith('interrupted during the soak') ? ' during its soak' : ''}`;
  const which = failed.map(named).join(', ') || 'not every cluster ran';
  const skipped = report.mode === 'deploy' ? report.waves.filter((w) => w.status === 'skipped') : [];
  const later =
    skipped.length > 0 ? `; later waves were not started (${skipped.map((w) => w.name).join(', ')})` : '';
  const what = failed.length === 0 ? '' : interrupted ? ' stopped' : ' failed';
  return `error: fleet ${report.environment}: ${interrupted ? `${interrupted}: ` : ''}${which}${what}${later}`;
}

/** The names `--cluster` gives, comma-separated. */
function clusterNames(flag: string): string[] {
  return flag
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
}
