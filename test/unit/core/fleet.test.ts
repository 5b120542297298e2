// Fleet deploys (src/core/fleet) against several in-memory API servers (test/unit/engine/fake-cluster.ts),
// one per cluster: waves in order, at most N at once, a failed wave stopping the later ones with
// nothing written there, an unreachable cluster, the soak, and one cluster deployed again alone.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { silentLogger } from '../../../src/base/logger.js';
import { KubeApiError } from '../../../src/cluster/api-error.js';
import { Discovery } from '../../../src/cluster/discovery.js';
import type { DeployOptions } from '../../../src/core/deploy/index.js';
import { DeployError } from '../../../src/core/deploy/index.js';
import {
  deployFleet,
  type FleetCluster,
  type FleetWavePlan,
  legError,
} from '../../../src/core/fleet/index.js';
import { formatFleetText } from '../../../src/report/fleet.js';
import { FakeCluster } from '../engine/fake-cluster.js';

const NS = 'shop';
const NAMES = ['eu-1', 'eu-2', 'us-1', 'us-2'] as const;
let dir: string;
let kubes: Record<string, FakeCluster>;
/** Connections open now and the most open at once, across the fleet. */
let open = 0;
let peak = 0;
/** Order in which legs connected. */
let connected: string[] = [];
let unreachable = new Set<string>();

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'spread-fleet-'));
  mkdirSync(path.join(dir, 'shop'));
  writeFileSync(
    path.join(dir, 'shop', 'deployment.yaml'),
    `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx:1.27}]}
`,
  );
  kubes = {};
  for (const name of NAMES) {
    kubes[name] = new FakeCluster();
    kubes[name].put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  }
  open = 0;
  peak = 0;
  connected = [];
  unreachable = new Set();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const options: Omit<DeployOptions, 'cluster' | 'logger' | 'signal'> = {
  path: '',
  mode: 'deploy',
  wait: true,
  timeoutMs: 5_000,
  forceConflicts: false,
  concurrency: 4,
  prune: true,
  lockTimeoutMs: 1_000,
};

function cluster(name: string): FleetCluster {
  return {
    name,
    context: name,
    options: { ...options, path: path.join(dir, 'shop') },
    connect: async () => {
      connected.push(name);
      if (unreachable.has(name))
        throw new Error(`cannot use the API server https://${name}:6443: ECONNREFUSED`);
      const kube = kubes[name]!;
      const cluster = { api: kube, discovery: await Discovery.load(kube), context: name, namespace: NS };
      open++;
      peak = Math.max(peak, open);
      return { cluster, close: () => open-- };
    },
  };
}

function waves(...spec: [string, string[], Partial<FleetWavePlan>?][]): FleetWavePlan[] {
  return spec.map(([name, clusters, extra]) => ({ name, clusters: clusters.map(cluster), ...extra }));
}

/** Resolves once cluster `name`'s deploy ended: its Lease deleted, the soak begun. */
const deployed = (name: string) =>
  new Promise((resolve) => {
    const timer = setInterval(() => {
      if (kubes[name]!.log.some((l) => l.startsWith('DELETE') && l.includes('leases'))) {
        clearInterval(timer);
        resolve(undefined);
      }
    }, 5);
  });
const writes = (name: string) => kubes[name]!.log.filter((l) => /^(PATCH|POST|PUT|DELETE) (?!dry)/.test(l));
const statuses = (r: Awaited<ReturnType<typeof deployFleet>>) =>
  Object.fromEntries(r.waves.flatMap((w) => w.clusters.map((c) => [c.cluster, c.status])));
const twoWaves = () => waves(['canary', ['eu-1', 'eu-2']], ['rest', ['us-1', 'us-2'], { maxParallel: 1 }]);

