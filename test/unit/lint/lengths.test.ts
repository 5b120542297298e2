// scripts/lengths.mjs (in npm run lint) on small source folders: a function over 80 lines or a file
// over 400 lines fails, naming file and line, unless a comment says why.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';

const SCRIPT = path.resolve(import.meta.dirname, '../../../scripts/lengths.mjs');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Runs the check on a folder holding `files` (name → text). */
function check(files: Record<string, string>) {
  const dir = mkdtempSync(path.join(tmpdir(), 'spread-lengths-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  const r = spawnSync(process.execPath, [SCRIPT, dir], { cwd: dir, encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr };
}

/** A function of `lines` lines in all (the header and closing brace included). */
function fn(name: string, lines: number, comment = ''): string {
  const body = Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n');
  return `${comment}export function ${name}(): void {\n${body}\n}\n`;
}

describe('function and file lengths', () => {
  test.each([
    ['a function of 80 lines passes', { 'a.ts': fn('short', 80) }, 0, []],
    ['a function of 81 lines fails', { 'a.ts': fn('long', 81) }, 1, ['a.ts:1: function long is 81 lines']],
    [
      'a nested function over 80 lines fails on its own line',
      {
        'b/c.ts': `export function outer() {\n  const inner = () => {\n${'    1;\n'.repeat(81)}  };\n  return inner;\n}\n`,
      },
      1,
      ['b/c.ts:1: function outer is 86 lines', 'b/c.ts:2: function inner is 83 lines'],
    ],
    [
      'a leading comment saying why lets it pass',
      { 'a.ts': fn('long', 120, '/** A table of cases; over 80 lines because each case is one line. */\n') },
      0,
      [],
    ],
    [
      "an arrow function in a const takes the statement's comment",
      {
        'a.ts': `// over 80 lines because it is a list.\nexport const f = () => {\n${'  1;\n'.repeat(90)}};\n`,
      },
      0,
      [],
    ],
    [
      'a callback takes the comment of the statement it is an argument in',
      {
        'a.ts': `// over 80 lines because its callback is.\nexport async function f(group: (n: string, g: () => Promise<void>) => Promise<void>) {\n  // over 80 lines because it is a list.\n  await group('x', async () => {\n${'    1;\n'.repeat(85)}  });\n}\n`,
      },
      0,
      [],
    ],
    [
      'a comment on the enclosing function does not cover a long callback in it',
      {
        'a.ts': `// over 80 lines because it is a list.\nexport async function f(group: (n: string, g: () => Promise<void>) => Promise<void>) {\n  await group('x', async () => {\n${'    1;\n'.repeat(85)}  });\n}\n`,
      },
      1,
      ['a.ts:3: function (anonymous) is 87 lines'],
    ],
    [
      'a comment without the reason does not',
      { 'a.ts': fn('long', 90, '/** Long. */\n') },
      1,
      ['a.ts:2: function long is 90 lines'],
    ],
    [
      'a file over 400 lines fails',
      { 'big.ts': Array.from({ length: 401 }, (_, i) => `export const c${i} = ${i};`).join('\n') },
      1,
      ['big.ts:1: 401 lines, over 400'],
    ],
    [
      'a file over 400 lines with a comment saying why passes',
      {
        'big.ts': `// This file is over 400 lines because it is one table.\n${Array.from({ length: 401 }, (_, i) => `export const c${i} = ${i};`).join('\n')}`,
      },
      0,
      [],
    ],
  ])('%s', (_name, files, status, messages) => {
    const r = check(files as Record<string, string>);
    expect(r.status).toBe(status);
    for (const m of messages as string[]) expect(r.stderr).toContain(m);
    if (status === 0) expect(r.stderr).toBe('');
  });
});
