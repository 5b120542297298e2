// Mode fleet-soak (src/action/fleet.ts runFleetSoak) for a wave without a soak: it says so and
// passes when the wave's legs succeeded, without reading any cluster.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test, vi } from 'vitest';
import { runFleetSoak } from '../../../src/action/fleet.js';
import { parseInputs } from '../../../src/action/inputs.js';
import type { RunnerEnv } from '../../../src/action/runner.js';

test('a wave with no soak: the log says there is none, and the step passes on its succeeded legs', async () => {
  const workspace = mkdtempSync(path.join(tmpdir(), 'spread-fleet-soak-'));
  writeFileSync(
    path.join(workspace, 'spread.yaml'),
    `environments:
  production:
    namespace: web
    clusters: [{ name: eu-1, context: a }, { name: us-1, context: b }]
    waves: [{ name: canary, clusters: [eu-1] }, { name: rest }]
`,
  );
  mkdirSync(path.join(workspace, 'spread-reports', 'spread-report-eu-1'), { recursive: true });
  writeFileSync(
    path.join(workspace, 'spread-reports', 'spread-report-eu-1', 'spread-report-eu-1.json'),
    JSON.stringify({
      deployment: 'web',
      namespace: 'web',
      context: 'a',
      mode: 'deploy',
      objects: [],
      rollout: [],
      durationMs: 1,
      leg: { environment: 'production', cluster: 'eu-1' },
    }),
  );
  const map: Record<string, string> = {
    mode: 'fleet-soak',
    environment: 'production',
    wave: 'canary',
    path: '.',
  };
  const inputs = parseInputs((name) => map[name] ?? '');
  let stdout = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  const cwd = process.cwd();
  process.chdir(workspace);
  try {
    await runFleetSoak(inputs, { workspace } as RunnerEnv, new AbortController().signal, () => {
      throw new Error('no cluster is read without a soak');
    });
  } finally {
    process.chdir(cwd);
    out.mockRestore();
  }
  expect(stdout).toContain('wave canary has no soak in spread.yaml: nothing to watch');
});
