// The renderer benchmark (issue 39's speed targets), run alone by `npm run bench -- --only renderers`
// or `node bench/renderers.mjs`: spread deploying a Helm chart and a kustomize overlay of 200 objects
// (bench/renderers-fixture.mjs) against `helm upgrade --install --server-side true` (Helm 4) and
// `kubectl apply --server-side -k`, through the latency proxy (bench/proxy.mjs), first deploy and no-op,
// each run in a fresh namespace; and `spread render` against `helm template` and `kustomize build`
// alone (no cluster), with Node's start (`spread --version`) beside them: the render rows are also
// printed as spread's added time and as the ratio without Node's start. Prints Markdown tables with
// the ratios; the records go to bench/work/renderers.json.
//   options: --rtt 30  --reps 3  --render-runs 7  --size 200  --parts chart,overlay,render (which rows run)
//            --proxy-api-port 8484 --proxy-port 8485 (not the main bench's, so both may run)
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { loadClusterEnv, spreadCli } from './local.mjs';
import { proxiedKubeconfig, startLatencyProxy } from './proxy.mjs';
import {
  chartFiles,
  median,
  overlayFiles,
  RENDERER_TARGETS,
  renderMeasures,
  verdict,
} from './renderers-fixture.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(here);
const work = path.join(here, 'work', 'renderers');
const DIST = path.join(work, 'dist');
const CONTEXT = 'spread-local';
const NAME = 'bench';

const args = process.argv.slice(2);
const value = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const RTT = Number(value('--rtt', '30'));
const REPS = Number(value('--reps', '3'));
const RENDER_RUNS = Number(value('--render-runs', '7'));
const SIZE = Number(value('--size', '200'));
const PREFIX = value('--namespace-prefix', 'bench-renderers');
const PARTS = new Set(value('--parts', 'chart,overlay,render').split(','));

loadClusterEnv(process.env.SPREAD_CLUSTER_DIR || path.join(root, '.cluster'));
const CACHE = path.join(
  process.env.SPREAD_CACHE ??
    path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'spread'),
  'bin',
);
const HELM = path.join(CACHE, `helm-${process.env.SPREAD_HELM_VERSION ?? 'v4.3.1'}`, 'helm');
const KUSTOMIZE = path.join(
  CACHE,
  `kustomize-${process.env.SPREAD_KUSTOMIZE_VERSION ?? 'v5.8.2'}`,
  'kustomize',
);
const KUBECTL = process.env.SPREAD_KUBECTL;
const PROXIED = path.join(work, 'proxied.kubeconfig');
const TOOL_ENV = {
  HELM_CACHE_HOME: path.join(work, 'helm', 'cache'),
  HELM_CONFIG_HOME: path.join(work, 'helm', 'config'),
  HELM_DATA_HOME: path.join(work, 'helm', 'data'),
};

/** Runs a command; resolves with its wall time (ms), throws with its output when it fails. */
function timed(cmd, argv, env = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(cmd, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.stderr.on('data', (c) => {
      out += c;
    });
    child.on('close', (status) => {
      const ms = performance.now() - started;
      if (status === 0) resolve(ms);
      else
        reject(new Error(`${path.basename(cmd)} ${argv.join(' ')} failed (${status}):\n${out.slice(-3000)}`));
    });
  });
}

function writeFiles(dir, files) {
  rmSync(dir, { recursive: true, force: true });
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    writeFileSync(path.join(dir, f), text);
  }
}

const kubectl = (argv, env = {}) =>
  execFileSync(KUBECTL, argv, { encoding: 'utf8', env: { ...process.env, ...env } });

/** A fresh namespace (direct to the API server, not through the proxy), labelled for clean-up. */
function createNamespace(ns) {
  kubectl(['create', 'namespace', ns]);
  kubectl(['label', 'namespace', ns, 'spread-bench=true']);
}

/** The commands each tool deploys with (through the proxied kubeconfig). */
function deployers(chart, overlay, spread) {
  const env = { ...TOOL_ENV, KUBECONFIG: PROXIED };
  const spreadDeploy = (dir, extra) => (ns) =>
    timed(
      process.execPath,
      [...spread.argv, 'deploy', dir, CONTEXT, '-n', ns, '--name', NAME, '--no-wait', ...extra],
      {
        ...spread.env,
        ...env,
      },
    );
  return {
    chart: {
      spread: spreadDeploy(chart, ['--helm', HELM]),
      helm: (ns) =>
        timed(
          HELM,
          ['upgrade', '--install', NAME, chart, '-n', ns, '--kube-context', CONTEXT, '--server-side', 'true'],
          env,
        ),
    },
    overlay: {
      spread: spreadDeploy(overlay, ['--kustomize', KUSTOMIZE]),
      kubectl: (ns) => timed(KUBECTL, ['apply', '--server-side', '-k', overlay, '-n', ns], env),
    },
  };
}

