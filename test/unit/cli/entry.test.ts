import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { version } from '../../../src/version.js';

// dist/cli/index.js as npm's bin link runs it: a file the OS executes. Its first lines exec Node with
// --max-semi-space-size=4 (scripts/build.mjs); a `node` earlier in PATH records how it was started.
const cli = path.resolve('dist/cli/index.js');

function recordingNode(): { dir: string; args: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'spread-entry-'));
  const args = path.join(dir, 'args');
  writeFileSync(
    path.join(dir, 'node'),
    `#!/bin/sh\nprintf '%s\\n' "$@" > '${args}'\nexec '${process.execPath}' "$@"\n`,
  );
  chmodSync(path.join(dir, 'node'), 0o755);
  return { dir, args };
}

describe('the CLI entry point', () => {
  test.each([
    ['executed directly', [cli]],
    ['run by sh', ['sh', cli]],
    ...(existsSync('/usr/bin/busybox')
      ? [['run by BusyBox sh (as on Alpine)', ['/usr/bin/busybox', 'sh', cli]]]
      : []),
  ] as [string, string[]][])('%s: execs Node with --max-semi-space-size=4 and its own path', (_, command) => {
    const node = recordingNode();
    const [file, ...rest] = command;
    const r = spawnSync(file!, [...rest, '--version'], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${node.dir}:${process.env.PATH}` },
    });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe(version);
    expect(readFileSync(node.args, 'utf8').split('\n').slice(0, 3)).toEqual([
      '--max-semi-space-size=4',
      cli,
      '--version',
    ]);
  });

  test('node dist/cli/index.js runs it too: Node skips the #! line, the exec line is a string and a comment', () => {
    const r = spawnSync(process.execPath, [cli, '--version'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe(version);
  });
});
