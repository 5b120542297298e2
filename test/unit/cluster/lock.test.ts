import { describe, expect, test } from 'vitest';
import { defaultHolder, leaseExpired, leaseName, microTime } from '../../../src/cluster/lock.js';

const t0 = Date.parse('2025-01-01T00:00:00Z');

describe('lease expiry (renewTime + leaseDurationSeconds < now)', () => {
  test.each([
    [
      'fresh',
      { holderIdentity: 'a', renewTime: microTime(t0), leaseDurationSeconds: 30 },
      t0 + 10_000,
      false,
    ],
    [
      'at the edge',
      { holderIdentity: 'a', renewTime: microTime(t0), leaseDurationSeconds: 30 },
      t0 + 30_000,
      false,
    ],
    [
      'expired',
      { holderIdentity: 'a', renewTime: microTime(t0), leaseDurationSeconds: 30 },
      t0 + 30_001,
      true,
    ],
    [
      'acquireTime when never renewed',
      { holderIdentity: 'a', acquireTime: microTime(t0), leaseDurationSeconds: 30 },
      t0 + 5_000,
      false,
    ],
    [
      'released (no holder)',
      { holderIdentity: '', renewTime: microTime(t0), leaseDurationSeconds: 30 },
      t0,
      true,
    ],
    ['no time at all', { holderIdentity: 'a', leaseDurationSeconds: 30 }, t0, true],
  ])('%s', (_name, spec, now, expired) => {
    expect(leaseExpired({ spec }, now)).toBe(expired);
  });

  test('MicroTime has six fractional digits', () => {
    expect(microTime(t0 + 123)).toBe('2025-01-01T00:00:00.123000Z');
  });

  test('names and holders', () => {
    expect(leaseName('web')).toBe('spread.web');
    expect(defaultHolder('https://github.com/o/r/actions/runs/1')).toMatch(
      /^https:\/\/github\.com\/o\/r\/actions\/runs\/1 #[0-9a-f]{6}$/,
    );
    expect(defaultHolder()).toMatch(new RegExp(`/${process.pid} #[0-9a-f]{6}$`));
    // Two deploys of one process are two holders.
    expect(defaultHolder()).not.toBe(defaultHolder());
  });
});
