// The fleet benchmark (issue 43's speed target), run alone by `npm run bench -- --only fleet` or
// `node bench/fleet.mjs`: four local clusters (scripts/cluster/clusters.sh 4), each behind its own
// latency proxy (bench/proxy.mjs), 200 objects (bench/fixture.mjs) deployed by the CLI
//   1. to each cluster alone: `spread deploy DIR CONTEXT -n NS --name bench`, one after another;
//   2. as a fleet of the four in two waves (canary: cluster 1, then the other three at once):
//      `spread deploy DIR --environment production`, same objects, another namespace.
// Every deploy waits for its rollout (kwok makes the Pods ready): a fleet must, since a wave starts
// only once the previous one is healthy.
// Measured: wall time and peak RSS (GNU time's %M) of every deploy. Targets: the fleet's wall time at
// most 1.3 × the sum over waves of the slowest single-cluster deploy of that wave, and its peak RSS at
// most 1.5 × one cluster's deploy (the median of the four). Prints a Markdown section and writes it
// to bench/RESULTS.md ("## Fleet") unless --no-write.
//   options: --rtt 30  --size 200  --proxy-api-port 8494 (and the next 7 ports: four Toxiproxy servers,
//            each its API port then its proxy's)  --no-write  --keep (keep the namespaces)
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { generate, model } from './fixture.mjs';
import { loadClusterEnv, spreadCli } from './local.mjs';
import { proxiedKubeconfig, startLatencyProxy } from './proxy.mjs';
import { replaceSection } from './results.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(here);
const work = path.join(here, 'work', 'fleet');
const DIST = path.join(work, 'dist');
const COUNT = 4;
/** Issue 43's targets. */
export const FLEET_TARGETS = { wall: 1.3, rss: 1.5 };

const args = process.argv.slice(2);
const value = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const RTT = Number(value('--rtt', '30'));
const SIZE = Number(value('--size', '200'));
const PROXY_BASE = Number(value('--proxy-api-port', '8494'));
const clusterDir = process.env.SPREAD_CLUSTER_DIR || path.join(root, '.cluster');

loadClusterEnv(clusterDir);
const KUBECTL = process.env.SPREAD_KUBECTL;
const GNU_TIME = '/usr/bin/time';

/** Runs a command under GNU time; resolves with its wall time (ms) and peak RSS (KiB). */
function timed(argv, env) {
  const rssFile = path.join(work, 'rss');
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(GNU_TIME, ['-f', '%M', '-o', rssFile, process.execPath, ...argv], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.stderr.on('data', (c) => {
      out += c;
    });
    child.on('close', (status) => {
      const ms = performance.now() - started;
      if (status !== 0)
        reject(new Error(`spread ${argv.slice(-6).join(' ')} failed (${status}):\n${out.slice(-3000)}`));
      else resolve({ ms, rssKiB: Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop()) });
    });
  });
}

const contextOf = (n) => (n === 1 ? 'spread-local' : `spread-local-${n}`);

function kubectl(n, argv) {
  return execFileSync(
    KUBECTL,
    ['--kubeconfig', path.join(clusterDir, 'clusters.kubeconfig'), '--context', contextOf(n), ...argv],
    {
      encoding: 'utf8',
    },
  );
}

/** The fleet's spread.yaml: the four clusters, a canary wave of cluster 1, then the rest at once. */
function fleetFile(ns) {
  const clusters = Array.from(
    { length: COUNT },
    (_, i) => `      - { name: c${i + 1}, context: ${contextOf(i + 1)} }\n`,
  );
  return `environments:\n  production:\n    namespace: ${ns}\n    clusters:\n${clusters.join('')}    waves:\n      - { name: canary, clusters: [c1] }\n      - { name: rest }\n`;
}

const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const met = (ratio, target) =>
  `${ratio.toFixed(2)} × (target ≤ ${target} ×: ${ratio <= target ? 'met' : '**missed**'})`;

