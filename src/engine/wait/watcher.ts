import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import { createInterface } from 'node:readline';
import type { LimitFunction } from 'p-limit';
import { type KubeObject, withoutManagedFields } from '../../base/kube-object.js';
import { sleep } from '../../base/poll.js';
import {
  KubeApiError,
  type KubeClient,
  type KubeStatus,
  METADATA_LIST_ACCEPT,
  METADATA_WATCH_ACCEPT,
  tlsOptions,
} from '../../cluster/client.js';
import { listInPages } from '../../cluster/pager.js';

/** One event of a watch stream (metav1.WatchEvent). `ERROR` carries a metav1.Status as `object`. */
export interface WatchEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: KubeObject;
}

/** Selectors and resume point of a list or watch (the Kubernetes list options). */
export interface ListQuery {
  readonly labelSelector?: string;
  /** e.g. `metadata.name=web`; every resource supports `metadata.name` and `metadata.namespace`. */
  readonly fieldSelector?: string;
}

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

/**
 * Opens `GET <path>?watch=1&resourceVersion=…&allowWatchBookmarks=true` and calls `onEvent` for each
 * newline-delimited JSON event, in order. Resolves when the server ends the stream (it does after
 * `timeoutSeconds`, or at its own `--min-request-timeout`), or when `signal` aborts.
 *
 * KubeClient buffers whole answers, so the stream is read here with the same kubeconfig
 * credentials (client certificates, tokens, exec plugins: {@link KubeClient.authorize}) that KubeClient uses.
 *
 * @throws WatchExpiredError on 410 Gone (HTTP status or ERROR event); UnauthorizedError on a 401 that
 *   a new credential did not cure; KubeApiError on other non-2xx answers and other ERROR events; the
 *   socket's error when the connection fails.
 */
export async function streamWatch(
  client: KubeClient,
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
    timeoutSeconds: options.timeoutSeconds ?? 300,
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
      return await watchOnce(url, authorization.options, options, request, onEvent);
    } catch (error) {
      const refused = error instanceof KubeApiError && error.code === 401;
      if (!refused) throw error;
      if (retried || !(await client.unauthorized(authorization))) throw client.refused(error);
    }
  }
}

/** Options of {@link streamWatch}. */
type WatchOptions = ListQuery & {
  readonly resourceVersion?: string;
  readonly timeoutSeconds?: number;
  readonly signal?: AbortSignal;
  /** The `Accept` header; default `application/json` (e.g. {@link METADATA_WATCH_ACCEPT}). */
  readonly accept?: string;
};

/** One watch request with the credentials in `opts`, its events passed to `onEvent` until it ends. */
async function watchOnce(
  url: URL,
  opts: https.RequestOptions,
  options: WatchOptions,
  request: string,
  onEvent: (event: WatchEvent) => void,
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
  r.end();
  try {
    const [res] = (await once(r, 'response')) as [http.IncomingMessage];
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) throw await statusError(res, status, request);
    res.setEncoding('utf8');
    for await (const text of createInterface({ input: res, crlfDelay: Number.POSITIVE_INFINITY })) {
      const event = parseEvent(text);
      if (!event) continue;
      if (event.type === 'ERROR') {
        const s = event.object as unknown as KubeStatus;
        if (s.code === 410) throw new WatchExpiredError(s.message ?? 'resourceVersion too old');
        throw new KubeApiError(s.code ?? 500, request, s, s.message ?? '');
      }
      onEvent(event);
    }
  } catch (error) {
    // An abort ends the watch quietly (the informer's loop sees the signal).
    if (options.signal?.aborted) return;
    throw error;
  } finally {
    r.destroy();
  }
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

/** What an informer saw: a list (every object it holds now, the first time or after 410 Gone), or one change. */
export type InformerEvent =
  | { readonly type: 'LIST'; readonly objects: readonly KubeObject[] }
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: KubeObject };

/** Options of {@link informer}. */
export interface InformerOptions extends ListQuery {
  /** Stops the informer; its promise then resolves. */
  readonly signal: AbortSignal;
  /** Called after the first list and after every change, with every object the list holds now. */
  readonly onChange?: (objects: readonly KubeObject[]) => void;
  /** Called for each list and each change alone, for a caller that keeps its own index of them. */
  readonly onEvent?: (event: InformerEvent) => void;
  /** Seconds each watch request may last before the server ends it and it is resumed. Default 60. */
  readonly watchSeconds?: number;
  /** Objects a page of the LIST holds at most. Default {@link LIST_PAGE_SIZE}. */
  readonly pageSize?: number;
  /**
   * Runs each LIST (the first, and any after 410 Gone) through this limit: informers that share a
   * `pLimit(1)` list one at a time, so their answers are never in memory together.
   */
  readonly listLimit?: LimitFunction;
  /**
   * List and watch metadata only (PartialObjectMetadata, as client-go's metadata informers do): no
   * `spec` or `status` sent, parsed or kept. A server that cannot serve it answers whole objects.
   */
  readonly metadataOnly?: boolean;
}

