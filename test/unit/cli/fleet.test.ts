import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { fleetEnvironment } from '../../../src/cli/fleet.js';

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
