// The deploy benchmark, spread against kubectl and Helm (`npm run bench`): against the local cluster of
// scripts/cluster/up.sh, in one run, at several network round trips, written to bench/RESULTS.md
// (section "Deploy"; the other sections are kept) and, with --json FILE, as records (bench/records.mjs).
//
// Every tool talks to the API server through one latency proxy (bench/proxy.mjs: Toxiproxy on
// loopback, TLS passed through, a latency toxic per direction), at each round trip of --rtt in turn.
// For each size (bench/fixture.mjs: Deployments, Services, ConfigMaps, Secrets, ServiceAccounts, a CRD
// and custom resources in spread layout), each tool deploys into a fresh namespace of its own, four steps:
//   1. first deploy (everything created)   2. no-op redeploy
//   3. redeploy with 10 % of the objects changed   4. redeploy with 10 % more removed (prune)
// spread: `node dist/cli/index.js deploy DIR spread-local -n NS --name bench --no-wait` (the others do
// not wait either). kubectl and Helm read no spread layout, so their input is `spread render` of the same
// directory (plain manifests, the same objects), the CRD in a file of its own:
//   kubectl (steps 1-3; it cannot prune without an ApplySet):
//     kubectl apply --server-side --field-manager kubectl-crds -f crd.yaml
//     kubectl wait --for condition=Established crd/…
//     kubectl apply --server-side -n NS -f DIR -R
//   kubectl-applyset: the same, the last command `KUBECTL_APPLYSET=true kubectl apply --server-side
//     --prune --applyset=bench -n NS -f DIR -R`
//   helm: a chart whose templates/ hold the manifests verbatim (the CRD in crds/, Helm's place for
//     it), `helm upgrade --install bench CHART -n NS` (no --wait)
// (the CRD first: one `kubectl apply` cannot create a CRD and its custom resources together).
// The floors (tool `floor`): the cluster floor (step `first`): the harness sends just the server-side
// applies of kubectl's input through the proxy, as many in flight as spread's default --concurrency, nothing else; the parse floor (step
// `noop`): a fresh Node process that only parses the directory (bench/parse-floor.mjs).
//
// Measured per step: wall time; API requests by verb, counted at the API server from its audit log
// (.cluster/logs/audit.log, written by up.sh's audit policy) by user agent (`spread`, `kubectl/…`,
// `Helm/…`) and namespace; writes that changed a resourceVersion (every object of the set and the
// tools' own records, listed before and after); peak RSS (GNU time's %M). Medians of the repetitions.
// Also: start-up of dist/index.js and dist/cli/index.js to their first API request, the bundle's size,
// and `spread render` of 5,000 objects.
//
//   npm run bench                          everything, RESULTS.md written
//   npm run bench -- --json out.json       the same, and the records in out.json
//   node bench/bench.mjs --sizes 500 --rtt 30 --reps 1 --no-write   a quick look (RESULTS.md untouched)
//   options: --sizes 500,5000  --rtt 0,10,30  --reps 3  --reps-large 1 (for 5,000)
//            --tools spread,kubectl,kubectl-applyset,helm,floor  --only-extras (start-up, bundle, render)
//            --tools-large spread,floor,kubectl@0 (the default; at 5,000 objects: tools, each @RTT/RTT
//              or at every RTT; `all`: every tool of --tools at every RTT)
//            --skip-extras  --keep (keep the namespaces)  --write (RESULTS.md even for a restricted run)
//            --proxy-api-port 8474 --proxy-port 8475 (Toxiproxy's API and the proxy, on 127.0.0.1)
//            --only renderers (issue 39's Helm chart and kustomize overlay rows alone: bench/renderers.mjs;
//              a full run ends with them)
//            --only fleet (issue 43's fleet of four clusters in two waves: bench/fleet.mjs, its own run)
//            --compare DIR (an older build, DIR or DIR/dist, as tool spread-before beside this one's
//              spread, their runs interleaved; prints both medians and after ÷ before per measure:
//              bench/compare.mjs; RESULTS.md untouched)
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pLimit from 'p-limit';
import { parseAllDocuments, parse as parseYaml, stringify } from 'yaml';
import { AFTER, BEFORE, buildDist, compareRows, compareTable } from './compare.mjs';
import { generate, model } from './fixture.mjs';
import { spreadCli } from './local.mjs';
import { LARGE_SIZE, parseLargeTools, passes, toolsAt } from './plan.mjs';
import { parseRtts, proxiedKubeconfig, startLatencyProxy } from './proxy.mjs';
import { benchRecords, writeRecords } from './records.mjs';
import { replaceSection } from './results.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(here);
const work = path.join(here, 'work', 'deploy');
// A copy of dist/ taken at the start, so that a rebuild during the run does not change what is measured.
const DIST = path.join(here, 'work', 'dist');
const ACTION = path.join(DIST, 'index.js');
/** The older build's copy of dist/ with --compare (tool `spread-before`). */
const DIST_BEFORE = path.join(here, 'work', 'dist-before');
/** The builds a spread tool runs: this checkout's (`spread`), and with --compare the older one. */
const BUILDS = { [AFTER]: DIST, [BEFORE]: DIST_BEFORE };
const isSpread = (tool) => Object.hasOwn(BUILDS, tool);
/**
 * The CLI of `tool`'s build as `spread` (npm's bin link) runs it: the Node options (cliArgv) and
 * environment defaults (cliEnv) of its shell prologue, read from the copy of dist/ (bench/local.mjs)
 * and given to this Node, so that the Node measured is this one. (The Action, started as
 * `node dist/index.js`, runs itself again with them: scripts/build.mjs.)
 */
function cliArgv(tool = AFTER) {
  return spreadCli(BUILDS[tool]).argv;
}
/** The environment the CLI's prologue sets (`NAME="${NAME:-default}"`), over the bench's own. */
function cliEnv(extra = {}, tool = AFTER) {
  return { ...spreadCli(BUILDS[tool]).env, ...extra };
}
const CONTEXT = 'spread-local';
const NAME = 'bench';
const LABEL = 'spread-bench';
const STEPS = ['first deploy', 'no-op', '10 % changed', '10 % pruned'];
/** The steps as bench/records.mjs names them. */
const STEP_IDS = {
  'first deploy': 'first',
  'no-op': 'noop',
  '10 % changed': 'changed',
  '10 % pruned': 'pruned',
};
/** The user agent (a prefix before `/`, or the whole) each tool's requests carry, for the audit log. */
const AGENTS = {
  spread: 'spread',
  'spread-before': 'spread',
  kubectl: 'kubectl',
  'kubectl-applyset': 'kubectl',
  helm: 'Helm',
  floor: 'spread-bench-floor',
};
/**
 * The cluster floor (tool `floor`, first deploy only): the bench process itself sends just the
 * server-side applies a first deploy needs, one per object (the CRD first, then its Established
 * condition polled every 10 ms), FLOOR_CONCURRENCY in flight (spread's default --concurrency), with
 * no discovery, reads, dry runs or records. No client that creates the objects can be faster on this
 * cluster by more than its own start-up, so it bounds the first deploy's ratio from below.
 */
const FLOOR_CONCURRENCY = 64;
const FLOOR_AGENT = 'spread-bench-floor';
/** REST resource names of the kinds bench/fixture.mjs writes (the cluster floor has no discovery). */
const PLURALS = {
  ConfigMap: 'configmaps',
  Secret: 'secrets',
  Service: 'services',
  ServiceAccount: 'serviceaccounts',
  Deployment: 'deployments',
  Widget: 'widgets',
};
const VARIANTS = ['initial', 'initial', 'changed', 'pruned'];
const TARGETS = {
  firstDeploy500: 0.2,
  firstFloor500: 2.5,
  firstRtt0: 1.0,
  noop500: 0.05,
  changed500: 0.15,
  pruned500: 0.15,
  rss5000Mb: 200,
  rssCrdMb: 150,
  linear: 12,
  startupMs: 300,
  bundleMb: 4,
};

// ---- arguments and environment ----------------------------------------------------------------------
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const value = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const SIZES = value('--sizes', '500,5000').split(',').map(Number);
const REPS = Number(value('--reps', '3'));
const REPS_LARGE = Number(value('--reps-large', '1'));
/** The older build's directory (--compare): its runs and this build's, interleaved, and nothing else by default. */
const COMPARE = value('--compare', undefined);
const TOOLS = value(
  '--tools',
  COMPARE ? `${AFTER},${BEFORE}` : 'spread,kubectl,kubectl-applyset,helm,floor',
).split(',');
for (const t of TOOLS)
  if (!AGENTS[t]) throw new Error(`--tools: unknown tool ${t} (${Object.keys(AGENTS).join(', ')})`);
if (TOOLS.includes(BEFORE) && !COMPARE) throw new Error(`--tools ${BEFORE} needs --compare DIR`);
/**
 * Which tools run at 5,000 objects, at which round trips (bench/plan.mjs); undefined (`all`): all of
 * --tools. By default kubectl at RTT 0 only and neither kubectl-applyset nor Helm: their serial steps
 * at 5,000 objects take minutes each at a distance, and the issue's ratios are taken at 500.
 */
const LARGE_TOOLS = parseLargeTools(
  value('--tools-large', `spread,${BEFORE},floor,kubectl@0`),
  Object.keys(AGENTS),
);
const RTTS = parseRtts(value('--rtt', '0,10,30'));
const JSON_FILE = value('--json', undefined);
const PROXY_API_PORT = Number(value('--proxy-api-port', '8474'));
const PROXY_PORT = Number(value('--proxy-port', '8475'));
/** Extra arguments of every `spread deploy` (e.g. `--spread-args "--concurrency 32"`, to compare). */
const SPREAD_ARGS = value('--spread-args', '').split(' ').filter(Boolean);
const WRITE =
  (flag('--write') && !COMPARE) ||
  (!flag('--no-write') && !['--sizes', '--tools', '--rtt', '--reps'].some((a) => args.includes(a)));
/** No start-up, render, bundle or Action rows: asked for, or a --compare run (spread's deploys only). */
const SKIP_EXTRAS = flag('--skip-extras') || COMPARE !== undefined;
loadClusterEnv();
const KUBECTL = process.env.SPREAD_KUBECTL;
const AUDIT_LOG = path.join(process.env.SPREAD_CLUSTER_DIR, 'logs', 'audit.log');
const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
const HELM = path.join(
  process.env.SPREAD_CACHE ??
    path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'spread'),
  'bin',
  `helm-${process.env.SPREAD_HELM_VERSION ?? 'v4.3.1'}`,
  'helm',
);
/** The kubeconfig every tool gets: the cluster's, its server the latency proxy (written in main). */
const PROXIED_KUBECONFIG = path.join(here, 'work', 'proxied.kubeconfig');
/** What every tool's process gets in its environment: the proxied kubeconfig, Helm's state in bench/work. */
const TOOL_ENV = {
  KUBECONFIG: PROXIED_KUBECONFIG,
  HELM_CACHE_HOME: path.join(here, 'work', 'helm', 'cache'),
  HELM_CONFIG_HOME: path.join(here, 'work', 'helm', 'config'),
  HELM_DATA_HOME: path.join(here, 'work', 'helm', 'data'),
};

/** Reads .cluster/env when the caller did not source it (KUBECONFIG, SPREAD_KUBECTL, …). */
function loadClusterEnv() {
  if (process.env.SPREAD_KUBECTL && process.env.KUBECONFIG && process.env.SPREAD_CLUSTER_DIR) return;
  const file = path.join(process.env.SPREAD_CLUSTER_DIR || path.join(root, '.cluster'), 'env');
  if (!existsSync(file))
    throw new Error('no .cluster/env: start the cluster with `bash scripts/cluster/up.sh`');
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^export ([A-Z_]+)=(.*)$/.exec(line);
    if (!m || m[1] === 'PATH') continue;
    process.env[m[1]] = m[2].replace(/^'(.*)'$/, '$1');
  }
}

