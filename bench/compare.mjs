// `npm run bench -- --compare DIR`: the deploy benchmark of this checkout's build (tool `spread`) and
// of an older build (tool `spread-before`, DIR's dist/) in one run, their runs interleaved against the
// same cluster and latency proxy, so that the machine's load reaches both alike. This module turns
// the run's rows into the comparison: per measure both medians and after ÷ before.
import { existsSync } from 'node:fs';
import path from 'node:path';

/** The tool names of the two builds. */
export const AFTER = 'spread';
export const BEFORE = 'spread-before';
/** A ratio above this (after ÷ before) is worse than the 5 % issue 40 allows. */
export const LIMIT = 1.05;

/**
 * The dist/ of the build in `dir`: `dir` itself when it holds cli/index.js, else `dir`/dist.
 * @throws Error when neither holds cli/index.js.
 */
export function buildDist(dir) {
  for (const d of [dir, path.join(dir, 'dist')])
    if (existsSync(path.join(d, 'cli', 'index.js'))) return path.resolve(d);
  throw new Error(
    `--compare ${dir}: no cli/index.js in it or in its dist/ (build it: node scripts/build.mjs)`,
  );
}

const div = (a, b) => (a === undefined || b === undefined || b === 0 ? undefined : a / b);

/**
 * One comparison per objects (or a large input's name) × round trip × step measured for both builds,
 * in the rows' order: each
 * build's median time, time range, CPU time (user and system), requests (median total) and RSS
 * (median of the runs' peaks, MB), and the ratios after ÷ before. Rows are bench.mjs's aggregate
 * rows ({size, rttMs, step, tool, reps, ms, minMs, maxMs, cpuMs, rssMb, requests}).
 */
export function compareRows(rows) {
  const out = [];
  for (const a of rows.filter((r) => r.tool === AFTER)) {
    const b = rows.find(
      (r) => r.tool === BEFORE && r.size === a.size && r.rttMs === a.rttMs && r.step === a.step,
    );
    if (!b) continue;
    const side = (r) => ({
      reps: r.reps,
      ms: r.ms,
      minMs: r.minMs,
      maxMs: r.maxMs,
      requests: r.requests?.total,
      rssMb: r.rssMb,
      cpuMs: r.cpuMs,
    });
    const before = side(b);
    const after = side(a);
    out.push({
      size: a.size,
      rttMs: a.rttMs,
      step: a.step,
      before,
      after,
      ratio: {
        ms: div(after.ms, before.ms),
        cpuMs: div(after.cpuMs, before.cpuMs),
        requests: div(after.requests, before.requests),
        rssMb: div(after.rssMb, before.rssMb),
      },
    });
  }
  return out;
}

/**
 * The largest per-step median peak RSS of each build at `size` objects (the benchmark's memory
 * measure: the 5,000-object target is on the largest step), and their ratio; undefined when either
 * build has no RSS there.
 */
export function peakRss(comparisons, size) {
  const at = comparisons.filter((c) => c.size === size);
  const max = (side) => {
    const v = at.map((c) => c[side].rssMb).filter((x) => x !== undefined);
    return v.length > 0 ? Math.max(...v) : undefined;
  };
  const before = max('before');
  const after = max('after');
  if (before === undefined || after === undefined) return undefined;
  return { size, before, after, ratio: after / before };
}

/** The ratios worse than {@link LIMIT}, as `objects/RTT/step measure ratio` texts. */
export function worse(comparisons, limit = LIMIT) {
  const out = [];
  for (const c of comparisons)
    for (const [measure, r] of Object.entries(c.ratio))
      if (r !== undefined && r > limit)
        out.push(`${c.size} objects, RTT ${c.rttMs} ms, ${c.step}: ${measure} ${r.toFixed(3)}`);
  return out;
}

const ms = (v) => (v === undefined ? '–' : `${Math.round(v)} ms`);
const mb = (v) => (v === undefined ? '–' : `${v.toFixed(1)} MB`);
const num = (v) => (v === undefined ? '–' : String(v));
const x = (r, limit) => (r === undefined ? '–' : `${r.toFixed(3)}${r > limit ? ' **worse**' : ''}`);

/** The comparison as a Markdown table, then the peak RSS per size and the ratios worse than the limit. */
export function compareTable(comparisons, limit = LIMIT) {
  const lines = [
    '| objects | RTT | step | runs | time before (min–max) | time after (min–max) | time ÷ | CPU before → after | ÷ | requests before → after | ÷ | RSS before → after | ÷ |',
    '|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const c of comparisons) {
    const { before: b, after: a, ratio: r } = c;
    lines.push(
      `| ${typeof c.size === 'number' ? c.size.toLocaleString('en-US') : c.size} | ${c.rttMs} ms | ${c.step} | ${b.reps}+${a.reps} | ${ms(b.ms)} (${ms(b.minMs)}–${ms(b.maxMs)}) | ${ms(a.ms)} (${ms(a.minMs)}–${ms(a.maxMs)}) | ${x(r.ms, limit)} | ${ms(b.cpuMs)} → ${ms(a.cpuMs)} | ${x(r.cpuMs, limit)} | ${num(b.requests)} → ${num(a.requests)} | ${x(r.requests, limit)} | ${mb(b.rssMb)} → ${mb(a.rssMb)} | ${x(r.rssMb, limit)} |`,
    );
  }
  lines.push('');
  for (const size of [...new Set(comparisons.map((c) => c.size))].filter((s) => typeof s === 'number')) {
    const p = peakRss(comparisons, size);
    if (p)
      lines.push(
        `- peak RSS at ${size.toLocaleString('en-US')} objects (largest step median): ${mb(p.before)} → ${mb(p.after)}, ${x(p.ratio, limit)}`,
      );
  }
  const bad = worse(comparisons, limit);
  lines.push(
    bad.length === 0
      ? `- no ratio worse than ${limit.toFixed(2)}`
      : `- worse than ${limit.toFixed(2)}: ${bad.join('; ')}`,
  );
  return `${lines.join('\n')}\n`;
}
