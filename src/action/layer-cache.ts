import type { LayerCacheStore } from '../image/index.js';

/**
 * The GitHub Actions cache as a {@link LayerCacheStore} (@actions/cache: `restoreCache` with the exact
 * key and then the restore keys as prefixes, newest first; `saveCache` once per key). Undefined when
 * the runner offers no cache service (`cache.isFeatureAvailable()`: ACTIONS_RESULTS_URL for the v2
 * service, which ACTIONS_CACHE_SERVICE_V2 selects, else ACTIONS_CACHE_URL), e.g. under `act` or on a
 * GHES without the cache.
 *
 * @actions/cache (with its Azure storage client, about 1 MB of the bundle) is loaded here, only when
 * the layer cache is on, so a run without it never loads the module.
 */
export async function actionsLayerCache(): Promise<LayerCacheStore | undefined> {
  const cache = await import('@actions/cache');
  if (!cache.isFeatureAvailable()) return undefined;
  return {
    description: 'the GitHub Actions cache',
    restore: (dir, key, restoreKeys) => cache.restoreCache([dir], key, [...restoreKeys]),
    // saveCache returns -1 rather than throwing when the entry is not saved: a read-only cache mode, a
    // key saved meanwhile by a concurrent job, a service error (which it logs itself).
    save: async (dir, key) => (await cache.saveCache([dir], key)) !== -1,
  };
}