// ---- a small Kubernetes client (the admin's client certificate from the kubeconfig) -------------------
const kube = (() => {
  const kc = parseYaml(readFileSync(process.env.KUBECONFIG, 'utf8'));
  const ctx = kc.contexts.find((c) => c.name === CONTEXT).context;
  const cluster = kc.clusters.find((c) => c.name === ctx.cluster).cluster;
  const user = kc.users.find((u) => u.name === ctx.user).user;
  const b64 = (s) => Buffer.from(s, 'base64');
  const agentOf = (maxSockets) =>
    new https.Agent({
      keepAlive: true,
      maxSockets,
      ca: b64(cluster['certificate-authority-data']),
      cert: b64(user['client-certificate-data']),
      key: b64(user['client-key-data']),
    });
  const agent = agentOf(8);
  const server = new URL(cluster.server);
  // The cluster floor's client (floorRunner): a user agent of its own, as many sockets as spread's
  // default --concurrency.
  const floorAgent = agentOf(FLOOR_CONCURRENCY);
  // Its requests go through the latency proxy, like every tool's (main sets `server`).
  const floor = {
    agent: floorAgent,
    userAgent: FLOOR_AGENT,
    contentType: 'application/apply-patch+yaml',
    server: undefined,
  };
  // Retried on connection errors (a kept-alive socket the server closed, a restarted API server).
  const request = async (method, p, body, via) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await once(method, p, body, via);
      } catch (error) {
        if (error.code !== undefined && typeof error.code === 'number') throw error;
        if (attempt >= 10) throw error;
        await sleep(500 * attempt);
      }
    }
  };
  const once = (method, p, body, via) =>
    new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body);
      const r = https.request(
        new URL(p, via?.server ?? server),
        {
          method,
          agent: via?.agent ?? agent,
          headers: {
            Accept: 'application/json',
            'User-Agent': via?.userAgent ?? 'spread-bench-harness',
            ...(data ? { 'Content-Type': via?.contentType ?? 'application/json' } : {}),
          },
        },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let json;
            try {
              json = text ? JSON.parse(text) : undefined;
            } catch {
              json = undefined;
            }
            if (res.statusCode >= 300) {
              const e = new Error(`${method} ${p}: ${res.statusCode} ${json?.message ?? text}`);
              e.code = res.statusCode;
              reject(e);
            } else resolve(json);
          });
        },
      );
      r.on('error', reject);
      r.end(data);
    });
  const list = async (p) => {
    const items = [];
    let cont = '';
    do {
      const page = await request(
        'GET',
        `${p}${p.includes('?') ? '&' : '?'}limit=1000${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`,
      );
      items.push(...page.items);
      cont = page.metadata?.continue ?? '';
    } while (cont);
    return items;
  };
  /** A server-side apply as the cluster floor sends it (its agent, user agent and content type). */
  const floorApply = (p, object) =>
    request('PATCH', `${p}?fieldManager=bench-floor&force=true`, object, floor);
  const floorGet = (p) => request('GET', p, undefined, floor);
  return {
    server,
    /** Sends the cluster floor's requests to `url` (the latency proxy). */
    setFloorServer: (url) => {
      floor.server = new URL(url);
    },
    request,
    list,
    floorApply,
    floorGet,
    close: () => {
      agent.destroy();
      floorAgent.destroy();
    },
  };
})();

/** The resource paths listed for the resourceVersion snapshot of one namespace. */
function snapshotPaths(ns, group) {
  return [
    ['ConfigMap', `/api/v1/namespaces/${ns}/configmaps`],
    ['Secret', `/api/v1/namespaces/${ns}/secrets`],
    ['Service', `/api/v1/namespaces/${ns}/services`],
    ['ServiceAccount', `/api/v1/namespaces/${ns}/serviceaccounts`],
    ['Deployment', `/apis/apps/v1/namespaces/${ns}/deployments`],
    ['Widget', `/apis/${group}/v1/namespaces/${ns}/widgets`],
    ['Lease', `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`],
  ];
}

