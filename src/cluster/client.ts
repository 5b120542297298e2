// spread's one HTTP client of the Kubernetes API: objects sent and read as the user wrote them (not
// through client-node's typed models, which drop unknown fields), with client-go's retry rules and a
// new credential after a 401.
// over 400 lines because it is the one client: requests, retries, credentials, and the streams' entry points.
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import type { KubeConfig } from '@kubernetes/client-node';
import pRetry from 'p-retry';
import { fromJson, toJson } from '../base/json.js';
import { sleep } from '../base/poll.js';
import { KubeApiError, type KubeStatus, UnauthorizedError } from './api-error.js';
import { type Authorization, KubeAuth } from './auth.js';
import { exchange } from './exchange.js';
import { streamLines, streamWatch, tlsOptions, type WatchEvent, type WatchOptions } from './watch.js';

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

export { KubeApiError, type KubeStatus, UnauthorizedError } from './api-error.js';
export {
  type ListQuery,
  tlsOptions,
  type WatchEvent,
  WatchExpiredError,
  type WatchOptions,
} from './watch.js';

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
  /**
   * Time limit of one request attempt, in milliseconds. Default 30 000. A watch gets as long to be
   * accepted, and to be ended past its `timeoutSeconds` (see streamWatch).
   */
  readonly requestTimeoutMs?: number;
  /**
   * Time after which a failing request is not retried any more, in milliseconds. Default
   * {@link MAX_RETRY_TIME_MS}: an API server that stays unreachable fails the request in about a
   * minute at most.
   */
  readonly maxRetryTimeMs?: number;
  /** Called once per request attempt (for request counting in benchmarks and --verbose). */
  readonly onRequest?: (method: Verb, path: string) => void;
}

/**
 * How long a request may keep failing (429, 5xx, connection errors) before the client gives up on
 * it, in milliseconds: 30 000. The wait's informers give up after as long without a success.
 */
