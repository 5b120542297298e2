// The deploy benchmark's machine-readable results (`npm run bench -- --json FILE`): one record per
// objects × round trip × step × tool, with the median, minimum and maximum wall time of its runs.
import { writeFileSync } from 'node:fs';

/** The tools the records name: spread, kubectl (server-side apply), kubectl with ApplySet prune, Helm, the floors. */
export const TOOLS = ['spread', 'kubectl', 'kubectl-applyset', 'helm', 'floor'];
/** The steps the records name, in order: first deploy, no-op redeploy, 10 % changed, 10 % pruned. */
export const STEPS = ['first', 'noop', 'changed', 'pruned'];

/** The median of numbers (the mean of the middle two for an even count); `undefined` for none. */
export function median(values) {
  const v = values.filter((x) => x !== undefined && x !== null).sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
}

const round1 = (x) => (x === undefined ? null : Math.round(x * 10) / 10);

/**
 * Records from single runs. A run: `{objects, rttMs, step, tool, ms, requests?, writes?, rssKb?}`
 * (`step` one of {@link STEPS}, `tool` one of {@link TOOLS}, `requests` the API requests counted at
 * the server, `writes` objects of the set whose resourceVersion changed, `rssKb` peak RSS in KiB).
 * A record: `{objects, rtt_ms, step, tool, runs, median_ms, min_ms, max_ms, requests, writes,
 * peak_rss_mb}`; times in ms to 0.1, `requests` and `writes` the medians of the runs (null when not
 * counted), `peak_rss_mb` the largest of the runs in MiB (null when not measured). Sorted by objects,
 * round trip, step and tool in the orders above.
 * @throws Error on a run with an unknown step or tool, or a time that is not a number ≥ 0.
 */
export function benchRecords(runs) {
  const groups = new Map();
  for (const r of runs) {
    if (!STEPS.includes(r.step)) throw new Error(`unknown step ${r.step} (one of ${STEPS.join(', ')})`);
    if (!TOOLS.includes(r.tool)) throw new Error(`unknown tool ${r.tool} (one of ${TOOLS.join(', ')})`);
    if (typeof r.ms !== 'number' || !(r.ms >= 0)) throw new Error(`run of ${r.tool} ${r.step}: time ${r.ms}`);
    const key = [r.objects, r.rttMs, STEPS.indexOf(r.step), TOOLS.indexOf(r.tool)];
    const id = key.join('|');
    if (!groups.has(id)) groups.set(id, { key, runs: [] });
    groups.get(id).runs.push(r);
  }
  const cmp = (a, b) => {
    for (let i = 0; i < a.key.length; i++) if (a.key[i] !== b.key[i]) return a.key[i] - b.key[i];
    return 0;
  };
  return [...groups.values()].sort(cmp).map(({ runs: rs }) => {
    const ms = rs.map((r) => r.ms);
    const rss = rs.map((r) => r.rssKb).filter((x) => x !== undefined && x !== null);
    return {
      objects: rs[0].objects,
      rtt_ms: rs[0].rttMs,
      step: rs[0].step,
      tool: rs[0].tool,
      runs: rs.length,
      median_ms: round1(median(ms)),
      min_ms: round1(Math.min(...ms)),
      max_ms: round1(Math.max(...ms)),
      requests: median(rs.map((r) => r.requests)) ?? null,
      writes: median(rs.map((r) => r.writes)) ?? null,
      peak_rss_mb: rss.length > 0 ? round1(Math.max(...rss) / 1024) : null,
    };
  });
}

/** Writes records ({@link benchRecords}) to `file` as a JSON array, two-space indented. */
export function writeRecords(file, records) {
  writeFileSync(file, `${JSON.stringify(records, null, 2)}\n`);
}