/** kind/name → resourceVersion of every object of those kinds in `ns`, and of the run's CRD. */
async function snapshot(ns, group) {
  const out = new Map();
  await Promise.all(
    snapshotPaths(ns, group).map(async ([kind, p]) => {
      let items = [];
      try {
        items = await kube.list(p);
      } catch (error) {
        if (error.code !== 404) throw error;
      }
      for (const item of items) out.set(`${kind}/${item.metadata.name}`, item.metadata.resourceVersion);
    }),
  );
  try {
    const crd = await kube.request(
      'GET',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`,
    );
    out.set(`CustomResourceDefinition/widgets`, crd.metadata.resourceVersion);
  } catch (error) {
    if (error.code !== 404) throw error;
  }
  return out;
}

/** Objects whose resourceVersion differs (created, changed or deleted), split into the set and the rest. */
function changedVersions(before, after, setKeys) {
  let set = 0;
  const other = [];
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    if (before.get(key) === after.get(key)) continue;
    if (setKeys.has(key)) set++;
    else other.push(key);
  }
  return { set, other };
}

/** Waits until the objects stop changing (controllers done reacting to the last step), at most 2 min. */
async function settle(ns, group) {
  const deadline = Date.now() + 120_000;
  let last = '';
  let stable = 0;
  while (Date.now() < deadline) {
    const s = await snapshot(ns, group);
    const key = [...s].sort().join(',');
    stable = key === last ? stable + 1 : 0;
    if (stable >= 2) return;
    last = key;
    await sleep(1000);
  }
  console.warn(`  (namespace ${ns} did not settle in 2 minutes)`);
}

// ---- the audit log ---------------------------------------------------------------------------------
function auditOffset() {
  return existsSync(AUDIT_LOG) ? { ino: statSync(AUDIT_LOG).ino, size: statSync(AUDIT_LOG).size } : undefined;
}

/** Bytes `from` on of a file. */
function readFrom(file, from) {
  const size = statSync(file).size;
  const buf = Buffer.alloc(Math.max(0, size - from));
  const fd = openSync(file);
  readSync(fd, buf, 0, buf.length, from);
  closeSync(fd);
  return buf.toString('utf8');
}

/**
 * API requests of `agent` (a user-agent prefix) since `offset`, by verb (dry-run patches apart),
 * limited to namespace `ns` and cluster-scoped requests (discovery, CRDs, Namespaces). When the API
 * server rotated the log in between (--audit-log-maxsize), the rest of the rotated file (the one
 * with the old inode, `audit-<time>.log`) is read first.
 */
function auditCount(offset, ns, agent) {
  if (!existsSync(AUDIT_LOG) || !offset) return undefined;
  let text;
  if (statSync(AUDIT_LOG).ino === offset.ino) text = readFrom(AUDIT_LOG, offset.size);
  else {
    const dir = path.dirname(AUDIT_LOG);
    const rotated = readdirSync(dir)
      .filter((f) => /^audit-.*\.log$/.test(f))
      .map((f) => path.join(dir, f))
      .find((f) => statSync(f).ino === offset.ino);
    if (!rotated) return undefined; // rotated twice, or removed
    text = readFrom(rotated, offset.size) + readFrom(AUDIT_LOG, 0);
  }
  const counts = {};
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line) continue;
    let e;
    try {
      e = JSON.parse(line);
    } catch {
      continue;
    }
    if (e.stage !== 'ResponseComplete' && e.stage !== 'Panic') continue;
    const ua = e.userAgent ?? '';
    if (ua !== agent && !ua.startsWith(`${agent}/`)) continue;
    const eventNs = e.objectRef?.namespace;
    if (eventNs && eventNs !== ns) continue;
    const dry = /[?&]dryRun=All/.test(e.requestURI) ? ' (dry run)' : '';
    const verb = `${e.verb}${dry}`;
    counts[verb] = (counts[verb] ?? 0) + 1;
    total++;
  }
  return { total, ...counts };
}

// ---- running the tools -----------------------------------------------------------------------------
/**
 * Runs a command under GNU time; resolves with wall ms, max RSS KB, CPU ms (user and system, of the
 * command and the children it waited for: less moved by the machine's load than wall time), exit
 * status and output.
 */
function timed(cmd, argv, env = {}) {
  return new Promise((resolve) => {
    const rssFile = path.join(os.tmpdir(), `spread-bench-rss-${process.pid}`);
    const full = GNU_TIME ? [GNU_TIME, ['-f', '%M %U %S', '-o', rssFile, cmd, ...argv]] : [cmd, argv];
    const started = performance.now();
    const child = spawn(full[0], full[1], {
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
      let rssKb;
      let cpuMs;
      if (GNU_TIME && existsSync(rssFile)) {
        const [rss, user, system] = readFileSync(rssFile, 'utf8').trim().split('\n').pop().split(' ');
        rssKb = Number(rss);
        cpuMs = (Number(user) + Number(system)) * 1000;
        rmSync(rssFile, { force: true });
      }
      resolve({ ms, rssKb, cpuMs, status, out });
    });
  });
}

/** The commands of one step of one tool; each resolves with { ms, rssKb, parts }. */
function stepRunner(tool, { ns, dir, kdir, chart, group }) {
  if (tool === 'floor') return floorRunner(ns, kdir);
  if (isSpread(tool)) {
    return async () => {
      const r = await spreadDeploy(tool, dir, ns);
      if (r.status !== 0) throw new Error(`${tool} deploy failed (${r.status}):\n${r.out.slice(-4000)}`);
      return { ms: r.ms, rssKb: r.rssKb, cpuMs: r.cpuMs, log: r.out };
    };
  }
  if (tool === 'helm') {
    return async () => {
      const r = await timed(
        HELM,
        ['upgrade', '--install', NAME, chart, '-n', ns, '--kube-context', CONTEXT],
        TOOL_ENV,
      );
      if (r.status !== 0) throw new Error(`helm upgrade failed (${r.status}):\n${r.out.slice(-4000)}`);
      return { ms: r.ms, rssKb: r.rssKb, log: r.out };
    };
  }
  const applyset = tool === 'kubectl-applyset';
  return async () => {
    // A field manager of its own, so that this apply does not remove the ApplySet label that the
    // main apply (manager `kubectl`) puts on the CRD.
    const crd = await timed(
      KUBECTL,
      ['apply', '--server-side', '--field-manager', 'kubectl-crds', '-f', path.join(kdir, 'crd.yaml')],
      TOOL_ENV,
    );
    if (crd.status !== 0) throw new Error(`kubectl apply crd failed:\n${crd.out}`);
    const wait = await timed(
      KUBECTL,
      ['wait', '--for', 'condition=Established', '--timeout', '60s', `crd/widgets.${group}`],
      TOOL_ENV,
    );
    if (wait.status !== 0) throw new Error(`kubectl wait failed:\n${wait.out}`);
    const main = await timed(
      KUBECTL,
      applyset
        ? ['apply', '--server-side', '--prune', `--applyset=${NAME}`, '-n', ns, '-f', kdir, '-R']
        : ['apply', '--server-side', '-n', ns, '-f', kdir, '-R'],
      applyset ? { ...TOOL_ENV, KUBECTL_APPLYSET: 'true' } : TOOL_ENV,
    );
    if (main.status !== 0)
      throw new Error(`kubectl apply failed (${main.status}):\n${main.out.slice(-4000)}`);
    return {
      ms: crd.ms + wait.ms + main.ms,
      mainMs: main.ms,
      rssKb: Math.max(crd.rssKb ?? 0, wait.rssKb ?? 0, main.rssKb ?? 0) || undefined,
      log: main.out,
    };
  };
}

/** `spread deploy DIR` by `tool`'s build (spread, or spread-before with --compare), under GNU time. */
function spreadDeploy(tool, dir, ns) {
  return timed(
    process.execPath,
    [...cliArgv(tool), 'deploy', dir, CONTEXT, '-n', ns, '--name', NAME, '--no-wait', ...SPREAD_ARGS],
    cliEnv(TOOL_ENV, tool),
  );
}

/** The cluster floor's first deploy of kubectl's input in `kdir` (see FLOOR_CONCURRENCY). */
function floorRunner(ns, kdir) {
  return async () => {
    const read = (file) =>
      parseAllDocuments(readFileSync(path.join(kdir, file), 'utf8'))
        .map((d) => d.toJS())
        .filter((o) => o);
    const crds = read('crd.yaml');
    const objects = read('objects.yaml');
    const pathOf = (o) => {
      const plural = PLURALS[o.kind];
      if (!plural) throw new Error(`the cluster floor has no resource name for kind ${o.kind}`);
      const prefix = o.apiVersion === 'v1' ? '/api/v1' : `/apis/${o.apiVersion}`;
      return `${prefix}/namespaces/${o.metadata.namespace ?? ns}/${plural}/${o.metadata.name}`;
    };
    const started = performance.now();
    for (const crd of crds) {
      const p = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`;
      await kube.floorApply(p, crd);
      const deadline = Date.now() + 60_000;
      for (;;) {
        const live = await kube.floorGet(p);
        if (live.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
        if (Date.now() > deadline) throw new Error(`CRD ${crd.metadata.name} not Established in 60 s`);
        await sleep(10);
      }
    }
    const limit = pLimit(FLOOR_CONCURRENCY);
    await Promise.all(objects.map((o) => limit(() => kube.floorApply(pathOf(o), o))));
    return { ms: performance.now() - started };
  };
}

/** Writes kubectl's input: `spread render` of the spread directory, the CRD in a file of its own. */
function renderForKubectl(dir, kdir, ns) {
  const r = spawnSync(
    process.execPath,
    [...cliArgv(), 'render', dir, '-n', ns, '--name', NAME, '--show-secrets'],
    {
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    },
  );
  if (r.status !== 0) throw new Error(`spread render failed:\n${r.stderr}`);
  const docs = parseAllDocuments(r.stdout).map((d) => d.toJS());
  rmSync(kdir, { recursive: true, force: true });
  mkdirSync(kdir, { recursive: true });
  const crds = docs.filter((d) => d.kind === 'CustomResourceDefinition');
  const rest = docs.filter((d) => d.kind !== 'CustomResourceDefinition');
  writeFileSync(path.join(kdir, 'crd.yaml'), crds.map((d) => stringify(d)).join('---\n'));
  writeFileSync(path.join(kdir, 'objects.yaml'), rest.map((d) => stringify(d)).join('---\n'));
  return docs.length;
}

/**
 * Helm's input: a chart whose templates/ hold kubectl's manifests verbatim, the CRD in crds/ (Helm
 * installs crds/ first and waits for them; a CRD among the templates would be mapped, and fail,
 * together with its custom resources).
 */
function writeChart(kdir, chart) {
  rmSync(chart, { recursive: true, force: true });
  mkdirSync(path.join(chart, 'templates'), { recursive: true });
  mkdirSync(path.join(chart, 'crds'), { recursive: true });
  writeFileSync(path.join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: bench\nversion: 0.1.0\n');
  const objects = readFileSync(path.join(kdir, 'objects.yaml'), 'utf8');
  // Verbatim only while no text reads as a template action.
  if (objects.includes('{{')) throw new Error('the manifests hold "{{": not a verbatim Helm template');
  writeFileSync(path.join(chart, 'templates', 'objects.yaml'), objects);
  cpSync(path.join(kdir, 'crd.yaml'), path.join(chart, 'crds', 'crd.yaml'));
}

const keyOf = (o) => `${o.kind}/${o.kind === 'CustomResourceDefinition' ? 'widgets' : o.name}`;

async function createNamespace(ns) {
  await kube.request('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns, labels: { [LABEL]: 'true' } },
  });
  // Pods are admitted once the namespace's default ServiceAccount exists.
  for (let i = 0; i < 100; i++) {
    try {
      await kube.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`);
      return;
    } catch {
      await sleep(200);
    }
  }
}

/** Deletes the bench's namespaces and CRDs (of this run or an earlier one) and waits until they are gone. */
async function cleanUp(wait = true) {
  const nss = await kube.list(`/api/v1/namespaces?labelSelector=${LABEL}%3Dtrue`).catch(() => []);
  for (const n of nss)
    await kube.request('DELETE', `/api/v1/namespaces/${n.metadata.name}`).catch(() => undefined);
  const crds = await kube.list('/apis/apiextensions.k8s.io/v1/customresourcedefinitions');
  for (const c of crds.filter((c) => c.metadata.name.endsWith('.bench.spread.example')))
    await kube
      .request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${c.metadata.name}`)
      .catch(() => undefined);
  if (!wait) return;
  const deadline = Date.now() + 600_000;
  while (Date.now() < deadline) {
    const left = await kube.list(`/api/v1/namespaces?labelSelector=${LABEL}%3Dtrue`);
    if (left.length === 0) return;
    await sleep(1000);
  }
  console.warn('  (bench namespaces still terminating after 10 minutes)');
}

/**
 * The same no-op once more through the Action (`node dist/index.js` with INPUT_*, as the runner starts
 * it) after spread's no-op step, for its wall time and peak RSS (GNU time's %M: the largest process
 * of the tree, so the Action's child Node). Recorded per size in `actionRuns`.
 */
const actionRuns = [];
async function actionNoop(ns, dir, size, rttMs) {
  const files = path.join(work, 'action');
  mkdirSync(files, { recursive: true });
  for (const f of ['output', 'summary']) writeFileSync(path.join(files, f), '');
  const r = await timed(process.execPath, [ACTION], {
    INPUT_PATH: dir,
    INPUT_KUBECONFIG: readFileSync(PROXIED_KUBECONFIG, 'utf8'),
    INPUT_CONTEXT: CONTEXT,
    INPUT_NAMESPACE: ns,
    INPUT_NAME: NAME,
    INPUT_WAIT: 'false',
    GITHUB_WORKSPACE: root,
    GITHUB_OUTPUT: path.join(files, 'output'),
    GITHUB_STEP_SUMMARY: path.join(files, 'summary'),
  });
  if (r.status !== 0) throw new Error(`the Action's no-op failed (${r.status}):\n${r.out.slice(-4000)}`);
  const unchanged = /^unchanged<<(.+)\n(\d+)\n\1$/m.exec(readFileSync(path.join(files, 'output'), 'utf8'));
  actionRuns.push({
    size,
    rttMs,
    ms: r.ms,
    rssKb: r.rssKb,
    unchanged: unchanged ? Number(unchanged[2]) : undefined,
  });
  console.log(
    `  action  ${String(size).padStart(5)} ${String(rttMs).padStart(3)} ms    no-op (Action) ${fmtMs(r.ms).padStart(8)}  unchanged ${unchanged?.[2] ?? '–'}  RSS ${r.rssKb ? Math.round(r.rssKb / 1024) : '–'} MB`,
  );
}

/** One tool, one size, one round trip, one repetition: the four steps in a fresh namespace. */
async function scenario(tool, size, rep, rttMs) {
  const id = `${tool}-${size}-${rttMs}ms-${rep}`;
  const ns = `bench-${id}`;
  const group = `${tool}${size}t${rttMs}r${rep}.bench.spread.example`;
  const base = path.join(work, id);
  const dir = path.join(base, 'bench');
  const kdir = path.join(base, 'kubectl');
  const chart = path.join(base, 'chart');
  await createNamespace(ns);
  await settle(ns, group);
  const run = stepRunner(tool, { ns, dir, kdir, chart, group });
  const results = [];
  let previousKeys = new Set();
  // The cluster floor measures the first deploy only; kubectl without an ApplySet cannot prune.
  const steps = tool === 'floor' ? 1 : tool === 'kubectl' ? 3 : STEPS.length;
  for (let s = 0; s < steps; s++) {
    const objects = generate(dir, size, { group, variant: VARIANTS[s] });
    if (!isSpread(tool)) renderForKubectl(dir, kdir, ns);
    if (tool === 'helm') writeChart(kdir, chart);
    const keys = new Set(objects.map(keyOf));
    const setKeys = new Set([...keys, ...previousKeys]);
    previousKeys = keys;
    const before = await snapshot(ns, group);
    const offset = auditOffset();
    const r = await run();
    await sleep(700); // the audit log is written when each response completes
    const requests = auditCount(offset, ns, AGENTS[tool]);
    const after = await snapshot(ns, group);
    const writes = changedVersions(before, after, setKeys);
    const expectedSet = objects.length;
    const liveSet = [...after.keys()].filter((k) => keys.has(k)).length;
    if (liveSet !== expectedSet)
      throw new Error(
        `${id} ${STEPS[s]}: ${liveSet} of ${expectedSet} objects in the cluster after the step`,
      );
    const stale = [...after.keys()].filter((k) => !keys.has(k) && setKeys.has(k));
    if (stale.length > 0) throw new Error(`${id} ${STEPS[s]}: not pruned: ${stale.slice(0, 5).join(', ')}`);
    results.push({
      tool,
      size,
      rttMs,
      rep,
      step: STEPS[s],
      objects: expectedSet,
      ms: r.ms,
      mainMs: r.mainMs,
      rssKb: r.rssKb,
      cpuMs: r.cpuMs,
      requests,
      writes: writes.set,
      otherWrites: writes.other,
    });
    console.log(
      `  ${tool.padEnd(16)} ${String(size).padStart(5)} ${String(rttMs).padStart(3)} ms #${rep} ${STEPS[s].padEnd(13)} ${fmtMs(r.ms).padStart(8)}${r.mainMs !== undefined ? ` (apply ${fmtMs(r.mainMs)})` : ''}  ${requests ? `${requests.total} requests ${verbs(requests)}` : ''}  writes ${writes.set}${writes.other.length ? ` + ${writes.other.length} own (${writes.other.join(' ')})` : ''}  RSS ${r.rssKb ? Math.round(r.rssKb / 1024) : '–'} MB${COMPARE && r.cpuMs !== undefined ? `  CPU ${fmtMs(r.cpuMs)}` : ''}`,
    );
    await settle(ns, group);
    if (tool === 'spread' && STEPS[s] === 'no-op' && rep === 1 && !SKIP_EXTRAS)
      await actionNoop(ns, dir, size, rttMs);
  }
  if (!flag('--keep')) {
    await kube.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
    await kube
      .request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`)
      .catch(() => undefined);
    await waitGone(`/api/v1/namespaces/${ns}`);
  }
  return results;
}

// ---- large inputs (bench/large-inputs.mjs, from the input benchmark) ---------------------------------
/**
 * The large inputs of bench/large-inputs.mjs deployed, first and no-op, by spread and by kubectl
 * (`kubectl apply --server-side` of the rendered CRDs, `kubectl wait --for condition=Established`,
 * then of the rest), each into a fresh namespace with CRDs of its own group: wall time, requests and
 * peak RSS (the issue's ≤ 150 MB for the CRD bundle). Skipped, and said so, when the module is absent.
 */
async function largeInputs(rttMs, tools = ['spread', 'kubectl'], rep = undefined) {
  const file = path.join(here, 'large-inputs.mjs');
  if (!existsSync(file)) {
    console.warn('no bench/large-inputs.mjs: the large inputs are not deployed');
    return [];
  }
  const { writeCrdBundle, writeInstall } = await import(pathToFileURL(file).href);
  const inputs = [
    ['CRD bundle', (dir, group) => writeCrdBundle(dir, { group })],
    ['130-file install', (dir, group) => writeInstall(dir, { group })],
  ];
  const out = [];
  for (const [input, write] of inputs) {
    for (const tool of tools) {
      const id = `large-${input.startsWith('CRD') ? 'crds' : 'install'}-${tool}-${rttMs}ms${rep ? `-${rep}` : ''}`;
      const ns = `bench-${id}`;
      const group = `${id.replace(/-/g, '')}.bench.spread.example`;
      const base = path.join(work, id);
      const dir = path.join(base, 'input');
      const kdir = path.join(base, 'kubectl');
      write(dir, group);
      const bytes = readdirSync(path.join(dir, '.k2e')).reduce(
        (n, f) => n + statSync(path.join(dir, '.k2e', f)).size,
        0,
      );
      await createNamespace(ns);
      if (tool === 'kubectl') renderForKubectl(dir, kdir, ns);
      for (const step of ['first deploy', 'no-op']) {
        const offset = auditOffset();
        let r;
        if (isSpread(tool)) r = await spreadDeploy(tool, dir, ns);
        else {
          const crd = await timed(
            KUBECTL,
            ['apply', '--server-side', '-f', path.join(kdir, 'crd.yaml')],
            TOOL_ENV,
          );
          const wait =
            crd.status === 0
              ? await timed(
                  KUBECTL,
                  [
                    'wait',
                    '--for',
                    'condition=Established',
                    '--timeout',
                    '60s',
                    '-f',
                    path.join(kdir, 'crd.yaml'),
                  ],
                  TOOL_ENV,
                )
              : crd;
          const hasRest = readFileSync(path.join(kdir, 'objects.yaml'), 'utf8').trim() !== '';
          const rest =
            wait.status === 0 && hasRest
              ? await timed(
                  KUBECTL,
                  ['apply', '--server-side', '-n', ns, '-f', path.join(kdir, 'objects.yaml')],
                  TOOL_ENV,
                )
              : { ms: 0, status: wait.status, out: wait.out };
          r = {
            ms: crd.ms + (wait === crd ? 0 : wait.ms) + rest.ms,
            rssKb: Math.max(crd.rssKb ?? 0, wait.rssKb ?? 0, rest.rssKb ?? 0) || undefined,
            status: rest.status,
            out: `${crd.out}${wait === crd ? '' : wait.out}${rest.out ?? ''}`,
          };
        }
        await sleep(700);
        if (r.status !== 0) {
          console.error(`  ${id} ${step} failed:\n${r.out.slice(-2000)}`);
          out.push({ input, bytes, tool, rttMs, step, failed: String(r.out).trim().split('\n').pop() });
          break;
        }
        const requests = auditCount(offset, ns, AGENTS[tool]);
        out.push({
          input,
          bytes,
          tool,
          rttMs,
          step,
          rep,
          ms: r.ms,
          rssKb: r.rssKb,
          cpuMs: r.cpuMs,
          requests,
        });
        console.log(
          `  ${tool.padEnd(16)} ${input.padEnd(16)} ${String(rttMs).padStart(3)} ms ${step.padEnd(13)} ${fmtMs(r.ms).padStart(8)}  ${requests ? `${requests.total} requests` : ''}  RSS ${r.rssKb ? Math.round(r.rssKb / 1024) : '–'} MB${COMPARE && r.cpuMs !== undefined ? `  CPU ${fmtMs(r.cpuMs)}` : ''}`,
        );
      }
      if (!flag('--keep')) {
        await kube.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
        await waitGone(`/api/v1/namespaces/${ns}`);
      }
    }
  }
  return out;
}

async function waitGone(p) {
  const deadline = Date.now() + 600_000;
  while (Date.now() < deadline) {
    try {
      await kube.request('GET', p);
    } catch (error) {
      if (error.code === 404) return;
    }
    await sleep(1000);
  }
}

// ---- start-up, bundle, render ------------------------------------------------------------------------
/**
 * Time from spawning `argv` to the first request at a local HTTP server the kubeconfig points at
 * (the process is killed then). Median of `runs`.
 */
async function startUp(kind, runs = 7) {
  const times = [];
  const dir = path.join(work, 'startup');
  generate(dir, 20, { group: 'startup.bench.spread.example' });
  for (let i = 0; i < runs; i++) {
    let started = 0;
    let child;
    const first = new Promise((resolve, reject) => {
      const server = http.createServer((_req, res) => {
        resolve(performance.now() - started);
        res.destroy();
        server.close();
        child?.kill('SIGKILL');
      });
      server.listen(0, '127.0.0.1', () => {
        const port = server.address().port;
        const kubeconfig = stringify({
          apiVersion: 'v1',
          kind: 'Config',
          clusters: [
            { name: 'c', cluster: { server: `http://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true } },
          ],
          users: [{ name: 'u', user: { token: 'bench' } }],
          contexts: [{ name: 'c', context: { cluster: 'c', user: 'u', namespace: 'startup' } }],
          'current-context': 'c',
        });
        const file = path.join(work, 'startup.kubeconfig');
        writeFileSync(file, kubeconfig);
        const env = { ...process.env, ...(kind === 'action' ? {} : cliEnv()), KUBECONFIG: file };
        const argv =
          kind === 'action'
            ? [ACTION]
            : [...cliArgv(), 'deploy', dir, 'c', '--no-wait', '--kubeconfig', file];
        if (kind === 'action') {
          Object.assign(env, {
            INPUT_PATH: dir,
            INPUT_KUBECONFIG: kubeconfig,
            INPUT_WAIT: 'false',
            GITHUB_WORKSPACE: root,
          });
        }
        started = performance.now();
        child = spawn(process.execPath, argv, { env, stdio: ['ignore', 'ignore', 'pipe'] });
        let err = '';
        child.stderr.on('data', (c) => {
          err += c;
        });
        child.on('close', () => {
          server.close();
          reject(new Error(`${kind} exited before its first API request:\n${err.slice(-2000)}`));
        });
      });
    });
    times.push(await first);
    await new Promise((r) => (child.exitCode !== null || child.signalCode ? r() : child.on('close', r)));
  }
  return median(times);
}

