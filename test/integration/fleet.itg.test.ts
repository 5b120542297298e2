// Fleets on four local clusters (scripts/cluster/clusters.sh): one chart deployed with
// `spread deploy --environment production` to four clusters in two waves, each with its own region
// value; a canary cluster whose image cannot be pulled stops the fleet with nothing written to the
// second wave; that cluster deployed again alone after the fix, then the fleet completed; a cluster
// whose API server cannot be reached fails alone; one cut off by Toxiproxy in the middle of its deploy
// fails its leg, keeps its own Lease (released by no one else) and converges when deployed again; one
// cut off during its rollout wait fails its leg as soon as the wait's watches give up. The CLI is run
// from dist/ as a user runs it (SPREAD_CLI_ENTRY: another build of it).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sleep } from '../../src/base/poll.js';
import { startToxiproxy, type Toxi } from '../faults/toxiproxy.js';
import { ensureClusters, type LocalClusters } from './clusters.js';
import { needs } from './harness.js';
import { kubectl, ROOT, runNode, uniqueName, writeDir } from './helpers.js';

const CLI = path.relative(ROOT, process.env.SPREAD_CLI_ENTRY ?? path.join(ROOT, 'dist/cli/index.js'));

const NAMES = ['eu-1', 'eu-2', 'us-1', 'us-2'] as const;

const CHART = {
  'chart/Chart.yaml': 'apiVersion: v2\nname: web\nversion: 0.1.0\n',
  'chart/values.yaml': 'image: registry.example/web:1\nregion: none\n',
  'chart/templates/web.yaml': `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  {{- with .Values.minReadySeconds }}
  minReadySeconds: {{ . }}
  progressDeadlineSeconds: {{ add . 600 }}
  {{- end }}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: {{ .Values.image | quote }}}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: region}
data: {region: {{ .Values.region | quote }}}
`,
};

interface Leg {
  cluster: string;
  wave: string;
  status: string;
  revision?: number;
  changes?: Record<string, number>;
  rollout?: string;
  error?: string;
}
interface Fleet {
  status: string;
  waves: { name: string; status: string; clusters: Leg[] }[];
}

