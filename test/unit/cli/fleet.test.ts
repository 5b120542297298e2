import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { fleetEnvironment, fleetFailureLine } from '../../../src/cli/fleet.js';
import type { FleetReport, FleetWaveReport } from '../../../src/report/fleet.js';

const DIR = mkdtempSync(join(tmpdir(), 'spread-fleet-flags-'));
writeFileSync(
  join(DIR, 'spread.yaml'),
  `environments:
  production:
    clusters:
      - { name: eu-1, context: eu-1 }
      - { name: us-1, context: us-1 }
`,
);

describe('fleetEnvironment: --cluster', () => {
  test.each(['', ' ', ',', ' , '])(
    '--cluster %j names no cluster: an error, not the whole fleet',
    (cluster) => {
      expect(() => fleetEnvironment(DIR, { environment: 'production', cluster })).toThrow(
        '--cluster needs a cluster name; omit it to deploy every cluster',
      );
    },
  );

  test('omitted, the whole fleet; given, the fleet to pick from', () => {
    expect(fleetEnvironment(DIR, { environment: 'production' })?.name).toBe('production');
    expect(fleetEnvironment(DIR, { environment: 'production', cluster: 'eu-1' })?.name).toBe('production');
  });
});

describe('fleetFailureLine', () => {
  const wave = (name: string, status: FleetWaveReport['status']): FleetWaveReport => ({
    name,
    status,
    clusters: [{ cluster: `${name}-1`, wave: name, status: status === 'failed' ? 'failed' : 'skipped' }],
  });
  const fleet = (...waves: FleetWaveReport[]): FleetReport => ({
    environment: 'production',
    mode: 'deploy',
    status: 'failed',
    waves,
    durationMs: 1,
  });

  test.each([
    [
      'a failed wave before others: they were not started',
      fleet(wave('canary', 'failed'), wave('rest', 'skipped')),
      'error: fleet production: canary-1 (wave canary) failed; later waves were not started (rest)',
    ],
    [
      'the last wave failed: no later wave to speak of',
      fleet(wave('canary', 'succeeded'), wave('rest', 'failed')),
      'error: fleet production: rest-1 (wave rest) failed',
    ],
    [
      'one wave (a single --cluster leg)',
      fleet(wave('canary', 'failed')),
      'error: fleet production: canary-1 (wave canary) failed',
    ],
    [
      'a plan: nothing is started in waves',
      { ...fleet(wave('canary', 'failed'), wave('rest', 'skipped')), mode: 'plan' as const },
      'error: fleet production: canary-1 (wave canary) failed',
    ],
  ])('%s', (_what, report, line) => {
    expect(fleetFailureLine(report)).toBe(line);
  });
});
