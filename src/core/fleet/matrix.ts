// The fleet in the CI's own terms, for a fleet deployed by a CI matrix (one job per cluster, a job per
// wave chained with `needs`): the matrix of each wave, and the fleet report gathered from the report
// file each leg wrote (the Action's `report-file`, the CLI's `-o json`), since a matrix keeps one
// leg's outputs only. The Action's modes fleet-plan and fleet-report are to be built on these.
import type { Environment } from '../../project/environments.js';
import { fleetWaves } from '../../project/fleet-waves.js';
import type { FleetLegReport, FleetReport, FleetWaveReport } from '../../report/fleet.js';
import { legChanges, rolloutSummary } from '../../report/fleet.js';
import type { DeployReport } from '../../report/report.js';

/** One job of a wave's matrix: a cluster, for the leg's `cluster` input. */
export interface MatrixEntry {
  readonly cluster: string;
  readonly wave: string;
  readonly context?: string;
  readonly namespace?: string;
}

/**
 * A wave in the CI's terms, every key always present so that a workflow reading it keeps working when
 * spread.yaml changes: GitHub's `strategy.matrix.include` and `strategy.max-parallel` (the wave's
 * `maxParallel`, else its cluster count, at least 1), how many clusters it has (0: its job is skipped,
 * an empty `include` being an error to GitHub), and its soak time in whole seconds (0: none).
 */
export interface WaveMatrix {
  readonly include: readonly MatrixEntry[];
  readonly 'max-parallel': number;
  readonly clusters: number;
  readonly soak: number;
}

/**
 * Each declared wave's matrix, by wave name in the declared order, an empty one too
 * (`fromJSON(needs.plan.outputs.matrix).canary`).
 */
export function fleetMatrix(env: Environment): Record<string, WaveMatrix> {
  const matrix: Record<string, WaveMatrix> = {};
  for (const wave of fleetWaves(env)) {
    const include = wave.clusters.map((name) => {
      const c = env.clusters.find((x) => x.name === name)!;
      const namespace = c.namespace ?? env.namespace;
      return {
        cluster: name,
        wave: wave.name,
        ...(c.context !== undefined ? { context: c.context } : {}),
        ...(namespace !== undefined ? { namespace } : {}),
      };
    });
    matrix[wave.name] = {
      include,
      'max-parallel': wave.maxParallel ?? Math.max(1, include.length),
      clusters: include.length,
      soak: Math.ceil((wave.soakMs ?? 0) / 1000),
    };
  }
  return matrix;
}

/** A batch of a wave: at most the wave's `maxParallel` of its clusters, deployed together. */
export interface WaveBatch {
  readonly wave: string;
  /** 1-based, in the wave's order. */
  readonly batch: number;
  /** How many batches the wave has. */
  readonly of: number;
  readonly include: readonly MatrixEntry[];
}

/**
 * Each wave's clusters in batches of at most its `maxParallel`, in the declared order (a wave without
 * one is one batch), for a CI matrix without a max-parallel of its own (GitLab's `parallel:matrix`):
 * run one batch after the other, the next only when every leg of the previous succeeded. Stricter than
 * the CLI, which starts the next cluster as soon as one of the wave's finishes.
 */
export function fleetBatches(env: Environment): WaveBatch[] {
  return Object.entries(fleetMatrix(env)).flatMap(([wave, { include, 'max-parallel': max }]) => {
    const size = max ?? include.length;
    const of = Math.ceil(include.length / size);
    return Array.from({ length: of }, (_, i) => ({
      wave,
      batch: i + 1,
      of,
      include: include.slice(i * size, (i + 1) * size),
    }));
  });
}

/** Which leg of which fleet a report file is: the Action writes it when given `environment` and `cluster`. */
export interface LegTag {
  readonly environment: string;
  readonly cluster: string;
}

/**
 * A leg's report file: a DeployReport, or `{error, report?}` after a failure (the CLI's `-o json`);
 * the Action's `report-file` adds `leg` on a fleet's leg.
 */
export type LegFile = (DeployReport | { readonly error: string; readonly report?: DeployReport }) & {
  readonly leg?: LegTag;
};

/** The wave names of a fleet, in order: the keys of {@link fleetMatrix}, the output `waves`. */
export function fleetWaveNames(env: Environment): string[] {
  return fleetWaves(env).map((w) => w.name);
}

/**
 * The fleet report of legs run as separate jobs: each cluster's report file by cluster name; a
 * cluster without one did not run (`skipped`: its wave was not started, or its job was cancelled).
 * The fleet succeeded only when every cluster did.
 */
export function gatherFleet(env: Environment, legs: ReadonlyMap<string, LegFile>): FleetReport {
  const waves: FleetWaveReport[] = fleetWaves(env).map((wave) => {
    const clusters = wave.clusters.map((name) => legOf(name, wave.name, legs.get(name)));
    const status = clusters.every((c) => c.status === 'succeeded')
      ? 'succeeded'
      : clusters.some((c) => c.status === 'failed')
        ? 'failed'
        : clusters.some((c) => c.status === 'succeeded')
          ? 'incomplete'
          : 'skipped';
    return { name: wave.name, status, clusters };
  });
  const all = waves.flatMap((w) => w.clusters);
  return {
    environment: env.name,
    mode: all.some((c) => c.report?.mode === 'plan') ? 'plan' : 'deploy',
    status: all.every((c) => c.status === 'succeeded') ? 'succeeded' : 'failed',
    waves,
    durationMs: Math.max(0, ...all.map((c) => c.report?.durationMs ?? 0)),
  };
}

function legOf(cluster: string, wave: string, file: LegFile | undefined): FleetLegReport {
  if (file === undefined)
    return { cluster, wave, status: 'skipped', error: 'no report: the leg did not run' };
  const { leg: _leg, ...rest } = file;
  const report = 'error' in rest ? rest.report : rest;
  const rollout = report ? rolloutSummary(report) : undefined;
  return {
    cluster,
    wave,
    status: 'error' in file ? 'failed' : 'succeeded',
    ...(report
      ? {
          context: report.context,
          namespace: report.namespace,
          ...(report.revision !== undefined ? { revision: report.revision } : {}),
          changes: legChanges(report),
          ...(rollout !== undefined ? { rollout } : {}),
          ...(report.url !== undefined ? { url: report.url } : {}),
          report,
        }
      : {}),
    ...('error' in file ? { error: file.error } : {}),
  };
}
