// One HTTP request over node:http(s) with fetch's redirect rules, for the registry client: Node loads
// fetch's implementation on first use, a delay on the path of every build (bench/RESULTS.md, "Images").
import http from 'node:http';

/** A response whose body is read on demand: the parts of fetch's Response the registry client uses. */
export interface HttpResponse {
  readonly status: number;
  /** 200–299. */
  readonly ok: boolean;
  /** A header's value (several joined by `, `); undefined when absent. */
  header(name: string): string | undefined;
  bytes(): Promise<Buffer>;
  json(): Promise<unknown>;
  /** Drops the body unread, so the socket can serve the next request. */
  discard(): void;
}

/** A request of {@link httpRequest}. */
export interface HttpRequest {
  readonly method?: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  /** A POST's body (`application/x-www-form-urlencoded` when it is URLSearchParams). */
  readonly body?: URLSearchParams;
  readonly signal?: AbortSignal;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 20;

/**
 * One request over node:http or node:https (the global agents: keep-alive, sockets reused), following
 * redirects as fetch does (at most 20; `authorization` dropped when one leads to another origin; a
 * 303, or a 301/302 of a POST, continues as a GET without body). Used instead of fetch because Node
 * loads fetch's implementation on its first call, before the first byte is sent, on the path of every
 * build (measured: bench/RESULTS.md, "Images").
 *
 * @throws the connection's error (`ECONNREFUSED`, a TLS failure), or the signal's reason.
 */
export async function httpRequest(url: string | URL, init: HttpRequest = {}): Promise<HttpResponse> {
  let target = new URL(url);
  let method = init.method ?? 'GET';
  let body = init.body;
  let headers: Record<string, string> = { ...init.headers };
  for (let hop = 0; ; hop++) {
    const res = await send(target, method, headers, body, init.signal);
    const location = res.header('location');
    if (!REDIRECTS.has(res.status) || location === undefined) return res;
    res.discard();
    if (hop === MAX_REDIRECTS) throw new Error(`${target.origin}: more than ${MAX_REDIRECTS} redirects`);
    const next = new URL(location, target);
    if (next.origin !== target.origin) {
      const { authorization: _dropped, ...rest } = headers;
      headers = rest;
    }
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
    }
    target = next;
  }
}

function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: URLSearchParams | undefined,
  signal: AbortSignal | undefined,
): Promise<HttpResponse> {
  const payload = body === undefined ? undefined : Buffer.from(body.toString());
  const all = payload
    ? {
        ...headers,
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': `${payload.length}`,
      }
    : headers;
  // node:https (and TLS under it) is loaded on the first HTTPS request: a plain local registry never needs it.
  const request = url.protocol === 'https:' ? process.getBuiltinModule('node:https').request : http.request;
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: all, ...(signal ? { signal } : {}) }, (res) => {
      let read: Promise<Buffer> | undefined;
      const bytes = () =>
        (read ??= new Promise<Buffer>((done, fail) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => done(Buffer.concat(chunks)));
          res.on('error', fail);
        }));
      resolve({
        status: res.statusCode ?? 0,
        ok: (res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300,
        header: (name) => {
          const value = res.headers[name.toLowerCase()];
          return Array.isArray(value) ? value.join(', ') : value;
        },
        bytes,
        json: async () => JSON.parse((await bytes()).toString('utf8')) as unknown,
        discard: () => {
          if (!read) res.resume();
        },
      });
    });
    req.on('error', (e) => reject(signal?.aborted ? signal.reason : e));
    req.end(payload);
  });
}
