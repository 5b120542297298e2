// The fleet keys of an environment in spread.yaml: `waves:` (which clusters deploy together, in
// which order, how many at once, how long spread watches them before the next wave) and how the
// fleet's clusters are grouped when no wave is declared. docs/fleets.md is the user's page.
import type { IssueList, Source } from '../base/source.js';
import { isMapping, type LocatedValue, type ValuePath } from '../decode/decode.js';
import type { Environment, EnvironmentCluster, FleetWave } from './environment-types.js';

const WAVE_KEYS = ['name', 'clusters', 'maxParallel', 'soak'] as const;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * Reads `waves:` of one environment: a list of `{ name, clusters, maxParallel, soak }`, in order.
 * Each cluster of the environment is in exactly one wave; the last wave may leave out `clusters:`,
 * and then holds every cluster no earlier wave names ("the rest"). Every problem is an error at its
 * line; undefined when the environment declares no waves.
 */
export function readWaves(
  at: LocatedValue,
  clusters: readonly EnvironmentCluster[],
  env: string,
  issues: IssueList,
): FleetWave[] | undefined {
  const list = at.at(['waves']);
  if (list === undefined || list.value === null) return undefined;
  if (!Array.isArray(list.value) || list.value.length === 0) {
    issues.error(
      at.sourceAt(['waves']),
      'waves is a non-empty list of { name, clusters, maxParallel, soak }',
      env,
    );
    return undefined;
  }
  const entries = list.value as unknown[];
  const waves: FleetWave[] = [];
  const placed = new Map<string, string>();
  for (let i = 0; i < entries.length; i++) {
    const wave = readWave(at, ['waves', i], i === entries.length - 1, clusters, env, issues);
    if (wave === undefined) continue;
    if (waves.some((w) => w.name === wave.name))
      issues.error(wave.source, `wave ${JSON.stringify(wave.name)} is listed twice`, env);
    for (const [n, name] of wave.clusters.entries()) {
      const earlier = placed.get(name);
      if (earlier !== undefined)
        issues.error(
          at.sourceAt(['waves', i, 'clusters', n]),
          `cluster ${JSON.stringify(name)} is in wave ${earlier} already: a cluster is in one wave`,
          env,
        );
      placed.set(name, wave.name);
    }
    waves.push(wave);
  }
  const rest = clusters.filter((c) => !placed.has(c.name));
  const last = waves.at(-1);
  if (last !== undefined && !at.at(['waves', entries.length - 1])?.at(['clusters']))
    waves[waves.length - 1] = { ...last, clusters: rest.map((c) => c.name) };
  else if (rest.length > 0)
    issues.error(
      at.sourceAt(['waves']),
      `cluster${rest.length > 1 ? 's' : ''} ${rest.map((c) => c.name).join(', ')} ${rest.length > 1 ? 'are' : 'is'} in no wave: name ${rest.length > 1 ? 'them' : 'it'} in one, or leave clusters: out of the last wave (the rest)`,
      env,
    );
  stageClashes(waves, env, issues);
  return waves;
}

function readWave(
  at: LocatedValue,
  path: ValuePath,
  last: boolean,
  clusters: readonly EnvironmentCluster[],
  env: string,
  issues: IssueList,
): FleetWave | undefined {
  const value = at.at(path)?.value;
  const source = at.sourceAt(path);
  if (!isMapping(value)) {
    issues.error(source, 'a wave is a mapping { name, clusters, maxParallel, soak }', env);
    return undefined;
  }
  for (const key of Object.keys(value))
    if (!(WAVE_KEYS as readonly string[]).includes(key))
      issues.error(
        at.sourceAt([...path, key]),
        `unknown field ${JSON.stringify(key)}: a wave holds ${WAVE_KEYS.join(', ')}`,
        env,
      );
  const name = typeof value.name === 'string' ? value.name : undefined;
  if (name === undefined || !DNS_LABEL.test(name))
    issues.error(
      at.sourceAt([...path, 'name']),
      'a wave has a name: a DNS label (lowercase letters, digits and -), e.g. canary',
      env,
    );
  const named = waveClusters(at, [...path, 'clusters'], last, clusters, env, issues);
  const maxParallel = value.maxParallel;
  if (maxParallel !== undefined && !(Number.isInteger(maxParallel) && (maxParallel as number) >= 1))
    issues.error(at.sourceAt([...path, 'maxParallel']), 'maxParallel is a whole number ≥ 1', env);
  const soak = value.soak === undefined ? undefined : soakOf(String(value.soak));
  if (value.soak !== undefined && soak === undefined)
    issues.error(
      at.sourceAt([...path, 'soak']),
      `soak ${JSON.stringify(value.soak)} is not a duration (e.g. 90s, 5m, 1m30s)`,
      env,
    );
  return {
    name: name ?? `wave-${String(path[1])}`,
    clusters: named,
    ...(typeof maxParallel === 'number' && maxParallel >= 1 ? { maxParallel } : {}),
    ...(soak !== undefined ? { soakMs: soak } : {}),
    source,
  };
}

