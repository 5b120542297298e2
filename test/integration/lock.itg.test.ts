import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { KubeClient } from '../../src/cluster/client.js';
import { loadKubeconfig } from '../../src/cluster/kubeconfig.js';
import {
  acquireLock,
  type Lease,
  LockTimeoutError,
  leaseName,
  microTime,
} from '../../src/engine/inventory/lock.js';
import { kubeconfigPath, kubectl, uniqueName } from './helpers.js';

const ns = uniqueName('itg-lock');
const ctx = ['--context', 'spread-local'];
let client: KubeClient;
const fast = { leaseDurationSeconds: 3, renewIntervalMs: 1000, pollIntervalMs: 200 };
const leasePath = (name: string) => `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${leaseName(name)}`;

describe('deploy lock (coordination.k8s.io Lease) on the local cluster', () => {
  beforeAll(async () => {
    await kubectl([...ctx, 'create', 'namespace', ns]);
    client = new KubeClient(loadKubeconfig({ paths: [kubeconfigPath()] }, 'spread-local').kubeConfig);
  });
  afterAll(async () => {
    client?.close();
    await kubectl([...ctx, 'delete', 'namespace', ns, '--wait=false'], { allowFail: true });
  });

  test('two acquirers of the same deployment serialize; the Lease names the holder and is renewed', async () => {
    const order: string[] = [];
    const first = await acquireLock(client, 'web', ns, { ...fast, holder: 'https://ci.example/run/1' });
    const lease = (await client.request<Lease>({ method: 'GET', path: leasePath('web') })).body;
    expect(lease.spec.holderIdentity).toBe('https://ci.example/run/1');
    expect(lease.spec.leaseDurationSeconds).toBe(3);
    let waitedFor = '';
    const second = acquireLock(client, 'web', ns, {
      ...fast,
      holder: 'run-2',
      onWait: (h) => {
        waitedFor = h;
      },
    }).then((l) => {
      order.push('second acquired');
      return l;
    });
    // Longer than the lease duration: renewals keep the first holder's lock.
    await new Promise((r) => setTimeout(r, 4500));
    const renewed = (await client.request<Lease>({ method: 'GET', path: leasePath('web') })).body;
    expect(renewed.spec.holderIdentity).toBe('https://ci.example/run/1');
    expect(Date.parse(renewed.spec.renewTime!)).toBeGreaterThan(Date.parse(lease.spec.renewTime!));
    order.push('first released');
    await first.release();
    const l2 = await second;
    expect(order).toEqual(['first released', 'second acquired']);
    expect(waitedFor).toBe('https://ci.example/run/1');
    expect(l2.holder).toBe('run-2');
    await l2.release();
    expect(await client.getOrUndefined(leasePath('web'))).toBeUndefined();
  });

  test('a different deployment never waits', async () => {
    const a = await acquireLock(client, 'alpha', ns, { ...fast, holder: 'a' });
    const started = Date.now();
    const b = await acquireLock(client, 'beta', ns, { ...fast, holder: 'b', lockTimeoutMs: 2000 });
    expect(Date.now() - started).toBeLessThan(1500);
    await Promise.all([a.release(), b.release()]);
  });

  test('an expired Lease of a crashed holder is taken over', async () => {
    const old = Date.now() - 120_000;
    await client.request({
      method: 'POST',
      path: `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`,
      body: {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: leaseName('crashed') },
        spec: {
          holderIdentity: 'dead-host/123',
          leaseDurationSeconds: 30,
          acquireTime: microTime(old),
          renewTime: microTime(old),
          leaseTransitions: 0,
        },
      },
    });
    const started = Date.now();
    const lock = await acquireLock(client, 'crashed', ns, {
      ...fast,
      holder: 'new-run',
      lockTimeoutMs: 5000,
    });
    expect(Date.now() - started).toBeLessThan(2000);
    const lease = (await client.request<Lease>({ method: 'GET', path: leasePath('crashed') })).body;
    expect(lease.spec.holderIdentity).toBe('new-run');
    expect(lease.spec.leaseTransitions).toBe(1);
    await lock.release();
  });

  test('a lock held past lockTimeoutMs fails naming the holder', async () => {
    const holder = await acquireLock(client, 'busy', ns, { ...fast, holder: 'https://ci.example/run/77' });
    const started = Date.now();
    const error = await acquireLock(client, 'busy', ns, {
      ...fast,
      holder: 'late',
      lockTimeoutMs: 2000,
    }).catch((e: unknown) => e);
    // It waits the whole lockTimeoutMs (its last try is at the deadline), and not much longer.
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect((error as LockTimeoutError).holder).toBe('https://ci.example/run/77');
    expect((error as Error).message).toMatch(
      /deployment busy in .* is locked by https:\/\/ci.example\/run\/77/,
    );
    await holder.release();
  });

  test('concurrent acquirers race on create: exactly one wins at a time', async () => {
    let inside = 0;
    let maxInside = 0;
    await Promise.all(
      Array.from({ length: 4 }, async (_, i) => {
        const l = await acquireLock(client, 'race', ns, {
          ...fast,
          holder: `racer-${i}`,
          lockTimeoutMs: 30_000,
        });
        inside++;
        maxInside = Math.max(maxInside, inside);
        await new Promise((r) => setTimeout(r, 300));
        inside--;
        await l.release();
      }),
    );
    expect(maxInside).toBe(1);
  });
});
