import { expect, test } from 'vitest';
import { InputError } from '../../../src/base/source.js';
import { failureLines } from '../../../src/core/errors.js';

const input = new InputError([
  { source: { file: 'a/web.ctr', line: 2 }, message: 'image "&Bad" is not a valid name', severity: 'error' },
  { source: { file: 'b/web.ctr', line: 1 }, message: 'no Dockerfile', severity: 'error' },
]);

test.each([
  ['build', 'error: 2 error(s) in the input; nothing was built or pushed'],
  ['deploy', 'error: 2 error(s) in the input; nothing was deployed'],
  ['plan', 'error: 2 error(s) in the input; nothing was planned'],
  ['render', 'error: 2 error(s) in the input; nothing was rendered'],
  ['status', 'error: 2 error(s) in the input; nothing was done'],
  ['promote', 'error: 2 error(s) in the input; nothing was deployed'],
  [undefined, 'error: 2 error(s) in the input; nothing was deployed'],
])(
  'failureLines of an input error for %s: its headline, then each problem at its file and line',
  (command, headline) => {
    expect(failureLines(input, command)).toEqual([
      headline,
      '  a/web.ctr:2: image "&Bad" is not a valid name',
      '  b/web.ctr:1: no Dockerfile',
    ]);
  },
);
