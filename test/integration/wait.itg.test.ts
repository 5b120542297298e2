import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/base/logger.js';
import { KubeClient } from '../../src/cluster/client.js';
import { loadKubeconfig } from '../../src/cluster/kubeconfig.js';
import { RolloutError } from '../../src/engine/wait/waiter.js';
import { SHARED_WATCH_AT } from '../../src/engine/wait/watches.js';
import { DeployError, deploy } from '../../src/frontend/deploy.js';
import { kubeconfigPath, kubectl, uniqueName } from './helpers.js';

// kwok (scripts/cluster/kwok.yaml) plays only its default stages, which make every Pod Ready, and it
// reads no Stage objects from the cluster. To see a pod fail the way a kubelet reports it, these
// tests bind pods to a Node that kwok does not manage (no kwok.x-k8s.io/node annotation) and write
// that Node's kubelet's part themselves: container status ImagePullBackOff and the pull Events.
const ns = uniqueName('itg-wait');
const node = uniqueName('itg-nokubelet');
const ctx = ['--context', 'spread-local'];

function dir(files: Record<string, string>): string {
  const d = path.join(mkdtempSync(path.join(tmpdir(), 'spread-wait-')), 'app');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(d, name)), { recursive: true });
    writeFileSync(path.join(d, name), text);
  }
  return d;
}

function run(d: string, timeoutMs = 120_000, lines: string[] = []) {
  return deploy({
    path: d,
    kubeconfig: { paths: [kubeconfigPath()] },
    context: 'spread-local',
    namespace: ns,
    mode: 'deploy',
    wait: true,
    timeoutMs,
    forceConflicts: false,
    prune: true,
    concurrency: 8,
    logger: { ...silentLogger, info: (m) => lines.push(m) },
  });
}

