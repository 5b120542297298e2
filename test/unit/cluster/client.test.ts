import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  KubeApiError,
  KubeClient,
  MAX_RETRY_TIME_MS,
  WatchExpiredError,
} from '../../../src/cluster/client.js';

// A local HTTP server stands in for the API server, answering by script per path.
let server: http.Server;
let base: string;
const hits = new Map<string, number>();
const script: Record<string, (n: number, res: http.ServerResponse) => void> = {
  '/throttled': (n, res) => {
    if (n === 1)
      return void res
        .writeHead(429, { 'Retry-After': '0' })
        .end('{"kind":"Status","reason":"TooManyRequests"}');
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":1}');
  },
  '/flaky': (n, res) => {
    if (n <= 2)
      return void res
        .writeHead(503)
        .end('{"kind":"Status","message":"unavailable","reason":"ServiceUnavailable"}');
    res.writeHead(200).end('{"ok":2}');
  },
  '/missing': (_n, res) =>
    void res
      .writeHead(404)
      .end('{"kind":"Status","message":"configmaps \\"x\\" not found","reason":"NotFound","code":404}'),
  '/typed-patch': (_n, res) =>
    void res
      .writeHead(500)
      .end(
        '{"kind":"Status","status":"Failure","message":"failed to create typed patch object (ns/x; /v1, Kind=ConfigMap): .bogus: field not declared in schema","code":500}',
      ),
  '/hang': () => {},
  '/always-throttled': (_n, res) =>
    void res
      .writeHead(429, { 'Retry-After': '0' })
      .end(
        '{"kind":"Status","message":"Too many requests, please try again later.","reason":"TooManyRequests","code":429}',
      ),
  '/always-503': (_n, res) => void res.writeHead(503).end('upstream down'),
  '/slow-retry-after': (_n, res) =>
    void res
      .writeHead(429, { 'Retry-After': '20', 'Content-Type': 'application/json' })
      .end('{"kind":"Status","code":429,"reason":"TooManyRequests","message":"slow down"}'),
  '/always-reset': (_n, res) => void res.socket?.destroy(),
  '/warn': (_n, res) => void res.writeHead(200, { Warning: '299 - "v1beta1 is deprecated"' }).end('{}'),
  // A watch accepted, then silent and never ended (a server or network that hung).
  '/watch-silent': (_n, res) =>
    void res.writeHead(200, { 'Content-Type': 'application/json' }).flushHeaders(),
  // A watch whose resourceVersion is too old: an ERROR event, the stream left open.
  '/watch-gone': (_n, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.write(
      '{"type":"ERROR","object":{"kind":"Status","code":410,"message":"too old resource version"}}\n',
    );
  },
  // A watch accepted, one event, then the connection cut.
  '/watch-cut': (_n, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.write('{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"5"}}}\n', () =>
      setTimeout(() => res.socket?.destroy(), 20),
    );
  },
};

