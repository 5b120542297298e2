// A fleet in the CI's terms (src/core/fleet/matrix.ts): each wave's matrix from spread.yaml, and the
// fleet report gathered from the legs' report files, a missing one counting as a leg that did not run.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { fleetBatches, fleetMatrix, gatherFleet, type LegFile } from '../../../src/core/fleet/matrix.js';
import { environmentNamed } from '../../../src/project/environments.js';
import { loadEnvironments } from '../../../src/project/load.js';
import type { DeployReport } from '../../../src/report/report.js';

const dir = mkdtempSync(join(tmpdir(), 'spread-matrix-'));
writeFileSync(
  join(dir, 'spread.yaml'),
  `environments:
  production:
    namespace: web
    clusters:
      - { name: eu-1, context: a }
      - { name: eu-2, context: b, namespace: web-eu }
      - { name: us-1, context: c }
    waves:
      - { name: canary, clusters: [eu-1] }
      - { name: rest, maxParallel: 2 }
`,
);
const production = environmentNamed(loadEnvironments(dir)!, 'production')!;

const report = (context: string, revision: number): DeployReport => ({
  deployment: 'web',
  namespace: 'web',
  context,
  mode: 'deploy',
  objects: [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'web',
      namespace: 'web',
      action: 'configured',
      source: 'web.yaml:1',
    },
  ],
  rollout: [
    { kind: 'Deployment', name: 'web', namespace: 'web', ready: true, message: 'ready', durationMs: 10 },
  ],
  revision,
  durationMs: 1200,
});

describe('fleetMatrix', () => {
  test("each wave's matrix, in order: include, max-parallel, clusters and soak always present", () => {
    expect(fleetMatrix(production)).toEqual({
      canary: {
        include: [{ cluster: 'eu-1', wave: 'canary', context: 'a', namespace: 'web' }],
        'max-parallel': 1,
        clusters: 1,
        soak: 0,
      },
      rest: {
        include: [
          { cluster: 'eu-2', wave: 'rest', context: 'b', namespace: 'web-eu' },
          { cluster: 'us-1', wave: 'rest', context: 'c', namespace: 'web' },
        ],
        'max-parallel': 2,
        clusters: 2,
        soak: 0,
      },
    });
    expect(Object.keys(fleetMatrix(production))).toEqual(['canary', 'rest']);
  });

  test('a soak in whole seconds, no maxParallel: all at once, an empty last wave kept with 0 clusters', () => {
    const other = mkdtempSync(join(tmpdir(), 'spread-matrix-'));
    writeFileSync(
      join(other, 'spread.yaml'),
      `environments:
  production:
    clusters:
      - { name: eu-1, context: a }
      - { name: eu-2, context: b }
      - { name: us-1, context: c }
    waves:
      - { name: canary, clusters: [eu-1], soak: 1m30s }
      - { name: wide, clusters: [eu-2, us-1], soak: 1500ms }
      - { name: rest }
`,
    );
    const env = environmentNamed(loadEnvironments(other)!, 'production')!;
    const matrix = fleetMatrix(env);
    expect(Object.keys(matrix)).toEqual(['canary', 'wide', 'rest']);
    expect(matrix.canary).toMatchObject({ 'max-parallel': 1, clusters: 1, soak: 90 });
    expect(matrix.wide).toMatchObject({ 'max-parallel': 2, clusters: 2, soak: 2 });
    expect(matrix.rest).toEqual({ include: [], 'max-parallel': 1, clusters: 0, soak: 0 });
  });
});

