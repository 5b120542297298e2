import { describe, expect, test } from 'vitest';
import { parseDuration } from '../../../src/core/duration.js';

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
