import http from 'node:http';
import type { AddressInfo } from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { exchange } from '../../../src/cluster/exchange.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

let server: http.Server;
let url: URL;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/slow') return; // never answers
    res.setHeader('Warning', '299 - "deprecated"');
    res.statusCode = req.url === '/missing' ? 404 : 200;
    res.end('x'.repeat(1_000_000));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

describe('exchange', () => {
  test('answers the status, headers and whole body, whatever the status', async () => {
    const ok = await exchange(http, url, {}, undefined, 'GET /');
    expect(ok).toMatchObject({ status: 200, headers: { warning: '299 - "deprecated"' } });
    expect(ok.raw).toHaveLength(1_000_000);
    const missing = await exchange(http, new URL('/missing', url), {}, undefined, 'GET /missing');
    expect(missing.status).toBe(404);
  });

  test('a request kept alive after its answer (as https.Agent keeps a socket’s first one) does not keep the answer', async () => {
    // addRequest: the (undocumented) method by which a request reaches its agent.
    type Adding = { addRequest(req: http.ClientRequest, options: http.RequestOptions): void };
    const agent = new http.Agent({ keepAlive: true }) as http.Agent & Adding;
    const kept: http.ClientRequest[] = [];
    const addRequest = agent.addRequest.bind(agent);
    agent.addRequest = (req, options) => {
      kept.push(req);
      return addRequest(req, options);
    };
    let answer: WeakRef<object> | undefined;
    await (async () => {
      const a = await exchange(http, url, { agent }, undefined, 'GET /');
      expect(a.raw).toHaveLength(1_000_000);
      answer = new WeakRef(a);
    })();
    await tick();
    gc();
    expect(kept).toHaveLength(1);
    expect(answer?.deref()).toBeUndefined();
    // An error the request emits afterwards goes nowhere (no unhandled rejection, no throw).
    kept[0]!.emit('error', new Error('late'));
    agent.destroy();
  });

  test('silence longer than the timeout rejects with ETIMEDOUT, naming the request', async () => {
    await expect(
      exchange(http, new URL('/slow', url), { timeout: 50 }, undefined, 'GET /slow'),
    ).rejects.toMatchObject({ code: 'ETIMEDOUT', message: 'request timed out: GET /slow' });
  });
});
