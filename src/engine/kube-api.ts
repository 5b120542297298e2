// The cluster as engine/ and core/ see it: one port (ClusterPort) that the front ends fill with the
// real KubeClient and the unit tests with an in-memory API server (test/unit/engine/fake-kube.ts).

import type { KubeRequest, KubeResponse, WatchEvent, WatchOptions } from '../cluster/client.js';
import type { Discovery } from '../cluster/discovery.js';

/**
 * Everything engine/ and core/ ask of the Kubernetes API server:
 * - `request`: any REST request (GET, POST, PUT, PATCH incl. server-side apply, DELETE). A LIST of
 *   metadata only is a GET with `accept: METADATA_LIST_ACCEPT` (a PartialObjectMetadataList; a server
 *   that cannot serve it answers whole objects); pages with `limit`/`continue` (cluster/pager.ts).
 *   Rejects with KubeApiError (UnauthorizedError for a 401 that stays one).
 * - `getOrUndefined`: a GET answering `undefined` on 404.
 * - `watch`: `GET path?watch=1` from `options.resourceVersion`, each event (ADDED, MODIFIED, DELETED,
 *   BOOKMARK) to `onEvent` in order; resolves when the server ends the watch or the signal aborts;
 *   rejects with WatchExpiredError on 410 Gone, KubeApiError otherwise.
 *
 * The front ends (src/cli, src/action, src/bin) build the real one, KubeClient (src/cluster/client.ts).
 */
export interface ClusterPort {
  request<T = unknown>(req: KubeRequest): Promise<KubeResponse<T>>;
  getOrUndefined<T = unknown>(path: string, signal?: AbortSignal): Promise<T | undefined>;
  watch(path: string, options: WatchOptions, onEvent: (event: WatchEvent) => void): Promise<void>;
  /**
   * How long `request` retries a request that keeps failing (429, 5xx, connection errors) before it
   * gives up, in milliseconds (KubeClient's `maxRetryTimeMs`; default MAX_RETRY_TIME_MS): an
   * informer (engine/wait/watcher.ts) gives up after as long without a success.
   */
  readonly maxRetryTimeMs?: number;
  /**
   * Each line of a text answer as it comes (a pod's log, `follow=true`); resolves when the server
   * ends it or the signal aborts. Optional: without it, Jobs' logs are not shown.
   */
  lines?(
    path: string,
    query: Readonly<Record<string, string>>,
    onLine: (line: string) => void,
    signal?: AbortSignal,
  ): Promise<void>;
}

/**
 * What the planner and the applier need of the cluster: requests and 404-tolerant GETs, and a watch
 * where the client has one (a CRD is watched until Established, else polled). A small surface, so
 * that they can be unit-tested against a bare in-memory fake.
 */
export type KubeApi = Pick<ClusterPort, 'request' | 'getOrUndefined'> & Partial<Pick<ClusterPort, 'watch'>>;

/** The part of {@link Discovery} the planner and the applier read. */
export type KubeDiscovery = Pick<Discovery, 'resolve' | 'refresh' | 'serverVersion'>;
