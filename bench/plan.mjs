// Which tools a run of bench/bench.mjs measures at each size and round trip. At 5,000 objects kubectl
// and Helm send one request (Helm two) per object one after another, so a step of theirs at RTT 30
// takes minutes; `--tools-large` lets a run keep them to some round trips there, e.g.
// `--tools-large spread,floor,kubectl@0,helm@0` (spread and the floors at every round trip, kubectl and
// Helm at RTT 0 only; `kubectl@0/10` for two). Sizes below LARGE_SIZE always run every tool of --tools.

/** The size from which --tools-large applies (bench.mjs's --reps-large too). */
export const LARGE_SIZE = 5000;

/**
 * Parses a --tools-large value: tool names, each optionally `@` and round trips (ms) joined by `/`.
 *
 * @returns a Map from tool to the round trips it runs at (undefined: every one); undefined for
 *   `all` (every tool of --tools at every round trip).
 * @throws Error naming the entry that is not a known tool or a round trip.
 */
export function parseLargeTools(text, known) {
  if (text.trim() === 'all') return undefined;
  const out = new Map();
  for (const entry of text
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const [tool, rtts, extra] = entry.split('@');
    if (!known.includes(tool) || extra !== undefined)
      throw new Error(
        `--tools-large: ${entry} is not a tool (${known.join(', ')}) with an optional @RTT/RTT`,
      );
    if (rtts === undefined) {
      out.set(tool, undefined);
      continue;
    }
    const list = rtts.split('/').map(Number);
    if (list.some((n) => !Number.isInteger(n) || n < 0))
      throw new Error(`--tools-large: ${entry}: round trips are whole milliseconds joined by /`);
    out.set(tool, new Set(list));
  }
  return out;
}

/**
 * The tools of `tools` (in that order) to run at `size` objects and `rttMs`: all of them below
 * {@link LARGE_SIZE} or without a --tools-large (`large` undefined), else those `large` names at
 * that round trip.
 */
export function toolsAt(size, rttMs, tools, large) {
  if (size < LARGE_SIZE || large === undefined) return [...tools];
  return tools.filter((t) => large.has(t) && (large.get(t) === undefined || large.get(t).has(rttMs)));
}

/**
 * The order a run measures its cells in: every size below {@link LARGE_SIZE} at each round trip
 * first, then the large sizes at each round trip. A 5,000-object namespace keeps the namespace and
 * garbage collectors busy for minutes after it is deleted, so no small cell follows a large one.
 *
 * @returns `{ rttMs, sizes }` passes, in run order; `sizes` keeps the order given.
 */
export function passes(sizes, rtts) {
  const small = sizes.filter((s) => s < LARGE_SIZE);
  const large = sizes.filter((s) => s >= LARGE_SIZE);
  return [small, large]
    .filter((group) => group.length > 0)
    .flatMap((group) => rtts.map((rttMs) => ({ rttMs, sizes: group })));
}

/**
 * The order of `items` in run `run` (0, 1, …): the rows of a Williams design, a Latin square in which
 * each item comes at each place equally often and right after each other item equally often (over
 * `items.length` runs, or twice as many for an odd count, after which the rows repeat). The image
 * bench orders each run's tools this way: a build's time depends on what the builder did just
 * before, so no tool may always follow the same one or always go first.
 */
export function runOrder(items, run) {
  const n = items.length;
  // The first row: 0, 1, n-1, 2, n-2, …; row r adds r (mod n); an odd n also takes the rows reversed.
  const first = [...Array(n).keys()].map((i) => (i % 2 === 1 ? (i + 1) / 2 : (n - i / 2) % n));
  const period = orderPeriod(n);
  const r = ((run % period) + period) % period;
  const row = first.map((x) => (x + (r % n)) % n);
  return (r < n ? row : row.reverse()).map((i) => items[i]);
}

/** After how many runs {@link runOrder}'s orders repeat for `count` items: `count`, twice that when odd. */
export function orderPeriod(count) {
  return count % 2 === 1 ? 2 * count : count;
}
