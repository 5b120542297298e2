// A fleet deploy: one environment's clusters deployed wave by wave, the clusters of a wave at once
// (at most maxParallel), each a normal deploy of one cluster (core/deploy, with its own Lease), the
// wave soaked when it asks for it, and no later wave touched once one failed. docs/fleets.md.
import type { Logger } from '../../base/logger.js';
import { optionRef } from '../../base/option-ref.js';
import { isUnavailable } from '../../cluster/client.js';
import type { FleetLegReport, FleetReport, FleetWaveReport } from '../../report/fleet.js';
import { legChanges, rolloutSummary } from '../../report/fleet.js';
import type { DeployReport } from '../../report/report.js';
import {
  type DeployCluster,
  DeployError,
  type DeployOptions,
  deploy,
  nothingWritten,
} from '../deploy/index.js';
import { soak } from './soak.js';
import { runLimited } from './waves.js';

/** What stopped the fleet when an interrupt did, not a failed wave. */
const INTERRUPTED = Symbol('interrupted');

/** A cluster connected for one leg; `close()` ends its sockets. */
export interface LegConnection {
  readonly cluster: DeployCluster;
  close(): void;
}

/** One cluster of the fleet, as the front end prepared it. */
export interface FleetCluster {
  /** Its name in spread.yaml. */
  readonly name: string;
  /**
   * The kubeconfig context it is reached through, known before connecting: a leg that fails to
   * connect still reports where it was going.
   */
  readonly context?: string;
  /** The deploy's options on this cluster (its namespace, Helm values…), but the cluster itself. */
  readonly options: Omit<DeployOptions, 'cluster' | 'logger' | 'signal'>;
  /**
   * Connects to the cluster and checks it is the one declared; what it throws fails this cluster's
   * leg only, before anything is written there.
   */
  readonly connect: (signal?: AbortSignal) => Promise<LegConnection>;
}

/** One wave, resolved: its clusters in order, how many at once, its soak time. */
export interface FleetWavePlan {
  readonly name: string;
  readonly clusters: readonly FleetCluster[];
  /** Clusters deployed at once; absent: all of the wave's. */
  readonly maxParallel?: number;
  /** How long to keep reading the wave's rollout state after it succeeded, in milliseconds. */
  readonly soakMs?: number;
}

/** Options of {@link deployFleet}. */
export interface FleetOptions {
  readonly environment: string;
  /**
   * `plan` plans every cluster (each leg's options say plan too): no cluster's failure stops the
   * others, and nothing is soaked. Default `deploy`.
   */
  readonly mode?: 'deploy' | 'plan';
  readonly waves: readonly FleetWavePlan[];
  /** Lines of each leg are prefixed with its cluster's name. */
  readonly logger: Logger;
  readonly signal?: AbortSignal;
  /** How often the soak reads the rollout state, in milliseconds. Default 5 s. */
  readonly soakIntervalMs?: number;
}

/** A leg's outcome, with its connection kept open for the soak when it succeeded. */
interface Leg {
  readonly report: FleetLegReport;
  readonly connection?: LegConnection;
  readonly deployed?: DeployReport;
}

/**
 * Deploys the fleet wave by wave. Within a wave every cluster is its own deploy, run concurrently (at
 * most `maxParallel`); once one fails no other cluster of the wave is started, the running ones
 * finish, and every later wave is skipped: nothing is written to its clusters. A wave with a soak time
 * succeeds only when its clusters stay healthy for it. Never throws for a cluster's failure: the
 * report says which failed and why (`status: failed`).
 */
export async function deployFleet(options: FleetOptions): Promise<FleetReport> {
  const started = Date.now();
  const waves: FleetWaveReport[] = [];
  let stoppedBy: string | typeof INTERRUPTED | undefined;
  for (const wave of options.waves) {
    if (stoppedBy === undefined && options.signal?.aborted) stoppedBy = INTERRUPTED;
    if (stoppedBy !== undefined) {
      const why = stoppedBy === INTERRUPTED ? 'interrupted' : `wave ${stoppedBy} failed`;
      waves.push(skippedWave(wave, `not started: ${why}`));
      continue;
    }
    const report = await runWave(wave, options);
    waves.push(report);
    if (report.status !== 'succeeded' && options.mode !== 'plan') stoppedBy = wave.name;
  }
  return {
    environment: options.environment,
    mode: options.mode ?? 'deploy',
    status: stoppedBy === undefined && waves.every((w) => w.status === 'succeeded') ? 'succeeded' : 'failed',
    waves,
    durationMs: Date.now() - started,
  };
}

async function runWave(wave: FleetWavePlan, options: FleetOptions): Promise<FleetWaveReport> {
  options.logger.info(`wave ${wave.name}: ${wave.clusters.map((c) => c.name).join(', ')}`);
  let failed = false;
  const legs = await runLimited(
    wave.clusters,
    wave.maxParallel ?? wave.clusters.length,
    async (cluster) => {
      const leg = await runLeg(cluster, wave.name, options, (wave.soakMs ?? 0) > 0);
      if (leg.report.status === 'failed') failed = true;
      return leg;
    },
    () => (failed && options.mode !== 'plan') || options.signal?.aborted === true,
  );
  try {
    const reports = legs.map(
      (leg, i) =>
        leg?.report ??
        skippedLeg(
          wave.clusters[i]!,
          wave.name,
          failed ? 'not started: a cluster of its wave failed' : 'not started: interrupted',
        ),
    );
    const soaked =
      failed || !wave.soakMs || options.mode === 'plan'
        ? reports
        : await soakWave(wave, legs, reports, options);
    const status = soaked.every((l) => l.status === 'succeeded') ? 'succeeded' : 'failed';
    return { name: wave.name, status, ...(wave.soakMs ? { soakMs: wave.soakMs } : {}), clusters: soaked };
  } finally {
    for (const leg of legs) leg?.connection?.close();
  }
}

