// The informer of the rollout wait (client-go's reflector, in small): a paged LIST, then watches of
// the ClusterPort resumed from the last resourceVersion, 410 Gone listed again, a server out of reach
// given up on after the client's retry budget. The stream itself is read by the port (KubeClient.watch
// in cluster/watch.ts).

import type { LimitFunction } from 'p-limit';
import { type KubeObject, withoutManagedFields } from '../../base/kube-object.js';
import { sleep } from '../../base/poll.js';
import {
  gaveUp,
  KubeApiError,
  type ListQuery,
  MAX_RETRY_TIME_MS,
  METADATA_LIST_ACCEPT,
  METADATA_WATCH_ACCEPT,
  WatchExpiredError,
} from '../../cluster/client.js';
import { listInPages } from '../../cluster/pager.js';
import type { ClusterPort } from '../kube-api.js';

export { type ListQuery, type WatchEvent, WatchExpiredError } from '../../cluster/client.js';

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
 * aborts. A server out of reach (connection errors, 429, 5xx) is tried again after a back-off of
 * up to 5 s, until it has failed without a single success (a list, a watch opened) for as long as
 * the client retries one request (`client.maxRetryTimeMs`): an API server restarting is ridden out,
 * a cluster lost is named. Objects are kept and passed on without `metadata.managedFields`
 * (client-go's TransformStripManagedFields): the wait never reads them, and they are often half of
 * an object.
 *
 * @throws KubeApiError when the list itself is refused (403, 404…); the promise then rejects.
 * @throws the last error, worded `gave up after N tries, last ECONNRESET: …` (cluster/client.ts
 *   `gaveUp`: its class and code kept, so `isUnavailable` tells it), once the server was out of
 *   reach for that long. N counts the requests, the client's retries of each list included.
 */
export async function informer(client: ClusterPort, path: string, options: InformerOptions): Promise<void> {
  const items = new Map<string, KubeObject>();
  const key = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
  const outage = new Outage(client.maxRetryTimeMs ?? MAX_RETRY_TIME_MS, options.signal);
  let resourceVersion: string | undefined;
  while (!options.signal.aborted) {
    if (resourceVersion === undefined) {
      let list: { objects: KubeObject[]; resourceVersion: string | undefined };
      let began = Date.now();
      const listed = () => {
        began = Date.now();
        return listOnce(client, path, options);
      };
      try {
        list = await (options.listLimit ? options.listLimit(listed) : listed());
      } catch (error) {
        if (options.signal.aborted) return;
        // A server restarting (429 "storage is (re)initializing", 5xx) or out of reach is listed
        // again after a back-off, as client-go's reflector does; a refusal (403, 404) ends it. The
        // client retried the list itself for up to its whole budget: that time counts as failed.
        if (isVerdict(error)) throw error;
        await outage.failed(error, began);
        continue;
      }
      outage.ended();
      items.clear();
      for (const o of list.objects) items.set(key(o), o);
      resourceVersion = list.resourceVersion;
      options.onEvent?.({ type: 'LIST', objects: [...items.values()] });
      options.onChange?.([...items.values()]);
    }
    try {
      await client.watch(
        path,
        {
          labelSelector: options.labelSelector,
          fieldSelector: options.fieldSelector,
          resourceVersion,
          timeoutSeconds: options.watchSeconds ?? 60,
          signal: options.signal,
          ...(options.metadataOnly ? { accept: METADATA_WATCH_ACCEPT } : {}),
          onOpen: () => outage.ended(),
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
      outage.ended();
    } catch (error) {
      if (options.signal.aborted) return;
      if (error instanceof WatchExpiredError) {
        outage.ended();
        resourceVersion = undefined;
        continue;
      }
      if (isVerdict(error)) throw error;
      // Counted from its end, not its start: a watch may have been open for minutes.
      await outage.failed(error, Date.now());
    }
  }
}

/** An answer that ends the informer: a refusal (403, 404…), not a server in trouble (429, 5xx). */
const isVerdict = (error: unknown): boolean =>
  error instanceof KubeApiError && error.code !== 429 && error.code < 500;

/**
 * An informer's requests failing since its last success: each failure is followed by a back-off
 * (200 ms doubling, at most 5 s), unless they have failed for `budgetMs`; then the last error is
 * thrown, worded as the client words a request it gave up on. An abort ends the back-off quietly
 * (the informer's loop sees it).
 */
class Outage {
  /** When the first failed request since the last success began. */
  private since: number | undefined;
  private failures = 0;
  /** The requests sent: one a watch, a list as many as the client's tries of it. */
  private tries = 0;

  constructor(
    private readonly budgetMs: number,
    private readonly signal: AbortSignal,
  ) {}

  ended(): void {
    this.since = undefined;
    this.failures = 0;
    this.tries = 0;
  }

  /** @throws `error` worded by gaveUp once the requests have failed for `budgetMs` from `began` on. */
  async failed(error: unknown, began: number): Promise<void> {
    this.since ??= began;
    this.failures++;
    const tries = typeof error === 'object' && error !== null ? (error as { tries?: unknown }).tries : 1;
    this.tries += typeof tries === 'number' ? tries : 1;
    if (Date.now() - this.since >= this.budgetMs) throw gaveUp(error, this.tries);
    await sleep(Math.min(200 * 2 ** this.failures, 5_000), this.signal).catch(() => undefined);
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
  client: ClusterPort,
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
