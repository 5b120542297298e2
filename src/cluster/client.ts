import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import type { KubeConfig } from '@kubernetes/client-node';
import pRetry from 'p-retry';
import { fromJson, toJson } from '../base/json.js';
import { sleep } from '../base/poll.js';
import { exchange } from './exchange.js';

/** The HTTP verbs spread uses against the Kubernetes API. */
export type Verb = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One request to the Kubernetes API: a path below the server URL, query parameters and a JSON body. */
export interface KubeRequest {
  readonly method: Verb;
  /** Absolute API path, e.g. `/apis/apps/v1/namespaces/default/deployments/web`. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly body?: unknown;
  /** Content-Type of the body; `application/json` by default, `application/apply-patch+yaml` for server-side apply. */
  readonly contentType?: string;
  readonly accept?: string;
  /** Abort the request (and its retries). */
  readonly signal?: AbortSignal;
}

/**
 * The `Accept` of a LIST that needs only metadata (PartialObjectMetadataList, as client-go's metadata
 * client asks): no `data`, `spec` or `status`; a server that cannot serve it answers full objects.
 */
export const METADATA_LIST_ACCEPT =
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

/** The `Accept` of a WATCH that needs only metadata: each event's object a PartialObjectMetadata. */
export const METADATA_WATCH_ACCEPT =
  'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

/** A Kubernetes API answer whose status was 2xx, with the body decoded from JSON. */
export interface KubeResponse<T = unknown> {
  readonly status: number;
  readonly body: T;
  /** `Warning` headers the API server sent (deprecated APIs, unknown fields under `fieldValidation=Warn`). */
  readonly warnings: readonly string[];
}

/**
 * A non-2xx answer from the API server. `status` is the metav1.Status of the body when there is one
 * (`reason` e.g. `NotFound`, `Conflict`, `Invalid`, `Forbidden`; `details.causes[]` per field).
 */
export class KubeApiError extends Error {
  readonly code: number;
  readonly status: KubeStatus | undefined;
  readonly request: string;
  constructor(code: number, request: string, status: KubeStatus | undefined, raw: string) {
    super(status?.message ?? (raw.trim() || `HTTP ${code}`));
    this.name = 'KubeApiError';
    this.code = code;
    this.status = status;
    this.request = request;
  }
  /** metav1.StatusReason, e.g. `NotFound`, `AlreadyExists`, `Conflict`, `Invalid`, `Forbidden`. */
  get reason(): string | undefined {
    return this.status?.reason;
  }
}

/** metav1.Status, the body of every API error. */
export interface KubeStatus {
  kind?: 'Status';
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
    retryAfterSeconds?: number;
  };
}

/** Options of {@link KubeClient}. */
export interface KubeClientOptions {
  /** Most requests in flight at once (the agent's socket pool). Default 16. */
  readonly maxSockets?: number;
  /**
   * Retries of a request answered 429, 5xx or cut by a connection reset or time-out. Default 5 (six
   * tries). A request that is still failing then rejects with the last error, its message saying
   * `gave up after N tries, last 429 TooManyRequests` (or `503 …`, `ECONNRESET`).
   */
  readonly retries?: number;
  /** Time limit of one request attempt, in milliseconds. Default 30 000. */
  readonly requestTimeoutMs?: number;
  /**
   * Time after which a failing request is not retried any more, in milliseconds. Default 30 000:
   * an API server that stays unreachable fails the request in about a minute at most.
   */
  readonly maxRetryTimeMs?: number;
  /** Called once per request attempt (for request counting in benchmarks and --verbose). */
  readonly onRequest?: (method: Verb, path: string) => void;
}

const RETRYABLE_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/**
 * A small JSON client for the Kubernetes REST API, authenticated from a {@link KubeConfig}
 * (client certificates, bearer tokens, exec plugins, proxies: all from @kubernetes/client-node).
 *
 * Why not client-node's `KubernetesObjectApi`: it serializes every object through its typed models,
 * which silently drops fields the model does not know. A misspelt field would then vanish instead of
 * being rejected by the API server's strict field validation, and the diff of the plan would be made on
 * converted objects (dates as Date). spread sends and reads the objects as the user wrote them.
 *
 * Retries follow client-go's rules: 429 honours `Retry-After`; 5xx and connection resets back off
 * exponentially; other errors are final. Errors are {@link KubeApiError}.
 */
