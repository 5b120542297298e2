// Fault classes, the loop that runs N deploys of the workload under one of them, and the RESULTS.md
// table. Each run: write the next round of the workload, deploy it with the fault injected on a
// schedule drawn from a seeded generator, check (checker.ts), let the Lease expire or be released,
// deploy again without the fault and check that it converges, reporting exactly what was left.
import { execFile } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse, stringify } from 'yaml';
import { sleep } from '../../src/base/poll.js';
import { applySetFor } from '../../src/engine/inventory/applyset.js';
import { clusterDir } from '../integration/env.js';
import { kubectl, ROOT, uniqueName, writeDir } from '../integration/helpers.js';
import {
  checkFaulted,
  differences,
  type Finding,
  historyProblems,
  leakedSecrets,
  readLease,
  snapshot,
  tail,
  touchedSentinel,
} from './checker.js';
import { type DeployResult, type DeployTarget, killTree, type RunningDeploy, runDeploy } from './deploys.js';
import type { Toxi, ToxicSpec } from './toxiproxy.js';
import { type Round, writeRound } from './workload.js';

const execFileP = promisify(execFile);

/** A small deterministic generator (mulberry32), so that a failing schedule can be replayed from its seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What an injector gets: the running deploy, the random source, the schedule to log to, the injectors. */
export interface FaultContext {
  readonly deploy: RunningDeploy;
  readonly random: () => number;
  /** Appends a line to the run's schedule (`+1.2s reset_peer on`). */
  readonly log: (event: string) => void;
  readonly toxi: Toxi;
  /** A fault-free deploy's duration in ms, to draw random points within. */
  readonly baselineMs: number;
}

/** A fault class: how to inject it and what a failure under it must name. */
export interface FaultClass {
  /** Column "fault class" of RESULTS.md, unique with `rate`. */
  readonly name: string;
  /** Column "rate": toxicity, duration, schedule. */
  readonly rate: string;
  readonly front: 'cli' | 'action';
  /** The deploy reaches the API server (`api`) or the registry (`registry`) through Toxiproxy. */
  readonly proxy?: 'api' | 'registry';
  /** The deploy runs as a ServiceAccount that API Priority and Fairness throttles. */
  readonly throttled?: boolean;
  /** The `&` image's context changes every round (a build and a push happen). */
  readonly rebuild?: boolean;
  /** What a non-zero exit's message must match; undefined when the process cannot print (SIGKILL, closed stdio). */
  readonly names: RegExp | undefined;
  inject(ctx: FaultContext): Promise<void>;
}

const restartScript = path.join(ROOT, 'scripts/cluster/restart.sh');

/** scripts/cluster/restart.sh COMPONENT DOWN on the cluster of this run (SPREAD_CLUSTER_DIR). */
export async function restartComponent(
  component: string,
  downSeconds: number,
  signal: 'TERM' | 'KILL' = 'TERM',
): Promise<void> {
  await execFileP('bash', [restartScript, component, String(downSeconds), signal], {
    env: { ...process.env, SPREAD_CLUSTER_DIR: clusterDir() },
  });
}

function componentPid(component: string): number {
  return Number(readFileSync(path.join(clusterDir(), 'run', `${component}.pid`), 'utf8').trim());
}

/** Waits until the API server answers /readyz ok (after a restart or an etcd pause). */
export async function apiReady(limitMs = 120_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const r = await kubectl(['--context', 'spread-local', 'get', '--raw', '/readyz'], { allowFail: true });
    if (r.code === 0 && r.stdout.trim() === 'ok') return;
    if (Date.now() > deadline) throw new Error(`the API server is not ready: ${r.stderr}`);
    await sleep(500);
  }
}