function bundleSize(from = DIST) {
  const files = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else files.push([path.join('dist', path.relative(from, p)), statSync(p).size]);
    }
  };
  walk(from);
  return { files, total: files.reduce((n, [, s]) => n + s, 0) };
}

/**
 * What a no-op of `size` objects costs any Node tool that parses its directory with the yaml library,
 * before its first request: Node's own start-up (`node -e 0`) and a fresh process that only parses the
 * directory (bench/parse-floor.mjs), both with the CLI's Node options; medians of `runs`, ms.
 */
/**
 * One run of the parse floor (tool `floor`, step `no-op`): a fresh Node process, with the CLI's Node
 * options, that only parses the directory of `size` objects (bench/parse-floor.mjs). No request.
 */
async function parseFloorRun(size, rttMs, rep) {
  const dir = path.join(work, `parse-floor-${size}`);
  if (!existsSync(dir)) generate(dir, size, { group: 'parse.bench.spread.example' });
  const flags = cliArgv().slice(0, -1);
  const p = await timed(process.execPath, [...flags, path.join(here, 'parse-floor.mjs'), dir], cliEnv());
  if (p.status !== 0) throw new Error(`parse-floor failed:\n${p.out.slice(-2000)}`);
  const objects = model(size).length;
  console.log(
    `  floor (parse)    ${String(size).padStart(5)} ${String(rttMs).padStart(3)} ms #${rep} no-op         ${fmtMs(p.ms).padStart(8)}`,
  );
  return {
    tool: 'floor',
    size,
    rttMs,
    rep,
    step: 'no-op',
    objects,
    ms: p.ms,
    rssKb: p.rssKb,
    requests: { total: 0 },
    writes: 0,
    otherWrites: [],
  };
}

async function parseFloor(size, runs = 7) {
  const dir = path.join(work, `parse-floor-${size}`);
  generate(dir, size, { group: 'parse.bench.spread.example' });
  const flags = cliArgv().slice(0, -1);
  const node = [];
  const parse = [];
  for (let i = 0; i < runs; i++) {
    const n = await timed(process.execPath, [...flags, '-e', '0'], cliEnv());
    const p = await timed(process.execPath, [...flags, path.join(here, 'parse-floor.mjs'), dir], cliEnv());
    if (p.status !== 0) throw new Error(`parse-floor failed:\n${p.out.slice(-2000)}`);
    node.push(n.ms);
    parse.push(p.ms);
  }
  return { size, nodeMs: median(node), parseMs: median(parse) };
}

async function renderTime(size, runs = 3) {
  const dir = path.join(work, `render-${size}`);
  generate(dir, size, { group: 'render.bench.spread.example' });
  const out = [];
  for (let i = 0; i < runs; i++) {
    const r = await timed(
      process.execPath,
      [...cliArgv(), 'render', dir, '-n', 'bench', '--name', NAME],
      cliEnv(),
    );
    if (r.status !== 0) throw new Error(`render failed:\n${r.out.slice(-2000)}`);
    out.push(r);
  }
  return { ms: median(out.map((r) => r.ms)), rssKb: Math.max(...out.map((r) => r.rssKb ?? 0)) };
}

