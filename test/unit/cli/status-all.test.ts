// The drift's text and exit code of `spread status` compared with a cluster (src/cli/status-all.ts),
// the plain form and --all-environments alike (docs/drift.md).
import { describe, expect, test } from 'vitest';
import { driftExitCode, driftText } from '../../../src/cli/status-all.js';
import type { DriftReport } from '../../../src/frontend/manage.js';

const drift = (extra: Partial<DriftReport> = {}): DriftReport => ({
  deployment: 'web',
  namespace: 'shop',
  drifted: false,
  objects: [],
  ignored: [],
  ...extra,
});
const counts = (rejected: number) => ({ counts: { rejected } }) as Parameters<typeof driftExitCode>[0];

describe('driftExitCode', () => {
  test.each([
    ['in sync', 0, false, 0],
    ['only what is not drift (a rollout restart)', 0, false, 0],
    ['drifted', 0, true, 2],
    ['an object the server rejects', 1, true, 1],
  ] as const)('%s: %i', (_, rejected, drifted, code) => {
    expect(driftExitCode(counts(rejected), { drifted })).toBe(code);
  });
});

describe('driftText', () => {
  const ignored = [
    {
      object: 'Deployment/web',
      path: 'spec.template.metadata.annotations',
      rule: 'restarted-at',
      reason: 'a restart',
    },
  ];
  test.each([
    ['the directory: nothing more said', drift({ ignored }), 'no drift (1 differences are not drift)\n'],
    [
      'a revision: which one',
      drift({
        comparedWith: {
          against: 'revision',
          revision: 3,
          commit: '0123456789abcdef',
          time: '2026-12-07T14:00:00Z',
        },
      }),
      'compared with revision 3 (commit 0123456, deployed 2026-12-07T14:00:00Z)\nno drift\n',
    ],
    [
      'a revision asked for, none recorded',
      drift({
        drifted: true,
        comparedWith: { against: 'directory', note: 'no revision: compared with the directory' },
      }),
      'no revision: compared with the directory\ndrifted:\n',
    ],
  ])('%s', (_, report, text) => {
    expect(driftText(report)).toBe(text);
  });
});
