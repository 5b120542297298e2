import { expect, test } from 'vitest';
import { silentLogger } from '../../../src/base/logger.js';
import { heldLines } from '../../../src/image/buildx-output.js';

const recorder = () => {
  const lines: string[] = [];
  return { lines, logger: { ...silentLogger, info: (m: string) => lines.push(m) } };
};

test('lines wait for the context and for buildx to show a progress line, then come as they are printed', () => {
  const { lines, logger } = recorder();
  const held = heldLines(logger);
  held.log('#0 building with "spread" instance using remote driver');
  expect(lines).toEqual([]);
  held.sent();
  expect(lines).toEqual(['#0 building with "spread" instance using remote driver']);
  held.log('#1 [internal] load remote build context');
  expect(lines).toHaveLength(2);
});

test('a docker CLI that answers with its help: nothing is logged unless the caller releases it', () => {
  const { lines, logger } = recorder();
  const held = heldLines(logger);
  held.sent();
  held.log('Usage:  docker [OPTIONS] COMMAND');
  held.log("Run 'docker COMMAND --help' for more information on a command.");
  expect(lines).toEqual([]);
  held.release();
  expect(lines).toEqual([
    'Usage:  docker [OPTIONS] COMMAND',
    "Run 'docker COMMAND --help' for more information on a command.",
  ]);
  held.log('later');
  expect(lines.at(-1)).toBe('later');
});