export class KubeClient {
  readonly server: URL;
  private readonly kubeConfig: KubeConfig;
  private readonly options: Required<Omit<KubeClientOptions, 'onRequest'>> &
    Pick<KubeClientOptions, 'onRequest'>;
  private agent: http.Agent | undefined;

  constructor(kubeConfig: KubeConfig, options: KubeClientOptions = {}) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error(`kubeconfig context "${kubeConfig.getCurrentContext()}" names no cluster`);
    this.server = new URL(cluster.server);
    this.kubeConfig = kubeConfig;
    this.options = {
      maxSockets: options.maxSockets ?? 16,
      retries: options.retries ?? 5,
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
      maxRetryTimeMs: options.maxRetryTimeMs ?? 30_000,
      onRequest: options.onRequest,
    };
  }

  /** Sends a request; resolves with the decoded 2xx body, rejects with {@link KubeApiError} otherwise. */
  async request<T = unknown>(req: KubeRequest): Promise<KubeResponse<T>> {
    let tries = 0;
    const started = Date.now();
    try {
      return await pRetry(
        () => {
          tries++;
          return this.once<T>(req);
        },
        {
          retries: this.options.retries,
          maxRetryTime: this.options.maxRetryTimeMs,
          minTimeout: 200,
          maxTimeout: 5_000,
          signal: req.signal,
          // Asked only when a retry can follow. A Retry-After that would outlast the retry budget
          // ends the request now instead of waiting for a retry that would not come.
          shouldRetry: async ({ error }) => {
            if (!isRetryable(error)) return false;
            const after = retryAfterMs(error);
            if (after === 0) return true;
            if (Date.now() - started + after > this.options.maxRetryTimeMs) return false;
            await sleep(after, req.signal);
            return true;
          },
        },
      );
    } catch (error) {
      if (isRetryable(error) && !req.signal?.aborted) throw gaveUp(error, tries);
      throw error;
    }
  }

  /** GET that answers `undefined` on 404 instead of throwing. */
  async getOrUndefined<T = unknown>(path: string, signal?: AbortSignal): Promise<T | undefined> {
    try {
      return (await this.request<T>({ method: 'GET', path, signal })).body;
    } catch (error) {
      if (error instanceof KubeApiError && error.code === 404) return undefined;
      throw error;
    }
  }

  /** Releases the sockets kept alive. */
  close(): void {
    this.agent?.destroy();
    this.agent = undefined;
  }

  private async once<T>(req: KubeRequest): Promise<KubeResponse<T>> {
    const opts: https.RequestOptions = { headers: {} };
    await this.kubeConfig.applyToHTTPSOptions(opts);
    const url = new URL(this.server.toString());
    url.pathname = joinPath(this.server.pathname, req.path);
    for (const [k, v] of Object.entries(req.query ?? {}))
      if (v !== undefined) url.searchParams.set(k, String(v));
    const body = req.body === undefined ? undefined : toJson(req.body);
    const headers: Record<string, string> = {
      ...(opts.headers as Record<string, string>),
      Accept: req.accept ?? 'application/json',
      'User-Agent': 'spread',
    };
    if (body !== undefined) {
      headers['Content-Type'] = req.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(body));
    }
    this.options.onRequest?.(req.method, req.path);
    const transport = url.protocol === 'http:' ? http : https;
    const agent = opts.agent && isProxyAgent(opts.agent) ? opts.agent : this.keepAliveAgent(opts);
    const answer = await exchange(
      transport,
      url,
      {
        method: req.method,
        headers,
        agent,
        auth: opts.auth,
        timeout: this.options.requestTimeoutMs,
        signal: req.signal,
      },
      body,
      describe(req),
    );
    const { status, raw } = answer;
    const warnings = parseWarnings(answer.headers.warning);
    if (status >= 200 && status < 300) {
      try {
        return { status, body: (raw ? fromJson(raw) : undefined) as T, warnings };
      } catch {
        throw new KubeApiError(
          status,
          describe(req),
          undefined,
          `invalid JSON in answer: ${raw.slice(0, 200)}`,
        );
      }
    }
    let parsed: KubeStatus | undefined;
    try {
      parsed = JSON.parse(raw) as KubeStatus;
    } catch {
      parsed = undefined;
    }
    const err = new KubeApiError(status, describe(req), parsed, raw);
    const retryAfter = answer.headers['retry-after'];
    if (retryAfter)
      (err as KubeApiError & { retryAfterSeconds?: number }).retryAfterSeconds = Number(retryAfter);
    throw err;
  }

  private keepAliveAgent(opts: https.RequestOptions): http.Agent {
    if (!this.agent) {
      const { maxSockets } = this.options;
      this.agent =
        this.server.protocol === 'http:'
          ? new http.Agent({ keepAlive: true, maxSockets })
          : new https.Agent({ keepAlive: true, maxSockets, ...sharedTls(tlsOptions(opts)) });
    }
    return this.agent;
  }
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
 * The TLS options of an agent whose connections share one SecureContext. Given only `ca`/`cert`/`key`,
 * Node parses the certificates again for every socket: about 0.5 ms each, 64 of them at the start of a
 * deploy, all before the first request can leave.
 */