/** Each tool's first deploy and no-op of one input, REPS times, the tools alternating first. */
async function deploySteps(input, tools, runs) {
  const names = Object.keys(tools);
  for (let rep = 1; rep <= REPS; rep++) {
    for (const tool of rep % 2 ? names : [...names].reverse()) {
      const ns = `${PREFIX}-${input}-${tool}-${rep}`;
      createNamespace(ns);
      const first = await tools[tool](ns);
      const noop = await tools[tool](ns);
      // Every object there: 40 Deployments of 200 objects (the fixture's fifth).
      const deployments = kubectl(['get', 'deployments', '-n', ns, '-o', 'name']).trim().split('\n').length;
      if (deployments !== Math.floor(SIZE / 5))
        throw new Error(`${tool} left ${deployments} Deployments in ${ns}`);
      console.log(`  ${input} ${tool} #${rep}: first ${Math.round(first)} ms, no-op ${Math.round(noop)} ms`);
      runs.push({ input, tool, rep, step: 'first', ms: first }, { input, tool, rep, step: 'noop', ms: noop });
    }
  }
}

/** A kustomization beside `overlay` listing it with `buildMetadata: [originAnnotations]`; its folder. */
function originWrapper(overlay) {
  const dir = path.join(path.dirname(overlay), 'origin');
  writeFiles(dir, {
    'kustomization.yaml': `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ../${path.basename(overlay)}\nbuildMetadata: [originAnnotations]\n`,
  });
  return dir;
}

/** `spread render` against the renderer alone, RENDER_RUNS times interleaved (no cluster involved). */
async function renderSteps(chart, overlay, spread, runs) {
  const env = { ...spread.env, ...TOOL_ENV };
  const render = (dir, extra) => () =>
    timed(process.execPath, [...spread.argv, 'render', dir, '-n', 'bench', '--name', NAME, ...extra], env);
  // Node's own start (the bundle's --version: same Node options, no work), interleaved with both.
  const nodeStart = () => timed(process.execPath, [...spread.argv, '--version'], env);
  const origin = originWrapper(overlay);
  const pairs = {
    'render chart': {
      spread: render(chart, ['--helm', HELM]),
      helm: () => timed(HELM, ['template', NAME, chart, '-n', 'bench'], TOOL_ENV),
      node: nodeStart,
    },
    'render overlay': {
      spread: render(overlay, ['--kustomize', KUSTOMIZE]),
      kustomize: () => timed(KUSTOMIZE, ['build', overlay]),
      // The same build with the origin annotations the issue requires of spread (a kustomization
      // over the overlay asking for them, as spread's own wrapper does).
      'kustomize-origin': () => timed(KUSTOMIZE, ['build', origin]),
      node: nodeStart,
    },
  };
  for (const [input, tools] of Object.entries(pairs)) {
    const names = Object.keys(tools);
    for (let rep = 1; rep <= RENDER_RUNS; rep++)
      for (const tool of rep % 2 ? names : [...names].reverse())
        runs.push({ input, tool, rep, step: 'render', ms: await tools[tool]() });
  }
}

/** The Markdown table: medians (min–max) and spread ÷ peer against the issue's targets. */
function table(runs) {
  const cell = (input, tool, step) =>
    runs.filter((r) => r.input === input && r.tool === tool && r.step === step).map((r) => r.ms);
  const rows = [
    ['chart', 'first', 'helm', RENDERER_TARGETS.chartFirst],
    ['chart', 'noop', 'helm', RENDERER_TARGETS.chartNoop],
    ['overlay', 'first', 'kubectl', RENDERER_TARGETS.overlayFirst],
    ['overlay', 'noop', 'kubectl', undefined],
    ['render chart', 'render', 'helm', RENDERER_TARGETS.render],
    ['render overlay', 'render', 'kustomize', RENDERER_TARGETS.render],
    ['render overlay', 'render', 'kustomize-origin', RENDERER_TARGETS.render],
  ];
  const fmt = (v) =>
    v.length
      ? `${Math.round(median(v))} ms (${Math.round(Math.min(...v))}–${Math.round(Math.max(...v))})`
      : '–';
  const lines = [
    '| input | step | runs | spread | peer | peer time | spread − peer | spread ÷ peer |',
    '|---|---|---:|---:|---|---:|---:|---|',
  ];
  for (const [input, step, peer, target] of rows) {
    const s = cell(input, 'spread', step);
    const p = cell(input, peer, step);
    // For render rows, what spread adds to the renderer it runs (its own time).
    const own = s.length && p.length ? `${Math.round(median(s) - median(p))} ms` : '–';
    lines.push(
      `| ${input} | ${step} | ${s.length} | ${fmt(s)} | ${peer} | ${fmt(p)} | ${own} | ${verdict(median(s), median(p), target)} |`,
    );
  }
  return [...lines, '', renderTable(cell, fmt)].join('\n');
}

