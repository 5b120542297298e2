// Listing a large collection in pages, as client-go's pager does, so that no collection is ever held as
// one answer (the plan's LISTs, the ApplySet's members, the waiter's watches).
import { KubeApiError, type KubeRequest, type KubeResponse } from './client.js';

/** A page of a LIST as the API server answers it. */
export interface ListPage<T> {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: { readonly resourceVersion?: string; readonly continue?: string };
  readonly items?: T[];
}

/** One paged LIST: the collection, its selectors, and the objects per page. */
export interface PagedList {
  /** The collection's API path, e.g. `/api/v1/namespaces/app/configmaps`. */
  readonly path: string;
  /** Objects per page (the `limit` parameter). */
  readonly pageSize: number;
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
  /** `Accept`, e.g. METADATA_LIST_ACCEPT for metadata only. */
  readonly accept?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Lists a collection in pages (`limit`, `continue`), as client-go's pager does. `take` gets each page
 * as it comes and is its only holder, so a large collection is never one answer, as JSON text and as
 * objects, at once. A continue token that expired (410 Gone) lists again from the start, in one
 * request, after `restart`: the caller drops what it took.
 *
 * @returns the list's resourceVersion (of its last page).
 * @throws KubeApiError as the requests fail (403 without the `list` right, 404 for a kind not served).
 */
export async function listInPages<T>(
  client: { request<R>(req: KubeRequest): Promise<KubeResponse<R>> },
  list: PagedList,
  take: (page: ListPage<T>) => void,
  restart: () => void,
): Promise<string | undefined> {
  let next: string | undefined;
  let limit: number | undefined = list.pageSize;
  for (;;) {
    let page: ListPage<T>;
    try {
      page = (
        await client.request<ListPage<T>>({
          method: 'GET',
          path: list.path,
          query: {
            labelSelector: list.labelSelector,
            fieldSelector: list.fieldSelector,
            limit,
            continue: next,
          },
          ...(list.accept ? { accept: list.accept } : {}),
          ...(list.signal ? { signal: list.signal } : {}),
        })
      ).body;
    } catch (error) {
      if (!(next && error instanceof KubeApiError && error.code === 410)) throw error;
      restart();
      next = undefined;
      limit = undefined;
      continue;
    }
    take(page);
    next = page.metadata?.continue || undefined;
    if (!next) return page.metadata?.resourceVersion;
  }
}