describe('a fleet of four clusters in two waves', needs('clusters'), () => {
  let local: LocalClusters;
  const namespaces: string[] = [];
  const on = (n: number, ...args: string[]) =>
    kubectl(['--kubeconfig', local.kubeconfig, '--context', local.clusters[n]!.context, ...args]);
  const spread = async (args: string[], kubeconfig = local.kubeconfig) => {
    const run = await runNode(CLI, [...args, '-o', 'json'], {
      ...process.env,
      KUBECONFIG: kubeconfig,
    });
    return { ...run, fleet: JSON.parse(run.stdout) as Fleet };
  };
  const legs = (fleet: Fleet) =>
    Object.fromEntries(fleet.waves.flatMap((w) => w.clusters.map((c) => [c.cluster, c.status])));
  /** The legs of a fleet whose canary eu-2 failed: wave 1's other cluster deployed, wave 2 not started. */
  const CANARY_FAILED = { 'eu-1': 'succeeded', 'eu-2': 'failed', 'us-1': 'skipped', 'us-2': 'skipped' };
  /** Everything in `ns` of cluster `n` but what the cluster makes itself in a new namespace. */
  const objectsIn = async (n: number, ns: string) =>
    (await on(n, 'get', 'deployments,configmaps,secrets,leases', '-n', ns, '-o', 'name')).stdout
      .split('\n')
      .filter((l) => l && l !== 'configmap/kube-root-ca.crt');

  /** A directory whose spread.yaml declares the fleet in namespace `ns`, cluster eu-2 with `eu2`'s values. */
  async function fleetDir(ns: string, eu2 = 'region: eu-2', extra = '', kubeSystemUIDs = true, soak = '') {
    namespaces.push(ns);
    for (let n = 0; n < 4; n++) await on(n, 'create', 'namespace', ns);
    const cluster = (n: number, set: string) =>
      `      - name: ${NAMES[n]}\n        context: ${local.clusters[n]!.context}\n${kubeSystemUIDs ? `        kubeSystemUID: ${local.clusters[n]!.kubeSystemUID}\n` : ''}        helmSet: { ${set} }\n`;
    return writeDir('web', {
      ...CHART,
      'spread.yaml': `environments:
  production:
    namespace: ${ns}
    clusters:
${cluster(0, 'region: eu-1')}${cluster(1, eu2)}${cluster(2, 'region: us-1')}${cluster(3, 'region: us-2')}${extra}    waves:
      - { name: canary, clusters: [eu-1, eu-2]${soak ? `, soak: ${soak}` : ''} }
      - { name: rest, maxParallel: 1 }
`,
    });
  }

  beforeAll(async () => {
    const shared = await ensureClusters(4);
    // A copy: a concurrent clusters.sh with a smaller count rewrites the shared kubeconfig without
    // contexts 3 and 4 (their clusters keep running).
    const copy = path.join(writeDir('kube', { config: readFileSync(shared.kubeconfig, 'utf8') }), 'config');
    local = { ...shared, kubeconfig: copy };
  }, 600_000);

  afterAll(async () => {
    if (!local) return;
    for (const ns of namespaces)
      for (let n = 0; n < 4; n++)
        await on(n, 'delete', 'namespace', ns, '--wait=false', '--ignore-not-found');
  });

  test('all green: every cluster deployed, each with its own region value', async () => {
    const ns = uniqueName('fleet-green');
    const dir = await fleetDir(ns);
    const run = await spread(['deploy', dir, '--environment', 'production']);
    expect(run.code).toBe(0);
    expect(run.fleet.status).toBe('succeeded');
    expect(run.fleet.waves.map((w) => [w.name, w.status, w.clusters.map((c) => c.cluster)])).toEqual([
      ['canary', 'succeeded', ['eu-1', 'eu-2']],
      ['rest', 'succeeded', ['us-1', 'us-2']],
    ]);
    for (const leg of run.fleet.waves.flatMap((w) => w.clusters))
      expect(leg).toMatchObject({ revision: 1, rollout: 'ready', changes: { created: 2 } });
    for (let n = 0; n < 4; n++) {
      const { stdout } = await on(n, 'get', 'configmap', 'region', '-n', ns, '-o', 'jsonpath={.data.region}');
      expect(stdout).toBe(NAMES[n]);
    }
  }, 300_000);

  test('a soaked canary wave: its rollout state is read on the real clusters for the soak before wave 2', async () => {
    const ns = uniqueName('fleet-soak');
    const dir = await fleetDir(ns, 'region: eu-2', '', true, '6s');
    const started = Date.now();
    const run = await spread(['deploy', dir, '--environment', 'production']);
    expect(run.code).toBe(0);
    expect(run.fleet.waves.map((w) => [w.name, w.status, (w as { soakMs?: number }).soakMs])).toEqual([
      ['canary', 'succeeded', 6000],
      ['rest', 'succeeded', undefined],
    ]);
    expect(run.stderr).toContain('wave canary: soaking for 6s');
    expect(Date.now() - started).toBeGreaterThan(6000);
  }, 300_000);

  test('a canary that cannot pull its image stops the fleet: nothing is written to wave 2; rerunning it alone after the fix, then the fleet, completes it', async () => {
    const ns = uniqueName('fleet-broken');
    const dir = await fleetDir(ns, 'region: eu-2, image: unpullable.invalid/web:1');
    const broken = await spread(['deploy', dir, '--environment', 'production']);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(
      'error: fleet production: eu-2 (wave canary) failed; later waves were not started',
    );
    expect(legs(broken.fleet)).toEqual(CANARY_FAILED);
    const failed = broken.fleet.waves[0]!.clusters[1]!;
    expect(failed.error).toMatch(/ImagePullBackOff/);
    expect(failed.rollout).toMatch(/^Deployment\/web not ready: .*ImagePullBackOff/);
    // Wave 2's clusters: no object, no ApplySet parent, no revision, no Lease.
    expect(await objectsIn(2, ns)).toEqual([]);
    expect(await objectsIn(3, ns)).toEqual([]);
    // The canary that succeeded keeps its deploy.
    expect(await objectsIn(0, ns)).toContain('deployment.apps/web');

    const fixed = path.join(dir, 'spread.yaml');
    writeFileSync(fixed, readFileSync(fixed, 'utf8').replace(', image: unpullable.invalid/web:1', ''));
    const rerun = await spread(['deploy', dir, '--environment', 'production', '--cluster', 'eu-2']);
    expect(rerun.code).toBe(0);
    expect(legs(rerun.fleet)).toEqual({ 'eu-2': 'succeeded' });
    expect(rerun.fleet.waves[0]!.clusters[0]).toMatchObject({ revision: 2, rollout: 'ready' });
    expect(await objectsIn(2, ns)).toEqual([]);

    const whole = await spread(['deploy', dir, '--environment', 'production']);
    expect(whole.code).toBe(0);
    expect(legs(whole.fleet)).toEqual({
      'eu-1': 'succeeded',
      'eu-2': 'succeeded',
      'us-1': 'succeeded',
      'us-2': 'succeeded',
    });
    const changes = Object.fromEntries(
      whole.fleet.waves.flatMap((w) => w.clusters.map((c) => [c.cluster, c.changes])),
    );
    expect(changes['eu-1']).toMatchObject({ created: 0, configured: 0, unchanged: 2 });
    expect(changes['eu-2']).toMatchObject({ created: 0, configured: 0, unchanged: 2 });
    expect(changes['us-1']).toMatchObject({ created: 2 });
  }, 300_000);

  test('a cluster whose API server cannot be reached fails its leg alone; its wave-mates deploy, wave 2 is untouched', async () => {
    const ns = uniqueName('fleet-down');
    // eu-2's context points at a port where no API server listens (a cluster gone mid-fleet).
    const { stdout: config } = await kubectl(['--kubeconfig', local.kubeconfig, 'config', 'view', '--raw']);
    const down = 'https://127.0.0.1:6499';
    const kubeconfig = path.join(
      writeDir('kube', { config: config.replaceAll(local.clusters[1]!.server, down) }),
      'config',
    );
    const dir = await fleetDir(ns, 'region: eu-2', '', false);
    const run = await spread(
      ['deploy', dir, '--environment', 'production', '--lock-timeout', '5s'],
      kubeconfig,
    );
    expect(run.code).toBe(1);
    expect(legs(run.fleet)).toEqual(CANARY_FAILED);
    expect(run.fleet.waves[0]!.clusters[1]!.error).toMatch(
      /^cannot use the API server https:\/\/127\.0\.0\.1:6499 of context spread-local-2: .*; nothing was applied/,
    );
    expect(await objectsIn(0, ns)).toContain('deployment.apps/web');
    // eu-1 released its own Lease; nothing at all on the unreachable cluster nor on wave 2.
    expect(await objectsIn(0, ns)).not.toContain('lease.coordination.k8s.io/spread.web');
    for (const n of [1, 2, 3]) expect(await objectsIn(n, ns)).toEqual([]);
  }, 300_000);

  test('a cluster cut off mid-deploy (Toxiproxy) fails its leg naming it, keeps its own Lease, leaves the others as they were; deployed alone once restored, it converges', async () => {
    const ns = uniqueName('fleet-cut');
    // eu-2 is reached through Toxiproxy, 100 ms per answer so that its deploy lasts long enough to be
    // cut after its first writes.
    const upstream = new URL(local.clusters[1]!.server);
    const registry = `127.0.0.1:${process.env.SPREAD_REGISTRY_PORT || 5000}`;
    const toxi: Toxi = await startToxiproxy(upstream.host, registry, 43);
    try {
      await toxi.add('api', 'slow', { type: 'latency', attributes: { latency: 100, jitter: 0 } }, 1);
      const { stdout: config } = await kubectl(['--kubeconfig', local.kubeconfig, 'config', 'view', '--raw']);
      const kubeconfig = path.join(
        writeDir('kube', { config: config.replaceAll(upstream.origin, `https://${toxi.api}`) }),
        'config',
      );
      const dir = await fleetDir(ns, 'region: eu-2', '', false);
      const running = spread(['deploy', dir, '--environment', 'production'], kubeconfig);
      // The cut: once eu-2's Deployment is written (so its Lease is taken), every connection to its API
      // server is reset, the open ones and the new ones.
      let holder = '';
      for (let i = 0; i < 600 && !holder; i++) {
        const web = await on(1, 'get', 'deployment', 'web', '-n', ns, '--ignore-not-found', '-o', 'name');
        if (web.stdout.trim()) {
          await toxi.add('api', 'cut', { type: 'reset_peer', attributes: { timeout: 0 } }, 1);
          holder = (
            await on(1, 'get', 'lease', 'spread.web', '-n', ns, '-o', 'jsonpath={.spec.holderIdentity}')
          ).stdout;
        } else await sleep(100);
      }
      expect(holder).not.toBe('');
      const run = await running;
      expect(run.code).toBe(1);
      expect(legs(run.fleet)).toEqual(CANARY_FAILED);
      expect(run.stderr).toContain(
        'error: fleet production: eu-2 (wave canary) failed; later waves were not started',
      );
      const failed = run.fleet.waves[0]!.clusters[1]!;
      const lost =
        /^cluster eu-2 \(context spread-local-2\) became unreachable mid-deploy: gave up after \d+ tries, last E[A-Z]+: .*; its deploy Lease expires by itself: once it is reachable, deploy it again alone \(--cluster eu-2\)$/;
      expect(failed.error).toMatch(lost);
      expect(run.stderr).toContain(`error: [eu-2] ${failed.error}`);
      // eu-2's Lease is still the failed deploy's own (it could not release it; it expires), eu-1
      // released its own and keeps its deploy, wave 2 has nothing.
      const lease = await on(
        1,
        'get',
        'lease',
        'spread.web',
        '-n',
        ns,
        '-o',
        'jsonpath={.spec.holderIdentity}',
      );
      expect(lease.stdout).toBe(holder);
      expect(await objectsIn(0, ns)).toContain('deployment.apps/web');
      expect(await objectsIn(0, ns)).not.toContain('lease.coordination.k8s.io/spread.web');
      for (const n of [2, 3]) expect(await objectsIn(n, ns)).toEqual([]);

      await toxi.reset();
      const rerun = await spread(
        ['deploy', dir, '--environment', 'production', '--cluster', 'eu-2'],
        kubeconfig,
      );
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(legs(rerun.fleet)).toEqual({ 'eu-2': 'succeeded' });
      expect(rerun.fleet.waves[0]!.clusters[0]).toMatchObject({ rollout: 'ready' });
      const { stdout: region } = await on(
        1,
        'get',
        'configmap',
        'region',
        '-n',
        ns,
        '-o',
        'jsonpath={.data.region}',
      );
      expect(region).toBe('eu-2');
      expect(await objectsIn(1, ns)).not.toContain('lease.coordination.k8s.io/spread.web');
      for (const n of [2, 3]) expect(await objectsIn(n, ns)).toEqual([]);
    } finally {
      await toxi.stop();
    }
  }, 400_000);

  test('a cluster cut off during its rollout wait (Toxiproxy) fails its leg naming it once the watches give up, long before --timeout', async () => {
    const ns = uniqueName('fleet-cut-wait');
    const upstream = new URL(local.clusters[1]!.server);
    const registry = `127.0.0.1:${process.env.SPREAD_REGISTRY_PORT || 5000}`;
    const toxi: Toxi = await startToxiproxy(upstream.host, registry, 44);
    try {
      const { stdout: config } = await kubectl(['--kubeconfig', local.kubeconfig, 'config', 'view', '--raw']);
      const kubeconfig = path.join(
        writeDir('kube', { config: config.replaceAll(upstream.origin, `https://${toxi.api}`) }),
        'config',
      );
      // eu-2's Deployment stays unavailable for 10 minutes after its pods are ready (its progress
      // deadline past that): its wait lasts until the cut, and one that ran to --timeout (10m) would
      // outlast the test.
      const dir = await fleetDir(ns, 'region: eu-2, minReadySeconds: 600', '', false);
      const running = spread(['deploy', dir, '--environment', 'production', '--timeout', '10m'], kubeconfig);
      // The cut: once eu-2's API server holds a watch of Deployments in a namespace or by name (the
      // wait's; the controllers watch all namespaces), every connection to it is reset, the open
      // ones and the new.
      const watching =
        /^apiserver_longrunning_requests\{[^}]*resource="deployments",scope="(namespace|resource)"[^}]*verb="WATCH"[^}]*\} [1-9]/m;
      let cutAt = 0;
      for (let i = 0; i < 600 && !cutAt; i++) {
        if (watching.test((await on(1, 'get', '--raw', '/metrics')).stdout)) {
          await toxi.add('api', 'cut', { type: 'reset_peer', attributes: { timeout: 0 } }, 1);
          cutAt = Date.now();
          // A change for the open watch of the Deployment: its event meets the reset (a silent
          // stream would only at its end, 60 s on). Written directly, not through Toxiproxy.
          await on(1, 'annotate', 'deployment', 'web', '-n', ns, 'spread.test/cut=now');
        } else await sleep(200);
      }
      expect(cutAt).toBeGreaterThan(0);
      const run = await running;
      const after = Date.now() - cutAt;
      expect(run.code).toBe(1);
      expect(legs(run.fleet)).toEqual(CANARY_FAILED);
      const failed = run.fleet.waves[0]!.clusters[1]!;
      expect(failed.error).toMatch(
        /^cluster eu-2 \(context spread-local-2\) became unreachable mid-deploy: gave up after \d+ tries, last E[A-Z]+: .*; the cluster stopped answering while waiting for the rollout: all 2 object\(s\) were applied \(2 created, 0 configured, 0 unchanged\) and 0 pruned; the rollout was not seen finished and no revision was recorded \(the next deploy records it\); its deploy Lease expires by itself: once it is reachable, deploy it again alone \(--cluster eu-2\)$/,
      );
      expect(run.stderr).toContain(`error: [eu-2] ${failed.error}`);
      // The watches' 30 s without a success, then the Lease's release tried: minutes before --timeout.
      expect(after).toBeGreaterThan(29_000);
      expect(after).toBeLessThan(90_000);
      expect(await objectsIn(0, ns)).toContain('deployment.apps/web');
      for (const n of [2, 3]) expect(await objectsIn(n, ns)).toEqual([]);
    } finally {
      await toxi.stop();
    }
  }, 400_000);
});
