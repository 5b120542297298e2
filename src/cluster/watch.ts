// The watch transport: one `GET …?watch=1` read as a stream of newline-delimited events, with the
// kubeconfig's credentials (an exec plugin's refreshed after a 401) and 410 Gone as its own error.
// KubeClient.watch is its entry point; engine/ consumes the events through the ClusterPort.

import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import { createInterface } from 'node:readline';
import type { KubeObject } from '../base/kube-object.js';
import { KubeApiError, type KubeStatus, type UnauthorizedError } from './api-error.js';
import type { Authorization } from './auth.js';

/** One event of a watch stream (metav1.WatchEvent). `ERROR` carries a metav1.Status as `object`. */
export interface WatchEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: KubeObject;
}

/** Selectors of a list or watch (the Kubernetes list options). */
export interface ListQuery {
  readonly labelSelector?: string | undefined;
  /** e.g. `metadata.name=web`; every resource supports `metadata.name` and `metadata.namespace`. */
  readonly fieldSelector?: string | undefined;
}

/** Options of one watch request. */
export type WatchOptions = ListQuery & {
  /** Where the watch starts (a list's or the last event's resourceVersion). */
  readonly resourceVersion?: string | undefined;
  /** Seconds the server keeps the watch open before it ends it. Default 300. */
  readonly timeoutSeconds?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /** The `Accept` header; default `application/json` (e.g. METADATA_WATCH_ACCEPT). */
  readonly accept?: string | undefined;
  /** Called when the server accepted the watch (a 2xx answer), before its first event: it is reachable. */
  readonly onOpen?: (() => void) | undefined;
};

/**
 * The watch's resourceVersion is too old (410 Gone, or an ERROR event with code 410): the caller
 * lists again and watches from the list's resourceVersion (the client-go reflector's rule).
 */
export class WatchExpiredError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WatchExpiredError';
  }
}

/** What a watch needs of the client: its server, its credentials (KubeClient's, see KubeAuth), its time limit. */
export interface WatchCredentials {
  readonly server: URL;
  /**
   * Time the server may take to accept a watch (its answer's headers), and past `timeoutSeconds` to
   * end it, in milliseconds: KubeClient's `requestTimeoutMs`, a request's time limit.
   */
  readonly requestTimeoutMs: number;
  authorize(): Promise<Authorization>;
  unauthorized(used: Authorization): Promise<boolean>;
  refused(error: KubeApiError): UnauthorizedError;
}

/** Seconds a watch lasts when its options say none (WatchOptions.timeoutSeconds). */
const DEFAULT_WATCH_SECONDS = 300;

/**
 * Opens `GET <path>?watch=1&resourceVersion=…&allowWatchBookmarks=true` and calls `onEvent` for each
 * newline-delimited JSON event, in order (BOOKMARKs included; ERROR events become errors). Resolves
 * when the server ends the stream (it does after `timeoutSeconds`, or at its own
 * `--min-request-timeout`), or when `signal` aborts.
 *
 * KubeClient buffers whole answers, so the stream is read here with the same kubeconfig
 * credentials (client certificates, tokens, exec plugins) that KubeClient uses.
 *
 * @throws WatchExpiredError on 410 Gone (HTTP status or ERROR event); UnauthorizedError on a 401 that
 *   a new credential did not cure; KubeApiError on other non-2xx answers and other ERROR events; the
 *   socket's error when the connection fails; an `ETIMEDOUT` error when the server does not accept
 *   the watch within `client.requestTimeoutMs`, or does not end it that long after `timeoutSeconds`.
 */
