// The report files of a fleet's legs, as a CI's final job finds them: each leg's `report-file`
// (`spread-report-*.json`) uploaded as an artifact and all of them downloaded under one directory. Each
// file is put to its cluster; a file that cannot be read or placed is named, never skipped.
import { type Dirent, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fleetMatrix, type LegFile } from '../core/fleet/matrix.js';
import type { Environment } from '../project/environments.js';

/** A report file that is not a leg of the fleet, or not a report. */
export interface LegFileProblem {
  readonly file: string;
  readonly error: string;
}

/** The legs' report files by cluster; a cluster whose file is unreadable has an `{error}` naming it. */
export interface LegReports {
  readonly legs: ReadonlyMap<string, LegFile>;
  /** Files placed on no cluster: not a report, another environment's, or of no cluster of the fleet. */
  readonly problems: readonly LegFileProblem[];
  /** How many report files were found. */
  readonly files: number;
}

/** How the Action names its report file (src/action/publish.ts writeReportFile). */
const REPORT_FILE = /^spread-report-.*\.json$/;

/**
 * Reads every `spread-report-*.json` under `dir` (in any folder: actions/download-artifact puts each
 * artifact in a folder of its name) and puts each on a cluster of `env`: by the file's `leg` (the
 * Action's report file of a leg names its environment and cluster), else by its folder
 * (`spread-report-CLUSTER` or `CLUSTER`, the artifact's name), else by the report's context and
 * namespace when exactly one cluster has them. A file that is not JSON, holds no report or another
 * environment's, fails its cluster when its folder names one, else is a problem; a second file for
 * the same cluster fails it.
 * A missing `dir` holds no file: every leg then did not run.
 */
export function readLegReports(dir: string, env: Environment): LegReports {
  const legs = new Map<string, LegFile>();
  const problems: LegFileProblem[] = [];
  const seen = new Map<string, string>();
  const files = reportFiles(dir);
  for (const file of files) {
    // Relative to the working directory (the workspace) when inside it: `spread-reports/…`.
    const relative = path.relative(process.cwd(), file);
    const shown = relative.startsWith('..') ? file : relative;
    let read = readLeg(file, shown);
    const folder = path.relative(dir, path.dirname(file));
    const other = read.file?.leg && read.file.leg.environment !== env.name ? read.file.leg : undefined;
    let cluster: string | undefined;
    if (other) {
      const why = `the report of environment ${other.environment}'s cluster ${other.cluster}, not of ${env.name}`;
      // In a cluster's folder it stands where that cluster's report should be: it fails that cluster.
      cluster = folderCluster(env, folder);
      if (cluster === undefined) {
        problems.push({ file: shown, error: why });
        continue;
      }
      read = { error: `report file ${shown} is ${why}` };
    } else cluster = clusterOf(read.file, env, folder);
    if (cluster === undefined) {
      problems.push({
        file: shown,
        error:
          read.error ?? `names no cluster of ${env.name} (${env.clusters.map((c) => c.name).join(', ')})`,
      });
      continue;
    }
    const earlier = seen.get(cluster);
    seen.set(cluster, shown);
    if (earlier !== undefined) {
      legs.set(cluster, { error: `two report files for cluster ${cluster}: ${earlier} and ${shown}` });
      continue;
    }
    legs.set(cluster, read.file ?? { error: read.error! });
  }
  return { legs, problems, files: files.length };
}

function reportFiles(dir: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { recursive: true, withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return entries
    .filter((e) => e.isFile() && REPORT_FILE.test(e.name))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

/** The file as a leg's report (without its `leg` tag in the report kept), or why it is none. */
function readLeg(file: string, shown: string): { file?: LegFile; error?: string } {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return { error: `report file ${shown} is not JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { error: `report file ${shown} holds no report` };
  const { leg, ...rest } = value as Record<string, unknown>;
  const tag = isTag(leg) ? { leg } : {};
  if (typeof rest.error === 'string') {
    const report = isReport(rest.report) ? { report: rest.report } : {};
    return { file: { error: rest.error, ...report, ...tag } };
  }
  if (isReport(rest)) return { file: { ...rest, ...tag } };
  return { error: `report file ${shown} holds no deploy report (no deployment, objects, rollout)` };
}

function isTag(value: unknown): value is { environment: string; cluster: string } {
  const v = value as { environment?: unknown; cluster?: unknown } | null | undefined;
  return typeof v?.environment === 'string' && typeof v.cluster === 'string';
}

function isReport(value: unknown): value is Extract<LegFile, { objects: unknown }> {
  const v = value as Record<string, unknown> | null | undefined;
  return (
    typeof v?.deployment === 'string' &&
    typeof v.context === 'string' &&
    typeof v.namespace === 'string' &&
    Array.isArray(v.objects) &&
    Array.isArray(v.rollout)
  );
}

/** The cluster a file belongs to: its tag, its folder, else its context and namespace (see above). */
function clusterOf(file: LegFile | undefined, env: Environment, folder: string): string | undefined {
  const names = env.clusters.map((c) => c.name);
  if (file?.leg && file.leg.environment === env.name && names.includes(file.leg.cluster))
    return file.leg.cluster;
  const named = folderCluster(env, folder);
  if (named !== undefined) return named;
  const report = file && ('error' in file ? file.report : file);
  if (report === undefined) return undefined;
  const entries = Object.values(fleetMatrix(env)).flatMap((w) => w.include);
  const matching = entries.filter((e) => e.context === report.context && e.namespace === report.namespace);
  return matching.length === 1 ? matching[0]!.cluster : undefined;
}

/** The cluster of `env` a file's folder names (`spread-report-CLUSTER` or `CLUSTER`, innermost first). */
function folderCluster(env: Environment, folder: string): string | undefined {
  const names = env.clusters.map((c) => c.name);
  for (const part of folder.split(path.sep).reverse()) {
    const name = part.replace(/^spread-report-/, '');
    if (names.includes(name)) return name;
  }
  return undefined;
}
