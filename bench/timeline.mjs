// The request timeline of one tool's run, from the API server's audit log (`where the time goes` in
// bench/RESULTS.md): every request of a user agent in a namespace (and cluster-scoped ones), with
// the server's receive and response times relative to the first, and the serial rounds: the
// stretches where the server was busy with the run, separated by gaps in which it waited for the
// client (the client's own work plus, through the latency proxy, a round trip each).
//
//   node bench/timeline.mjs NAMESPACE [AGENT] [--run N] [--gap MS] [--log FILE]
//     AGENT: a user agent (`spread`, `kubectl`, `Helm`), default spread; --run N: the Nth run of it
//     in that namespace (runs are apart by --gap ms, default 5000), default the last; --log: default
//     $SPREAD_CLUSTER_DIR/logs/audit.log.
import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Busy stretches of requests `[{start, end}]` (ms): overlapping or touching requests merge. Returns
 * `{rounds: [{start, end, requests}], busyMs, gapMs}`.
 */
export function serialRounds(requests) {
  const sorted = [...requests].sort((a, b) => a.start - b.start);
  const rounds = [];
  for (const r of sorted) {
    const last = rounds.at(-1);
    if (last && r.start <= last.end) {
      last.end = Math.max(last.end, r.end);
      last.requests++;
    } else rounds.push({ start: r.start, end: r.end, requests: 1 });
  }
  const busyMs = rounds.reduce((n, r) => n + r.end - r.start, 0);
  const span = rounds.length ? rounds.at(-1).end - rounds[0].start : 0;
  return { rounds, busyMs, gapMs: span - busyMs };
}

function main() {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => {
    const i = args.indexOf(name);
    if (i < 0) return fallback;
    const v = args[i + 1];
    args.splice(i, 2);
    return v;
  };
  const log = opt(
    '--log',
    path.join(process.env.SPREAD_CLUSTER_DIR ?? path.join(process.cwd(), '.cluster'), 'logs', 'audit.log'),
  );
  const runArg = opt('--run', undefined);
  const gap = Number(opt('--gap', '5000'));
  const [ns, agent = 'spread'] = args;
  if (!ns) {
    process.stderr.write(
      'usage: node bench/timeline.mjs NAMESPACE [AGENT] [--run N] [--gap MS] [--log FILE]\n',
    );
    process.exit(2);
  }
  const events = [];
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line);
    if (e.stage !== 'ResponseComplete') continue;
    const ua = e.userAgent ?? '';
    if (ua !== agent && !ua.startsWith(`${agent}/`)) continue;
    const eventNs = e.objectRef?.namespace;
    if (eventNs && eventNs !== ns) continue;
    events.push({
      start: Date.parse(e.requestReceivedTimestamp) + microsOf(e.requestReceivedTimestamp),
      end: Date.parse(e.stageTimestamp) + microsOf(e.stageTimestamp),
      verb: `${e.verb}${/[?&]dryRun=All/.test(e.requestURI) ? ' (dry run)' : ''}`,
      uri: e.requestURI,
      namespaced: Boolean(eventNs),
    });
  }
  events.sort((a, b) => a.start - b.start);
  // Cluster-scoped requests (discovery, CRDs) name no namespace: only those among the namespace's
  // own runs count (within --gap of one of its requests), not other runs' of the same agent.
  const own = events.filter((e) => e.namespaced).map((e) => e.start);
  const near = (t) => own.some((o) => Math.abs(o - t) <= gap);
  const kept = events.filter((e) => e.namespaced || near(e.start));
  events.length = 0;
  events.push(...kept);
  const runs = [];
  for (const e of events) {
    if (runs.length === 0 || e.start - runs.at(-1).at(-1).start > gap) runs.push([]);
    runs.at(-1).push(e);
  }
  if (runs.length === 0) throw new Error(`no requests of ${agent} in ${ns} in ${log}`);
  const run = runs[runArg === undefined ? runs.length - 1 : Number(runArg) - 1];
  if (!run) throw new Error(`only ${runs.length} runs of ${agent} in ${ns}`);
  const t0 = run[0].start;
  const { rounds, busyMs, gapMs } = serialRounds(run);
  let round = 0;
  for (const e of run) {
    while (rounds[round] && e.start > rounds[round].end) round++;
    process.stdout.write(
      `${String(round + 1).padStart(3)} ${(e.start - t0).toFixed(0).padStart(7)} ${(e.end - t0).toFixed(0).padStart(7)}  ${e.verb.padEnd(16)} ${e.uri.slice(0, 110)}\n`,
    );
  }
  process.stdout.write(
    `${run.length} requests, ${rounds.length} serial rounds, ${(rounds.at(-1).end - t0).toFixed(0)} ms from the first request to the last answer: the server busy ${busyMs.toFixed(0)} ms, waiting for the client ${gapMs.toFixed(0)} ms\n`,
  );
}

/** The sub-millisecond part of an RFC 3339 time with microseconds, in ms (Date.parse drops it). */
function microsOf(time) {
  const m = /\.\d{3}(\d{3})/.exec(time);
  return m ? Number(m[1]) / 1000 : 0;
}

if (import.meta.url === `file://${process.argv[1]}`) main();