export async function streamWatch(
  client: WatchCredentials,
  path: string,
  options: WatchOptions,
  onEvent: (event: WatchEvent) => void,
): Promise<void> {
  if (options.signal?.aborted) return;
  const url = new URL(client.server.toString());
  url.pathname = `${client.server.pathname.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
  const query: Record<string, string | number | undefined> = {
    watch: 1,
    allowWatchBookmarks: 'true',
    resourceVersion: options.resourceVersion,
    timeoutSeconds: options.timeoutSeconds ?? DEFAULT_WATCH_SECONDS,
    labelSelector: options.labelSelector,
    fieldSelector: options.fieldSelector,
  };
  for (const [k, v] of Object.entries(query))
    if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
  const request = `GET ${path} (watch)`;
  // A 401 to a credential of an exec plugin runs it again and opens the watch once more, as
  // KubeClient.request does for every other request.
  for (let retried = false; ; retried = true) {
    const authorization = await client.authorize();
    try {
      return await watchOnce(url, authorization.options, options, request, onEvent, client.requestTimeoutMs);
    } catch (error) {
      const refused = error instanceof KubeApiError && error.code === 401;
      if (!refused) throw error;
      if (retried || !(await client.unauthorized(authorization))) throw client.refused(error);
    }
  }
}

/**
 * One watch request with the credentials in `opts`, its events passed to `onEvent` until it ends. A
 * server that does not accept it within `graceMs`, or does not end it `graceMs` after its
 * `timeoutSeconds`, is out of reach (a network or a server that hung: the socket stays open, silent):
 * the watch then fails with `ETIMEDOUT`, as a request past its time limit does.
 */
async function watchOnce(
  url: URL,
  opts: https.RequestOptions,
  options: WatchOptions,
  request: string,
  onEvent: (event: WatchEvent) => void,
  graceMs: number,
): Promise<void> {
  const transport = url.protocol === 'http:' ? http : https;
  const r = transport.request(url, {
    method: 'GET',
    headers: {
      ...(opts.headers as Record<string, string>),
      Accept: options.accept ?? 'application/json',
      'User-Agent': 'spread',
    },
    // A watch holds its connection for minutes: it gets its own socket, not one of the pool's.
    agent: opts.agent ?? false,
    ...tlsOptions(opts),
    auth: opts.auth,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  let timedOut: Error | undefined;
  const expire = (why: string, ms: number) =>
    setTimeout(() => {
      timedOut = Object.assign(new Error(`request timed out: ${request}: ${why}`), { code: 'ETIMEDOUT' });
      r.destroy(timedOut);
    }, ms);
  let timer = expire(`not accepted within ${graceMs / 1000}s`, graceMs);
  r.end();
  try {
    const [res] = (await once(r, 'response')) as [http.IncomingMessage];
    clearTimeout(timer);
    // From here the stream ends or fails with the socket, and a time-out is thrown after it.
    r.on('error', () => undefined);
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) throw await statusError(res, status, request);
    options.onOpen?.();
    const seconds = options.timeoutSeconds ?? DEFAULT_WATCH_SECONDS;
    timer = expire(`not ended ${graceMs / 1000}s after its ${seconds}s`, seconds * 1000 + graceMs);
    res.setEncoding('utf8');
    for await (const text of lines(res)) {
      const event = parseEvent(text);
      if (!event) continue;
      if (event.type === 'ERROR') {
        const s = event.object as unknown as KubeStatus;
        if (s.code === 410) throw new WatchExpiredError(s.message ?? 'resourceVersion too old');
        throw new KubeApiError(s.code ?? 500, request, s, s.message ?? '');
      }
      onEvent(event);
    }
    if (timedOut) throw timedOut;
  } catch (error) {
    // An abort ends the watch quietly (the informer's loop sees the signal).
    if (options.signal?.aborted) return;
    throw timedOut ?? error;
  } finally {
    clearTimeout(timer);
    r.destroy();
  }
}

/**
 * The lines of an answer as they come. The socket's error after the loop over them ended (an ERROR
 * event ended it, then the request is destroyed: `aborted`) is let go: readline still forwards its
 * input's errors, and an 'error' nothing listens to ends the process (an API server restarted
 * during the wait answers a resumed watch with 410 Gone, and the CLI crashed).
 */
function lines(res: http.IncomingMessage): AsyncIterable<string> {
  const reader = createInterface({ input: res, crlfDelay: Number.POSITIVE_INFINITY });
  reader.on('error', () => undefined);
  return reader;
}

/** One line of a watch stream as an event; undefined for a blank or unreadable line. */
function parseEvent(line: string): WatchEvent | undefined {
  if (!line.trim()) return undefined;
  try {
    return JSON.parse(line) as WatchEvent;
  } catch {
    return undefined;
  }
}

/** The error of a non-2xx watch answer: WatchExpiredError on 410 Gone, else KubeApiError. */
async function statusError(res: http.IncomingMessage, status: number, request: string): Promise<Error> {
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  let parsed: KubeStatus | undefined;
  try {
    parsed = JSON.parse(raw) as KubeStatus;
  } catch {
    parsed = undefined;
  }
  if (status === 410) return new WatchExpiredError(parsed?.message ?? 'resourceVersion too old');
  return new KubeApiError(status, request, parsed, raw);
}

/** The TLS part of request options as the kubeconfig fills them (CA, client certificate, server name). */
export function tlsOptions(
  opts: https.RequestOptions,
): Pick<
  https.RequestOptions,
  'ca' | 'cert' | 'key' | 'pfx' | 'passphrase' | 'servername' | 'rejectUnauthorized'
> {
  return {
    ca: opts.ca,
    cert: opts.cert,
    key: opts.key,
    pfx: opts.pfx,
    passphrase: opts.passphrase,
    servername: opts.servername,
    rejectUnauthorized: opts.rejectUnauthorized,
  };
}

/**
 * Opens `GET <path>?<query>` and calls `onLine` for each line of its text answer as it comes (a
 * pod's log with `follow=true`: the API server passes the kubelet's stream on), until the server ends
 * it or `signal` aborts. One try: a log is worth less than the deploy it is shown beside.
 *
 * @throws KubeApiError on a non-2xx answer (the kubelet unreachable is the API server's 500 or 502);
 *   the socket's error when the connection fails.
 */
export async function streamLines(
  client: Pick<WatchCredentials, 'server' | 'authorize'>,
  path: string,
  query: Readonly<Record<string, string>>,
  onLine: (line: string) => void,
  signal?: AbortSignal,
): Promise<void> {
  if (signal?.aborted) return;
  const url = new URL(client.server.toString());
  url.pathname = `${client.server.pathname.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  const opts = (await client.authorize()).options;
  const transport = url.protocol === 'http:' ? http : https;
  const r = transport.request(url, {
    method: 'GET',
    headers: { ...(opts.headers as Record<string, string>), Accept: '*/*', 'User-Agent': 'spread' },
    agent: opts.agent ?? false,
    ...tlsOptions(opts),
    auth: opts.auth,
    ...(signal ? { signal } : {}),
  });
  r.end();
  try {
    const [res] = (await once(r, 'response')) as [http.IncomingMessage];
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) throw await statusError(res, status, `GET ${path}`);
    res.setEncoding('utf8');
    for await (const text of lines(res)) onLine(text);
  } catch (error) {
    if (signal?.aborted) return;
    throw error;
  } finally {
    r.destroy();
  }
}
