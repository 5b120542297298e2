// The scheduling of a fleet deploy, apart from what a leg does: the legs of one wave at most N at once,
// and no leg started once one has failed (or the run is interrupted), so a failure leaves the clusters
// not yet started exactly as they were.

/**
 * Runs `run` on each of `items`, at most `limit` at once, in their order. Once `stop()` returns true
 * (checked before each start), no further item is started; the ones running are awaited.
 *
 * @returns each item's result in the items' order; `undefined` for an item never started.
 */
export async function runLimited<T, R>(
  items: readonly T[],
  limit: number,
  run: (item: T) => Promise<R>,
  stop: () => boolean,
): Promise<(R | undefined)[]> {
  const results: (R | undefined)[] = items.map(() => undefined);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length && !stop()) {
      const i = next++;
      results[i] = await run(items[i]!);
    }
  };
  const workers = Math.max(1, Math.min(limit, items.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return results;
}