describe('fleetBatches', () => {
  const fleet = (waves: string) => {
    const d = mkdtempSync(join(tmpdir(), 'spread-batches-'));
    const names = ['eu-1', 'eu-2', 'eu-3', 'us-1', 'us-2', 'us-3'];
    writeFileSync(
      join(d, 'spread.yaml'),
      `environments:\n  production:\n    clusters:\n${names.map((n) => `      - { name: ${n}, context: ${n} }\n`).join('')}    waves:\n${waves}`,
    );
    return environmentNamed(loadEnvironments(d)!, 'production')!;
  };
  const shape = (env: ReturnType<typeof fleet>) =>
    fleetBatches(env).map(
      (b) => `${b.wave} ${b.batch}/${b.of}: ${b.include.map((e) => e.cluster).join(',')}`,
    );

  test.each([
    [
      'maxParallel 2 of five: batches of two in order, the last one short',
      '      - { name: canary, clusters: [eu-1] }\n      - { name: rest, maxParallel: 2 }\n',
      ['canary 1/1: eu-1', 'rest 1/3: eu-2,eu-3', 'rest 2/3: us-1,us-2', 'rest 3/3: us-3'],
    ],
    [
      'no maxParallel: one batch per wave',
      '      - { name: eu, clusters: [eu-1, eu-2, eu-3] }\n      - { name: us }\n',
      ['eu 1/1: eu-1,eu-2,eu-3', 'us 1/1: us-1,us-2,us-3'],
    ],
    [
      'maxParallel 1: one cluster a batch',
      '      - { name: eu, clusters: [eu-1, eu-2], maxParallel: 1 }\n      - { name: us, maxParallel: 3 }\n',
      ['eu 1/2: eu-1', 'eu 2/2: eu-2', 'us 1/2: eu-3,us-1,us-2', 'us 2/2: us-3'],
    ],
  ])('%s', (_, waves, expected) => {
    expect(shape(fleet(waves))).toEqual(expected);
  });

  test("each batch's entries are the wave's matrix entries", () => {
    const [first] = fleetBatches(production);
    expect(first).toEqual({
      wave: 'canary',
      batch: 1,
      of: 1,
      include: [{ cluster: 'eu-1', wave: 'canary', context: 'a', namespace: 'web' }],
    });
  });
});

describe('gatherFleet', () => {
  test('every leg reported: the fleet succeeded, each cluster with its revision and changes', () => {
    const legs = new Map<string, LegFile>([
      ['eu-1', report('a', 3)],
      ['eu-2', report('b', 2)],
      ['us-1', report('c', 5)],
    ]);
    const fleet = gatherFleet(production, legs);
    expect(fleet.status).toBe('succeeded');
    expect(
      fleet.waves.flatMap((w) =>
        w.clusters.map((c) => [c.cluster, c.status, c.revision, c.changes?.configured]),
      ),
    ).toEqual([
      ['eu-1', 'succeeded', 3, 1],
      ['eu-2', 'succeeded', 2, 1],
      ['us-1', 'succeeded', 5, 1],
    ]);
  });

  test('a failed leg fails the fleet; a leg without a report did not run', () => {
    const legs = new Map<string, LegFile>([
      ['eu-1', report('a', 3)],
      ['eu-2', { error: 'rollout failed: ImagePullBackOff', report: report('b', 2) }],
    ]);
    const fleet = gatherFleet(production, legs);
    expect(fleet.status).toBe('failed');
    expect(fleet.waves.map((w) => [w.name, w.status])).toEqual([
      ['canary', 'succeeded'],
      ['rest', 'failed'],
    ]);
    expect(fleet.waves[1]!.clusters.map((c) => [c.cluster, c.status, c.error])).toEqual([
      ['eu-2', 'failed', 'rollout failed: ImagePullBackOff'],
      ['us-1', 'skipped', 'no report: the leg did not run'],
    ]);
    expect(gatherFleet(production, new Map([['eu-1', report('a', 1)]])).status).toBe('failed');
  });

  test('a wave with some legs succeeded and the others not run is incomplete, not skipped', () => {
    const legs = new Map<string, LegFile>([
      ['eu-1', report('a', 3)],
      ['eu-2', report('b', 2)],
    ]);
    const fleet = gatherFleet(production, legs);
    expect(fleet.status).toBe('failed');
    expect(fleet.waves.map((w) => [w.name, w.status])).toEqual([
      ['canary', 'succeeded'],
      ['rest', 'incomplete'],
    ]);
    expect(gatherFleet(production, new Map()).waves.map((w) => w.status)).toEqual(['skipped', 'skipped']);
  });
});
