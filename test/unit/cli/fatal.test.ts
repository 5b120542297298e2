// What the entry points (dist/cli/index.js, dist/index.js) print for an error nothing catches. Node's
// own output starts with the source line of the throw, which in dist/spread.js is one minified line
// of 400,000 characters; the entry points print name, message and `at` frames only (scripts/build.mjs).
// The throw here comes from a preloaded module written as one 20,000-character line.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';

const longLine = `${'void 0;'.repeat(2_500)}setTimeout(() => { throw new TypeError('t.objects is not iterable'); }, 0);`;

function preload(): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'spread-fatal-')), 'throw.mjs');
  writeFileSync(file, `${longLine}\n`);
  return pathToFileURL(file).href;
}

describe('an uncaught exception in an entry point', () => {
  test('plain Node prints the source line (the reason for the handler)', () => {
    const r = spawnSync(process.execPath, ['--import', preload(), '-e', 'setTimeout(() => {}, 1000)'], {
      encoding: 'utf8',
    });
    expect(r.stderr).toContain(longLine);
  });

  test.each([
    ['the CLI', 'dist/cli/index.js', ['render', 'examples/mattermost']],
    ['the Action', 'dist/index.js', []],
  ])('%s prints the error in short lines and exits with 1', (_, entry, args) => {
    const r = spawnSync(process.execPath, ['--import', preload(), path.resolve(entry), ...args], {
      encoding: 'utf8',
      env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: '1' },
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('spread: internal error: TypeError: t.objects is not iterable\n    at ');
    expect(Math.max(...r.stderr.split('\n').map((l) => l.length))).toBeLessThanOrEqual(300);
  });
});