async function main() {
  execFileSync('bash', [path.join(root, 'scripts/cluster/clusters.sh'), String(COUNT)], { stdio: 'inherit' });
  if (!existsSync(path.join(root, 'dist', 'cli', 'index.js')))
    throw new Error('dist/ is missing: npm run build');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  cpSync(path.join(root, 'dist'), DIST, { recursive: true });
  const spread = spreadCli(DIST);
  const stamp = Date.now().toString(36);
  const nsSingle = `bench-fleet-${stamp}-single`;
  const nsFleet = `bench-fleet-${stamp}`;
  // Two directories of the same objects; CRDs of their own group each, so that neither deployment
  // owns the other's.
  const single = path.join(work, 'single', 'bench');
  const fleet = path.join(work, 'fleet', 'bench');
  generate(single, SIZE, { group: `s${stamp}.bench.spread.example` });
  generate(fleet, SIZE, { group: `f${stamp}.bench.spread.example` });
  writeFileSync(path.join(fleet, 'spread.yaml'), fleetFile(nsFleet));

  const kubeconfigText = readFileSync(path.join(clusterDir, 'clusters.kubeconfig'), 'utf8');
  const kc = parseYaml(kubeconfigText);
  let proxied = kubeconfigText;
  const proxies = [];
  const loadBefore = load();
  try {
    for (let n = 1; n <= COUNT; n++) {
      const upstream = kc.clusters.find((c) => c.name === contextOf(n)).cluster.server;
      const proxy = await startLatencyProxy({
        upstream,
        apiPort: PROXY_BASE + 2 * (n - 1),
        listenPort: PROXY_BASE + 2 * (n - 1) + 1,
        logFile: path.join(work, `toxiproxy-${n}.log`),
      });
      proxies.push(proxy);
      await proxy.setRtt(RTT);
      proxied = proxiedKubeconfig(proxied, upstream, proxy.url);
    }
    const kubeconfig = path.join(work, 'proxied.kubeconfig');
    writeFileSync(kubeconfig, proxied, { mode: 0o600 });
    for (let n = 1; n <= COUNT; n++) {
      kubectl(n, ['create', 'namespace', nsSingle]);
      kubectl(n, ['create', 'namespace', nsFleet]);
    }
    const env = { ...spread.env, KUBECONFIG: kubeconfig };
    const singles = [];
    for (let n = 1; n <= COUNT; n++) {
      const argv = [...spread.argv, 'deploy', single, contextOf(n), '-n', nsSingle, '--name', 'bench'];
      singles.push(await timed(argv, env));
      console.log(`  cluster ${n} alone: ${Math.round(singles.at(-1).ms)} ms, ${singles.at(-1).rssKiB} KiB`);
    }
    const fleetRun = await timed([...spread.argv, 'deploy', fleet, '--environment', 'production'], env);
    console.log(`  fleet: ${Math.round(fleetRun.ms)} ms, ${fleetRun.rssKiB} KiB`);
    for (let n = 1; n <= COUNT; n++)
      for (const ns of [nsSingle, nsFleet]) {
        const deployments = kubectl(n, ['get', 'deployments', '-n', ns, '-o', 'name'])
          .trim()
          .split('\n').length;
        if (deployments !== model(SIZE).filter((o) => o.kind === 'Deployment').length)
          throw new Error(`cluster ${n}: ${deployments} Deployments in ${ns}`);
      }
    return report(singles, fleetRun, loadBefore);
  } finally {
    for (const p of proxies) p.stop();
    if (!args.includes('--keep'))
      for (let n = 1; n <= COUNT; n++)
        kubectl(n, ['delete', 'namespace', nsSingle, nsFleet, '--wait=false', '--ignore-not-found']);
  }
}

/** The section: every deploy's wall time and RSS, the two ratios against the targets. */
function report(singles, fleetRun, loadBefore) {
  const ms = singles.map((s) => s.ms);
  const expected = ms[0] + Math.max(...ms.slice(1));
  const rssOne = median(singles.map((s) => s.rssKiB));
  const mib = (kib) => `${(kib / 1024).toFixed(0)} MiB`;
  const rows = singles.map(
    (s, i) =>
      `| cluster ${i + 1} alone (wave ${i === 0 ? 'canary' : 'rest'}) | ${Math.round(s.ms)} ms | ${mib(s.rssKiB)} |`,
  );
  return [
    '## Fleet',
    '',
    `\`node bench/fleet.mjs\` (\`npm run bench -- --only fleet\`): ${COUNT} local clusters × ${SIZE} objects, each cluster behind its own latency proxy at a ${RTT} ms round trip, deployed by the CLI, each deploy waiting for its rollout (a fleet waits: a wave starts when the previous is healthy); one run, ${new Date().toISOString()}; load average ${loadBefore} before, ${load()} after; ${os.cpus().length} cores.`,
    '',
    '| deploy | wall time | peak RSS |',
    '|---|---:|---:|',
    ...rows,
    `| the fleet: canary (cluster 1), then clusters 2–4 at once | ${Math.round(fleetRun.ms)} ms | ${mib(fleetRun.rssKiB)} |`,
    '',
    `- Wall time: fleet ${Math.round(fleetRun.ms)} ms ÷ (canary ${Math.round(ms[0])} ms + slowest of the rest ${Math.round(Math.max(...ms.slice(1)))} ms = ${Math.round(expected)} ms) = ${met(fleetRun.ms / expected, FLEET_TARGETS.wall)}`,
    `- Peak RSS: fleet ${mib(fleetRun.rssKiB)} ÷ one cluster's deploy (median of the four) ${mib(rssOne)} = ${met(fleetRun.rssKiB / rssOne, FLEET_TARGETS.rss)}`,
    '',
  ].join('\n');
}

const section = await main();
console.log(`\n${section}`);
if (!args.includes('--no-write')) replaceSection(path.join(here, 'RESULTS.md'), '## Fleet', section);
