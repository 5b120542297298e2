import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { INTENDED } from '../integration/differential-corpus.js';

test("the docs' table of intended differences from kubectl is the differential test's", () => {
  const readme = readFileSync(path.join(import.meta.dirname, '../../docs/inputs.md'), 'utf8');
  const rows = readme
    .split('\n')
    .filter((line) => /^\| `[a-z0-9-]+` \| (spread-|stored-|kubectl-)/.test(line));
  expect(rows).toEqual(
    Object.entries(INTENDED).map(([key, { check, reason }]) => `| \`${key}\` | ${check} | ${reason} |`),
  );
});