/**
 * A list-then-watch cache of the objects at a collection path (client-go's reflector, in small):
 * lists once, then watches from the list's resourceVersion; a watch that ends is resumed from the
 * last resourceVersion seen (a BOOKMARK counts), and 410 Gone lists again. Runs until `signal`
 * aborts; connection errors are retried with a short back-off. Objects are kept and passed on
 * without `metadata.managedFields` (client-go's TransformStripManagedFields): the wait never reads
 * them, and they are often half of an object.
 *
 * @throws KubeApiError when the list itself is refused (403, 404…); the promise then rejects.
 */
export async function informer(client: KubeClient, path: string, options: InformerOptions): Promise<void> {
  const items = new Map<string, KubeObject>();
  const key = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
  let resourceVersion: string | undefined;
  let failures = 0;
  while (!options.signal.aborted) {
    if (resourceVersion === undefined) {
      let list: { objects: KubeObject[]; resourceVersion: string | undefined };
      try {
        list = await (options.listLimit
          ? options.listLimit(() => listOnce(client, path, options))
          : listOnce(client, path, options));
      } catch (error) {
        if (options.signal.aborted) return;
        // A server restarting (429 "storage is (re)initializing", 5xx) or out of reach is listed
        // again after a back-off, as client-go's reflector does; a refusal (403, 404) ends it.
        if (error instanceof KubeApiError && error.code !== 429 && error.code < 500) throw error;
        failures++;
        await sleep(Math.min(200 * 2 ** failures, 5_000), options.signal).catch(() => undefined);
        continue;
      }
      failures = 0;
      items.clear();
      for (const o of list.objects) items.set(key(o), o);
      resourceVersion = list.resourceVersion;
      options.onEvent?.({ type: 'LIST', objects: [...items.values()] });
      options.onChange?.([...items.values()]);
    }
    try {
      await streamWatch(
        client,
        path,
        {
          labelSelector: options.labelSelector,
          fieldSelector: options.fieldSelector,
          resourceVersion,
          timeoutSeconds: options.watchSeconds ?? 60,
          signal: options.signal,
          ...(options.metadataOnly ? { accept: METADATA_WATCH_ACCEPT } : {}),
        },
        (event) => {
          const rv = event.object.metadata?.resourceVersion;
          if (typeof rv === 'string' && rv) resourceVersion = rv;
          if (event.type === 'BOOKMARK' || event.type === 'ERROR') return;
          const object = withoutManagedFields(event.object);
          if (event.type === 'DELETED') items.delete(key(object));
          else items.set(key(object), object);
          options.onEvent?.({ type: event.type, object });
          options.onChange?.([...items.values()]);
        },
      );
      failures = 0;
    } catch (error) {
      if (options.signal.aborted) return;
      if (error instanceof WatchExpiredError) {
        resourceVersion = undefined;
        continue;
      }
      if (error instanceof KubeApiError && error.code !== 429 && error.code < 500) throw error;
      failures++;
      // An abort ends the informer quietly: the loop's condition sees it.
      await sleep(Math.min(200 * 2 ** failures, 5_000), options.signal).catch(() => undefined);
    }
  }
}

/**
 * Objects a page of the informer's LIST holds at most: a fifth of client-go's pager's 500. A page's
 * answer is held as JSON text and as whole objects (managedFields and all) until its objects are
 * taken, and the wait of a 5,000-object deploy lists 3,400 Deployments, Pods and ReplicaSets
 * as its rollouts begin, where the deploy's memory peaks (bench/RESULTS.md, issue 19's eighth part).
 */
export const LIST_PAGE_SIZE = 100;

/**
 * One LIST of the informer, in pages of {@link LIST_PAGE_SIZE} as client-go's reflector lists: its
 * objects (see {@link listedObjects}) and resourceVersion. Each page is let go once its objects are
 * taken, so a large collection is never held whole as JSON text and as objects at once. A
 * continue token that expired (410) lists again in one request, as client-go's pager does.
 */
async function listOnce(
  client: KubeClient,
  path: string,
  options: InformerOptions,
): Promise<{ objects: KubeObject[]; resourceVersion: string | undefined }> {
  const objects: KubeObject[] = [];
  const resourceVersion = await listInPages<KubeObject>(
    client,
    {
      path,
      pageSize: options.pageSize ?? LIST_PAGE_SIZE,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      accept: options.metadataOnly ? METADATA_LIST_ACCEPT : undefined,
      signal: options.signal,
    },
    (page) => {
      for (const o of listedObjects(page)) objects.push(o);
    },
    () => {
      objects.length = 0;
    },
  );
  return { objects, resourceVersion };
}

/** A list's items, each with the apiVersion and kind the list says (items carry none of their own). */
function listedObjects(list: { apiVersion?: string; kind?: string; items?: KubeObject[] }): KubeObject[] {
  const kind = list.kind?.replace(/List$/, '');
  return (list.items ?? []).map((o) => ({
    ...withoutManagedFields(o),
    apiVersion: o.apiVersion ?? list.apiVersion ?? '',
    kind: o.kind ?? kind ?? '',
  }));
}
