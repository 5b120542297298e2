// bench/timeline.mjs: serial rounds of a request timeline (overlapping requests are one round).
import { expect, test } from 'vitest';
import { serialRounds } from '../../../bench/timeline.mjs';

test('overlapping and touching requests merge; gaps separate rounds', () => {
  const { rounds, busyMs, gapMs } = serialRounds([
    { start: 40, end: 70 },
    { start: 0, end: 10 },
    { start: 5, end: 12 },
    { start: 12, end: 15 },
    { start: 45, end: 50 },
  ]);
  expect(rounds).toEqual([
    { start: 0, end: 15, requests: 3 },
    { start: 40, end: 70, requests: 2 },
  ]);
  expect(busyMs).toBe(45);
  expect(gapMs).toBe(25);
});

test('no requests, no rounds', () => {
  expect(serialRounds([])).toEqual({ rounds: [], busyMs: 0, gapMs: 0 });
});
