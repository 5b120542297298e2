import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { httpRequest } from '../../../src/image/http.js';

/** Requests a server saw: method, path, authorization, body. */
type Seen = { method: string; path: string; authorization: string | undefined; body: string };

function server(handle: (req: IncomingMessage, body: string) => [number, Record<string, string>, string]) {
  const seen: Seen[] = [];
  const s: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, path: req.url!, authorization: req.headers.authorization, body });
      const [status, headers, text] = handle(req, body);
      res.writeHead(status, headers).end(text);
    });
  });
  return { s, seen, origin: () => `http://127.0.0.1:${(s.address() as AddressInfo).port}` };
}

const other = server(() => [200, { 'content-type': 'application/json' }, '{"where":"other"}']);
const main = server((req) => {
  if (req.url === '/same') return [307, { location: '/target' }, ''];
  if (req.url === '/away') return [302, { location: `${other.origin()}/blob` }, ''];
  if (req.url === '/see-other') return [303, { location: '/target' }, ''];
  if (req.url === '/loop') return [302, { location: '/loop' }, ''];
  return [200, { 'x-two': 'a', 'content-type': 'application/json' }, '{"where":"main"}'];
});

beforeAll(async () => {
  for (const x of [main, other]) await new Promise<void>((r) => x.s.listen(0, '127.0.0.1', r));
});
afterAll(() => {
  for (const x of [main, other]) x.s.close();
});

describe('httpRequest, the registry client transport', () => {
  test('a redirect on the same origin keeps the authorization header', async () => {
    const res = await httpRequest(`${main.origin()}/same`, { headers: { authorization: 'Basic dTpw' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ where: 'main' });
    expect(main.seen.at(-1)).toMatchObject({ path: '/target', authorization: 'Basic dTpw' });
  });

  test('a redirect to another origin (a blob store) drops it, as fetch does', async () => {
    const res = await httpRequest(`${main.origin()}/away`, { headers: { authorization: 'Bearer t0ken' } });
    expect(await res.json()).toEqual({ where: 'other' });
    expect(other.seen.at(-1)).toMatchObject({ path: '/blob', authorization: undefined });
  });

  test('a 303 after a POST continues as a GET without the body; the POST sent its form', async () => {
    const res = await httpRequest(`${main.origin()}/see-other`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'refresh_token', scope: 'repository:a:pull' }),
    });
    expect(res.ok).toBe(true);
    const [post, get] = main.seen.slice(-2);
    expect(post).toMatchObject({
      method: 'POST',
      body: 'grant_type=refresh_token&scope=repository%3Aa%3Apull',
    });
    expect(get).toMatchObject({ method: 'GET', path: '/target', body: '' });
  });

  test('headers are read by name in any case; a redirect loop ends with an error naming the origin', async () => {
    const res = await httpRequest(`${main.origin()}/plain`);
    expect(res.header('X-Two')).toBe('a');
    expect(res.header('x-none')).toBeUndefined();
    res.discard();
    await expect(httpRequest(`${main.origin()}/loop`)).rejects.toThrow(
      `${main.origin()}: more than 20 redirects`,
    );
  });

  test("a connection that fails rejects with the socket's error; an aborted signal with its reason", async () => {
    const closed = server(() => [200, {}, '']);
    await new Promise<void>((r) => closed.s.listen(0, '127.0.0.1', r));
    const url = `${closed.origin()}/`;
    await new Promise((r) => closed.s.close(r));
    await expect(httpRequest(url)).rejects.toThrow(/ECONNREFUSED/);
    const controller = new AbortController();
    controller.abort(new Error('interrupted by SIGTERM'));
    await expect(httpRequest(`${main.origin()}/plain`, { signal: controller.signal })).rejects.toThrow(
      'interrupted by SIGTERM',
    );
  });
});

test('an https URL is requested over TLS: the first bytes the server gets are a TLS handshake record', async () => {
  const { createServer: createTcpServer } = await import('node:net');
  const first = new Promise<number>((resolve) => {
    const tcp = createTcpServer((socket) => {
      socket.once('data', (chunk: Buffer) => {
        resolve(chunk[0]!);
        socket.destroy();
        tcp.close();
      });
    });
    tcp.listen(0, '127.0.0.1', () => {
      const port = (tcp.address() as AddressInfo).port;
      httpRequest(`https://127.0.0.1:${port}/v2/`).catch(() => undefined);
    });
  });
  // 0x16: the content type of a TLS handshake record (a ClientHello).
  expect(await first).toBe(0x16);
});