// ---- summary -----------------------------------------------------------------------------------------
function median(values) {
  const v = values.filter((x) => x !== undefined).sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const fmtMs = (ms) =>
  ms === undefined ? '–' : ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
const verbs = (r) =>
  Object.entries(r ?? {})
    .filter(([k, v]) => k !== 'total' && v > 0)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');

/** One row per size × round trip × step × tool with the medians of the repetitions. */
function aggregate(results) {
  const rows = [];
  for (const size of SIZES)
    for (const rttMs of RTTS)
      for (const step of STEPS)
        for (const tool of TOOLS) {
          const rs = results.filter(
            (r) => r.size === size && r.rttMs === rttMs && r.step === step && r.tool === tool,
          );
          if (rs.length === 0) continue;
          const reqs = {};
          for (const k of new Set(rs.flatMap((r) => Object.keys(r.requests ?? {}))))
            reqs[k] = median(rs.map((r) => r.requests?.[k] ?? 0));
          rows.push({
            size,
            rttMs,
            step,
            tool,
            reps: rs.length,
            objects: rs[0].objects,
            ms: median(rs.map((r) => r.ms)),
            minMs: Math.min(...rs.map((r) => r.ms)),
            maxMs: Math.max(...rs.map((r) => r.ms)),
            mainMs: median(rs.map((r) => r.mainMs)),
            rssMb: median(rs.map((r) => (r.rssKb ? r.rssKb / 1024 : undefined))),
            cpuMs: median(rs.map((r) => r.cpuMs)),
            requests: rs.some((r) => r.requests) ? reqs : undefined,
            writes: median(rs.map((r) => r.writes)),
            otherWrites: median(rs.map((r) => r.otherWrites?.length ?? 0)),
            otherKinds: [
              ...new Set(rs.flatMap((r) => (r.otherWrites ?? []).map((k) => k.split('/')[0]))),
            ].sort(),
          });
        }
  return rows;
}

/** `tool`'s median time ÷ `peer`'s at one size, round trip and step; `undefined` when one is missing. */
function ratio(rows, size, rttMs, step, tool = 'spread', peer = 'kubectl', peerStep = step) {
  const s = rows.find((r) => r.size === size && r.rttMs === rttMs && r.step === step && r.tool === tool);
  const k = rows.find((r) => r.size === size && r.rttMs === rttMs && r.step === peerStep && r.tool === peer);
  return s && k ? s.ms / k.ms : undefined;
}

/** The runs as bench/records.mjs takes them (steps and request totals as its records name them). */
function recordRuns(results) {
  // The fixture's size: the pruned step's directory holds 10 % fewer, but is the same benchmark.
  return results.map((r) => ({
    objects: r.size,
    rttMs: r.rttMs,
    step: STEP_IDS[r.step],
    tool: r.tool,
    ms: r.ms,
    requests: r.requests?.total,
    writes: r.writes,
    rssKb: r.rssKb,
  }));
}

function machine() {
  const kubectlVersion = (() => {
    try {
      return JSON.parse(execFileSync(KUBECTL, ['version', '--client', '-o', 'json'], { encoding: 'utf8' }))
        .clientVersion.gitVersion;
    } catch {
      return 'unknown';
    }
  })();
  return {
    nproc: execFileSync('nproc', { encoding: 'utf8' }).trim(),
    cpu: os.cpus()[0]?.model ?? 'unknown CPU',
    memGiB: (os.totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
    kubectl: kubectlVersion,
    date: new Date().toISOString().slice(0, 10),
  };
}

/** ms from fmtMs's text (`750 ms`, `19.3 s`). */
const parseMs = (t) => (t.endsWith(' s') ? Number.parseFloat(t) * 1000 : Number.parseFloat(t));

/**
 * The measurements again from a run's console output (`--from-log FILE`, with --report-only): for a
 * run stopped before it wrote bench/work/deploy-results.json. Times ≥ 10 s are to 0.1 s there.
 */
function resultsFromLog(file) {
  const results = [];
  const large = [];
  const step = STEPS.join('|');
  const extras = {};
  const line = new RegExp(
    `^  (\\S+|floor \\(parse\\))\\s+(\\d+)\\s+(\\d+) ms #(\\d+) (${step})\\s+([\\d.]+ m?s)(?: \\(apply ([\\d.]+ m?s)\\))?(?:  (\\d+) requests ([^]*?))?(?:  writes (\\d+)(?: \\+ \\d+ own \\(([^)]*)\\))?)?(?:  RSS (\\d+|–) MB)?$`,
  );
  const largeLine =
    /^ {2}(spread|kubectl)\s+(CRD bundle|130-file install)\s+(\d+) ms (first deploy|no-op)\s+([\d.]+ m?s) {2}(?:(\d+) requests)? {2}RSS (\d+|–) MB$/;
  for (const text of readFileSync(file, 'utf8').split('\n')) {
    const up = /^start-up to the first API request: Action ([\d.]+ m?s), CLI ([\d.]+ m?s)$/.exec(text);
    if (up) Object.assign(extras, { startupAction: parseMs(up[1]), startupCli: parseMs(up[2]) });
    const render = /^render of 5,000 objects: ([\d.]+ m?s), (\d+) MB$/.exec(text);
    if (render) extras.render = { ms: parseMs(render[1]), rssKb: Number(render[2]) * 1024 };
    const action =
      /^ {2}action\s+(\d+)\s+(\d+) ms\s+no-op \(Action\)\s+([\d.]+ m?s) {2}unchanged (\S+) {2}RSS (\d+|–) MB$/.exec(
        text,
      );
    if (action) {
      extras.action ??= [];
      extras.action.push({
        size: Number(action[1]),
        rttMs: Number(action[2]),
        ms: parseMs(action[3]),
        unchanged: action[4],
        rssKb: action[5] === '–' ? undefined : Number(action[5]) * 1024,
      });
    }
    const l = largeLine.exec(text);
    if (l) {
      large.push({
        input: l[2],
        bytes: 0,
        tool: l[1],
        rttMs: Number(l[3]),
        step: l[4],
        ms: parseMs(l[5]),
        requests: l[6] ? { total: Number(l[6]) } : undefined,
        rssKb: l[7] === '–' ? undefined : Number(l[7]) * 1024,
      });
      continue;
    }
    const m = line.exec(text);
    if (!m) continue;
    const tool = m[1] === 'floor (parse)' ? 'floor' : m[1];
    const requests = m[8] ? { total: Number(m[8]) } : tool === 'floor' ? { total: 0 } : undefined;
    for (const v of (m[9] ?? '').split(', ').filter(Boolean)) {
      const i = v.lastIndexOf(' ');
      requests[v.slice(0, i)] = Number(v.slice(i + 1));
    }
    results.push({
      tool,
      size: Number(m[2]),
      rttMs: Number(m[3]),
      rep: Number(m[4]),
      step: m[5],
      objects:
        model(Number(m[2])).length -
        (m[5] === '10 % pruned' ? model(Number(m[2])).filter((o) => o.index % 10 === 7).length : 0),
      ms: parseMs(m[6]),
      mainMs: m[7] ? parseMs(m[7]) : undefined,
      rssKb: m[12] && m[12] !== '–' ? Number(m[12]) * 1024 : undefined,
      requests,
      writes: m[10] === undefined ? 0 : Number(m[10]),
      otherWrites: m[11] ? m[11].split(' ') : [],
    });
  }
  return { results, large, extras };
}

async function main() {
  const only = { renderers: 'renderers.mjs', fleet: 'fleet.mjs' }[value('--only')];
  if (only) {
    // Issue 39's rows alone (Helm chart and kustomize overlay against Helm, kubectl -k and render), or
    // issue 43's fleet.
    const rest = args.filter((a, i) => a !== '--only' && args[i - 1] !== '--only');
    const r = spawnSync(process.execPath, [path.join(here, only), ...rest], { stdio: 'inherit' });
    kube.close();
    process.exitCode = r.status ?? 1;
    return;
  }
  if (value('--only') !== undefined)
    throw new Error(`--only: unknown part ${value('--only')} (renderers, fleet)`);
  if (flag('--report-only') && args.includes('--from-log')) {
    const { results, large, extras: logged } = resultsFromLog(value('--from-log'));
    const m = {
      ...machine(),
      kubernetes: value('--kubernetes', 'unknown'),
      load: value('--load', '–'),
      loadEnd: value('--load-end', undefined),
    };
    const extras = { bundle: bundleSize(path.join(root, 'dist')), ...logged, large };
    const text = report(m, aggregate(results), extras, []);
    console.log(text);
    if (JSON_FILE) writeRecords(JSON_FILE, benchRecords(recordRuns(results)));
    if (!flag('--no-write')) writeSection(text);
    kube.close();
    return;
  }
  if (flag('--report-only')) {
    // The section again from the last run's measurements (bench/work/deploy-results.json).
    const saved = JSON.parse(readFileSync(path.join(here, 'work', 'deploy-results.json'), 'utf8'));
    const text = report(saved.m, aggregate(saved.results), saved.extras, saved.failures ?? []);
    console.log(text);
    if (!flag('--no-write')) writeSection(text);
    kube.close();
    return;
  }
  if (!existsSync(path.join(root, 'dist', 'cli', 'index.js')))
    throw new Error('dist/ is missing: npm run build');
  rmSync(DIST, { recursive: true, force: true });
  cpSync(path.join(root, 'dist'), DIST, { recursive: true });
  rmSync(DIST_BEFORE, { recursive: true, force: true });
  if (COMPARE) {
    cpSync(buildDist(COMPARE), DIST_BEFORE, { recursive: true });
    console.log(`comparing ${DIST_BEFORE} (${BEFORE}, from ${COMPARE}) with ${DIST} (${AFTER})`);
  }
  const serverVersion = (await kube.request('GET', '/version')).gitVersion;
  if (!existsSync(AUDIT_LOG))
    console.warn(
      `no audit log at ${AUDIT_LOG}: request counts are left out (restart the cluster with up.sh)`,
    );
  const m = {
    ...machine(),
    kubernetes: serverVersion,
    load: os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' '),
  };
  console.log(
    `machine: ${m.nproc} CPUs, ${m.memGiB} GiB, Node ${m.node}, kubectl ${m.kubectl}, Kubernetes ${m.kubernetes}`,
  );
  const extras = {};
  extras.bundle = bundleSize();
  if (SKIP_EXTRAS) {
    extras.startupAction = extras.startupCli = undefined;
    extras.render = { ms: undefined, rssKb: 0 };
    extras.parseFloor = undefined;
  } else {
    console.log(`bundle: ${(extras.bundle.total / 1e6).toFixed(2)} MB`);
    extras.startupAction = await startUp('action');
    extras.startupCli = await startUp('cli');
    console.log(
      `start-up to the first API request: Action ${fmtMs(extras.startupAction)}, CLI ${fmtMs(extras.startupCli)}`,
    );
    extras.parseFloor = await parseFloor(500);
    console.log(
      `Node start-up ${fmtMs(extras.parseFloor.nodeMs)}; Node parsing the 500-object directory ${fmtMs(extras.parseFloor.parseMs)}`,
    );
    extras.render = await renderTime(5000);
    console.log(
      `render of 5,000 objects: ${fmtMs(extras.render.ms)}, ${Math.round(extras.render.rssKb / 1024)} MB`,
    );
  }
  let results = [];
  const large = [];
  const failures = [];
  if (!flag('--only-extras')) {
    await cleanUp();
    const proxy = await startLatencyProxy({
      upstream: kube.server.href,
      apiPort: PROXY_API_PORT,
      listenPort: PROXY_PORT,
      logFile: path.join(here, 'work', 'toxiproxy.log'),
    });
    try {
      writeFileSync(
        PROXIED_KUBECONFIG,
        proxiedKubeconfig(readFileSync(process.env.KUBECONFIG, 'utf8'), kube.server.href, proxy.url),
        { mode: 0o600 },
      );
      kube.setFloorServer(proxy.url);
      const cells = passes(SIZES, RTTS);
      for (const [i, { rttMs, sizes }] of cells.entries()) {
        await proxy.setRtt(rttMs);
        console.log(`round trip ${rttMs} ms, ${sizes.join(' and ')} objects (through ${proxy.url})`);
        for (const size of sizes) {
          const reps = size >= LARGE_SIZE ? REPS_LARGE : REPS;
          const tools = toolsAt(size, rttMs, TOOLS, LARGE_TOOLS);
          for (let rep = 1; rep <= reps; rep++) {
            if (tools.includes('floor')) results.push(await parseFloorRun(size, rttMs, rep));
            // Alternate which tool goes first, so none always meets a cluster busy with another's leftovers.
            const order = rep % 2 ? tools : [...tools].reverse();
            for (const tool of order) {
              try {
                results = results.concat(await scenario(tool, size, rep, rttMs));
              } catch (error) {
                // One failed scenario does not lose the others; it is reported and left out of the medians.
                console.error(`  ${tool} ${size} ${rttMs} ms #${rep} failed: ${error.stack ?? error}`);
                failures.push(
                  `${tool}, ${size} objects, RTT ${rttMs} ms, run ${rep}: ${String(error.message).split('\n')[0]}`,
                );
              }
            }
          }
        }
        // The large inputs once per round trip (the first and the largest), in its first pass; when
        // comparing, both builds' --reps runs, in alternating order.
        const firstPass = cells.findIndex((p) => p.rttMs === rttMs) === i;
        if (!flag('--skip-large') && firstPass && (rttMs === RTTS[0] || rttMs === Math.max(...RTTS))) {
          if (!COMPARE) large.push(...(await largeInputs(rttMs)));
          else
            for (let rep = 1; rep <= REPS; rep++) {
              const builds = TOOLS.filter(isSpread);
              large.push(...(await largeInputs(rttMs, rep % 2 ? builds : builds.reverse(), rep)));
            }
        }
      }
    } finally {
      proxy.stop();
    }
    if (!flag('--keep')) await cleanUp(false);
  }
  kube.close();
  m.loadEnd = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  extras.action = actionRuns;
  extras.large = large;
  const rows = aggregate(results);
  if (COMPARE) {
    compared(m, rows, large, failures);
    return;
  }
  const text = report(m, rows, extras, failures);
  console.log(`\n${text}`);
  writeFileSync(
    path.join(here, 'work', 'deploy-results.json'),
    JSON.stringify({ m, results, extras, failures }, null, 2),
  );
  if (JSON_FILE) {
    writeRecords(JSON_FILE, benchRecords(recordRuns(results)));
    console.log(`wrote the records to ${JSON_FILE}`);
  }
  if (WRITE) writeSection(text);
  if (!restricted()) spawnSync(process.execPath, [path.join(here, 'renderers.mjs')], { stdio: 'inherit' });
}

/**
 * A --compare run's end: the comparison of both builds (bench/compare.mjs) printed, with the machine
 * and its load, and saved with the runs in bench/work/compare-results.json. RESULTS.md is not written.
 */
function compared(m, rows, large, failures) {
  const largeRows = [];
  for (const input of [...new Set(large.map((l) => l.input))])
    for (const rttMs of RTTS)
      for (const step of STEPS)
        for (const tool of TOOLS) {
          const ls = large.filter(
            (l) => l.input === input && l.rttMs === rttMs && l.step === step && l.tool === tool && !l.failed,
          );
          if (ls.length === 0) continue;
          largeRows.push({
            size: input,
            rttMs,
            step,
            tool,
            reps: ls.length,
            ms: median(ls.map((l) => l.ms)),
            minMs: Math.min(...ls.map((l) => l.ms)),
            maxMs: Math.max(...ls.map((l) => l.ms)),
            rssMb: median(ls.map((l) => (l.rssKb ? l.rssKb / 1024 : undefined))),
            cpuMs: median(ls.map((l) => l.cpuMs)),
            requests: ls[0].requests ? { total: median(ls.map((l) => l.requests?.total)) } : undefined,
          });
        }
  const comparisons = compareRows([...rows, ...largeRows]);
  const text = [
    `Before (${BEFORE}): ${COMPARE}; after (${AFTER}): ${root}. ${m.nproc} CPUs (${m.cpu}), ${m.memGiB} GiB;`,
    `Node ${m.node}; Kubernetes ${m.kubernetes}; ${m.date}. Load average at the start: ${m.load}; at the end: ${m.loadEnd}.`,
    'Medians of the runs; ratios after ÷ before.',
    '',
    compareTable(comparisons),
    ...(failures.length > 0 ? ['Failed runs (left out):', ...failures.map((f) => `- ${f}`), ''] : []),
  ].join('\n');
  console.log(`\n${text}`);
  writeFileSync(
    path.join(here, 'work', 'compare-results.json'),
    JSON.stringify({ m, compare: COMPARE, rows, large, comparisons, failures }, null, 2),
  );
}

/** Whether the run was narrowed by an option (then the renderer rows do not follow it). */
function restricted() {
  return ['--sizes', '--tools', '--rtt', '--reps', '--only-extras', '--no-write', '--compare'].some((a) =>
    args.includes(a),
  );
}

function report(m, rows, extras, failures) {
  const lines = [
    '## Deploy',
    '',
    'spread against kubectl and Helm on the same local cluster in one run (`npm run bench`, bench/bench.mjs),',
    'every tool (and the cluster floor) talking to the API server through one latency proxy (bench/proxy.mjs:',
    'Toxiproxy on 127.0.0.1, TCP passed through so TLS ends at the API server, a latency toxic of half the',
    'round trip on each direction). Each tool deploys generated directories (bench/fixture.mjs: Deployments,',
    'Services, ConfigMaps, Secrets, ServiceAccounts, a CRD and custom resources, in spread layout) into a',
    'fresh namespace of its own, in four steps: first deploy, no-op redeploy, 10 % of the objects changed,',
    '10 % more removed (prune).',
    '',
    '- spread: `spread deploy DIR spread-local -n NS --name bench --no-wait` (dist/cli/index.js, run as the',
    `  installed \`spread\` runs it: Node with --max-semi-space-size=4; no rollout wait, like the others)${SPREAD_ARGS.length ? `, with \`${SPREAD_ARGS.join(' ')}\`` : ''}.`,
    '- kubectl: its input is `spread render` of the same directory (the same objects as plain manifests),',
    '  applied each step as a CI script would: `kubectl apply --server-side --field-manager kubectl-crds -f crd.yaml`,',
    '  `kubectl wait --for condition=Established crd/…` (one `kubectl apply` cannot create a CRD and its',
    '  custom resources together), then `kubectl apply --server-side -n NS -f DIR -R` ("apply only"). No',
    '  prune step (kubectl prunes only with an ApplySet). Its discovery cache is warm after the first command.',
    '- kubectl-applyset: the same, the last command `KUBECTL_APPLYSET=true kubectl apply --server-side',
    '  --prune --applyset=bench -n NS -f DIR -R`.',
    "- helm: Helm v4 (`helm upgrade --install bench CHART -n NS`, no --wait); the chart's templates/ hold",
    "  kubectl's manifests verbatim, the CRD in crds/.",
    '- floor, first deploy (the cluster floor): the harness itself sends just the server-side applies of the',
    `  same objects through the proxy, ${FLOOR_CONCURRENCY} in flight (the CRD first, its Established condition polled every 10 ms),`,
    '  with no discovery, reads, dry runs or records: how fast this cluster takes the objects at that round trip.',
    "- floor, no-op (the parse floor): a fresh Node process (the CLI's Node options) that only parses the",
    '  directory with the yaml library (bench/parse-floor.mjs), no request.',
    '- Time: wall time of the step, median (min–max) of the repetitions.',
    "- Requests: counted at the API server from its audit log (up.sh's audit policy: level Metadata, stage",
    "  ResponseComplete) by user agent, for the step's namespace and cluster-scoped paths; medians.",
    '- Writes: objects of the set whose resourceVersion changed in the step (created, changed or deleted),',
    '  listed before and after; "own" counts the tools\' records outside the set (spread: its Lease, the',
    '  ApplySet parent Secret, a revision Secret per deploy; kubectl: its ApplySet parent Secret; Helm: its',
    '  release Secrets).',
    "- RSS: peak resident memory of the process (GNU time %M; for kubectl the largest of its commands), the median of the runs' peaks (the JSON's `peak_rss_mb`: the largest run's).",
    '',
    `Machine: ${m.nproc} CPUs (${m.cpu}), ${m.memGiB} GiB memory; Node ${m.node}; kubectl ${m.kubectl}; Kubernetes ${m.kubernetes} (etcd, kube-apiserver, controller manager, scheduler, kwok on the same machine); ${m.date}. Load average at the start: ${m.load}${m.loadEnd ? `; at the end: ${m.loadEnd}` : ''}.`,
    '',
  ];
  for (const rttMs of RTTS) {
    const at = rows.filter((r) => r.rttMs === rttMs);
    if (at.length === 0) continue;
    lines.push(
      `### Round trip ${rttMs} ms`,
      '',
      '| objects | step | tool | runs | time (min–max) | apply only | ÷ kubectl | ÷ Helm | requests | by verb | writes | own | RSS (MB) |',
      '|---:|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|',
    );
    for (const r of at) {
      const peer = r.step === '10 % pruned' ? 'kubectl-applyset' : 'kubectl';
      const rk = r.tool !== peer ? ratio(rows, r.size, rttMs, r.step, r.tool, peer) : undefined;
      const rh = r.tool !== 'helm' ? ratio(rows, r.size, rttMs, r.step, r.tool, 'helm') : undefined;
      const range = r.reps > 1 ? ` (${fmtMs(r.minMs)}–${fmtMs(r.maxMs)})` : '';
      lines.push(
        `| ${r.objects.toLocaleString('en-US')} | ${r.step} | ${r.tool}${r.tool === 'floor' ? (r.step === 'no-op' ? ' (parse)' : ' (cluster)') : ''} | ${r.reps} | ${fmtMs(r.ms)}${range} | ${r.mainMs !== undefined ? fmtMs(r.mainMs) : ''} | ${rk !== undefined ? rk.toFixed(2) : ''} | ${rh !== undefined ? rh.toFixed(2) : ''} | ${r.requests ? r.requests.total : '–'} | ${r.requests ? verbs(r.requests) : ''} | ${r.writes ?? '–'} | ${r.otherWrites ?? 0}${r.otherKinds.length ? ` (${r.otherKinds.join(', ')})` : ''} | ${r.rssMb !== undefined ? Math.round(r.rssMb) : '–'} |`,
      );
    }
    lines.push('', '(÷ kubectl: the pruned step ÷ kubectl-applyset.)', '');
  }
  const at = (size, rttMs, step, tool, f = 'ms') =>
    rows.find((r) => r.size === size && r.rttMs === rttMs && r.step === step && r.tool === tool)?.[f];
  const yes = (ok) => (ok === undefined ? 'not measured' : ok ? '**met**' : '**missed**');
  const check = (value, target) =>
    `${value?.toFixed(2) ?? '–'} × — ${yes(value === undefined ? undefined : value <= target)}${value !== undefined && value > target ? ` (by ${(value / target).toFixed(1)} ×)` : ''}`;
  const far = Math.max(...RTTS);
  const rss5000 = rows.some((r) => r.size === 5000 && r.tool === 'spread')
    ? Math.max(...rows.filter((r) => r.size === 5000 && r.tool === 'spread').map((r) => r.rssMb ?? 0))
    : undefined;
  const crdRuns = (extras.large ?? []).filter(
    (l) => l.tool === 'spread' && l.input.startsWith('CRD') && l.rssKb,
  );
  const crdRss = crdRuns.length ? Math.max(...crdRuns.map((l) => l.rssKb / 1024)) : undefined;
  const bundleMb = extras.bundle.total / 1e6;
  const noopWrites = at(500, far, 'no-op', 'spread', 'writes');
  lines.push(
    `Targets (issue 19; 500 objects at the largest round trip measured, ${far} ms, unless said):`,
    '',
    `- first deploy: ≤ ${TARGETS.firstDeploy500} × kubectl — ${check(ratio(rows, 500, far, 'first deploy'), TARGETS.firstDeploy500)}; ≤ ${TARGETS.firstDeploy500} × Helm — ${check(ratio(rows, 500, far, 'first deploy', 'spread', 'helm'), TARGETS.firstDeploy500)}; ≤ ${TARGETS.firstFloor500} × the cluster floor — ${check(ratio(rows, 500, far, 'first deploy', 'spread', 'floor'), TARGETS.firstFloor500)}`,
    `- no-op: 0 writes — ${noopWrites ?? '–'} — ${yes(noopWrites === undefined ? undefined : noopWrites === 0)}; ≤ ${TARGETS.noop500} × kubectl — ${check(ratio(rows, 500, far, 'no-op'), TARGETS.noop500)}; ≤ ${TARGETS.noop500} × Helm — ${check(ratio(rows, 500, far, 'no-op', 'spread', 'helm'), TARGETS.noop500)} (the parse floor: ${ratio(rows, 500, far, 'no-op', 'floor')?.toFixed(2) ?? '–'} × kubectl)`,
    `- 10 % changed: ≤ ${TARGETS.changed500} × kubectl — ${check(ratio(rows, 500, far, '10 % changed'), TARGETS.changed500)}`,
    `- 10 % pruned: ≤ ${TARGETS.pruned500} × kubectl-applyset — ${check(ratio(rows, 500, far, '10 % pruned', 'spread', 'kubectl-applyset'), TARGETS.pruned500)}`,
    `- first deploy at RTT 0: ≤ ${TARGETS.firstRtt0} × kubectl (dry run included) — ${check(ratio(rows, 500, 0, 'first deploy'), TARGETS.firstRtt0)}`,
    `- 5,000 objects: peak RSS ≤ ${TARGETS.rss5000Mb} MB — ${rss5000 ? Math.round(rss5000) : '–'} MB — ${yes(rss5000 ? rss5000 <= TARGETS.rss5000Mb : undefined)}; time linear (5,000 ≤ ${TARGETS.linear} × 500) — ${RTTS.map(
      (rtt) =>
        `RTT ${rtt}: ${STEPS.map((s) => {
          const a = at(5000, rtt, s, 'spread');
          const b = at(500, rtt, s, 'spread');
          return `${s} ${a && b ? (a / b).toFixed(1) : '–'} ×`;
        }).join(', ')}`,
    ).join('; ')}`,
    `- peak RSS of spread's deploy of the CRD bundle (bench/large-inputs.mjs, the table below) ≤ ${TARGETS.rssCrdMb} MB — ${crdRss ? Math.round(crdRss) : '–'} MB — ${yes(crdRss ? crdRss <= TARGETS.rssCrdMb : undefined)}${crdRss && crdRss > TARGETS.rssCrdMb ? ` (by ${Math.round(crdRss - TARGETS.rssCrdMb)} MB)` : ''}`,
    `- start-up of dist/index.js (the Action) to its first API request (no proxy) — ${fmtMs(extras.startupAction)} (the CLI: ${fmtMs(extras.startupCli)})`,
    `- bundle — ${bundleMb.toFixed(2)} MB (${extras.bundle.files.map(([f, s]) => `${f} ${s.toLocaleString('en-US')} B`).join(', ')})`,
    `- the Action (\`node dist/index.js\` with INPUT_*, as the runner starts it), spread's no-op run once more after the CLI's (first runs only): ${(extras.action ?? []).map((a) => `${a.size.toLocaleString('en-US')} objects at ${a.rttMs} ms ${fmtMs(a.ms)}, ${a.rssKb ? Math.round(a.rssKb / 1024) : '–'} MB peak RSS, ${a.unchanged ?? '?'} unchanged`).join('; ') || 'not measured'}`,
    `- \`spread render\` of 5,000 objects (dist/cli/index.js, no target): ${fmtMs(extras.render?.ms)}, ${extras.render?.rssKb ? Math.round(extras.render.rssKb / 1024) : '–'} MB peak RSS`,
    '',
  );
  if ((extras.large ?? []).length > 0) {
    lines.push(
      '### Large inputs, deployed',
      '',
      'bench/large-inputs.mjs\'s inputs (see "Large inputs"), deployed by spread and by kubectl (`kubectl apply --server-side` of the rendered CRDs, `kubectl wait --for condition=Established -f`, then of the rest), one run each. Target: peak RSS of spread\'s deploy of the CRD bundle ≤ 150 MB.',
      '',
      '| input | bytes | RTT (ms) | step | tool | time | requests | RSS (MB) |',
      '|---|---:|---:|---|---|---:|---:|---:|',
      ...extras.large.map(
        (l) =>
          `| ${l.input} | ${l.bytes ? l.bytes.toLocaleString('en-US') : '–'} | ${l.rttMs} | ${l.step} | ${l.tool} | ${l.failed ? `failed: ${l.failed}` : fmtMs(l.ms)} | ${l.requests?.total ?? '–'} | ${l.rssKb ? Math.round(l.rssKb / 1024) : '–'} |`,
      ),
      '',
    );
  }
  if (failures.length > 0)
    lines.push('Failed runs (left out of the medians):', '', ...failures.map((f) => `- ${f}`), '');
  return lines.join('\n');
}

