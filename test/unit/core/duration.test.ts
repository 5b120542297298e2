import { describe, expect, test } from 'vitest';
import { parseDuration, parseLeaseDuration } from '../../../src/core/duration.js';

describe('parseDuration', () => {
  test.each([
    ['5m', 300_000],
    ['90s', 90_000],
    ['1m30s', 90_000],
    ['1h', 3_600_000],
    ['250ms', 250],
    ['30', 30_000],
    ['1.5s', 1500],
  ])('%s → %d ms', (input, ms) => {
    expect(parseDuration(input)).toBe(ms);
  });

  test.each(['', 'five minutes', '5x', 'm5', '-1s'])('rejects %j', (input) => {
    expect(() => parseDuration(input)).toThrow(/invalid duration/);
  });
});

describe('parseLeaseDuration', () => {
  test.each([
    ['30s', 30],
    ['2m', 120],
    ['1', 1],
    ['1m30s', 90],
  ])('%s → %d s', (input, seconds) => {
    expect(parseLeaseDuration(input)).toBe(seconds);
  });

  test.each(['3000000000s', '99999999999999999999s'])(
    "refuses %j: past a Lease's 32-bit leaseDurationSeconds",
    (input) => {
      expect(() => parseLeaseDuration(input)).toThrow(/invalid Lease duration .*at most 2147483647s/);
    },
  );

  test('takes the largest a Lease holds', () => {
    expect(parseLeaseDuration('2147483647s')).toBe(2147483647);
  });

  test.each(['500ms', '1.5s', '0s', '0'])('refuses %j: a Lease counts whole seconds ≥ 1', (input) => {
    expect(() => parseLeaseDuration(input)).toThrow(/invalid Lease duration .*whole seconds, at least 1s/);
  });

  test('refuses what is no duration at all', () => {
    expect(() => parseLeaseDuration('soon')).toThrow(/invalid duration "soon"/);
  });
});