async function soakWave(
  wave: FleetWavePlan,
  legs: readonly (Leg | undefined)[],
  reports: readonly FleetLegReport[],
  options: FleetOptions,
): Promise<FleetLegReport[]> {
  options.logger.info(`wave ${wave.name}: soaking for ${Math.round(wave.soakMs! / 1000)}s`);
  const soaking = soak(
    legs.flatMap((l, i) =>
      l?.connection && l.deployed
        ? [{ name: wave.clusters[i]!.name, cluster: l.connection.cluster, report: l.deployed }]
        : [],
    ),
    wave.soakMs!,
    options.soakIntervalMs ?? 5000,
    options.signal,
  );
  // An interrupt during the soak ends it: the wave is not known healthy, so it counts as failed.
  const problems = await soaking.catch((error: unknown) => {
    if (!options.signal?.aborted) throw error;
    const why = `interrupted during the soak: ${(error as Error).message}`;
    return new Map(reports.map((r) => [r.cluster, why]));
  });
  // The deploy's rollout was ready; the row says what the soak then saw of it, not "ready".
  const rollout = (problem: string) =>
    problem.startsWith('interrupted')
      ? 'ready, then the soak was interrupted'
      : problem.startsWith('not ready at the end')
        ? 'not ready at the end of the soak'
        : 'failed during the soak';
  return reports.map((r) => {
    const problem = problems.get(r.cluster);
    return problem === undefined ? r : { ...r, status: 'failed', rollout: rollout(problem), error: problem };
  });
}

/**
 * One cluster's deploy: connect, deploy, report; every failure is the leg's own. The connection is
 * kept for the soak (`keep`), else closed as soon as the deploy ends.
 */
async function runLeg(
  cluster: FleetCluster,
  wave: string,
  options: FleetOptions,
  keep: boolean,
): Promise<Leg> {
  const started = Date.now();
  const logger = prefixed(options.logger, cluster.name);
  const base = { cluster: cluster.name, wave };
  let connection: LegConnection;
  try {
    connection = await cluster.connect(options.signal);
  } catch (error) {
    const message = (nothingWritten(error) as Error).message;
    logger.error(message);
    const where = cluster.context !== undefined ? { context: cluster.context } : {};
    return {
      report: { ...base, status: 'failed', ...where, error: message, durationMs: Date.now() - started },
    };
  }
  const where = { context: connection.cluster.context };
  try {
    const report = await deploy({
      ...cluster.options,
      cluster: connection.cluster,
      logger,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const leg = { ...base, status: 'succeeded' as const, ...where, ...fromReport(report) };
    if (!keep) connection.close();
    const kept = keep ? { connection, deployed: report } : {};
    return { report: { ...leg, durationMs: Date.now() - started }, ...kept };
  } catch (error) {
    connection.close();
    const message = legError(error, cluster.name, connection.cluster.context);
    logger.error(message);
    const partial = error instanceof DeployError ? fromReport(error.report) : {};
    return {
      report: {
        ...base,
        status: 'failed',
        ...where,
        ...partial,
        error: message,
        durationMs: Date.now() - started,
      },
    };
  }
}

/**
 * A failed leg's error: the deploy's own, but for a cluster lost mid-deploy (its API server stopped
 * answering after the connect: reset, refused, timed out, 5xx after every retry), which it names, with
 * what to do: what was written there stays, the deploy's Lease expires by itself (nothing else
 * releases it), and deploying that cluster alone again converges it.
 */
export function legError(error: unknown, cluster: string, context: string): string {
  const message = (error as Error).message ?? String(error);
  const cause = error instanceof DeployError ? error.cause : error;
  if (!isUnavailable(cause)) return message;
  return `cluster ${cluster} (context ${context}) became unreachable mid-deploy: ${message}; its deploy Lease expires by itself: once it is reachable, deploy it again alone (${optionRef('cluster')} ${cluster})`;
}

function fromReport(report: DeployReport) {
  const rollout = rolloutSummary(report);
  return {
    namespace: report.namespace,
    ...(report.revision !== undefined ? { revision: report.revision } : {}),
    changes: legChanges(report),
    ...(rollout !== undefined ? { rollout } : {}),
    ...(report.url !== undefined ? { url: report.url } : {}),
    report,
  };
}

function skippedLeg(cluster: FleetCluster, wave: string, why: string): FleetLegReport {
  return { cluster: cluster.name, wave, status: 'skipped', error: why };
}

function skippedWave(wave: FleetWavePlan, why: string): FleetWaveReport {
  return {
    name: wave.name,
    status: 'skipped',
    ...(wave.soakMs ? { soakMs: wave.soakMs } : {}),
    clusters: wave.clusters.map((c) => skippedLeg(c, wave.name, why)),
  };
}

/** `logger` with each line prefixed `[cluster] `, so the legs of a wave can be told apart. */
function prefixed(logger: Logger, name: string): Logger {
  const p = (m: string) => `[${name}] ${m}`;
  return {
    info: (m) => logger.info(p(m)),
    warn: (m, where) => logger.warn(p(m), where),
    error: (m, where) => logger.error(p(m), where),
    debug: (m) => logger.debug(p(m)),
    // Groups of concurrent legs would interleave: a line says where each one starts.
    group: (name, fn) => {
      logger.info(p(name));
      return fn();
    },
  };
}
