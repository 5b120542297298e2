import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test, vi } from 'vitest';
import { main } from '../../../src/cli/main.js';

test('a SIGTERM too late to stop a command: exit 143 and a line saying the command had completed', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'spread-late-'));
  mkdirSync(path.join(dir, '.k2e'));
  writeFileSync(
    path.join(dir, '.k2e/cm.yaml'),
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {v: "1"}\n',
  );
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
  try {
    // `render` reads no signal: the SIGTERM, handled by the CLI's trap, stops nothing.
    const done = main(['node', 'spread', 'render', dir]);
    process.emit('SIGTERM', 'SIGTERM');
    expect(await done).toBe(143);
  } finally {
    err.mockRestore();
    out.mockRestore();
  }
  expect(stdout).toMatch(/kind: ConfigMap/);
  expect(stderr).toMatch(
    /^error: interrupted by SIGTERM as spread finished: the command had completed \(its report above says what it did\)$/m,
  );
});