/** The render target's nearest honest measures: spread's added time, and the ratio without Node's start. */
function renderTable(cell, fmt) {
  const lines = [
    '| input | spread render | renderer | Node start (`spread --version`) | spread − renderer | spread ÷ renderer | (spread − Node start) ÷ renderer |',
    '|---|---:|---:|---:|---:|---|---|',
  ];
  for (const [input, peer] of [
    ['render chart', 'helm'],
    ['render overlay', 'kustomize'],
    ['render overlay', 'kustomize-origin'],
  ]) {
    const [s, p, n] = [
      cell(input, 'spread', 'render'),
      cell(input, peer, 'render'),
      cell(input, 'node', 'render'),
    ];
    const m = renderMeasures(median(s), median(p), median(n));
    const own = m?.withoutNodeStart;
    lines.push(
      `| ${input} | ${fmt(s)} | ${peer} ${fmt(p)} | ${fmt(n)} | ${m ? `${Math.round(m.addedMs)} ms` : '–'} | ${m ? `${m.ratio.toFixed(2)} ×` : '–'} | ${own === undefined ? '–' : `${own.toFixed(2)} × (target ≤ ${RENDERER_TARGETS.render} ×: ${own <= RENDERER_TARGETS.render ? 'met' : '**missed**'})`} |`,
    );
  }
  return lines.join('\n');
}

async function main() {
  if (!existsSync(path.join(root, 'dist', 'cli', 'index.js')))
    throw new Error('dist/ is missing: npm run build');
  rmSync(DIST, { recursive: true, force: true });
  cpSync(path.join(root, 'dist'), DIST, { recursive: true });
  const spread = spreadCli(DIST);
  const chart = path.join(work, 'chart');
  const kust = path.join(work, 'kustomize');
  writeFiles(chart, chartFiles(SIZE));
  writeFiles(kust, overlayFiles(SIZE));
  const overlay = path.join(kust, 'overlay');
  const runs = [];
  const load = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  if (PARTS.has('render')) {
    console.log(`render (${RENDER_RUNS} runs each, no cluster)`);
    await renderSteps(chart, overlay, spread, runs);
  }
  if (PARTS.has('chart') || PARTS.has('overlay')) await deployParts(chart, overlay, spread, runs);
  const text = `${SIZE} objects, round trip ${RTT} ms; ${new Date().toISOString()}; load ${load} → ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}\n\n${table(runs)}`;
  console.log(`\n${text}`);
  writeFileSync(path.join(work, 'renderers.json'), JSON.stringify({ size: SIZE, rttMs: RTT, runs }, null, 2));
}

/** The deploy rows: each tool through the latency proxy, in fresh namespaces removed afterwards. */
async function deployParts(chart, overlay, spread, runs) {
  const kc = parseYaml(readFileSync(process.env.KUBECONFIG, 'utf8'));
  const ctx = kc.contexts.find((c) => c.name === CONTEXT).context;
  const upstream = kc.clusters.find((c) => c.name === ctx.cluster).cluster.server;
  const proxy = await startLatencyProxy({
    upstream,
    apiPort: Number(value('--proxy-api-port', '8484')),
    listenPort: Number(value('--proxy-port', '8485')),
    logFile: path.join(work, 'toxiproxy.log'),
  });
  try {
    writeFileSync(
      PROXIED,
      proxiedKubeconfig(readFileSync(process.env.KUBECONFIG, 'utf8'), upstream, proxy.url),
      { mode: 0o600 },
    );
    await proxy.setRtt(RTT);
    console.log(`deploy at round trip ${RTT} ms through ${proxy.url}, ${REPS} runs each`);
    const tools = deployers(chart, overlay, spread);
    if (PARTS.has('chart')) await deploySteps('chart', tools.chart, runs);
    if (PARTS.has('overlay')) await deploySteps('overlay', tools.overlay, runs);
  } finally {
    proxy.stop();
    for (const ns of kubectl(['get', 'namespaces', '-o', 'name'])
      .split('\n')
      .filter((n) => n.startsWith(`namespace/${PREFIX}-`)))
      kubectl(['delete', ns, '--wait=false']);
  }
}

await main();
