import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { AFTER_READ_HEAP_GROWTH_OPTION, inputRead } from '../../../src/base/heap.js';
import { MALLOC_ENV, SEMI_SPACE_OPTION } from '../../../src/bin/child.js';
import { capYoungGeneration, HEAP_GROWTH_OPTION, limitHeapGrowth } from '../../../src/bin/start.js';

describe('capYoungGeneration', () => {
  test('leaves a Node alone that has the semi-space option, in its command line or NODE_OPTIONS', () => {
    expect(capYoungGeneration([SEMI_SPACE_OPTION], {})).toBe(false);
    expect(capYoungGeneration(['--max-semi-space-size=32'], {})).toBe(false);
    expect(capYoungGeneration([], { NODE_OPTIONS: `--trace-warnings ${SEMI_SPACE_OPTION}` })).toBe(false);
  });

  test('stops the growth of a Node started without it', () => {
    expect(capYoungGeneration(['--enable-source-maps'], { NODE_OPTIONS: '--trace-warnings' })).toBe(true);
  });

  // What the function relies on: V8 reads the growth factor at run time. Data surviving scavenges
  // grows the young generation of a plain Node to 32 MB here; with the factor set first, it stays at
  // 2–3 MB (V8 still rounds up a page or so, which varies from run to run).
  test.each([
    ['without the flag', '', (mb: number) => expect(mb).toBeGreaterThan(8)],
    [
      'with the flag set at run time',
      "v8.setFlagsFromString('--semi-space-growth-factor=1');",
      (mb: number) => expect(mb).toBeLessThanOrEqual(4),
    ],
  ])('%s', (_name, setup, check) => {
    const script = `const v8 = require('node:v8'); ${setup}
      const keep = []; for (let i = 0; i < 400000; i++) keep.push({ i, s: 'x' + i });
      const s = v8.getHeapSpaceStatistics().find((x) => x.space_name === 'new_space');
      process.stdout.write(String(s.space_size / 2 ** 20));`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    check(Number(r.stdout));
  });
});

describe('limitHeapGrowth', () => {
  test('leaves a Node alone whose command line sets the heap growth', () => {
    expect(limitHeapGrowth(['--heap-growing-percent=0'])).toBe(false);
    expect(limitHeapGrowth(['--heap_growing_percent=30'])).toBe(false);
  });

  test('holds the growth of any other Node to ×2, and to ×1.5 once a deploy has read its input', () => {
    expect(limitHeapGrowth(['--enable-source-maps'])).toBe(true);
    expect(inputRead()).toBe(true);
    // Once: a second deploy in the same process sets nothing again.
    expect(inputRead()).toBe(false);
  });

  test('a deploy in a Node whose command line sets the heap growth leaves it as it is', () => {
    inputRead(); // whatever an earlier test armed
    expect(limitHeapGrowth(['--heap-growing-percent=0'])).toBe(false);
    expect(inputRead()).toBe(false);
  });

  // V8 takes the option at run time: it says so on stderr when it does not know an option or its value.
  test.each([
    [HEAP_GROWTH_OPTION, ''],
    [AFTER_READ_HEAP_GROWTH_OPTION, ''],
    ['--heap-growing-percent=abc', 'illegal value'],
    ['--no-such-option=1', 'unrecognized flag'],
  ])('V8 reads %s at run time', (option, complaint) => {
    const script = `require('node:v8').setFlagsFromString(${JSON.stringify(option)});`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    if (complaint) expect(r.stderr).toContain(complaint);
    else expect(r.stderr).toBe('');
  });
});

describe("the CLI's prologue (dist/cli/index.js)", () => {
  // Its two lines before a body that prints what the Node it starts was given.
  const run = (env: NodeJS.ProcessEnv) => {
    const dir = mkdtempSync(join(tmpdir(), 'spread-prologue-'));
    const [shebang, exec] = readFileSync(
      join(import.meta.dirname, '../../../dist/cli/index.js'),
      'utf8',
    ).split('\n');
    const script = join(dir, 'cli.js');
    writeFileSync(
      script,
      `${shebang}\n${exec}\nprocess.stdout.write(JSON.stringify([process.env.${MALLOC_ENV.name} ?? null, process.execArgv]));\n`,
    );
    chmodSync(script, 0o755);
    const r = spawnSync(script, [], {
      encoding: 'utf8',
      env: { PATH: `${dirname(process.execPath)}:${process.env.PATH}`, ...env },
    });
    rmSync(dir, { recursive: true, force: true });
    expect(r.status).toBe(0);
    return JSON.parse(r.stdout) as [string | null, string[]];
  };

  test('starts Node with the semi-space option and glibc malloc option', () => {
    expect(run({})).toEqual([MALLOC_ENV.value, [SEMI_SPACE_OPTION]]);
  });

  test('keeps a malloc option the user set', () => {
    expect(run({ [MALLOC_ENV.name]: '65536' })[0]).toBe('65536');
  });
});
