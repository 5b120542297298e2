// The wait's informer (engine/wait/watcher.ts) against the in-memory API server when the cluster
// stops answering: it rides out an outage shorter than the client's retry budget, gives up on a
// longer one with the client's `gave up after N tries` wording, and stops on its signal. Fake timers
// run the 30 s budget in no time.

import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { gaveUp, isUnavailable, type KubeRequest, MAX_RETRY_TIME_MS } from '../../../src/cluster/client.js';
import type { ClusterPort } from '../../../src/engine/kube-api.js';
import { informer } from '../../../src/engine/wait/watcher.js';
import { FakeCluster } from './fake-cluster.js';

// sleep (base/poll.ts) waits with node:timers/promises, whose named import vi.useFakeTimers does not
// reach: here it waits on the global timers, which it does.
vi.mock('../../../src/base/poll.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../../src/base/poll.js')>()),
  sleep: (ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      signal?.throwIfAborted();
      const timer = setTimeout(resolve, ms);
      signal?.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          reject(signal.reason);
        },
        { once: true },
      );
    }),
}));

const PATH = '/api/v1/namespaces/a/configmaps';

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'a' } });

/** What a connection reset looks like to Node's http client. */
const reset = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });

let kube: FakeCluster;
let stop: AbortController;

beforeEach(() => {
  vi.useFakeTimers();
  kube = new FakeCluster();
  kube.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } });
  kube.put(cm('x'));
  stop = new AbortController();
});
afterEach(() => {
  stop.abort();
  vi.useRealTimers();
});

/** The informer's outcome once it settles: `running` while it does not. */
function follow(client: ClusterPort, seen: string[] = []) {
  let outcome: 'running' | 'resolved' | Error = 'running';
  const done = informer(client, PATH, {
    signal: stop.signal,
    onEvent: (e) =>
      seen.push(e.type === 'LIST' ? `LIST ${e.objects.length}` : `${e.type} ${e.object.metadata.name}`),
  }).then(
    () => {
      outcome = 'resolved';
    },
    (error: Error) => {
      outcome = error;
    },
  );
  return { outcome: () => outcome, done };
}

/** Cuts the cluster off: open watches reset, every request after them refused. */
function cut(): void {
  kube.refuse = () => reset();
  kube.breakWatches(reset());
}

/** The fake, but each list of PATH fails after `ms` of the client's retries (6 tries), noting when it began. */
function slowLists(ms: number, began: number[] = []): ClusterPort {
  const start = Date.now();
  return {
    watch: (path, options, onEvent) => kube.watch(path, options, onEvent),
    getOrUndefined: (path, signal) => kube.getOrUndefined(path, signal),
    request: async <T>(req: KubeRequest) => {
      if (req.method !== 'GET' || req.path !== PATH) return kube.request<T>(req);
      began.push(Date.now() - start);
      await new Promise((resolve) => setTimeout(resolve, ms));
      throw gaveUp(reset(), 6);
    },
  };
}

const watches = () => kube.log.filter((l) => l.startsWith('WATCH')).length;

describe('the informer when the cluster stops answering', () => {
  test('failing for longer than the retry budget, it rejects with the last error, worded as the client gives up', async () => {
    const running = follow(kube);
    await vi.advanceTimersByTimeAsync(10);
    expect(kube.watchers).toBe(1);
    const before = watches();
    cut();
    await vi.advanceTimersByTimeAsync(MAX_RETRY_TIME_MS - 1_000);
    expect(running.outcome()).toBe('running');
    await vi.advanceTimersByTimeAsync(6_000);
    const error = running.outcome() as Error & { code?: string; tries?: number };
    expect(error).toBeInstanceOf(Error);
    // The broken watch and each one tried after it: 0.4, 1.2, 2.8, 6, 11, 16, 21, 26, 31 s.
    expect(error.message).toBe('gave up after 10 tries, last ECONNRESET: read ECONNRESET');
    expect(watches() - before).toBe(9);
    expect(error.code).toBe('ECONNRESET');
    expect(error.tries).toBe(10);
    expect(isUnavailable(error)).toBe(true);
    expect(kube.watchers).toBe(0);
  });

  test('failing for less than the budget, then answering again, it keeps going; a later outage has a whole budget again', async () => {
    const seen: string[] = [];
    const running = follow(kube, seen);
    await vi.advanceTimersByTimeAsync(10);
    cut();
    await vi.advanceTimersByTimeAsync(20_000);
    kube.refuse = undefined;
    // The next watch (at 21 s) opens, from the last resourceVersion: nothing is listed again.
    await vi.advanceTimersByTimeAsync(2_000);
    expect(kube.watchers).toBe(1);
    await kube.request({ method: 'POST', path: PATH, body: cm('y') });
    await vi.advanceTimersByTimeAsync(10);
    expect(seen).toEqual(['LIST 2', 'ADDED y']);
    // Cut again 10 s later: the watch opened in between was a success, so 30 s more are allowed.
    await vi.advanceTimersByTimeAsync(10_000);
    cut();
    await vi.advanceTimersByTimeAsync(MAX_RETRY_TIME_MS - 1_000);
    expect(running.outcome()).toBe('running');
    kube.refuse = undefined;
    await vi.advanceTimersByTimeAsync(6_000);
    expect(running.outcome()).toBe('running');
    expect(kube.watchers).toBe(1);
    stop.abort();
    await running.done;
    expect(running.outcome()).toBe('resolved');
  });

  test('a list the client gave up on counts as failed time: the tries add up, the wording is not doubled', async () => {
    // Each list takes the client 12 s of retries (6 tries) before it gives up.
    const lists: number[] = [];
    const running = follow(slowLists(12_000, lists));
    // The lists fail at 12, 24.4 and 37.2 s: the third one ends past the budget.
    await vi.advanceTimersByTimeAsync(37_000);
    expect(running.outcome()).toBe('running');
    await vi.advanceTimersByTimeAsync(300);
    const error = running.outcome() as Error & { code?: string };
    expect(error.message).toBe('gave up after 18 tries, last ECONNRESET: read ECONNRESET');
    expect(error.code).toBe('ECONNRESET');
    expect(lists).toEqual([0, 12_400, 25_200]);
  });

  test('a list that failed for the whole budget in the client gives up at once', async () => {
    const running = follow(slowLists(MAX_RETRY_TIME_MS));
    await vi.advanceTimersByTimeAsync(MAX_RETRY_TIME_MS + 10);
    expect((running.outcome() as Error).message).toBe(
      'gave up after 6 tries, last ECONNRESET: read ECONNRESET',
    );
  });

  test('stopped by its signal while the cluster is out of reach, it resolves and sends nothing more', async () => {
    const running = follow(kube);
    await vi.advanceTimersByTimeAsync(10);
    cut();
    await vi.advanceTimersByTimeAsync(3_000);
    const sent = kube.log.length;
    stop.abort();
    await running.done;
    expect(running.outcome()).toBe('resolved');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(kube.log.length).toBe(sent);
    expect(kube.watchers).toBe(0);
  });
});