const deployment = (name: string, podSpec: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 1
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
${podSpec}
`;

/** Plays a kubelet that cannot pull the image, for every pod of `app` bound to `node`. */
function fakeKubelet(app: string, signal: AbortSignal): Promise<void> {
  const client = new KubeClient(loadKubeconfig({ paths: [kubeconfigPath()] }, 'spread-local').kubeConfig);
  const done = new Set<string>();
  return (async () => {
    try {
      while (!signal.aborted) {
        const pods = await client.request<{
          items: { metadata: { name: string; uid: string }; spec: { nodeName?: string } }[];
        }>({
          method: 'GET',
          path: `/api/v1/namespaces/${ns}/pods`,
          query: { labelSelector: `app=${app}` },
        });
        for (const pod of pods.body.items) {
          if (pod.spec.nodeName !== node || done.has(pod.metadata.name)) continue;
          done.add(pod.metadata.name);
          const image = 'registry.invalid/missing:1';
          const setWaiting = (reason: string, message: string) =>
            client.request({
              method: 'PATCH',
              path: `/api/v1/namespaces/${ns}/pods/${pod.metadata.name}/status`,
              contentType: 'application/merge-patch+json',
              body: {
                status: {
                  phase: 'Pending',
                  conditions: [
                    { type: 'PodScheduled', status: 'True' },
                    { type: 'Ready', status: 'False' },
                  ],
                  containerStatuses: [
                    {
                      name: 'web',
                      image,
                      imageID: '',
                      ready: false,
                      restartCount: 0,
                      state: { waiting: { reason, message } },
                    },
                  ],
                },
              },
            });
          const event = (reason: string, message: string, type = 'Warning') =>
            client.request({
              method: 'POST',
              path: `/api/v1/namespaces/${ns}/events`,
              body: {
                apiVersion: 'v1',
                kind: 'Event',
                metadata: { generateName: `${pod.metadata.name}.` },
                involvedObject: {
                  apiVersion: 'v1',
                  kind: 'Pod',
                  name: pod.metadata.name,
                  namespace: ns,
                  uid: pod.metadata.uid,
                },
                reason,
                message,
                type,
                source: { component: 'kubelet', host: node },
                firstTimestamp: new Date().toISOString(),
                lastTimestamp: new Date().toISOString(),
                count: 1,
              },
            });
          await event('Pulling', `Pulling image "${image}"`, 'Normal');
          await event('Failed', `Failed to pull image "${image}": not found`);
          await setWaiting('ErrImagePull', `failed to pull "${image}": not found`);
          await new Promise((r) => setTimeout(r, 1000));
          await event('BackOff', `Back-off pulling image "${image}"`, 'Normal');
          await setWaiting('ImagePullBackOff', `Back-off pulling image "${image}"`);
        }
        await new Promise((r) => setTimeout(r, 500));
      }
    } finally {
      client.close();
    }
  })();
}

/** A pod spec bound to the Node no kwok serves, with an image that cannot be pulled. */
const unpullable = `      nodeName: ${node}\n      containers:\n        - name: web\n          image: registry.invalid/missing:1\n`;

/** Deploys `d` while {@link fakeKubelet} plays the kubelet of `app`'s pods; the deploy's error, if any. */
async function runWithFakeKubelet(app: string, d: string): Promise<unknown> {
  const stop = new AbortController();
  const kubelet = fakeKubelet(app, stop.signal);
  try {
    await run(d, 240_000);
    return undefined;
  } catch (e) {
    return e;
  } finally {
    stop.abort();
    await kubelet;
  }
}

describe('rollout wait on the local cluster', () => {
  beforeAll(async () => {
    await kubectl([...ctx, 'create', 'namespace', ns]);
    await kubectl([...ctx, 'apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: node, labels: { 'kubernetes.io/hostname': node, 'spread-test': 'no-kubelet' } },
      }),
    });
  });
  afterAll(async () => {
    await kubectl([...ctx, 'delete', 'namespace', ns, '--wait=false'], { allowFail: true });
    await kubectl([...ctx, 'delete', 'node', node, '--wait=false'], { allowFail: true });
  });

  test('a Deployment whose pod cannot pull its image fails early, quoting the pod and its events', async () => {
    const started = Date.now();
    const d = dir({ 'deployment.yaml': deployment('pullfail', unpullable) });
    const error = await runWithFakeKubelet('pullfail', d);
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(DeployError);
    const cause = (error as DeployError).cause;
    expect(cause).toBeInstanceOf(RolloutError);
    expect(cause.message).toMatch(
      /Deployment\.apps .*\/pullfail: pod pullfail-\S+: container web: ImagePullBackOff/,
    );
    expect(cause.message).toMatch(/Warning Failed: Failed to pull image "registry.invalid\/missing:1"/);
    expect(cause.message).toMatch(/container web: waiting ImagePullBackOff/);
    expect(elapsed).toBeLessThan(60_000);
    if (process.env.SHOW_ROLLOUT_ERROR) process.stderr.write(`${cause.message}\n`);
    expect((error as DeployError).report.rollout).toEqual([
      expect.objectContaining({
        name: 'pullfail',
        ready: false,
        message: expect.stringMatching(/ImagePullBackOff/),
      }),
    ]);
  });

  test('an unschedulable pod fails the rollout after the grace, with the scheduler message', async () => {
    const started = Date.now();
    const d = dir({
      'deployment.yaml': deployment(
        'nowhere',
        `      nodeSelector: {spread-test: no-such-node}\n      containers:\n        - name: web\n          image: nginx:1.27\n`,
      ),
    });
    const error = await run(d, 240_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeployError);
    expect((error as DeployError).message).toMatch(/Unschedulable|unschedulable: 0\/\d+ nodes are available/);
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  test('a LoadBalancer Service with no load-balancer controller does not hang the wait; its node ports are reported', async () => {
    const lines: string[] = [];
    const d = dir({
      'deployment.yaml': deployment(
        'lbweb',
        `      containers:\n        - name: web\n          image: nginx:1.27\n`,
      ),
      '.k2e/service.yaml': `apiVersion: v1
kind: Service
metadata:
  name: lbweb
spec:
  type: LoadBalancer
  selector: {app: lbweb}
  ports: [{port: 80, targetPort: 80}]
`,
    });
    const started = Date.now();
    const report = await run(d, 120_000, lines);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(report.rollout).toEqual([
      expect.objectContaining({ kind: 'Deployment', name: 'lbweb', ready: true }),
    ]);
    expect(lines.join('\n')).toMatch(
      /Service .*\/lbweb: LoadBalancer \(no address yet\), node ports 80:\d+\/TCP/,
    );
  });

  test('a ReplicationController with minReadySeconds is ready only once the controller counts its replicas available', async () => {
    // kwok makes the pods Ready at once; the controller-manager counts them in availableReplicas
    // only minReadySeconds later, and re-queues the RC for it.
    const d = dir({
      'rc.yaml': `apiVersion: v1
kind: ReplicationController
metadata:
  name: slowready
spec:
  replicas: 2
  minReadySeconds: 12
  selector: {app: slowready}
  template:
    metadata:
      labels: {app: slowready}
    spec:
      containers:
        - name: web
          image: registry.k8s.io/pause:3.10
`,
    });
    const started = Date.now();
    const report = await run(d, 120_000);
    expect(report.rollout).toEqual([
      expect.objectContaining({ kind: 'ReplicationController', name: 'slowready', ready: true }),
    ]);
    const live = JSON.parse(
      (await kubectl([...ctx, '-n', ns, 'get', 'rc', 'slowready', '-o', 'json'])).stdout,
    );
    expect(live.status.readyReplicas).toBe(2);
    expect(live.status.availableReplicas).toBe(2);
    // minReadySeconds counts from the pods' Ready condition, whose lastTransitionTime has one-second
    // resolution: the controller may count them available up to a second before 12 s have passed.
    expect(Date.now() - started).toBeGreaterThanOrEqual(11_000);
  });

  test(`${SHARED_WATCH_AT} or more Deployments share one watch per collection: each is judged by its own pods`, async () => {
    const healthy = Array.from({ length: SHARED_WATCH_AT }, (_, i) => `shared-${i}`);
    const web = `      containers:\n        - name: web\n          image: nginx:1.27\n`;
    const ok = dir(Object.fromEntries(healthy.map((n) => [`${n}/deployment.yaml`, deployment(n, web)])));
    const report = await run(ok, 120_000);
    expect(report.rollout.map((r) => [r.name, r.ready]).sort()).toEqual(healthy.map((n) => [n, true]));

    // The same, and one more whose pod cannot pull its image: only that one fails, from its own pod.
    const failing = dir({
      ...Object.fromEntries(healthy.map((n) => [`${n}/deployment.yaml`, deployment(n, web)])),
      'sharedfail/deployment.yaml': deployment('sharedfail', unpullable),
    });
    const error = await runWithFakeKubelet('sharedfail', failing);
    expect(error).toBeInstanceOf(DeployError);
    const cause = (error as DeployError).cause as Error;
    expect(cause).toBeInstanceOf(RolloutError);
    expect(cause.message).toMatch(
      /Deployment\.apps .*\/sharedfail: pod sharedfail-\S+: container web: ImagePullBackOff/,
    );
    expect(cause.message).not.toMatch(/\/shared-\d/);
  });

  test(`an account granted its ${SHARED_WATCH_AT} Deployments by name (resourceNames) waits on each by name`, async () => {
    const names = Array.from({ length: SHARED_WATCH_AT }, (_, i) => `named-${i}`);
    const web = `      containers:\n        - name: web\n          image: nginx:1.27\n`;
    const files = Object.fromEntries(names.map((n) => [`${n}/deployment.yaml`, deployment(n, web)]));
    // The objects exist (made by an administrator): the account may patch them, not create them.
    await kubectl([...ctx, '-n', ns, 'apply', '-f', '-'], {
      input: names.map((n) => deployment(n, web)).join('---\n'),
    });
    const account = 'ci-by-name';
    await kubectl([...ctx, '-n', ns, 'create', 'serviceaccount', account]);
    const rules = [
      {
        apiGroups: ['apps'],
        resources: ['deployments'],
        resourceNames: names,
        verbs: ['get', 'list', 'watch', 'patch', 'update'],
      },
      { apiGroups: ['apps'], resources: ['replicasets'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['', 'coordination.k8s.io', 'events.k8s.io'], resources: ['*'], verbs: ['*'] },
    ];
    await kubectl([...ctx, '-n', ns, 'apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: account }, rules },
          {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'RoleBinding',
            metadata: { name: account },
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: account },
            subjects: [{ kind: 'ServiceAccount', name: account, namespace: ns }],
          },
        ],
      }),
    });
    const token = (await kubectl([...ctx, '-n', ns, 'create', 'token', account])).stdout.trim();
    const admin = JSON.parse(
      (await kubectl([...ctx, 'config', 'view', '--raw', '--minify', '-o', 'json'])).stdout,
    ) as { clusters: { name: string; cluster: Record<string, string> }[] };
    const kubeconfig = path.join(mkdtempSync(path.join(tmpdir(), 'spread-named-')), 'config');
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'local', cluster: admin.clusters[0]!.cluster }],
        users: [{ name: account, user: { token } }],
        contexts: [{ name: 'ci', context: { cluster: 'local', user: account, namespace: ns } }],
        'current-context': 'ci',
      }),
    );
    const report = await deploy({
      path: dir(files),
      kubeconfig: { paths: [kubeconfig] },
      context: 'ci',
      namespace: ns,
      mode: 'deploy',
      wait: true,
      timeoutMs: 120_000,
      forceConflicts: true,
      adopt: true,
      prune: false,
      concurrency: 8,
      logger: silentLogger,
    });
    expect(report.rollout.map((r) => [r.name, r.ready]).sort()).toEqual(names.map((n) => [n, true]));
  });

  test('a Deployment deleted during the wait: the error says so, as the report does', async () => {
    // Bound to the Node no kubelet serves: its pod never starts, so the wait is still going.
    const d = dir({
      'deployment.yaml': deployment(
        'gone',
        `      nodeName: ${node}\n      containers:\n        - name: web\n          image: nginx:1.27\n`,
      ),
    });
    const running = run(d, 120_000).catch((e: unknown) => e);
    const deadline = Date.now() + 30_000;
    while (
      Date.now() < deadline &&
      (await kubectl([...ctx, '-n', ns, 'get', 'deploy', 'gone'], { allowFail: true })).code !== 0
    )
      await new Promise((r) => setTimeout(r, 200));
    await new Promise((r) => setTimeout(r, 1000));
    await kubectl([...ctx, '-n', ns, 'delete', 'deploy', 'gone', '--wait=false']);
    const error = await running;
    expect(error).toBeInstanceOf(DeployError);
    expect((error as DeployError).message).toMatch(/Deployment\.apps .*\/gone: deleted while waiting/);
    expect((error as DeployError).report.rollout).toEqual([
      expect.objectContaining({ name: 'gone', ready: false, message: 'deleted while waiting' }),
    ]);
  });
});
