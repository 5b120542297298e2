// The legs' report files as the fleet-report job finds them (src/frontend/fleet-reports.ts): each put on
// its cluster by its `leg`, its artifact's folder or its context and namespace; what cannot be read or
// placed is named, and the fleet report gathered from them lists every declared cluster.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { gatherFleet, type LegFile } from '../../../src/core/fleet/matrix.js';
import { readLegReports } from '../../../src/frontend/fleet-reports.js';
import { environmentNamed } from '../../../src/project/environments.js';
import { loadEnvironments } from '../../../src/project/load.js';
import { formatFleetMarkdown } from '../../../src/report/fleet-markdown.js';
import type { DeployReport } from '../../../src/report/report.js';

const project = mkdtempSync(join(tmpdir(), 'spread-fleet-reports-'));
writeFileSync(
  join(project, 'spread.yaml'),
  `environments:
  production:
    namespace: web
    clusters:
      - { name: eu-1, context: a }
      - { name: eu-2, context: b }
      - { name: us-1, context: c, namespace: web-us }
      - { name: us-2, context: d }
    waves:
      - { name: canary, clusters: [eu-1] }
      - { name: rest }
`,
);
const production = environmentNamed(loadEnvironments(project)!, 'production')!;

const report = (context: string, namespace: string, revision: number): DeployReport => ({
  deployment: 'web',
  namespace,
  context,
  mode: 'deploy',
  objects: [],
  rollout: [{ kind: 'Deployment', name: 'web', namespace, ready: true, message: 'ready', durationMs: 10 }],
  revision,
  durationMs: 900,
});

/** A directory of downloaded artifacts: `files` by path relative to it. */
function artifacts(files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'spread-reports-'));
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return dir;
}

const leg = (cluster: string) => ({ leg: { environment: 'production', cluster } });