/** Toggles a toxic on and off while the deploy runs: on for `onMs`, off for `offMs`, until it ends. */
function toggled(proxy: 'api' | 'registry', spec: ToxicSpec, toxicity: number, onMs: number, offMs: number) {
  return async (ctx: FaultContext) => {
    const name = `fault-${spec.type}`;
    try {
      while (!ctx.deploy.ended()) {
        await ctx.toxi.add(proxy, name, spec, toxicity);
        ctx.log(`${spec.type} on (${JSON.stringify(spec.attributes)}, toxicity ${toxicity})`);
        const on = await ctx.deploy.after(onMs);
        await ctx.toxi.remove(proxy, name);
        ctx.log(`${spec.type} off`);
        if (!on) break;
        if (!(await ctx.deploy.after(offMs))) break;
      }
    } finally {
      await ctx.toxi.remove(proxy, name);
    }
  };
}

/** A random moment of the deploy: within the first 80 % of a fault-free deploy's duration. */
const randomPoint = (ctx: FaultContext) => Math.round(ctx.random() * ctx.baselineMs * 0.8);

function restartAt(
  component: string,
  downSeconds: number,
  trigger?: RegExp,
  signal: 'TERM' | 'KILL' = 'TERM',
) {
  return async (ctx: FaultContext) => {
    if (trigger) {
      if (!(await ctx.deploy.lines(trigger))) return ctx.log(`deploy ended before ${trigger}`);
      ctx.log(`saw ${trigger}`);
    } else {
      const at = randomPoint(ctx);
      if (!(await ctx.deploy.after(at))) return ctx.log(`deploy ended before +${at}ms`);
    }
    ctx.log(`restart ${component} (${signal === 'KILL' ? 'killed' : 'stopped'}, down ${downSeconds}s)`);
    await restartComponent(component, downSeconds, signal);
    ctx.log(`${component} healthy again`);
  };
}

function pauseEtcd(seconds: number) {
  return async (ctx: FaultContext) => {
    const at = randomPoint(ctx);
    if (!(await ctx.deploy.after(at))) return ctx.log(`deploy ended before +${at}ms`);
    const pid = componentPid('etcd');
    ctx.log(`SIGSTOP etcd (pid ${pid}) for ${seconds}s`);
    process.kill(pid, 'SIGSTOP');
    try {
      await sleep(seconds * 1000);
    } finally {
      process.kill(pid, 'SIGCONT');
      ctx.log('SIGCONT etcd');
    }
    await apiReady();
  };
}

function signalAt(signal: NodeJS.Signals, tree: boolean) {
  return async (ctx: FaultContext) => {
    const at = randomPoint(ctx);
    if (!(await ctx.deploy.after(at))) return ctx.log(`deploy ended before +${at}ms`);
    const pid = ctx.deploy.child.pid!;
    if (tree) ctx.log(`${signal} to the process tree ${killTree(pid, signal).join(',')}`);
    else {
      ctx.deploy.child.kill(signal);
      ctx.log(`${signal} to pid ${pid}`);
    }
  };
}

function closeStdio() {
  return async (ctx: FaultContext) => {
    const at = randomPoint(ctx);
    if (!(await ctx.deploy.after(at))) return ctx.log(`deploy ended before +${at}ms`);
    ctx.deploy.child.stdout?.destroy();
    ctx.deploy.child.stderr?.destroy();
    ctx.log('stdout and stderr closed (EPIPE on the next write)');
  };
}

const NETWORK = /ECONNRESET|socket hang up|EPIPE|ECONNREFUSED|ETIMEDOUT|timed out|gave up after|TLS|EOF/;