function sharedTls(options: ReturnType<typeof tlsOptions>): https.AgentOptions {
  const { ca, cert, key, pfx, passphrase, servername, rejectUnauthorized } = options;
  return {
    secureContext: tls.createSecureContext({ ca, cert, key, pfx, passphrase }),
    servername,
    rejectUnauthorized,
  };
}

function isProxyAgent(agent: unknown): boolean {
  const name = (agent as { constructor?: { name?: string } }).constructor?.name ?? '';
  return /Proxy/.test(name);
}

function joinPath(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

function describe(req: KubeRequest): string {
  return `${req.method} ${req.path}`;
}

function parseWarnings(header: string | string[] | undefined): string[] {
  if (!header) return [];
  const values = Array.isArray(header) ? header : [header];
  // RFC 7234 warning: `299 - "text"`; the API server always uses code 299 and agent "-".
  return values.flatMap((v) =>
    [...v.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\"/g, '"')),
  );
}

/**
 * Whether an error means the API server could not be reached or could not serve (connection
 * refused or reset, time-out, 5xx or 429 after every retry), rather than a verdict on the request.
 */
export function isUnavailable(error: unknown): boolean {
  return isRetryable(error);
}

/**
 * A 500 that is a verdict on the request, not a server in trouble: server-side apply answers a
 * patch that does not fit the schema (an undeclared field, a wrong type) with 500 and
 * `failed to create typed patch object (…)` (kube-apiserver's fieldmanager, still so in 1.34), and
 * the same request fails the same way every time.
 */
const DETERMINISTIC_500 = /^failed to create typed (patch|live) object\b/;

function isRetryable(error: unknown): boolean {
  if (error instanceof KubeApiError) {
    if (error.code === 500 && DETERMINISTIC_500.test(error.message)) return false;
    return error.code === 429 || (error.code >= 500 && error.code !== 501);
  }
  const code = (error as { code?: string }).code;
  return code !== undefined && RETRYABLE_CODES.has(code);
}

/**
 * The last error of a request that stayed retryable until the retry budget ran out, its message
 * prefixed with the number of tries and the last status: `gave up after 6 tries, last 429
 * TooManyRequests: …` (or `503 Service Unavailable`, `ECONNRESET`). Neither the path nor the time is in
 * it, so that the same outage on many objects stays one grouped line of an ApplyError. The error
 * keeps its class and code, so callers still tell an unavailable server from a verdict
 * ({@link isUnavailable}).
 */
function gaveUp(error: unknown, tries: number): unknown {
  if (!(error instanceof Error)) return error;
  const last =
    error instanceof KubeApiError
      ? `${error.code} ${error.reason ?? http.STATUS_CODES[error.code] ?? 'error'}`
      : ((error as { code?: string }).code ?? error.name);
  const detail = error.message && error.message !== last ? `: ${error.message}` : '';
  error.message = `gave up after ${tries} ${tries === 1 ? 'try' : 'tries'}, last ${last}${detail}`;
  Object.assign(error, { tries });
  return error;
}

function retryAfterMs(error: unknown): number {
  const seconds = (error as { retryAfterSeconds?: number }).retryAfterSeconds;
  return seconds && Number.isFinite(seconds) ? Math.min(seconds, 30) * 1000 : 0;
}