/** What profiling showed, what was changed in spread, and why the missed targets are missed. */
const NOTES = `Issue 19, tenth part (the tables above come from this run, 2026-12-05):

- The run: \`npm run bench -- --json /tmp/bench-full.json\` (the defaults: \`--sizes 500,5000 --rtt
  0,10,30 --reps 3 --reps-large 1 --tools-large spread,floor,kubectl@0\`), 23:23–00:54, on a fresh
  cluster (\`down.sh --purge\`, \`up.sh\`), nothing else running on the 2 CPUs. New in this run's
  order: every 500-object cell at each round trip first, then the 5,000-object cells, so no small
  cell follows a deleted namespace of 5,000 objects (the 2026-12-04 run's floor at 10 ms was slow for
  that). No run failed; the 5,000-object namespaces did not settle within the bench's 2 minutes
  after some steps (kwok's Pods and the controllers' status updates), so those no-ops count a few
  Deployment status writes by the controllers, not by spread (0 writes at 500).
- **Every target of the issue is met in this one run:** first deploy of 500 at RTT 30 0.17 × kubectl
  (3262 ms, 3110–3329, against 19.7 s), 0.16 × Helm, 2.04 × the cluster floor; no-op 0.03 × kubectl,
  0.02 × Helm, 0 writes; 10 % changed 0.07 ×; 10 % pruned 0.04 × kubectl-applyset; first deploy at
  RTT 0 0.80 × kubectl; 5,000 objects at most 184 MB peak RSS over every step and round trip (the
  last full run: 207 MB), time 2.8–8.0 × the 500-object step; the CRD bundle's deploy 140 MB. The
  render of the 4.6 MB CRD file against kubectl's parse is measured by hand (sixth part: 0.9 ×).
- What changed since the 2026-12-04 run is in "Deploy, by hand", parts four to nine, and in
  CHANGELOG.md: among others one TLS context for every connection, 32 requests in flight, the
  plan's live state trimmed as it is read, V8's old generation held to ×1.5 after the read, and
  one pager for every paged LIST.

Issue 19, third part (an earlier run, 2026-12-04, whose tables the tenth part's replaced):

- The run: \`npm run bench -- --json bench/results.json --sizes 500,5000 --rtt 0,10,30 --reps 3
  --reps-large 1 --tools-large spread,floor,kubectl@0 --write\`, 02:38–04:18, on a fresh cluster
  (\`down.sh --purge\`, \`up.sh\`) on a machine started for this session, nothing else running until
  04:02 (load average 1.6–2, the cluster and the bench themselves). Three repetitions of every
  500-object cell, one at 5,000. From 04:02 a clean clone's \`npm test\` (unit and integration, its
  own cluster) shared the 2 CPUs: the 5,000-object steps at 30 ms, the large inputs at 30 ms and
  the start-up, render and Action figures are disturbed by it; the 500-object cells are not.
- Disturbed all the same: the cells that follow a tool's 5,000-object steps. The bench deletes each
  namespace when its tool is done; a namespace of 5,000 objects (833 Deployments and their kwok Pods)
  is still being emptied by the namespace and garbage collectors minutes later, and the 2-minute
  wait for quiet does not always cover it. So the cluster floor at 10 ms (5.0 s median, 2.3–5.4 s,
  against 1.9 s at 0 ms and 2.2 s at 30 ms) and spread's first two first deploys at 30 ms (5.5 and
  5.2 s, against 4.0 s in the third repetition) are slow. In runs by hand just before (3 repetitions,
  500 objects, no 5,000-object steps before them, \`--concurrency 64\` at 30 ms): spread's first
  deploy 3.2 s (3.2–3.7 s), the no-op 0.8 s (0.76–0.81 s), 10 % changed 1.5 s, pruned 1.1 s; with 32
  in flight 4.2 s (3.5–4.6 s) for the first deploy, the floor 2.0 s.
- Changed since the last run (each in CHANGELOG.md): the request concurrency 32 → 64 (the first
  deploy at 30 ms, by hand: 4.2 → 3.2 s); plain YAML read by js-yaml's event parser; undici and the
  unused generated API configuration out of the bundle; V8's old generation held to doubling
  between major GCs and glibc's mmap threshold at 128 KiB (peak RSS); the dry-run answers dropped
  once planned. The run measured a copy of dist/ taken at its start (commit e34be0f): the no-op's
  digest of the current revision (src/engine/inventory/revision-check.ts) came later and is not in it.
- Targets (500 objects, 30 ms, this run's medians): first deploy 0.26 × kubectl and Helm (missed;
  0.16 × with the by-hand 3.2 s), 2.4 × the cluster floor (met); no-op 0.04 × kubectl (met, the
  first time in a full run), 0 writes (met); 10 % changed and 10 % pruned (met); first deploy at
  0 ms 0.67 × kubectl (met). At 5,000 objects (one repetition), peak RSS 180–207 MB (\`--no-wait\`,
  the bin's Node options): the 10 % changed steps at 10 and 30 ms over 200 MB (206, 207), the others under it. The CRD
  bundle's deploy peaked at 131–142 MB at 0 and 30 ms (met). \`spread render\` of the CRD bundle against
  kubectl's parse: see "Deploy, by hand" (1.6–1.8 ×, missed). Next steps: the slow first
  deploys above need a request timeline of a disturbed and an undisturbed run side by side
  (bench/timeline.mjs); a run with a quiet wait between the 5,000-object steps and the next cells.

Issue 19, second part (an earlier run, 2026-12-01, whose tables this run replaced; memory, large inputs, 5,000 objects):

- The run: \`npm run bench -- --json bench/results.json --sizes 500,5000 --rtt 0,10,30 --reps 1
  --reps-large 1 --tools-large spread,floor,kubectl@0 --write --proxy-api-port 9474 --proxy-port 9475\`,
  16:37–17:36, on a fresh cluster (\`down.sh\`, the cluster directory removed, \`up.sh\`), the 2 CPUs
  shared with two other workers' builds and tests (load average 3–8 throughout; see "Machine"). One
  repetition per cell: read the ratios as one interleaved sample, not as medians. At 5,000 objects
  kubectl ran at RTT 0 only, and kubectl-applyset and Helm not at all (\`--tools-large\`, new: tools
  per round trip at 5,000): kubectl's steps at 5,000 took 22–32 s at RTT 0, one request per object one
  after another, so each would take at least 5,000 × 30 ms = 150 s more at RTT 30, and Helm sends two
  requests per object (its 500-object steps: 39–40 s at RTT 30); the hour left for the whole run did
  not hold them. So the 5,000 rows have no ÷ kubectl at 10 and 30 ms and no ÷ Helm.
- Disturbed cells: the start-up figures, the render of 5,000 objects (8.5 s) and the first deploy of
  500 at RTT 0 (10.1 s, 2.33 × kubectl) ran while \`spread render\` of the CRD bundle was being timed
  by hand (below) on the same 2 CPUs. The first deploys of 500 at
  10 and 30 ms took 7.1 s and 8.1 s through the proxy; issue 8's quiet run had 2.4 s at RTT 0 against
  kubectl's 2.8 s. The target "first deploy at RTT 0 ≤ 1 × kubectl" is missed in this run, but this
  sample does not show by how much; run \`node bench/bench.mjs --sizes 500 --rtt 0 --tools
  spread,kubectl,floor --reps 3 --no-write\` on a quiet machine to settle it.
- Memory (peak RSS ≤ 150 MB for the CRD bundle, ≤ 200 MB at 5,000, however started: **missed**). By
  hand, no-op deploys (GNU time %M), two runs each or more; "before" is main's Node options (16 MB
  semi-spaces for the bin, none for \`node dist/cli/index.js\`), with main's dist/ for the bin and the
  CRD bundle, with this branch's decoding for the other three:

  | input | started as | before | this branch |
  |---|---|---:|---:|
  | 5,000 objects | \`spread\` (the bin) | 230 MB | 209–216 MB |
  | 5,000 objects | \`node dist/cli/index.js\` | 325–326 MB | 224–225 MB |
  | CRD bundle (4.6 MB) | \`spread\` | 201–225 MB | 168–182 MB |
  | CRD bundle (4.6 MB) | \`node dist/cli/index.js\` | 242–244 MB | 177–181 MB |

  In this run: spread at 5,000 191–230 MB over the steps (the 10 % changed step the highest), the
  Action (\`node dist/index.js\`, its child) 218–232 MB, the CRD bundle 175 MB (first) and 212 MB (no-op)
  at RTT 0, 172 MB (first) and 173 MB (no-op) at RTT 30. Where it goes (CRD bundle, \`--trace-gc\`, process.memoryUsage sampled,
  heap space statistics): spread's process starts at 72–79 MB (Node and the loaded bundle; a bare
  Node is 45 MB); reading the 4.6 MB file takes the heap to 90–100 MB, of which 12–25 MB are live after
  the next full GC: the \`yaml\` library's CST of each document and its composed Document live while
  the document is composed, survive two scavenges, are promoted to the old generation and die there,
  so the old generation holds them until a mark-compact; then the GETs of the 6 CRDs (each with its
  managedFields, whose fieldsV1 repeats the schema's field tree) add 11–19 MB of response buffers.
  A bare Node parsing the file with \`parseAllDocuments\` alone peaks at 120 MB (young generation
  capped) to 150 MB (16 MB semi-spaces): the library's composing needs 75 MB for this file at best,
  so with spread's start-up the 150 MB target is below what the library allows. Composing one
  document at a time (Parser and Composer as generators, each document dropped once decoded) peaked
  the same (121–124 against 120–121 MB): the garbage, not the documents kept, sets the peak.
  Changed (src/bin/child.ts, start.ts, cli.ts, action.ts): the semi-spaces 16 → 4 MB (the CLI's
  prologue, the Action's child, the GitLab component; same CPU time: 2.64–2.79 s user for a no-op of
  5,000 at 2, 4, 8 and 16 MB), and a Node started without the option (\`node dist/cli/index.js\`,
  the Action when its child cannot start) sets \`--semi-space-growth-factor=1\` at run time, which V8
  reads whenever it would grow the young generation (the size itself it reads only at start):
  325 → 224 MB at 5,000, for 5–15 % more CPU time than the option (2.81–3.14 s against 2.64–2.68 s).
  Decoding plain documents in one walk (below) made less garbage but did not move the peak.
  Next steps, by what they would save: decode large files in a worker thread with resourceLimits
  (its heap, CST and Documents are returned to the OS when it ends; the values come back by
  structured clone), or at the library's CST level (below); keep only spread's own managedFields
  entry (and those a takeover needs) of live objects once planned, and parse GET and LIST responses
  from string chunks instead of a concatenated Buffer; at 5,000 the 10 % changed step holds the
  dry-run answers of 500 objects beside the 5,000 live ones.
- Parse speed (\`spread render\` of the CRD bundle ≤ 1.0 × \`kubectl apply --dry-run=client -o name -f\`:
  **missed**). Five interleaved runs each, during the run above (load 5–8): kubectl 1.19 s (1.08–1.50 s;
  CPU 0.37 s, 0.33–0.39); spread before (main's dist/) 4.00 s (2.69–4.99 s; CPU 1.43 s, 1.23–1.50); after
  3.19 s (2.03–3.44 s; CPU 1.30 s, 1.15–1.32): 2.7 × kubectl's wall time, 3.5 × its CPU time. Where it
  goes (\`node --cpu-prof\` of the stages, build/): decoding 553 ms, of it the library's
  \`parseAllDocuments\` 519 ms (lexer about 155, CST parser 220, composer 145) and spread's own part
  34 ms; rendering 687 ms (the library's \`createNode\` 82, \`Document.toString\` 576); GC 213 ms;
  start-up about 110 ms. Changed: before, spread's own part of decoding was about 320 ms (\`jsonValue\`
  copying the library's \`toJS\` Maps 147, the \`visit\` of checkJsonForm 136, flattenStrings with a Set
  of every object 65); src/decode/plain-value.ts now converts a document without aliases, merge keys
  or problems from the composed nodes in one walk (every other document, and every error, takes the
  path it took before; tests compare both). Next steps: the library's Lexer and Parser alone take
  about 375 ms of the 553, so ≤ 1 × kubectl needs both a decode below the composer (the library's
  CST with \`CST.resolveAsScalar\` and the schema's own tag tests for plain scalars, composing with the
  library only the documents with anchors, tags or errors; that is partly a reader of our own, which
  the brief rules out, so it needs the lead's decision) and a render that does not build a Document
  per object.
- 5,000 objects: linear (≤ 12 × the 500-object time at every round trip): **met** for every step at
  every round trip: 2.9–4.0 × for first deploys, 3.3–4.0 × for 10 % changed, 1.5–3.7 × for 10 %
  pruned, 3.3–8.9 × for the no-op (8.9 × at RTT 0, where the controllers were still writing). spread's first deploy of 5,000 against the cluster floor: 29.6 s / 21.5 s (RTT 0),
  24.4 / 18.1 s (10 ms), 32.0 / 24.3 s (30 ms): 1.3–1.4 ×; against kubectl at RTT 0: first 0.92 ×,
  no-op 0.42 × (9.2 s: the controllers were still writing Deployment status, 57 writes; 3.2–4.2 s at
  10 and 30 ms), 10 % changed 0.52 ×. The 5,000-object first deploys did not settle in the bench's 2
  minutes (833 Pods for kwok), so their no-ops count the controllers' status writes.

Issue 19, first part (a distance, Helm, floors at each round trip; an earlier session's two runs on
a machine at load 12–22, 500 objects only: the figures quoted here are from those runs, their records
bench/results-500.json):

- Where a no-op's time goes at RTT 30 (\`node bench/timeline.mjs bench-spread-500-30ms-1 spread --run 2
  --gap 4000\`, server timestamps): 22 requests in 11 serial rounds over 2.3 s, the server busy 0.16 s
  of it. The client's own round trips are discovery (\`/api\`, \`/apis\`, \`/version\` together), the
  Lease, the ApplySet parent, the plan's LISTs (two waves: three go on the sockets discovery opened,
  the other four wait one TLS handshake for new ones), prune's LISTs (with the revision read now
  beside them), the Lease's release: about 8 × 30 ms. The other 2 s are spread's CPU on this loaded
  machine: start-up and the synchronous read of the directory end 1.78 s after the first request.
- Changed for the distance (each measured in the audit log's timeline, no-op of 500, RTT 30):
  - src/cluster/lock.ts (acquireLock): the Lease is created without a GET first (a finished deploy
    deletes it; a 409 AlreadyExists sends the loop to read it, as before). One round trip fewer.
  - src/core/deploy.ts (deploy): the namespace check was "asked while the directory is read", but the
    read is synchronous, so the request reached the socket only after it: the audit log showed it
    725 ms after discovery, right when reading ended. An \`await setImmediate\` now lets it out first
    (57–83 ms after discovery); its round trip overlaps the read.
  - src/core/deploy.ts (deploy): a deploy whose plan is all unchanged reads the current revision's
    status (to decide whether it needs a new revision) while converging, not after: it now goes with
    prune's LISTs. One round trip fewer.
  - src/core/deploy.ts (deploy): the KubeClient's socket pool was fixed at 16 whatever --concurrency
    said, so issue 8's --concurrency 32/64 trials ran 16 requests at a time; it is now --concurrency.
  Serial round trips of a no-op after the read: 9 → 7 (before: the namespace check after the read, Lease
  GET, Lease create, parent, two LIST waves, prune LISTs, revision, release; now: Lease create, parent,
  two LIST waves, prune LISTs with the revision, a last prune LIST on a new socket, release), plus
  discovery before the read. Two of the seven are TLS handshakes of new sockets.
- Concurrency: first deploys of 500 at RTT 30 with --concurrency 16/32/64 (the socket fix in, alternated,
  two each, load 12–17): 20.5/27.4 s, 23.5/28.9 s, 26.8/24.6 s. The server answered single Deployment
  applies in 0.3–1.1 s then (audit log), so more in flight only queued at the server; no case for a
  new default on this machine, left at 16. On a real control plane with spare CPU at 30 ms, 500
  objects at 16 in flight are about 63 round trips of dry run and apply (≈ 2 s); 32 would halve that.
- First deploy at RTT 30: spread 30.2 s, the server busy 22.4 s of its 28.8 s of requests (49 serial
  rounds: the per-kind apply groups and the dry runs before them). The target's 0.2 × kubectl assumes a
  server that is not the bottleneck; here the cluster floor (only the applies, 16 in flight) itself
  takes 0.44 × kubectl at RTT 30 (0.77 × at RTT 0), so 0.2 × is out of reach of any client on this
  machine; spread is at 2.0 × the floor (target ≤ 2.5 ×: met), the dry run of every object being most
  of the difference. The no-op (0.14 × kubectl, target 0.05 ×) and 10 % changed (0.16 ×, target
  0.15 ×) are spread's CPU on a loaded machine (the no-op's 3.3 s: 2.3 s between its first and last
  request, the server busy 0.16 s of it). Next steps, in order of
  round trips saved: HTTP/2 (one TLS connection multiplexing every request, as client-go and
  kubectl do: no second LIST wave, no socket cap); a discovery cache on disk with a short TTL (as
  kubectl's ~/.kube/cache), refreshed on a miss (2 round trips at start); prune's LISTs started with
  the plan's (1 round trip; they depend only on the parent); the parent read pipelined with the
  Lease create (1 round trip; needs a re-read when the create fails, since the read must follow the lock).
- Helm v4 sends a GET before every server-side apply (1,013 requests for 500 objects) and writes two
  release Secrets even when nothing changed, so it is slower than kubectl at every step but the
  first at RTT 0; its no-op is the most expensive of the tools.
- Large inputs: that session's runs had spread's deploy of the 4.6 MB CRD bundle at 203–228 MB (see the
  second part above for this run's figures and the changes).

Profile and fixes (issue 8):

- Where a deploy's time goes. \`node --cpu-prof\` of a no-op deploy of 450 objects (first session): 2.5 s
  of 3.9 s idle, waiting for the API server; spread's own CPU was module loading (compiling the 7 MB
  bundle 136 ms, evaluating it about 100 ms), reading the directory (about 250 ms) and diffing. On this
  machine the API server, etcd, the controllers, kwok and spread share 2 CPUs, and every request costs
  the server about the same: 500 GETs, dry-run PATCHes or no-op PATCHes of ConfigMaps took 0.9–1 ms
  each at 16 in flight and 1.3–2 ms one after another. So the number of requests sets the time, and
  concurrency beyond that does not (--concurrency 8/16/32/64: 1.50/1.32–1.57/1.42/1.35 s, left at 16).
- Fix 1 (src/cluster/apply.ts): one paginated LIST per resource and namespace (from 8 objects) instead
  of a GET per object before the dry run. No-op of 500: 1,024 → 527 requests.
- Fix 2 (src/core/converge.ts): prune deletes with the apply's concurrency, not one after the other.
- Fix 3 (src/cluster/fingerprint.ts): no dry run for an object still exactly as the last completed
  apply left it. After apply and prune, the ApplySet parent records a digest per object of its uid,
  generation, the configuration spread applied and spread's server-side apply entry in managedFields
  (fields, API version, time); another manager that changes or removes a field spread set takes it
  out of that entry, so a matching digest means the apply would change nothing. A rollback or an
  apply that fails clears them first; objects whose ownership a re-apply would change, and
  \`spread plan\`, are always dry-run. No-op of 500: 527 → 110 requests, 0.80 × → 0.45 × kubectl;
  no-op of 5,000: 15.5 s → 4.7 s.
- Fix 4 (scripts/build.mjs): the bundle was 80 % @kubernetes/client-node's generated API clients,
  which spread never uses, and dockerode loaded gRPC and protobufjs for BuildKit sessions spread never
  opens. The build bundles a copy of client-node's config.js that imports only the two generated
  modules it needs, and a copy of dockerode's lib/docker.js without the session; each rewrite checks
  what it replaces, and the build fails over 4 MB. 6.97 MB → 3.57 MB, start-up 318 → about 230 ms.
- Fix 5 (src/cluster/apply.ts): the deferred dry runs of custom resources whose CRD the same deploy
  creates looked up their Namespace once per object: 834 of 10,865 requests at 5,000 objects.
- Fix 6 (src/cluster/apply.ts, secretAsStored): of the 110 requests of a no-op of 500, 83 were dry
  runs of the fixture's Secrets, written with stringData: the server stores data, which another
  manager could change without touching spread's stringData fields (kubernetes#108008), so they never
  got a fingerprint. spread now applies stringData as data (what the server stores): it owns the
  stored values, a change by another manager conflicts like any other field, and the Secrets get
  fingerprints. No-op of 500: 110 → 27 requests; 10 % changed: 214 → 131; no-op of 5,000: 866 → 33.
  The 27: 10 GETs (discovery twice, the Namespace, the Lease, the parent twice, the CRD twice), the
  Lease's create and delete, 13 LISTs (the plan's and prune's) and 2 applies of the parent that change
  nothing.
- Fix 7 (src/cluster/apply.ts, applyset.ts): the audit log showed the plan's LISTs running one after
  another (each started when the first object of its kind came up; objects come sorted by kind):
  150 ms for the 6 LISTs of a no-op of 450; they now start together (bounded by --concurrency), as
  do prune's 7 LISTs (100 → 11 ms). A CRD created by the deploy was polled for Established every
  250 ms; now after 10 ms, doubling to 250: the 500-object first deploy waited 256 ms, now 15 ms.
- Fix 8 (start-up): dockerode (with docker-modem and ssh2) and @actions/cache (with the Azure storage
  client) are imported when first needed (a build or push; the Action's layer cache), so ncc puts them
  in chunks of their own, minified with terser: dist/spread.js 3.57 → 2.16 MB, importing it 190 →
  about 145 ms. Both entry points enable Node's compile cache (module.enableCompileCache, as tsc
  does), which skips compiling the bundle on the second run on a machine (about 50 ms; every run
  after the first one here, a fresh CI machine pays it once). Start-up 227 → 214 ms (Action), 239 →
  195 ms (CLI).
- Fix 9 (peak RSS at 5,000: 359 → 272 MB). A heap profile showed little live data (about 15 MB after
  reading, 22 MB after rendering), but 240–270 MB resident: V8 grows the young generation to 64 MB
  semi-spaces (128 MB) once enough data survives scavenges, which a deploy of thousands of objects
  always does, plus garbage not yet collected. Two changes: (a) the input stage keeps a compact table
  of each value's lines instead of the yaml library's documents, copies each controller once instead
  of three times, and flattens the strings the YAML composer built piecewise (bench:input max RSS at
  5,000: 275 → 256–257 MB); (b) the CLI runs Node with --max-semi-space-size=16 (and the
  GitLab component passes it): \`spread render\` of 5,000 objects 327 → 183 MB with both; a no-op
  deploy of 5,000 with (a) only 321 MB, with (b) too 228 MB (by hand, in the same time). The CLI
  execs Node with the option from its second line (a shell line; BusyBox's env has no -S).
- Fix 10 (start-up of the CLI): the Action's front end, with @actions/core, @actions/http-client and
  the second copy of undici they bring, was evaluated by the CLI too (34 ms of loading the bundle in
  a profile). It is a chunk of its own now, loaded by the Action only: the CLI's start-up to its first
  request about 170 → 146 ms (old and new dist/ alternated), the Action's about 5 ms more.
- Fix 11 (the Action's memory): the runner starts \`node dist/index.js\`, so the Action could not get
  --max-semi-space-size=16 (v8.setFlagsFromString at run time changes nothing: \`spread render\` of
  5,000 objects stayed at 274 MB). dist/index.js now runs itself again in a child Node with the
  option (own process group; SIGINT and SIGTERM forwarded; the child's exit code): a no-op of 5,000
  through the Action 319–322 → 237–241 MB by hand (253 MB in this run), and about 30 ms more
  start-up (202 ms in this run). The harness now runs the no-op once more through the Action (see
  "the Action" above); a break test's findings (a parent killed by SIGKILL or SIGHUP left the child
  deploying, orphaned, with the Lease held) are fixed: an IPC channel stops the child when the parent
  dies, and SIGHUP is forwarded as SIGTERM.
- Fix 12 (a no-op writes nothing; src/core/converge.ts, applyset.ts, apply.ts): of the 27 requests
  of a no-op of 500 (Fix 6), 7 did nothing: two applies of the ApplySet parent that changed nothing,
  a second GET of the parent for the current revision, and, for the CRD left unchanged, a GET for
  its Established condition and a new discovery (2 GETs). The parent is now applied only when it
  lacks a value spread would write (parentHolds), the revision comes from the parent read under the
  lock, and an unchanged CRD that is already Established is neither waited for nor rediscovered. A
  CPU profile also showed the recording of fingerprints computing again (24 ms) those the plan had
  just matched; they are carried from the plan. No-op of 500: 27 → 21 requests, 687 → 530 ms; the
  audit log of a no-op of 450 now ends 384 ms after its first request (431 ms before).
- Fix 13 (found by this benchmark): the previous full run of this session failed once in nine first
  deploys of a CRD with its custom resources ("the server does not serve Widget"): the API server
  lists a new CRD's resources in discovery shortly after the CRD is Established, not at once, and
  spread read discovery once. It now reads it again until every served version resolves (10 ms
  doubling to 250 ms, up to 30 s). That run was discarded; this one had no failure.
- This run started on a fresh cluster (\`down.sh --purge\`, \`up.sh\`), with nothing else running.
  kubectl was faster than in the previous session's fresh-cluster run (first deploy of 500 3.3 →
  2.8 s, no-op 2.3 → 1.8 s), as was the floor (1.44 → 0.95 s), so the ratios moved less than
  spread's own times (first deploy 2.63 → 2.40 s, no-op 687 → 530 ms): first deploy 0.80 → 0.85 ×,
  no-op 0.30 → 0.29 ×. Between runs on fresh clusters the first-deploy ratio has varied between about
  0.8 and 1.1 and the floor between 0.34 and 0.44 ×.
- First deploy (≤ 0.2 × kubectl: missed). The target is below what this cluster can do at all: the
  cluster floor, the harness sending nothing but one server-side apply per object (16 in flight, no
  discovery, dry runs or records), takes 0.34 × kubectl's time at 500 and 0.51 × at 5,000 in this run
  (0.44 × and 0.36 × in the previous session's), so 0.2 × is out of reach of any client here. The API
  server, etcd, the controllers, kwok and the client share 2 CPUs, so the server's work per object
  sets the pace whatever the client does. spread sends two requests per new object: every object is
  dry-run before anything is written (the brief: "write nothing to the cluster when the input is
  invalid"). The audit log of a first deploy of 500 (an earlier session; 3.0 s wall, 1.45 s of it spread's own CPU):
  first request at 0.18 s, reading until 0.46 s, the lock, the parent and the LISTs until 0.51 s, 417
  dry runs until 0.96 s, the CRD and its Established wait until 1.0 s, the 83 custom resources'
  deferred dry runs until 1.13 s, 500 applies until 2.84 s (Services and Deployments the slowest, 5–6
  ms each: the server allocates IPs and the controllers react), prune and records until 3.0 s. Tried:
  a single apply group instead of one per kind group (no wait between ConfigMaps, Services,
  Deployments…): applies 1.35–1.63 s against 1.37–1.45 s, no gain, so the order stays;
  --concurrency 8/16/32/64 made no difference (earlier run). A CPU profile puts spread's 1.45 s in
  start-up and parsing (about 0.45 s), Node's HTTP client (about 0.4 s for 1,032 requests), GC
  (0.1 s) and the rest spread thinly.
- No-op (zero writes: met; ≤ 0.1 × kubectl: missed). The parse floor (above): a fresh Node process
  that only parses the 500-object directory with the yaml library takes 0.09 × kubectl's no-op, and
  spread's start-up to its first request another 0.07 ×, so the target leaves nothing for asking the
  cluster. The audit log of a no-op of 450 after Fix 12 (590 ms wall): discovery at the first
  request, reading the directory until 252 ms after it, then 18 requests until 384 ms (the
  Namespace, the Lease, the parent, 6 LISTs and a CRD GET together, prune's 7 LISTs together, the
  Lease's release); spread's own work between them (planning with fingerprints, about 45 ms) is the
  rest. Merging prune's LISTs into the plan's would save about 15 ms more; not done. Tried without gain: parsing on a worker thread (each thread warms the library's JIT up
  again: a worker parsing half the files made the read 195–203 ms against 140–161 ms on the main
  thread alone); V8 flags --always-sparkplug, --max-lazy, --no-lazy (with the compile cache),
  --single-threaded-gc (all within the noise; --min-semi-space-size=16 about 25 ms faster, at the cost
  of a young generation that large from the start); js-yaml parses the same files in 72 ms against
  the yaml library's 170 ms in a fresh process, but it is a second YAML dialect to keep in line with
  the first and keeps no scalar styles, which the YAML trap checks need.
- Writes: the 5,000-object runs start before the controllers have finished with the first deploy's
  833 Pods (the wait for quiet is capped at 2 minutes), so a 5,000 no-op's "writes" count Deployment
  status updates by the controllers for both tools; the 500-object no-op is quiet: 0 for both.
- Nothing else ran on the machine during this run.
- kubectl's ApplySet prune took about 0.22 s per deleted object here (50 in 11 s, 500 in 114–118 s);
  the cause was not investigated.`;

/** Replaces (or appends) the "## Deploy" section of bench/RESULTS.md; other sections are kept. */
function writeSection(text) {
  replaceSection(path.join(here, 'RESULTS.md'), '## Deploy', `${text}\n${NOTES}\n`);
}

await main();