function client(options: ConstructorParameters<typeof KubeClient>[1] = {}) {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: base, skipTLSVerify: true }],
    users: [{ name: 'u', token: 'tok' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return new KubeClient(kc, { retries: 5, ...options });
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = req.url!.split('?')[0]!;
    const n = (hits.get(path) ?? 0) + 1;
    hits.set(path, n);
    script[path]?.(n, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

describe('KubeClient retries like client-go', () => {
  test('429 is retried after Retry-After', async () => {
    const c = client();
    expect((await c.request({ method: 'GET', path: '/throttled' })).body).toEqual({ ok: 1 });
    expect(hits.get('/throttled')).toBe(2);
    c.close();
  });

  test('a Retry-After that would outlast the retry budget ends the request at once, naming the 429', async () => {
    const c = client({ maxRetryTimeMs: 1_000 });
    const started = Date.now();
    const error = await c.request({ method: 'GET', path: '/slow-retry-after' }).catch((e) => e);
    expect(error).toBeInstanceOf(KubeApiError);
    expect(error.message).toMatch(/^gave up after 1 try, last 429 TooManyRequests/);
    expect(hits.get('/slow-retry-after')).toBe(1);
    // Not the 20 s the server asked for: no retry could follow within the 1 s budget.
    expect(Date.now() - started).toBeLessThan(5_000);
    c.close();
  });

  test('5xx is retried with back-off', async () => {
    const c = client();
    expect((await c.request({ method: 'GET', path: '/flaky' })).body).toEqual({ ok: 2 });
    expect(hits.get('/flaky')).toBe(3);
    c.close();
  });

  test("server-side apply's 500 for a patch that does not fit the schema is final, not retried", async () => {
    const c = client();
    const error = await c.request({ method: 'PATCH', path: '/typed-patch', body: {} }).catch((e) => e);
    expect(error).toBeInstanceOf(KubeApiError);
    expect(error.code).toBe(500);
    expect(error.message).toMatch(/\.bogus: field not declared in schema/);
    expect(hits.get('/typed-patch')).toBe(1);
    c.close();
  });

  test('404 is final: a KubeApiError with the Status reason, and getOrUndefined answers undefined', async () => {
    const c = client();
    const error = await c.request({ method: 'GET', path: '/missing' }).catch((e) => e);
    expect(error).toBeInstanceOf(KubeApiError);
    expect(error).toMatchObject({ code: 404, reason: 'NotFound', message: 'configmaps "x" not found' });
    expect(await c.getOrUndefined('/missing')).toBeUndefined();
    expect(hits.get('/missing')).toBe(2);
    c.close();
  });

  test('a server that never answers fails within the retry budget, not after every retry', async () => {
    const c = client({ requestTimeoutMs: 200, maxRetryTimeMs: 300 });
    const started = Date.now();
    const error = await c.request({ method: 'GET', path: '/hang' }).catch((e) => e);
    expect(error.code).toBe('ETIMEDOUT');
    expect(Date.now() - started).toBeLessThan(2_000);
    c.close();
  });

  test.each([
    [
      '/always-throttled',
      429,
      /^gave up after 3 tries, last 429 TooManyRequests: Too many requests, please try again later\.$/,
    ],
    ['/always-503', 503, /^gave up after 3 tries, last 503 Service Unavailable: upstream down$/],
    ['/always-reset', 'ECONNRESET', /^gave up after 3 tries, last ECONNRESET: socket hang up$/],
  ])('giving up on %s names the tries and the last status', async (path, code, message) => {
    const c = client({ retries: 2 });
    const error = await c.request({ method: 'GET', path }).catch((e) => e);
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
    expect(error.tries).toBe(3);
    expect(hits.get(path)).toBe(3);
    c.close();
  });

  test('Warning headers are returned', async () => {
    const c = client();
    expect((await c.request({ method: 'GET', path: '/warn' })).warnings).toEqual(['v1beta1 is deprecated']);
    c.close();
  });
});

describe('KubeClient.watch tells an accepted watch from one never answered', () => {
  test('accepted: onOpen before the first event; cut afterwards, it rejects with the socket error', async () => {
    const c = client();
    const seen: string[] = [];
    const cut = await c
      .watch('/watch-cut', { onOpen: () => seen.push('open') }, (e) => seen.push(e.type))
      .catch((e: unknown) => e as Error & { code?: string });
    expect(seen).toEqual(['open', 'ADDED']);
    expect(cut?.code).toBe('ECONNRESET');
    c.close();
  });

  test('reset before any answer: it rejects, and onOpen was never called', async () => {
    const c = client();
    let opened = false;
    const reset = await c
      .watch('/always-reset', { onOpen: () => (opened = true) }, () => undefined)
      .catch((e: unknown) => e as Error & { code?: string });
    expect(reset?.code).toBe('ECONNRESET');
    expect(opened).toBe(false);
    c.close();
  });

  test('an ERROR event ends the watch with its error, and the open stream is let go without an unhandled error', async () => {
    const c = client();
    const gone = await c.watch('/watch-gone', {}, () => undefined).catch((e: unknown) => e as Error);
    expect(gone).toBeInstanceOf(WatchExpiredError);
    // The stream cut as the watch let it go: its 'aborted' error would come now.
    await new Promise((resolve) => setTimeout(resolve, 50));
    c.close();
  });

  test('a watch not accepted within the time limit fails with ETIMEDOUT', async () => {
    const c = client({ requestTimeoutMs: 200 });
    const started = Date.now();
    const hung = await c
      .watch('/hang', {}, () => undefined)
      .catch((e: unknown) => e as Error & { code?: string });
    expect(hung?.code).toBe('ETIMEDOUT');
    expect(hung?.message).toBe('request timed out: GET /hang (watch): not accepted within 0.2s');
    expect(Date.now() - started).toBeLessThan(2_000);
    c.close();
  });

  test('a watch accepted but not ended that long after its timeoutSeconds fails with ETIMEDOUT', async () => {
    const c = client({ requestTimeoutMs: 200 });
    let opened = false;
    const silent = await c
      .watch('/watch-silent', { timeoutSeconds: 0.1, onOpen: () => (opened = true) }, () => undefined)
      .catch((e: unknown) => e as Error & { code?: string });
    expect(opened).toBe(true);
    expect(silent?.code).toBe('ETIMEDOUT');
    expect(silent?.message).toBe(
      'request timed out: GET /watch-silent (watch): not ended 0.2s after its 0.1s',
    );
    c.close();
  });

  test("the retry budget the informers share is the client's own", () => {
    expect(client().maxRetryTimeMs).toBe(MAX_RETRY_TIME_MS);
    expect(client({ maxRetryTimeMs: 1_000 }).maxRetryTimeMs).toBe(1_000);
  });
});