/** A wave's `clusters:` names, each one the environment lists; absent is allowed in the last wave. */
function waveClusters(
  at: LocatedValue,
  path: ValuePath,
  last: boolean,
  clusters: readonly EnvironmentCluster[],
  env: string,
  issues: IssueList,
): string[] {
  const value = at.at(path)?.value;
  if (value === undefined) {
    if (!last)
      issues.error(
        at.sourceAt(path),
        'a wave names its clusters (only the last wave may leave clusters: out, for the rest)',
        env,
      );
    return [];
  }
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0 || list.some((v) => typeof v !== 'string')) {
    issues.error(at.sourceAt(path), 'clusters is a non-empty list of cluster names', env);
    return [];
  }
  const known = clusters.map((c) => c.name);
  list.forEach((name: string, i) => {
    if (!known.includes(name))
      issues.error(
        at.sourceAt(Array.isArray(value) ? [...path, i] : path),
        `cluster ${JSON.stringify(name)} is not one of the environment's clusters (${known.join(', ')})`,
        env,
      );
  });
  return list as string[];
}

/** A soak time as Go's durations (h, m, s, ms, combined: `1m30s`) or whole seconds; milliseconds. */
function soakOf(text: string): number | undefined {
  const v = text.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  if (!/^(\d+(\.\d+)?(ms|h|m|s))+$/.test(v)) return undefined;
  const unit: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  let total = 0;
  for (const m of v.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)) total += Number(m[1]) * unit[m[2]!]!;
  return Math.round(total);
}

/**
 * The waves a fleet deploy runs: the declared ones, else one wave (`all`) of every cluster, in the
 * order they are listed.
 */
export function fleetWaves(env: Environment): readonly FleetWave[] {
  if (env.waves !== undefined) return env.waves;
  const source: Source = env.source;
  return [{ name: 'all', clusters: env.clusters.map((c) => c.name), source }];
}

/**
 * The cluster of `env` named `name` (a fleet's leg: `--cluster`, the Action's input `cluster`).
 * @throws Error naming the environment's clusters when it lists none of that name.
 */
export function clusterNamed(env: Environment, name: string): EnvironmentCluster {
  const cluster = env.clusters.find((c) => c.name === name);
  if (cluster === undefined)
    throw new Error(
      `cluster ${name}: environment ${env.name} lists no such cluster (its clusters: ${env.clusters.map((c) => c.name).join(', ')})`,
    );
  return cluster;
}

/** The name of the fleet's report job and stage (GitLab's child pipeline, src/gitlab/fleet-pipeline.ts). */
const REPORT_STAGE = 'fleet-report';

/**
 * GitLab's child pipeline has a stage per wave, `NAME-1`, `NAME-2`… per batch of a wave's
 * `maxParallel` (src/core/fleet/matrix.ts fleetBatches), then `fleet-report`: a wave named like
 * another's batch or like the report stage would make two stages of one name. Caught when spread.yaml
 * is read, not after the fleet-plan job planned every cluster.
 */
function stageClashes(waves: readonly FleetWave[], env: string, issues: IssueList): void {
  const batches = new Map<string, string>();
  for (const w of waves) {
    const of = Math.ceil(w.clusters.length / (w.maxParallel ?? w.clusters.length));
    for (let b = 1; of > 1 && b <= of; b++)
      batches.set(`${w.name}-${b}`, `wave ${w.name}'s batch ${b} of ${of}`);
  }
  for (const w of waves) {
    if (w.name === REPORT_STAGE)
      issues.error(
        w.source,
        `wave name ${REPORT_STAGE} is the fleet's report job in GitLab's child pipeline: rename the wave`,
        env,
      );
    const batch = batches.get(w.name);
    if (batch !== undefined)
      issues.error(
        w.source,
        `wave name ${w.name} is also ${batch} (maxParallel: a stage per batch in GitLab's child pipeline): rename the wave`,
        env,
      );
  }
}