export const MAX_RETRY_TIME_MS = 30_000;

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
 * (client certificates, bearer tokens, proxies from @kubernetes/client-node; exec plugins as client-go
 * runs them, see {@link KubeAuth}). A 401 to a request sent with an exec plugin's credential runs the
 * plugin again and retries the request once with the new credential; a 401 that stays one is an
 * {@link UnauthorizedError}. client-go refreshes the same way but leaves the retry to its caller: the
 * retry is safe because authentication comes before anything else on the server, so a request
 * answered 401 did nothing, and without it a credential that expired mid-deploy fails the deploy.
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
  private readonly auth: KubeAuth;
  private readonly options: Required<Omit<KubeClientOptions, 'onRequest'>> &
    Pick<KubeClientOptions, 'onRequest'>;
  private agent: http.Agent | undefined;
  /** The exec plugin's client certificate the agent's connections were made with. */
  private agentCert: string | undefined;

  /** @throws ExecPluginError when the user's `exec` is invalid. */
  constructor(kubeConfig: KubeConfig, options: KubeClientOptions = {}) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error(`kubeconfig context "${kubeConfig.getCurrentContext()}" names no cluster`);
    this.server = new URL(cluster.server);
    this.auth = new KubeAuth(kubeConfig);
    this.options = {
      maxSockets: options.maxSockets ?? 16,
      retries: options.retries ?? 5,
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
      maxRetryTimeMs: options.maxRetryTimeMs ?? MAX_RETRY_TIME_MS,
      onRequest: options.onRequest,
    };
  }

  /**
   * Sends a request; resolves with the decoded 2xx body, rejects with {@link KubeApiError} otherwise
   * ({@link UnauthorizedError} for a 401, ExecPluginError when the exec plugin fails).
   */
  async request<T = unknown>(req: KubeRequest): Promise<KubeResponse<T>> {
    try {
      return await this.withRetries<T>(req);
    } catch (error) {
      const used = error instanceof KubeApiError && error.code === 401 ? sentWith.get(error) : undefined;
      if (!used) throw error;
      if (!(await this.auth.unauthorized(used))) throw this.refused(error as KubeApiError);
      try {
        return await this.withRetries<T>(req);
      } catch (again) {
        throw again instanceof KubeApiError && again.code === 401 ? this.refused(again) : again;
      }
    }
  }

  /** How long a failing request is retried, in milliseconds (see {@link KubeClientOptions.maxRetryTimeMs}). */
  get maxRetryTimeMs(): number {
    return this.options.maxRetryTimeMs;
  }

  /** Time limit of one request attempt, in milliseconds (see {@link KubeClientOptions.requestTimeoutMs}). */
  get requestTimeoutMs(): number {
    return this.options.requestTimeoutMs;
  }

  /** The credentials of the kubeconfig's user for one request (for a stream KubeClient does not read, a watch). */
  authorize(): Promise<Authorization> {
    return this.auth.authorize();
  }

  /**
   * After a 401 to a request sent with `used` (a watch): whether it is worth sending again, the exec
   * plugin having given another credential.
   */
  unauthorized(used: Authorization): Promise<boolean> {
    return this.auth.unauthorized(used);
  }

  /** The error of a 401 that stays one: names the credential and how to refresh it. */
  refused(error: KubeApiError): UnauthorizedError {
    return error instanceof UnauthorizedError ? error : new UnauthorizedError(error, this.auth.refusedHint());
  }

  private async withRetries<T>(req: KubeRequest): Promise<KubeResponse<T>> {
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

  /**
   * Watches the collection at `path` (see {@link streamWatch}): each event to `onEvent` in order,
   * until the server ends the watch or `options.signal` aborts. A 401 to an exec plugin's credential
   * runs the plugin again and opens the watch once more.
   *
   * @throws WatchExpiredError on 410 Gone; UnauthorizedError, KubeApiError as {@link request}.
   */
  watch(path: string, options: WatchOptions, onEvent: (event: WatchEvent) => void): Promise<void> {
    return streamWatch(this, path, options, onEvent);
  }

  /** Each line of a text answer as it comes, e.g. a pod's log followed (see {@link streamLines}). */
  lines(
    path: string,
    query: Readonly<Record<string, string>>,
    onLine: (line: string) => void,
    signal?: AbortSignal,
  ): Promise<void> {
    return streamLines(this, path, query, onLine, signal);
  }

  /** Releases the sockets kept alive. */
  close(): void {
    this.agent?.destroy();
    this.agent = undefined;
  }

  private async once<T>(req: KubeRequest): Promise<KubeResponse<T>> {
    const authorization = await this.auth.authorize();
    const opts = authorization.options;
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
    const agent =
      opts.agent && isProxyAgent(opts.agent)
        ? opts.agent
        : this.keepAliveAgent(opts, authorization.credential?.cert);
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
    if (status === 401) sentWith.set(err, authorization);
    const retryAfter = answer.headers['retry-after'];
    if (retryAfter)
      (err as KubeApiError & { retryAfterSeconds?: number }).retryAfterSeconds = Number(retryAfter);
    throw err;
  }

  private keepAliveAgent(opts: https.RequestOptions, execCert: string | undefined): http.Agent {
    // A new client certificate from the exec plugin: new connections (client-go closes every one).
    if (this.agent && execCert !== this.agentCert) this.close();
    this.agentCert = execCert;
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

/**
 * The TLS options of an agent whose connections share one SecureContext. Given only `ca`/`cert`/`key`,
 * Node parses the certificates again for every socket, 64 of them at the start of a deploy, all
 * before the first request can leave (bench/RESULTS.md, "Deploy, by hand", issue 19 seventh part).
 */
function sharedTls(options: ReturnType<typeof tlsOptions>): https.AgentOptions {
  const { ca, cert, key, pfx, passphrase, servername, rejectUnauthorized } = options;
  return {
    secureContext: tls.createSecureContext({ ca, cert, key, pfx, passphrase }),
    servername,
    rejectUnauthorized,
  };
}

/** The credentials each 401 was answered to, so that a refresh knows which credential was refused. */
const sentWith = new WeakMap<KubeApiError, Authorization>();

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
 * ({@link isUnavailable}), and gets a `tries` property. An error given up on before is worded again
 * from its own message with the new count (an informer counts the tries of the requests it repeated).
 */
export function gaveUp(error: unknown, tries: number): unknown {
  if (!(error instanceof Error)) return error;
  const own = ownMessages.get(error) ?? error.message;
  ownMessages.set(error, own);
  const last =
    error instanceof KubeApiError
      ? `${error.code} ${error.reason ?? http.STATUS_CODES[error.code] ?? 'error'}`
      : ((error as { code?: string }).code ?? error.name);
  const detail = own && own !== last ? `: ${own}` : '';
  error.message = `gave up after ${tries} ${tries === 1 ? 'try' : 'tries'}, last ${last}${detail}`;
  Object.assign(error, { tries });
  return error;
}

/** The message of each error {@link gaveUp} worded, as it was before. */
const ownMessages = new WeakMap<Error, string>();

function retryAfterMs(error: unknown): number {
  const seconds = (error as { retryAfterSeconds?: number }).retryAfterSeconds;
  return seconds && Number.isFinite(seconds) ? Math.min(seconds, 30) * 1000 : 0;
}
