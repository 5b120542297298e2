// A fleet deploy as the front ends start it: the environment's clusters resolved one by one (context,
// namespace, Helm values, identity: ./environment.ts), grouped into the declared waves, each cluster
// connected only when its turn comes and checked to be the declared one; then core/fleet runs them.
import { interruptOf } from '../base/poll.js';
import { loadKubeconfig } from '../cluster/kubeconfig.js';
import { type FleetCluster, type FleetWavePlan, deployFleet as runFleet } from '../core/fleet/index.js';
import type { Environment } from '../project/environments.js';
import { fleetWaves } from '../project/fleet-waves.js';
import type { FleetReport } from '../report/fleet.js';
import { clusterClient, connectClient } from './cluster.js';
import type { DeployRequest } from './deploy.js';
import {
  checkCluster,
  checkServer,
  type EnvironmentGiven,
  type EnvironmentTarget,
  kubeconfigServer,
  targetOf,
} from './environment.js';

/** Whether `environment` is a fleet: it lists more than one cluster. */
export function isFleet(environment: Environment): boolean {
  return environment.clusters.length > 1;
}

/** What a fleet deploy needs from its front end. */
export interface FleetRequest {
  /** The deployment's directory (holding spread.yaml). */
  readonly dir: string;
  readonly environment: Environment;
  /** What was given beside the environment; a context or namespace contradicting a cluster's is an error. */
  readonly given: EnvironmentGiven;
  /** Only these clusters (`--cluster`), in their waves; absent or empty: every cluster. */
  readonly only?: readonly string[];
  /** The deploy of one cluster, as the front end builds it for a single-cluster environment. */
  readonly request: (target: EnvironmentTarget) => DeployRequest;
  /** The logger and interrupt of the whole fleet. */
  readonly logger: DeployRequest['logger'];
  readonly signal?: AbortSignal;
  /** `plan`: plan every cluster, none stopping the others (core/fleet FleetOptions.mode). */
  readonly mode?: 'deploy' | 'plan';
  /** How often a soak reads the rollout state (ms); default 5 s. */
  readonly soakIntervalMs?: number;
}

/**
 * The fleet's waves with each cluster ready to connect and deploy. Every cluster is resolved (and its
 * kubeconfig context read) before any is deployed, so a contradiction or a missing context in any of
 * them fails the fleet before anything is written.
 *
 * @throws Error for a `--cluster` the environment does not list, or what {@link targetOf} throws.
 */
export function fleetPlan(request: FleetRequest): FleetWavePlan[] {
  const { environment, only = [] } = request;
  const names = environment.clusters.map((c) => c.name);
  const unknown = only.filter((n) => !names.includes(n));
  if (unknown.length > 0)
    throw new Error(
      `--cluster ${unknown.join(', ')}: environment ${environment.name} lists no such cluster (its clusters: ${names.join(', ')})`,
    );
  const waves = fleetWaves(environment)
    .map((wave) => ({
      name: wave.name,
      ...(wave.maxParallel !== undefined ? { maxParallel: wave.maxParallel } : {}),
      ...(wave.soakMs !== undefined ? { soakMs: wave.soakMs } : {}),
      clusters: wave.clusters
        .filter((n) => only.length === 0 || only.includes(n))
        .map((n) => legOf(request, n)),
    }))
    .filter((wave) => wave.clusters.length > 0);
  // Without the rollout wait a leg succeeds once applied, so the next wave would start on a broken
  // canary; one wave (or one cluster picked with --cluster, a matrix leg) has no next to protect.
  const unwaited = waves.flatMap((w) => w.clusters).some((c) => c.options.wait === false);
  if (request.mode !== 'plan' && waves.length > 1 && unwaited)
    throw new Error(
      `environment ${environment.name} deploys in ${waves.length} waves (${waves.map((w) => w.name).join(', ')}), and a wave starts only when the previous is healthy; --no-wait cannot tell: deploy the fleet with the rollout wait, or one wave's clusters at a time with --cluster`,
    );
  return waves;
}

function legOf(request: FleetRequest, name: string): FleetCluster {
  const cluster = request.environment.clusters.find((c) => c.name === name)!;
  const target = targetOf(request.dir, request.environment, request.given, cluster);
  const {
    kubeconfig,
    context,
    expectCluster,
    logger: _logger,
    signal: _signal,
    ...options
  } = request.request(target);
  // The kubeconfig is read now: a context missing for a later wave fails before the first writes, and
  // so does a context reaching another server than declared (the kube-system uid needs a request: it
  // is checked when the leg connects).
  const resolved = loadKubeconfig(kubeconfig, context);
  if (expectCluster !== undefined)
    checkServer({ server: kubeconfigServer(resolved.kubeConfig), context: resolved.context }, expectCluster);
  return {
    name,
    context: resolved.context,
    options,
    connect: async (signal) => {
      const client = clusterClient(resolved, { logger: request.logger, maxSockets: options.concurrency });
      const connection = await connectClient(client, resolved).catch((error: unknown) => {
        throw interruptOf(error, signal);
      });
      try {
        if (expectCluster !== undefined)
          await checkCluster(
            client,
            { server: kubeconfigServer(resolved.kubeConfig), context: resolved.context },
            expectCluster,
            signal,
          );
      } catch (error) {
        connection.close();
        throw error;
      }
      return { cluster: connection, close: () => connection.close() };
    },
  };
}

/** Resolves the fleet ({@link fleetPlan}) and deploys it (core/fleet): the fleet's report. */
export async function deployFleet(request: FleetRequest): Promise<FleetReport> {
  return runFleet({
    environment: request.environment.name,
    waves: fleetPlan(request),
    logger: request.logger,
    ...(request.mode ? { mode: request.mode } : {}),
    ...(request.signal ? { signal: request.signal } : {}),
    ...(request.soakIntervalMs !== undefined ? { soakIntervalMs: request.soakIntervalMs } : {}),
  });
}
