import { describe, expect, test } from 'vitest';
import { KubeApiError, type KubeClient } from '../../../src/cluster/client.js';
import {
  acquireLock,
  defaultHolder,
  leaseExpired,
  leaseName,
  microTime,
} from '../../../src/engine/inventory/lock.js';

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

describe('release', () => {
  // A client that grants the Lease, then answers the first renewal with a 409 and shows the Lease
  // held by another deploy: the lock is lost, and the onLost callback (a log write) fails.
  function takenOverClient() {
    const requests: string[] = [];
    let reads = 0;
    const lease = (holder: string) => ({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'spread.web', namespace: 'a', resourceVersion: '1', uid: 'u' },
      spec: { holderIdentity: holder, leaseDurationSeconds: 30 },
    });
    const client = {
      async getOrUndefined() {
        reads++;
        return reads === 1 ? undefined : lease('someone else');
      },
      async request(r: { method: string }) {
        requests.push(r.method);
        if (r.method === 'POST') return { body: lease('me') };
        throw new KubeApiError(409, 'PUT lease', { reason: 'Conflict', code: 409 }, '');
      },
    };
    return { client: client as unknown as KubeClient, requests };
  }

  test('never throws, even when a renewal ended in a callback that threw', async () => {
    const { client, requests } = takenOverClient();
    let lost!: () => void;
    const lostCalled = new Promise<void>((resolve) => {
      lost = resolve;
    });
    const lock = await acquireLock(client, 'web', 'a', {
      holder: 'me',
      renewIntervalMs: 5,
      onLost: () => {
        lost();
        throw new Error('write EPIPE');
      },
    });
    await lostCalled;
    await expect(lock.release()).resolves.toBeUndefined();
    expect(lock.held).toBe(false);
    // Someone else's Lease now: not deleted.
    expect(requests).not.toContain('DELETE');
  });
});

describe('acquire', () => {
  const lease = (holder: string) => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'spread.web', namespace: 'a', resourceVersion: '1', uid: 'u' },
    spec: { holderIdentity: holder, leaseDurationSeconds: 30, renewTime: microTime(Date.now() - 60_000) },
  });
  // Records every request in order: `GET` for a read, the method otherwise.
  function recordingClient(existing: ReturnType<typeof lease> | undefined) {
    const requests: string[] = [];
    const client = {
      async getOrUndefined() {
        requests.push('GET');
        return existing;
      },
      async request(r: { method: string }) {
        requests.push(r.method);
        if (r.method === 'POST' && existing)
          throw new KubeApiError(409, 'POST lease', { reason: 'AlreadyExists', code: 409 }, '');
        return { body: lease('me') };
      },
    };
    return { client: client as unknown as KubeClient, requests };
  }

  test('an absent Lease is created without reading it first (one round trip)', async () => {
    const { client, requests } = recordingClient(undefined);
    const lock = await acquireLock(client, 'web', 'a', { holder: 'me', renewIntervalMs: 60_000 });
    expect(requests).toEqual(['POST']);
    await lock.release();
  });

  test('an existing (expired) Lease answers the create with 409, then is read and taken over', async () => {
    const { client, requests } = recordingClient(lease('someone else'));
    const lock = await acquireLock(client, 'web', 'a', { holder: 'me', renewIntervalMs: 60_000 });
    expect(requests).toEqual(['POST', 'GET', 'PUT']);
    await lock.release();
  });

  test('stopped while the create was in flight: a Lease that reached the server as ours is deleted, then the abort is thrown', async () => {
    const stop = new AbortController();
    const requests: string[] = [];
    let stored: ReturnType<typeof lease> | undefined;
    const client = {
      async getOrUndefined() {
        requests.push('GET');
        return stored;
      },
      async request(r: { method: string; signal?: AbortSignal }) {
        requests.push(r.method);
        if (r.method === 'POST') {
          // The server stores it; the answer is lost to the abort.
          stored = lease('me');
          stop.abort(new Error('interrupted by SIGTERM'));
          throw r.signal?.reason;
        }
        if (r.method === 'DELETE') stored = undefined;
        return { body: {} };
      },
    } as unknown as KubeClient;
    await expect(
      acquireLock(client, 'web', 'a', { holder: 'me', signal: stop.signal, renewIntervalMs: 60_000 }),
    ).rejects.toThrow('interrupted by SIGTERM');
    expect(requests).toEqual(['POST', 'GET', 'DELETE']);
    expect(stored).toBeUndefined();
  });

  test("stopped while the create was in flight, the Lease someone else's: it is left alone", async () => {
    const stop = new AbortController();
    const requests: string[] = [];
    const client = {
      async getOrUndefined() {
        requests.push('GET');
        return lease('someone else');
      },
      async request(r: { method: string; signal?: AbortSignal }) {
        requests.push(r.method);
        stop.abort(new Error('interrupted by SIGTERM'));
        throw r.signal?.reason;
      },
    } as unknown as KubeClient;
    await expect(
      acquireLock(client, 'web', 'a', { holder: 'me', signal: stop.signal, renewIntervalMs: 60_000 }),
    ).rejects.toThrow('interrupted by SIGTERM');
    expect(requests).toEqual(['POST', 'GET']);
  });
});

describe('renewal failures', () => {
  test('a renewal refused (401) is reported once, not swallowed, until one goes through', async () => {
    const lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'spread.web', namespace: 'a', resourceVersion: '1', uid: 'u' },
      spec: { holderIdentity: 'me', leaseDurationSeconds: 30 },
    };
    let puts = 0;
    const client = {
      async getOrUndefined() {
        return undefined;
      },
      async request(r: { method: string }) {
        if (r.method === 'POST') return { body: lease };
        // Renewals 1-3 and 5-6 are refused, 4 and 7 on go through.
        if (r.method === 'PUT' && [1, 2, 3, 5, 6].includes(++puts))
          throw new KubeApiError(
            401,
            'PUT lease',
            { reason: 'Unauthorized', message: `refused ${puts}`, code: 401 },
            '',
          );
        return { body: lease };
      },
    } as unknown as KubeClient;
    const reported: string[] = [];
    const lock = await acquireLock(client, 'web', 'a', {
      holder: 'me',
      renewIntervalMs: 5,
      onRenewFailed: (e) => reported.push((e as Error).message),
    });
    while (puts < 8) await new Promise((r) => setTimeout(r, 5));
    await lock.release();
    expect(reported).toEqual(['refused 1', 'refused 5']);
    expect(lock.held).toBe(false);
  });
});