/** Every fault class of issue 20, in the order of the table. */
export const FAULT_CLASSES: readonly FaultClass[] = [
  {
    name: 'API: reset_peer',
    rate: '5 % of connections, on 2 s / off 1 s',
    front: 'cli',
    proxy: 'api',
    names: NETWORK,
    inject: toggled('api', { type: 'reset_peer', attributes: { timeout: 0 } }, 0.05, 2000, 1000),
  },
  {
    name: 'API: reset_peer',
    rate: '20 % of connections, on 2 s / off 1 s',
    front: 'cli',
    proxy: 'api',
    names: NETWORK,
    inject: toggled('api', { type: 'reset_peer', attributes: { timeout: 0 } }, 0.2, 2000, 1000),
  },
  {
    name: 'API: timeout (black hole)',
    rate: '5 % of connections, on 3 s / off 1 s',
    front: 'cli',
    proxy: 'api',
    names: NETWORK,
    inject: toggled('api', { type: 'timeout', attributes: { timeout: 0 } }, 0.05, 3000, 1000),
  },
  {
    name: 'API: latency',
    rate: '200 ms ± 100 ms, all connections',
    front: 'cli',
    proxy: 'api',
    names: NETWORK,
    inject: toggled('api', { type: 'latency', attributes: { latency: 200, jitter: 100 } }, 1, 60_000, 1000),
  },
  {
    name: 'API: slicer',
    rate: '64 ± 32 byte packets, 0.2 ms apart, 50 %',
    front: 'cli',
    proxy: 'api',
    names: NETWORK,
    inject: toggled(
      'api',
      { type: 'slicer', attributes: { average_size: 64, size_variation: 32, delay: 200 } },
      0.5,
      60_000,
      1000,
    ),
  },
  {
    name: 'API: bandwidth',
    rate: '64 KB/s, 50 %, on 2 s / off 1 s',
    front: 'cli',
    proxy: 'api',
    names: NETWORK,
    inject: toggled('api', { type: 'bandwidth', attributes: { rate: 64 } }, 0.5, 2000, 1000),
  },
  {
    name: 'API: 429 (Priority and Fairness)',
    rate: 'nominal share 1, no queue',
    front: 'cli',
    throttled: true,
    names: /429|TooManyRequests/,
    inject: async (ctx) => ctx.log('FlowSchema active for the whole deploy'),
  },
  {
    name: 'API server restarted',
    rate: 'once, down 2 s, at a random point',
    front: 'cli',
    names: /ECONNREFUSED|ECONNRESET|socket hang up|503|ServiceUnavailable|gave up after|EOF/,
    inject: restartAt('kube-apiserver', 2),
  },
  {
    name: 'etcd paused (SIGSTOP)',
    rate: 'once, 10 s, at a random point',
    front: 'cli',
    names: /50[0-4]|timed out|timeout|ETIMEDOUT|gave up after|Timeout/,
    inject: pauseEtcd(10),
  },
  {
    name: 'registry: reset_peer',
    rate: '20 % of connections, during the push',
    front: 'cli',
    proxy: 'registry',
    rebuild: true,
    names: /push|registry|ECONNRESET|connection reset|EOF|broken pipe/i,
    inject: toggled('registry', { type: 'reset_peer', attributes: { timeout: 0 } }, 0.2, 60_000, 1000),
  },
  {
    name: 'registry restarted mid-push',
    rate: 'once, down 2 s, as the layers are exported',
    front: 'cli',
    rebuild: true,
    names: /push|registry|connection refused|ECONNREFUSED|ECONNRESET|EOF/i,
    // buildx's plain progress: `#9 exporting layers`, then `#9 pushing layers`.
    inject: restartAt('registry', 2, /^#\d+ (?:exporting|pushing) layers/m),
  },
  {
    name: 'BuildKit (buildkitd) killed mid-build',
    rate: 'once (SIGKILL), at the first build step, then started again',
    front: 'cli',
    rebuild: true,
    names: /buildkit|buildx|build|ECONNREFUSED|ECONNRESET|connection|EOF|canceled/i,
    // buildx's plain progress: `#5 [1/3] FROM …`.
    // SIGKILL: on SIGTERM BuildKit finishes the builds it runs, so only a crash lands in the build.
    inject: restartAt('buildkitd', 0, /^#\d+ \[\d+\/\d+\] /m, 'KILL'),
  },
  {
    name: 'SIGKILL of the CLI',
    rate: 'once, at a random point',
    front: 'cli',
    names: undefined,
    inject: signalAt('SIGKILL', false),
  },
  {
    name: 'SIGTERM of the CLI',
    rate: 'once, at a random point',
    front: 'cli',
    names: /SIGTERM|interrupted|terminated/,
    inject: signalAt('SIGTERM', false),
  },
  {
    name: "SIGKILL of the Action's process tree",
    rate: 'once, at a random point',
    front: 'action',
    names: undefined,
    inject: signalAt('SIGKILL', true),
  },
  {
    name: "SIGTERM of the Action's process tree",
    rate: 'once, at a random point',
    front: 'action',
    names: /SIGTERM|interrupted|terminated|cancel/,
    inject: signalAt('SIGTERM', true),
  },
  {
    name: 'stdout and stderr closed (CLI)',
    rate: 'once, at a random point',
    front: 'cli',
    names: undefined,
    inject: closeStdio(),
  },
];

/** One run's record: the schedule, the checker's finding and the timings. */
export interface RunRecord {
  readonly run: number;
  readonly seed: number;
  readonly schedule: readonly string[];
  readonly finding: Finding;
  readonly exit: string;
  /** The fault happened during the deploy (a signal, a restart, a toxic on), not after it ended. */
  readonly injected: boolean;
  readonly ms: number;
}

/** The result of a fault class: its runs, and the table row they make. */
export interface ClassResult {
  readonly fault: FaultClass;
  readonly runs: readonly RunRecord[];
  readonly baselineMs: number;
  /** Runs left out because the time budget ran out. */
  readonly skipped: number;
}

/** Options of {@link runFaultClass}. */
export interface ClassOptions {
  readonly runs: number;
  /** Objects in the workload's directory. */
  readonly size: number;
  readonly toxi: Toxi;
  /** No new run starts after this time (ms since the epoch). */
  readonly deadline: number;
  readonly seed: number;
}

interface Env {
  readonly namespace: string;
  /** Where the logs of runs with a finding are written. */
  readonly logDir: string;
  readonly group: string;
  readonly target: DeployTarget;
  readonly direct: DeployTarget;
  readonly cleanup: () => Promise<void>;
}

/** A kubeconfig file like the cluster's with the API server's address replaced (a Toxiproxy proxy). */
function kubeconfigVia(
  dir: string,
  server: string | undefined,
  user?: { name: string; token: string },
): string {
  const doc = parse(readFileSync(process.env.KUBECONFIG!, 'utf8'));
  for (const c of doc.clusters) if (server) c.cluster.server = `https://${server}`;
  if (user) {
    doc.users.push({ name: user.name, user: { token: user.token } });
    for (const c of doc.contexts) if (c.name === 'spread-local') c.context.user = user.name;
  }
  const file = path.join(dir, 'kubeconfig');
  writeFileSync(file, stringify(doc), { mode: 0o600 });
  return file;
}

/** A DOCKER_CONFIG whose credentials also name the registry proxy's address. */
function dockerConfigVia(dir: string, registryProxy: string): string {
  const base = JSON.parse(readFileSync(path.join(process.env.DOCKER_CONFIG!, 'config.json'), 'utf8'));
  const auth = base.auths[process.env.SPREAD_REGISTRY!];
  const out = path.join(dir, 'docker');
  mkdirSync(out, { recursive: true });
  // The buildx plugin the cluster's scripts installed beside its config.
  symlinkSync(path.join(process.env.DOCKER_CONFIG!, 'cli-plugins'), path.join(out, 'cli-plugins'));
  writeFileSync(
    path.join(out, 'config.json'),
    JSON.stringify({ auths: { ...base.auths, [registryProxy]: auth } }),
    { mode: 0o600 },
  );
  return out;
}

const apf = (ns: string) => `faults-${ns}`;

async function throttle(ns: string): Promise<{ name: string; token: string }> {
  const ctx = ['--context', 'spread-local'];
  await kubectl([...ctx, '-n', ns, 'create', 'serviceaccount', 'faults-deployer']);
  await kubectl([
    ...ctx,
    'create',
    'clusterrolebinding',
    apf(ns),
    '--clusterrole',
    'cluster-admin',
    `--serviceaccount=${ns}:faults-deployer`,
  ]);
  const objects = [
    {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      kind: 'PriorityLevelConfiguration',
      metadata: { name: apf(ns) },
      spec: {
        type: 'Limited',
        limited: {
          nominalConcurrencyShares: 1,
          lendablePercent: 0,
          borrowingLimitPercent: 0,
          limitResponse: { type: 'Reject' },
        },
      },
    },
    {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      kind: 'FlowSchema',
      metadata: { name: apf(ns) },
      spec: {
        priorityLevelConfiguration: { name: apf(ns) },
        matchingPrecedence: 500,
        distinguisherMethod: { type: 'ByUser' },
        rules: [
          {
            subjects: [
              { kind: 'ServiceAccount', serviceAccount: { name: 'faults-deployer', namespace: ns } },
            ],
            resourceRules: [
              { verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] },
            ],
            nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
          },
        ],
      },
    },
  ];
  await kubectl([...ctx, 'apply', '-f', '-'], { input: objects.map((o) => JSON.stringify(o)).join('\n') });
  // The API server's APF controller picks the new configuration up asynchronously: wait until the
  // FlowSchema's Dangling condition is False (its priority level is known).
  for (let i = 0; i < 120; i++) {
    const r = await kubectl(
      [
        ...ctx,
        'get',
        'flowschema',
        apf(ns),
        '-o',
        'jsonpath={.status.conditions[?(@.type=="Dangling")].status}',
      ],
      { allowFail: true },
    );
    if (r.stdout.trim() === 'False') break;
    await sleep(250);
  }
  const token = (
    await kubectl([...ctx, '-n', ns, 'create', 'token', 'faults-deployer', '--duration', '2h'])
  ).stdout.trim();
  return { name: 'faults-deployer', token };
}

async function setUp(fault: FaultClass, toxi: Toxi): Promise<Env> {
  const namespace = uniqueName('faults');
  const group = `${namespace}.faults.test`;
  const dir = mkdtempSync(path.join(tmpdir(), 'spread-faults-'));
  await kubectl(['--context', 'spread-local', 'create', 'namespace', namespace]);
  const user = fault.throttled ? await throttle(namespace) : undefined;
  const registry = fault.proxy === 'registry' ? toxi.registry : process.env.SPREAD_REGISTRY!;
  const direct: DeployTarget = {
    dir: path.join(dir, 'app'),
    namespace,
    name: 'faults',
    kubeconfig: process.env.KUBECONFIG!,
    context: 'spread-local',
    registry,
    dockerConfig: dockerConfigVia(dir, toxi.registry),
    leaseDuration: '5s',
    front: 'cli',
  };
  const target: DeployTarget = {
    ...direct,
    kubeconfig:
      fault.proxy === 'api' || user
        ? kubeconfigVia(dir, fault.proxy === 'api' ? toxi.api : undefined, user)
        : direct.kubeconfig,
    front: fault.front,
  };
  return {
    namespace,
    logDir: dir,
    group,
    target,
    direct,
    cleanup: async () => {
      const ctx = ['--context', 'spread-local'];
      if (user) {
        await kubectl(
          [...ctx, 'delete', 'flowschema,prioritylevelconfiguration', apf(namespace), '--ignore-not-found'],
          { allowFail: true },
        );
        await kubectl([...ctx, 'delete', 'clusterrolebinding', apf(namespace), '--ignore-not-found'], {
          allowFail: true,
        });
      }
      await kubectl([...ctx, 'delete', 'crd', `widgets.${group}`, '--ignore-not-found', '--wait=false'], {
        allowFail: true,
      });
      await kubectl([...ctx, 'delete', 'namespace', namespace, '--wait=false'], { allowFail: true });
    },
  };
}

/** The changed objects a fault-free deploy reported (JSON report on stdout). */
function reportedChanges(result: DeployResult): string[] | undefined {
  const start = result.output.indexOf('{\n  "deployment"');
  if (start < 0) return undefined;
  try {
    const end = result.output.indexOf('\n}\n', start);
    const report = JSON.parse(result.output.slice(start, end + 2));
    return (report.objects as { kind: string; name: string; action: string }[])
      .filter((o) => o.action !== 'unchanged' && o.action !== 'kept')
      .map((o) => `${o.kind}/${o.name}`)
      .sort();
  } catch {
    return undefined;
  }
}

const median = (xs: number[]) => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const exitText = (r: DeployResult) => (r.signal ? `signal ${r.signal}` : `exit ${r.code}`);

/**
 * Runs `options.runs` deploys of the workload under `fault` (fewer when the deadline comes first),
 * each checked, each followed by a fault-free deploy that must converge.
 */
export async function runFaultClass(fault: FaultClass, options: ClassOptions): Promise<ClassResult> {
  const env = await setUp(fault, options.toxi);
  const runs: RunRecord[] = [];
  try {
    const seedText = `${options.seed}-${fault.name}-${fault.rate}`;
    const common = {
      size: options.size,
      seed: seedText,
      group: env.group,
      // BuildKit pulls FROM images from a registry: the local base image's copy in the cluster's.
      baseImage: process.env.SPREAD_BASE_IMAGE_REF || 'localhost:5000/spread/busybox:1',
    };
    const secrets: string[] = [];
    const write = (round: number) => {
      const r = writeRound({ ...common, dir: env.target.dir, round, rebuild: fault.rebuild === true });
      secrets.push(...r.secrets);
      return r;
    };
    // The other deployment in the same namespace, which no deploy of this run may touch.
    const other = writeDir('other', {
      '.k2e/cms.yaml': [0, 1, 2]
        .map((i) => `---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: other-${i}}\ndata: {v: "${i}"}\n`)
        .join(''),
    });
    const sentinelDeploy = await runDeploy({ ...env.direct, dir: other, name: 'other' });
    if (sentinelDeploy.code !== 0)
      throw new Error(`the other deployment failed: ${tail(sentinelDeploy.output)}`);
    // Round 0 and a fault-free changed round: the baseline duration.
    write(0);
    const first = await runDeploy(env.direct);
    if (first.code !== 0) throw new Error(`the first fault-free deploy failed: ${tail(first.output)}`);
    write(1);
    const base = await runDeploy(env.direct);
    if (base.code !== 0) throw new Error(`the baseline deploy failed: ${tail(base.output)}`);
    const baselineMs = base.endedAt - base.startedAt;
    let round = 1;
    const sentinelSnap = await snapshot(env.namespace, env.group);
    const sentinel = new Map(
      [...sentinelSnap]
        .filter(([k]) => k.startsWith('ConfigMap/other-'))
        .map(([k, v]) => [k, v.resourceVersion]),
    );
    if (sentinel.size !== 3) throw new Error('the other deployment is not in the cluster');
    let skipped = 0;
    for (let i = 1; i <= options.runs; i++) {
      if (Date.now() > options.deadline) {
        skipped = options.runs - i + 1;
        break;
      }
      round++;
      const seed = (options.seed * 1000 + i) >>> 0;
      const random = rng(seed);
      const schedule: string[] = [];
      const thisRound: Round = write(round);
      const before = await snapshot(env.namespace, env.group);
      const started = Date.now();
      const log = (event: string) =>
        schedule.push(`+${((Date.now() - started) / 1000).toFixed(1)}s ${event}`);
      const result = await runDeploy(env.target, (deploy) =>
        fault.inject({ deploy, random, log, toxi: options.toxi, baselineMs }),
      );
      log(exitText(result));
      await options.toxi.reset();
      await apiReady();
      const { finding, after } = await checkFaulted({
        namespace: env.namespace,
        group: env.group,
        deployment: 'faults',
        round: thisRound,
        before,
        result,
        names: fault.names,
        sentinel,
        secrets,
        ...(fault.name.startsWith('SIGTERM') ? { releasesLock: 'SIGTERM' as const } : {}),
      });
      // A fault whose trigger never came (the deploy ended first) measured nothing.
      const missed = schedule.find((s) => / deploy ended before /.test(s));
      const injected = missed === undefined;
      // The rerun without the fault: it takes an expired Lease over, converges, and reports exactly
      // what the faulted deploy left undone.
      const setId = applySetFor('faults', env.namespace).id;
      const remaining = [
        ...differences(thisRound, after).map((d) => d.split(' ')[0]!.replace(/:$/, '')),
        ...[...after.values()]
          .filter(
            (l) =>
              l.partOf === setId && !thisRound.objects.some((o) => o.kind === l.kind && o.name === l.name),
          )
          .map((l) => `${l.kind}/${l.name}`),
      ].sort();
      const rerun = await runDeploy(env.direct);
      const rerunLive = await snapshot(env.namespace, env.group);
      const rerunDiff = differences(thisRound, rerunLive);
      const reported = reportedChanges(rerun);
      const leftovers = [...rerunLive.values()].filter(
        (l) => l.partOf === setId && !thisRound.objects.some((o) => o.kind === l.kind && o.name === l.name),
      );
      const problems = [...finding.problems];
      if (rerun.code !== 0) problems.push(`the fault-free rerun failed: ${tail(rerun.output)}`);
      else if (rerunDiff.length > 0)
        problems.push(`after the rerun the cluster still differs: ${rerunDiff.slice(0, 5).join('; ')}`);
      else if (leftovers.length > 0)
        problems.push(
          `the rerun left objects the directory dropped: ${leftovers.map((l) => l.name).join(', ')}`,
        );
      // The `&` image's Deployment is left out: its reference is only known to the deploy (a digest).
      const comparable = (list: string[]) => list.filter((k) => k !== 'Deployment/web');
      const settled = rerun.code === 0 && rerunDiff.length === 0 && leftovers.length === 0;
      const exact =
        reported !== undefined && comparable(reported).join(',') === comparable(remaining).join(',');
      const converged = settled && exact;
      if (!injected && fault.rebuild)
        problems.push(`the fault was never injected (${missed}): the run measured nothing`);
      if (settled && reported && !exact)
        problems.push(
          `the rerun reported ${comparable(reported).length} changes (${comparable(reported).slice(0, 6).join(', ')}…), ${comparable(remaining).length} were left (${comparable(remaining).slice(0, 6).join(', ')}…)`,
        );
      if (settled && !reported) problems.push('the rerun printed no JSON report');
      problems.push(
        ...(await historyProblems(env.namespace, 'faults', rerunLive, settled ? thisRound : undefined)),
      );
      const touched = touchedSentinel(sentinel, rerunLive);
      if (touched.length > 0 && !finding.problems.some((p) => p.includes('another deployment')))
        problems.push(`the rerun touched another deployment: ${touched.join(', ')}`);
      const leaked = leakedSecrets(rerun.output, secrets);
      if (leaked.length > 0) problems.push(`${leaked.length} Secret value(s) in the rerun's log`);
      const lease = await readLease(env.namespace, 'faults');
      const lockHeld = finding.lockHeld || lease?.holder !== undefined;
      if (lease?.holder) problems.push(`the Lease is still held after the rerun, by ${lease.holder}`);
      // The whole logs of a run with a finding, kept for reading (their path is in the finding).
      if (problems.length > 0) {
        const file = path.join(env.logDir, `run-${i}.log`);
        writeFileSync(file, `${result.output}\n---- the fault-free rerun ----\n${rerun.output}`);
        problems.push(`logs: ${file}`);
      }
      runs.push({
        run: i,
        seed,
        schedule,
        exit: exitText(result),
        injected,
        ms: result.endedAt - result.startedAt,
        finding: {
          ...finding,
          outcome: problems.length > 0 ? 'bad' : finding.outcome,
          problems,
          lockHeld,
          converged,
        },
      });
    }
    return { fault, runs, baselineMs, skipped };
  } finally {
    await options.toxi.reset().catch(() => {});
    await env.cleanup();
    tidy(
      env.logDir,
      runs.some((r) => r.finding.outcome === 'bad'),
    );
  }
}

/**
 * Removes a class's directory, or, when a run had a finding, all of it but the runs' logs: its
 * kubeconfigs and Docker config hold credentials.
 */
function tidy(dir: string, keepLogs: boolean): void {
  if (!keepLogs) {
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  for (const entry of readdirSync(dir))
    if (!/^run-\d+\.log$/.test(entry)) rmSync(path.join(dir, entry), { recursive: true, force: true });
}

/** The failing runs of a class, each with its schedule and the checker's findings. */
export function failureReport(result: ClassResult): string {
  return result.runs
    .filter((r) => r.finding.outcome === 'bad')
    .map(
      (r) =>
        `${result.fault.name} (${result.fault.rate}), run ${r.run} of --seed ${Math.floor(r.seed / 1000)} (its own seed ${r.seed}), ${r.exit}\n  schedule:\n${r.schedule.map((s) => `    ${s}`).join('\n')}\n  findings:\n${r.finding.problems.map((p) => `    - ${p.replace(/\n/g, '\n      ')}`).join('\n')}`,
    )
    .join('\n\n');
}

/** One row of RESULTS.md. */
export function tableRow(result: ClassResult): string {
  const rs = result.runs;
  const extra = median(rs.map((r) => r.ms - result.baselineMs)) / 1000;
  return `| ${[
    result.fault.name,
    result.fault.rate,
    result.fault.front === 'action' ? 'Action' : 'CLI',
    rs.length + (result.skipped ? ` (${result.skipped} not run: budget)` : ''),
    rs.filter((r) => r.injected).length,
    rs.filter((r) => r.finding.outcome === 'succeeded').length,
    rs.filter((r) => r.finding.outcome === 'failed-cleanly').length,
    rs.filter((r) => r.finding.converged).length,
    rs.reduce((n, r) => n + r.finding.lost, 0),
    rs.filter((r) => r.finding.lockHeld).length,
    Number.isNaN(extra) ? '–' : `${extra >= 0 ? '+' : ''}${extra.toFixed(1)} s`,
    rs.filter((r) => r.finding.outcome === 'bad').length,
  ].join(' | ')} |`;
}

/** RESULTS.md: how the figures were made, the table, and every failing run's schedule and findings. */
export function resultsMarkdown(
  results: readonly ClassResult[],
  meta: {
    runs: number;
    size: number;
    seed: number;
    budgetMinutes: number;
    started: Date;
    kubeVersion: string;
  },
): string {
  const failing = results.map(failureReport).filter(Boolean);
  return [
    '# Fault tests: results',
    '',
    `Written by \`npm run test:faults\` (test/faults/) on ${meta.started.toISOString().slice(0, 16).replace('T', ' ')} UTC:`,
    `Kubernetes ${meta.kubeVersion} of scripts/cluster/up.sh, up to ${meta.runs} runs per fault class, a workload of ${meta.size} objects`,
    `(Deployments, Services, ConfigMaps, Secrets, a CRD and custom resources, one \`&\` image), seed ${meta.seed}, budget ${meta.budgetMinutes} min.`,
    '',
    'Each run deploys the next round of the workload (a third of the objects changed, one ConfigMap and one',
    'custom resource dropped, the two of the round before back) with the fault injected, checks the result,',
    'then deploys again without the fault. *Succeeded*: exit 0 and the cluster equals the directory.',
    '*Failed cleanly*: a non-zero exit (or a killed process) after which every check passed: the message',
    'names the fault and what was applied and not (where the process could still print), nothing of the',
    'directory was deleted, nothing pruned after a failed apply, the other deployment untouched, the',
    'Lease released (at once after SIGTERM) or left to expire, the ApplySet parent and revision records consistent, no Secret',
    'value in any log. *Converged on rerun*: the fault-free deploy after it exited 0, the cluster then',
    'equals the directory, and it reported exactly the changes that were left. *Fault injected*: runs in',
    'which the fault came while the deploy ran (a random point can fall after a short deploy ended; a',
    'fault tied to a build or push step that never came is a finding). *Extra time*: median of the faulted',
    "deploy's duration minus a fault-free deploy's of the same workload. *Bad*: runs with a finding (listed",
    "below with the fault's schedule).",
    '',
    '| fault class | rate | front end | runs | fault injected | succeeded | failed cleanly | converged on rerun | objects lost | locks left held | median extra time | bad |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...results.map(tableRow),
    '',
    ...(failing.length > 0
      ? ['## Failing runs', '', '```text', failing.join('\n\n'), '```', '']
      : ['No run had a finding.', '']),
  ].join('\n');
}