describe('deployFleet', () => {
  test('four clusters in two waves: every one deployed, the canary before the rest, at most 2 at once in rest', async () => {
    const plan = waves(['canary', ['eu-1']], ['rest', ['eu-2', 'us-1', 'us-2'], { maxParallel: 2 }]);
    const report = await deployFleet({ environment: 'production', waves: plan, logger: silentLogger });
    expect(report.status).toBe('succeeded');
    expect(statuses(report)).toEqual({
      'eu-1': 'succeeded',
      'eu-2': 'succeeded',
      'us-1': 'succeeded',
      'us-2': 'succeeded',
    });
    expect(connected).toEqual(['eu-1', 'eu-2', 'us-1', 'us-2']);
    // The canary's connection is closed before rest starts; rest never had more than 2 open.
    expect(peak).toBe(2);
    expect(open).toBe(0);
    for (const name of NAMES) {
      expect(kubes[name]!.get('Deployment', NS, 'web')).toBeDefined();
      expect(kubes[name]!.get('Lease', NS, 'spread.shop')).toBeUndefined();
    }
    const leg = report.waves[0]!.clusters[0]!;
    expect(report.waves.map((w) => w.clusters.map((c) => c.cluster))).toEqual([
      ['eu-1'],
      ['eu-2', 'us-1', 'us-2'],
    ]);
    expect(leg).toMatchObject({ context: 'eu-1', namespace: NS, revision: 1, rollout: 'ready' });
    expect(leg.changes).toEqual({ created: 1, configured: 0, unchanged: 0, pruned: 0 });
    expect(formatFleetText(report)).toMatch(
      /wave rest \(succeeded\)\n {2}eu-2 {5}succeeded · context eu-2 · revision 1 · 1 created, 0 configured/,
    );
  });

  test('a failed rollout in wave 1 stops the fleet: wave 2 is skipped with nothing written there', async () => {
    kubes['eu-2']!.rollout = 'stuck';
    const report = await deployFleet({ environment: 'production', waves: twoWaves(), logger: silentLogger });
    expect(report.status).toBe('failed');
    expect(statuses(report)).toEqual({
      'eu-1': 'succeeded',
      'eu-2': 'failed',
      'us-1': 'skipped',
      'us-2': 'skipped',
    });
    expect(report.waves.map((w) => w.status)).toEqual(['failed', 'skipped']);
    const failed = report.waves[0]!.clusters[1]!;
    expect(failed.error).toMatch(/progress deadline exceeded/);
    expect(failed.rollout).toMatch(/^Deployment\/web not ready/);
    expect(failed.revision).toBe(1);
    expect(report.waves[1]!.clusters[0]!.error).toBe('not started: wave canary failed');
    for (const name of ['us-1', 'us-2']) {
      expect(writes(name)).toEqual([]);
      expect(kubes[name]!.log).toEqual([]);
    }
    expect(connected).not.toContain('us-1');
    expect(formatFleetText(report)).toMatch(/fleet FAILED: 1 succeeded, 1 failed, 2 skipped/);
  });

  test('with maxParallel 1, a failed cluster stops its wave: the next one is never started', async () => {
    kubes['eu-1']!.rollout = 'stuck';
    const report = await deployFleet({
      environment: 'production',
      waves: waves(['one-by-one', ['eu-1', 'eu-2'], { maxParallel: 1 }], ['rest', ['us-1']]),
      logger: silentLogger,
    });
    expect(statuses(report)).toEqual({ 'eu-1': 'failed', 'eu-2': 'skipped', 'us-1': 'skipped' });
    expect(report.waves[0]!.clusters[1]!.error).toBe('not started: a cluster of its wave failed');
    expect(kubes['eu-2']!.log).toEqual([]);
  });

  test('an unreachable cluster fails its leg only: its wave-mates deploy and release their Leases', async () => {
    unreachable.add('eu-1');
    const report = await deployFleet({ environment: 'production', waves: twoWaves(), logger: silentLogger });
    expect(statuses(report)).toEqual({
      'eu-1': 'failed',
      'eu-2': 'succeeded',
      'us-1': 'skipped',
      'us-2': 'skipped',
    });
    expect(report.waves[0]!.clusters[0]!.error).toBe(
      'cannot use the API server https://eu-1:6443: ECONNREFUSED; nothing was applied',
    );
    // Where it was going, as declared: the row and the JSON name its context.
    expect(report.waves[0]!.clusters[0]!.context).toBe('eu-1');
    expect(formatFleetText(report)).toMatch(/eu-1 {5}FAILED · context eu-1 · error: cannot use/);
    expect(kubes['eu-1']!.log).toEqual([]);
    expect(kubes['eu-2']!.get('Deployment', NS, 'web')).toBeDefined();
    expect(kubes['eu-2']!.get('Lease', NS, 'spread.shop')).toBeUndefined();
    expect(open).toBe(0);
  });

  test('the soak: a rollout that fails after the deploy fails the wave before the next one starts', async () => {
    const plan = waves(['canary', ['eu-1'], { soakMs: 300 }], ['rest', ['us-1']]);
    const run = deployFleet({
      environment: 'production',
      waves: plan,
      logger: silentLogger,
      soakIntervalMs: 20,
    });
    // Once the canary is deployed, its Deployment loses its replicas during the soak.
    const kube = kubes['eu-1']!;
    await deployed('eu-1');
    kube.setRollout('/apis/apps/v1/namespaces/shop/deployments/web', 'stuck');
    const report = await run;
    expect(statuses(report)).toEqual({ 'eu-1': 'failed', 'us-1': 'skipped' });
    expect(report.waves[0]!.clusters[0]!.error).toMatch(
      /^Deployment\/web failed during the soak: .*progress deadline/,
    );
    expect(kubes['us-1']!.log).toEqual([]);
  });

  test('the soak: a pod of the new rollout in ImagePullBackOff fails the wave at once, as the wait would', async () => {
    const plan = waves(['canary', ['eu-1'], { soakMs: 20_000 }], ['rest', ['us-1']]);
    const started = Date.now();
    const run = deployFleet({
      environment: 'production',
      waves: plan,
      logger: silentLogger,
      soakIntervalMs: 20,
    });
    // `kubectl set image` to an image that cannot be pulled: a new pod that backs off, an old one
    // still serving, the Deployment in progress (not failed) until its progress deadline.
    const kube = kubes['eu-1']!;
    await deployed('eu-1');
    kube.setStatus('Deployment', NS, 'web', {
      observedGeneration: 1,
      replicas: 3,
      updatedReplicas: 1,
      readyReplicas: 2,
      availableReplicas: 2,
      unavailableReplicas: 1,
      conditions: [{ type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated' }],
    });
    kube.put({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web-new', namespace: NS, labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image: 'unpullable.invalid/x:1' }] },
    });
    kube.setStatus('Pod', NS, 'web-new', {
      phase: 'Pending',
      containerStatuses: [
        {
          name: 'web',
          ready: false,
          state: {
            waiting: {
              reason: 'ImagePullBackOff',
              message: 'Back-off pulling image "unpullable.invalid/x:1"',
            },
          },
        },
      ],
    });
    const report = await run;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(statuses(report)).toEqual({ 'eu-1': 'failed', 'us-1': 'skipped' });
    const leg = report.waves[0]!.clusters[0]!;
    expect(leg.error).toBe(
      'Deployment/web failed during the soak: pod web-new: container web: ImagePullBackOff: Back-off pulling image "unpullable.invalid/x:1"',
    );
    expect(leg.rollout).toBe('failed during the soak');
    expect(formatFleetText(report)).toMatch(
      /rollout failed during the soak · error: Deployment\/web failed during/,
    );
    expect(kubes['us-1']!.log).toEqual([]);
  });

  test('an interrupt during the soak fails the wave and returns the report; the next wave is not started', async () => {
    const interrupt = new AbortController();
    const plan = waves(['canary', ['eu-1'], { soakMs: 5_000 }], ['rest', ['us-1']]);
    const run = deployFleet({
      environment: 'production',
      waves: plan,
      logger: silentLogger,
      soakIntervalMs: 20,
      signal: interrupt.signal,
    });
    await deployed('eu-1');
    interrupt.abort(new Error('interrupted by SIGINT'));
    const report = await run;
    expect(statuses(report)).toEqual({ 'eu-1': 'failed', 'us-1': 'skipped' });
    expect(report.waves[0]!.clusters[0]!.error).toBe('interrupted during the soak: interrupted by SIGINT');
    expect(report.waves[1]!.clusters[0]!.error).toBe('not started: wave canary failed');
    expect(kubes['us-1']!.log).toEqual([]);
  });

  test('a soak that stays healthy lets the next wave start', async () => {
    const plan = waves(['canary', ['eu-1'], { soakMs: 100 }], ['rest', ['us-1']]);
    const report = await deployFleet({
      environment: 'production',
      waves: plan,
      logger: silentLogger,
      soakIntervalMs: 20,
    });
    expect(statuses(report)).toEqual({ 'eu-1': 'succeeded', 'us-1': 'succeeded' });
    expect(report.waves[0]!.soakMs).toBe(100);
  });

  test('an interrupt during wave 1: the running deploys stop, no other cluster or wave is started', async () => {
    const interrupt = new AbortController();
    const plan = waves(['canary', ['eu-1', 'eu-2'], { maxParallel: 1 }], ['rest', ['us-1']]);
    kubes['eu-1']!.refuse = (req) => {
      if (req.method === 'PATCH' && !req.path.includes('dryRun'))
        interrupt.abort(new Error('interrupted by SIGTERM'));
      return undefined;
    };
    const report = await deployFleet({
      environment: 'production',
      waves: plan,
      logger: silentLogger,
      signal: interrupt.signal,
    });
    expect(report.status).toBe('failed');
    expect(statuses(report)).toEqual({ 'eu-1': 'failed', 'eu-2': 'skipped', 'us-1': 'skipped' });
    expect(report.waves[0]!.clusters[0]!.error).toMatch(/interrupted by SIGTERM/);
    expect(kubes['eu-1']!.get('Lease', NS, 'spread.shop')).toBeUndefined();
    expect(kubes['eu-2']!.log).toEqual([]);
    expect(kubes['us-1']!.log).toEqual([]);
  });

  test('rerunning the failed cluster alone after a fix converges it; the others are left alone', async () => {
    kubes['eu-2']!.rollout = 'stuck';
    await deployFleet({ environment: 'production', waves: twoWaves(), logger: silentLogger });
    kubes['eu-2']!.rollout = 'available';
    kubes['eu-1']!.log.length = 0;
    // The fix: the stuck generation is replaced by a new template.
    writeFileSync(
      path.join(dir, 'shop', 'deployment.yaml'),
      `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx:1.28}]}
`,
    );
    const rerun = await deployFleet({
      environment: 'production',
      waves: waves(['canary', ['eu-2']]),
      logger: silentLogger,
    });
    expect(statuses(rerun)).toEqual({ 'eu-2': 'succeeded' });
    expect(rerun.waves[0]!.clusters[0]).toMatchObject({ revision: 2, rollout: 'ready' });
    expect(kubes['eu-1']!.log).toEqual([]);
  });

  test('a cluster lost mid-deploy fails its leg naming it, keeps its own Lease; deployed alone once back, it converges', async () => {
    const eu2 = kubes['eu-2']!;
    // From the Deployment's write on, eu-2 answers nothing but 503 (its API server gone).
    let lost = false;
    eu2.refuse = (req) => {
      if (lost) return new KubeApiError(503, `${req.method} ${req.path}`, undefined, 'Service Unavailable');
      if (req.method === 'PATCH' && req.path.includes('/deployments/') && !req.query?.dryRun) lost = true;
      return undefined;
    };
    const report = await deployFleet({ environment: 'production', waves: twoWaves(), logger: silentLogger });
    expect(statuses(report)).toEqual({
      'eu-1': 'succeeded',
      'eu-2': 'failed',
      'us-1': 'skipped',
      'us-2': 'skipped',
    });
    expect(report.waves[0]!.clusters[1]!.error).toMatch(
      /^cluster eu-2 \(context eu-2\) became unreachable mid-deploy: Service Unavailable; 1 object\(s\) were applied before it, the prune and the parent's update may not have finished \(deploy again to converge\); its deploy Lease expires by itself: once it is reachable, deploy it again alone \(⟦cluster⟧ eu-2\)$/,
    );
    // The Lease it took is still its own (the release could not reach the server); eu-1's is released.
    const lease = eu2.get('Lease', NS, 'spread.shop') as unknown as { spec: { holderIdentity: string } };
    expect(lease.spec.holderIdentity).toMatch(/ #[0-9a-f]{6}$/);
    expect(kubes['eu-1']!.get('Lease', NS, 'spread.shop')).toBeUndefined();
    expect(writes('us-1')).toEqual([]);
    expect(writes('us-2')).toEqual([]);

    eu2.refuse = undefined;
    const expired = structuredClone(lease);
    expired.spec = { ...lease.spec, renewTime: '2020-01-01T00:00:00.000000Z' } as never;
    eu2.put(expired as never);
    const rerun = await deployFleet({
      environment: 'production',
      waves: waves(['canary', ['eu-2']]),
      logger: silentLogger,
    });
    expect(statuses(rerun)).toEqual({ 'eu-2': 'succeeded' });
    expect(rerun.waves[0]!.clusters[0]).toMatchObject({ rollout: 'ready' });
    expect(eu2.get('Lease', NS, 'spread.shop')).toBeUndefined();
  });

  test('a cluster lost during its rollout wait fails its leg naming it once the watches give up, long before the timeout', async () => {
    const eu2 = kubes['eu-2']!;
    // eu-2's rollout never finishes by itself; its watches give up after 300 ms without a success.
    eu2.rollout = 'none';
    eu2.maxRetryTimeMs = 300;
    const started = Date.now();
    const running = deployFleet({
      environment: 'production',
      waves: waves(['canary', ['eu-1', 'eu-2']]),
      logger: silentLogger,
    });
    // Once the wait watches the Deployment, its pods and ReplicaSets: every connection reset.
    while (eu2.watchers < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    const reset = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    eu2.refuse = () => reset();
    eu2.breakWatches(reset());
    const report = await running;
    expect(statuses(report)).toEqual({ 'eu-1': 'succeeded', 'eu-2': 'failed' });
    expect(report.waves[0]!.clusters[1]!.error).toMatch(
      /^cluster eu-2 \(context eu-2\) became unreachable mid-deploy: gave up after \d+ tries, last ECONNRESET: read ECONNRESET; the cluster stopped answering while waiting for the rollout: all 1 object\(s\) were applied \(1 created, 0 configured, 0 unchanged\) and 0 pruned; the rollout was not seen finished and no revision was recorded \(the next deploy records it\); its deploy Lease expires by itself: once it is reachable, deploy it again alone \(⟦cluster⟧ eu-2\)$/,
    );
    // Not the rollout's 5 s timeout.
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(eu2.watchers).toBe(0);
  });
});

describe('legError', () => {
  const unavailable = Object.assign(new Error('gave up after 6 tries, last ECONNRESET: read ECONNRESET'), {
    code: 'ECONNRESET',
  });
  test.each([
    [
      'a connection reset',
      unavailable,
      'cluster eu-2 (context ctx-2) became unreachable mid-deploy: gave up after 6 tries, last ECONNRESET: read ECONNRESET; its deploy Lease expires by itself: once it is reachable, deploy it again alone (⟦cluster⟧ eu-2)',
    ],
    [
      'a 503 inside a DeployError',
      new DeployError(new KubeApiError(503, 'GET /x', undefined, 'down'), {} as never),
      'cluster eu-2 (context ctx-2) became unreachable mid-deploy: down; its deploy Lease expires by itself: once it is reachable, deploy it again alone (⟦cluster⟧ eu-2)',
    ],
    ['a verdict (422)', new KubeApiError(422, 'PATCH /x', undefined, 'invalid'), 'invalid'],
    ['any other error', new Error('ImagePullBackOff'), 'ImagePullBackOff'],
  ])('%s', (_, error, expected) => {
    expect(legError(error, 'eu-2', 'ctx-2')).toBe(expected);
  });
});