describe('readLegReports', () => {
  test('each file on its cluster: by its leg, by its folder, by its context and namespace', () => {
    const dir = artifacts({
      // The Action's report file of a leg names it, whatever the artifact is called.
      'whatever/spread-report-1a2b.json': { ...report('a', 'web', 3), ...leg('eu-1') },
      // A failure before any report: only the leg says whose it is.
      'x/spread-report-3c4d.json': { error: 'cannot reach b', failures: [], ...leg('eu-2') },
      // No leg (an older spread, the CLI's -o json): the artifact's folder.
      'spread-report-us-1/spread-report-5e6f.json': report('c', 'web-us', 7),
      // Neither: the one cluster with that context and namespace.
      'spread-report-7a8b.json': report('d', 'web', 2),
      'notes.json': 'not a report file, not read',
    });
    const read = readLegReports(dir, production);
    expect(read.files).toBe(4);
    expect(read.problems).toEqual([]);
    expect([...read.legs.keys()].sort()).toEqual(['eu-1', 'eu-2', 'us-1', 'us-2']);
    const fleet = gatherFleet(production, read.legs);
    expect(fleet.waves.flatMap((w) => w.clusters.map((c) => [c.cluster, c.status, c.revision]))).toEqual([
      ['eu-1', 'succeeded', 3],
      ['eu-2', 'failed', undefined],
      ['us-1', 'succeeded', 7],
      ['us-2', 'succeeded', 2],
    ]);
    // The kept report is the deploy's own, without the file's leg.
    expect(fleet.waves[0]!.clusters[0]!.report).not.toHaveProperty('leg');
  });

  test('a file that is not JSON fails the cluster its folder names; a missing leg did not run', () => {
    const dir = artifacts({
      'spread-report-eu-1/spread-report-1.json': '{"deployment": "web", trunc',
      'spread-report-eu-2/spread-report-2.json': report('b', 'web', 1),
    });
    const read = readLegReports(dir, production);
    const fleet = gatherFleet(production, read.legs);
    expect(fleet.status).toBe('failed');
    const [eu1, eu2, us1] = fleet.waves.flatMap((w) => w.clusters);
    expect(eu1).toMatchObject({ status: 'failed' });
    expect(eu1!.error).toMatch(/^report file .*spread-report-eu-1\/spread-report-1\.json is not JSON: /);
    expect(eu2).toMatchObject({ status: 'succeeded', revision: 1 });
    expect(us1).toMatchObject({ status: 'skipped', error: 'no report: the leg did not run' });
  });

  test('files on no cluster are named: not a report, another environment, no cluster, a second one', () => {
    const dir = artifacts({
      'a/spread-report-1.json': '[1, 2]',
      'b/spread-report-2.json': {
        ...report('a', 'web', 1),
        leg: { environment: 'staging', cluster: 'eu-1' },
      },
      'c/spread-report-3.json': report('zz', 'web', 1),
      'd/spread-report-4.json': { hello: 'world' },
      'spread-report-us-2/spread-report-5.json': report('d', 'web', 1),
      'spread-report-us-2/again/spread-report-6.json': report('d', 'web', 2),
    });
    const read = readLegReports(dir, production);
    expect(read.problems.map((p) => [p.file.replace(/.*spread-reports-[^/]+\//, ''), p.error])).toEqual([
      ['a/spread-report-1.json', expect.stringMatching(/holds no report$/)],
      ['b/spread-report-2.json', "the report of environment staging's cluster eu-1, not of production"],
      ['c/spread-report-3.json', 'names no cluster of production (eu-1, eu-2, us-1, us-2)'],
      ['d/spread-report-4.json', expect.stringMatching(/holds no deploy report/)],
    ]);
    expect(read.legs.get('us-2')).toEqual({
      error: expect.stringMatching(
        /^two report files for cluster us-2: .*again\/spread-report-6\.json and .*us-2\/spread-report-5\.json$/,
      ),
    });
  });

  test("another environment's report in a cluster's folder fails that cluster, naming the environment", () => {
    const dir = artifacts({
      'spread-report-eu-2/spread-report-eu-2.json': {
        ...report('b', 'web', 1),
        leg: { environment: 'staging', cluster: 'eu-2' },
      },
    });
    const read = readLegReports(dir, production);
    expect(read.problems).toEqual([]);
    expect(read.legs.get('eu-2')).toEqual({
      error: expect.stringMatching(
        /^report file .*spread-report-eu-2\/spread-report-eu-2\.json is the report of environment staging's cluster eu-2, not of production$/,
      ),
    });
    const eu2 = gatherFleet(production, read.legs).waves[1]!.clusters[0]!;
    expect(eu2).toMatchObject({ cluster: 'eu-2', status: 'failed' });
  });

  test('no directory: every leg did not run', () => {
    const read = readLegReports(join(project, 'missing'), production);
    expect(read).toMatchObject({ files: 0, problems: [] });
    const fleet = gatherFleet(production, read.legs);
    expect(fleet.waves.flatMap((w) => w.clusters.map((c) => c.status))).toEqual(Array(4).fill('skipped'));
  });
});

describe('formatFleetMarkdown', () => {
  test('a table per wave with every declared cluster, the missing leg and the unread files named', () => {
    const legs = new Map<string, LegFile>([
      ['eu-1', report('a', 'web', 3)],
      ['eu-2', { error: 'rollout failed:\nDeployment web: ImagePullBackOff' }],
    ]);
    const text = formatFleetMarkdown(gatherFleet(production, legs), {
      deployment: 'web',
      problems: [{ file: 'x/spread-report-9.json', error: 'names no cluster of production' }],
      runUrl: 'https://github.com/o/r/actions/runs/1',
    });
    expect(text).toMatch(/^## ❌ Fleet deploy: `web` → environment `production`\n/);
    expect(text).toContain('4 cluster(s) in 2 wave(s): **1** succeeded · **1** failed · **2** did not run');
    expect(text).toContain('### Wave `canary` (succeeded)');
    expect(text).toContain(
      '| ✅ | `eu-1` | `a` | `web` | 3 | 0 created, 0 configured, 0 pruned, 0 unchanged | rollout ready |',
    );
    expect(text).toContain(
      '| ❌ | `eu-2` |  |  |  |  | **error:** rollout failed: Deployment web: ImagePullBackOff |',
    );
    expect(text).toContain('| ⏭️ | `us-1` |  |  |  |  | no report: the leg did not run |');
    expect(text).toContain('| ⏭️ | `us-2` |');
    expect(text).toContain(
      '### Report files not read\n- `x/spread-report-9.json`: names no cluster of production',
    );
  });

  test("a plan holds each cluster's own plan, folded", () => {
    const plan = { ...report('a', 'web', 1), mode: 'plan' as const, revision: undefined };
    const legs = new Map(production.clusters.map((c) => [c.name, plan]));
    const text = formatFleetMarkdown(gatherFleet(production, legs), { deployment: 'web' });
    expect(text).toMatch(/^## ✅ Fleet plan: /);
    expect(text.match(/<details><summary>Plan of cluster /g)).toHaveLength(4);
    expect(text).toContain('<details><summary>Plan of cluster us-2</summary>\n\n#### Plan: `web`');
  });
});
