// scripts/check-links.mjs (in npm run check-readme) on the checkout and on a scratch tree whose
// README.md and docs/ hold each kind of broken relative link: the check fails naming file and line.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const SCRIPT = path.join(ROOT, 'scripts/check-links.mjs');
const scratch = mkdtempSync(path.join(tmpdir(), 'spread-links-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function check(root?: string) {
  const r = spawnSync(process.execPath, root ? [SCRIPT, root] : [SCRIPT], { encoding: 'utf8' });
  return { code: r.status, stderr: r.stderr };
}

test('the links of README.md and docs/ resolve', () => {
  expect(check()).toEqual({ code: 0, stderr: '' });
});

test('a link to a missing file, a missing heading or a #fragment on a folder fails, by file and line', () => {
  mkdirSync(path.join(scratch, 'docs'));
  mkdirSync(path.join(scratch, 'examples'));
  writeFileSync(
    path.join(scratch, 'README.md'),
    [
      '# Title',
      '[ok](docs/a.md#the-applications-url) [ok](#title) [ok](examples) [out](https://example.com/x)',
      '[gone](docs/b.md)',
      '`[in code](nowhere.md)`',
      '```',
      '[in a fence](nowhere.md)',
      '```',
    ].join('\n'),
  );
  writeFileSync(
    path.join(scratch, 'docs/a.md'),
    "# A\n\n## The application's URL\n\n[up](../README.md#no-such-heading) [dir](../examples#x)\n",
  );
  const r = check(scratch);
  expect(r.code).toBe(1);
  expect(r.stderr.split('\n').filter(Boolean)).toEqual([
    'README.md:3: docs/b.md: no such file',
    'docs/a.md:5: ../README.md#no-such-heading: no heading #no-such-heading in README.md',
    'docs/a.md:5: ../examples#x: a #fragment on a file that is not Markdown',
    '3 broken link(s)',
  ]);
});
