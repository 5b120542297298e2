// The report of a fleet deploy (one environment, several clusters in waves): per wave and per cluster
// the revision, the changes, the rollout, the URL or the error, as `-o json` gives it and as text for
// a terminal. Each cluster's own DeployReport is kept whole for machine readers.
import { countActions, type DeployReport } from './report.js';

/** What became of one cluster of the fleet. `skipped`: its wave never started, or stopped before it. */
export type LegStatus = 'succeeded' | 'failed' | 'skipped';

/**
 * A wave's: its clusters' when all agree; `failed` when one failed; `incomplete` when some succeeded
 * and the others did not run (a fleet gathered from CI legs, one job cancelled or not yet rerun).
 */
export type WaveStatus = LegStatus | 'incomplete';

/** The changes of one cluster's deploy, counted by action (as the single deploy's total line). */
export interface LegChanges {
  readonly created: number;
  readonly configured: number;
  readonly unchanged: number;
  readonly pruned: number;
}

/** One cluster of the fleet: where it is, what its deploy did or why it failed. */
export interface FleetLegReport {
  /** The cluster's name (spread.yaml `clusters[].name`). */
  readonly cluster: string;
  readonly wave: string;
  readonly status: LegStatus;
  /** The kubeconfig context deployed to, as declared (also when the leg could not connect); absent when skipped. */
  readonly context?: string;
  readonly namespace?: string;
  readonly revision?: number;
  readonly changes?: LegChanges;
  /** `ready` when every waited object became ready; else the first one that did not, with its message. */
  readonly rollout?: string;
  readonly url?: string;
  /** Why the cluster failed (the deploy's error, or what the soak saw); why it was skipped. */
  readonly error?: string;
  /** The cluster's own deploy report (absent when it failed before one existed, or was skipped). */
  readonly report?: DeployReport;
  readonly durationMs?: number;
}

/** One wave of the fleet. `skipped`: an earlier wave failed, so nothing was written in this one. */
export interface FleetWaveReport {
  readonly name: string;
  readonly status: WaveStatus;
  /** The soak time the wave was watched for after its deploys, in milliseconds (when it has one). */
  readonly soakMs?: number;
  readonly clusters: readonly FleetLegReport[];
}

/** A fleet deploy: fields are only ever added, never renamed (as DeployReport's). */
export interface FleetReport {
  readonly environment: string;
  /** `plan`: every cluster planned, nothing written (`succeeded` then means planned). */
  readonly mode: 'deploy' | 'plan';
  readonly status: 'succeeded' | 'failed';
  readonly waves: readonly FleetWaveReport[];
  readonly durationMs: number;
}

/** The changes of a deploy report, counted; of a plan, what the deploy would do (replace counts as configured). */
export function legChanges(report: DeployReport): LegChanges {
  const c = countActions(report);
  if (report.mode === 'plan')
    return { created: c.create, configured: c.update + c.replace, unchanged: c.unchanged, pruned: c.prune };
  return { created: c.created, configured: c.configured, unchanged: c.unchanged, pruned: c.pruned };
}

/** `ready`, or the first waited object that is not, with its message. */
export function rolloutSummary(report: DeployReport): string | undefined {
  if (report.rollout.length === 0) return undefined;
  const bad = report.rollout.find((r) => !r.ready);
  return bad === undefined ? 'ready' : `${bad.kind}/${bad.name} not ready: ${bad.message}`;
}

/** The fleet as text: a line per wave, a line per cluster under it, then the outcome. */
export function formatFleetText(report: FleetReport): string {
  const lines: string[] = [];
  const legs = report.waves.flatMap((w) => w.clusters);
  const width = Math.max(...legs.map((l) => l.cluster.length), 7);
  const verb = report.mode === 'plan' ? 'Plan for fleet' : 'Fleet';
  lines.push(`${verb} ${report.environment}: ${legs.length} cluster(s) in ${report.waves.length} wave(s)`);
  for (const wave of report.waves) {
    const soak = wave.soakMs ? `, soak ${(wave.soakMs / 1000).toFixed(0)}s` : '';
    lines.push(`wave ${wave.name} (${wave.status}${soak})`);
    for (const leg of wave.clusters)
      lines.push(`  ${leg.cluster.padEnd(width)}  ${legLine(leg, report.mode)}`);
  }
  const count = (s: LegStatus) => legs.filter((l) => l.status === s).length;
  lines.push(
    `${report.status === 'succeeded' ? `fleet ${report.mode === 'plan' ? 'planned' : 'deployed'}` : 'fleet FAILED'}: ${count('succeeded')} succeeded, ${count('failed')} failed, ${count('skipped')} skipped in ${(report.durationMs / 1000).toFixed(1)}s`,
  );
  return `${lines.join('\n')}\n`;
}

function legLine(leg: FleetLegReport, mode: FleetReport['mode']): string {
  const status = leg.status === 'succeeded' && mode === 'plan' ? 'planned' : leg.status;
  const parts: string[] = [status === 'failed' ? 'FAILED' : status];
  if (leg.context) parts.push(`context ${leg.context}`);
  if (leg.revision !== undefined) parts.push(`revision ${leg.revision}`);
  if (leg.changes) {
    const c = leg.changes;
    parts.push(
      mode === 'plan'
        ? `${c.created} to create, ${c.configured} to update, ${c.unchanged} unchanged, ${c.pruned} to prune`
        : `${c.created} created, ${c.configured} configured, ${c.unchanged} unchanged, ${c.pruned} pruned`,
    );
  }
  if (leg.rollout) parts.push(`rollout ${leg.rollout}`);
  if (leg.url) parts.push(leg.url);
  if (leg.error) parts.push(`${leg.status === 'skipped' ? '' : 'error: '}${firstLine(leg.error)}`);
  return parts.join(' · ');
}

/** The error's first line, with the next one when the first only introduces it (`rollout failed:`). */
function firstLine(error: string): string {
  const [first = '', second] = error.split('\n');
  return first.endsWith(':') && second ? `${first} ${second.trim()}` : first;
}
