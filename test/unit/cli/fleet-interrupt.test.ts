// Ctrl-C during a fleet deploy: the fleet's report is printed, and the last line says the fleet was
// interrupted and where, not that the command had completed (exit 130 either way).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test, vi } from 'vitest';
import { main } from '../../../src/cli/main.js';

test('a SIGINT during a fleet: exit 130, the report, and a last line naming the interrupt', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'spread-fleet-int-'));
  // Two contexts on a port nothing listens on: the canary's connect is under way when SIGINT comes.
  writeFileSync(
    path.join(dir, 'kc.yaml'),
    `apiVersion: v1
kind: Config
clusters: [{ name: a, cluster: { server: "https://127.0.0.1:1" } }]
users: [{ name: u, user: { token: x } }]
contexts: [{ name: eu-1, context: { cluster: a, user: u } }, { name: us-1, context: { cluster: a, user: u } }]
current-context: eu-1
`,
  );
  mkdirSync(path.join(dir, 'app'));
  writeFileSync(
    path.join(dir, 'app', 'spread.yaml'),
    `environments:
  production:
    namespace: web
    clusters: [{ name: eu-1, context: eu-1 }, { name: us-1, context: us-1 }]
    waves: [{ name: canary, clusters: [eu-1] }, { name: rest }]
`,
  );
  writeFileSync(path.join(dir, 'app', 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\n');
  let stderr = '';
  let stdout = '';
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  const kubeconfig = process.env.KUBECONFIG;
  process.env.KUBECONFIG = path.join(dir, 'kc.yaml');
  try {
    const done = main(['node', 'spread', 'deploy', path.join(dir, 'app'), '--environment', 'production']);
    await vi.waitFor(() => expect(stderr).toContain('wave canary: eu-1'), { timeout: 5_000 });
    process.emit('SIGINT', 'SIGINT');
    expect(await done).toBe(130);
  } finally {
    err.mockRestore();
    out.mockRestore();
    if (kubeconfig === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = kubeconfig;
  }
  expect(stdout).toMatch(/wave rest \(skipped\)/);
  expect(stderr).not.toMatch(/as spread finished/);
  expect(stderr.trimEnd().split('\n').at(-1)).toBe(
    'error: fleet production: interrupted by SIGINT: eu-1 (wave canary) stopped; later waves were not started (rest)',
  );
}, 30_000);
