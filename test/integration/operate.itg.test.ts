import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Logger } from '../../src/base/logger.js';
import { silentLogger } from '../../src/base/logger.js';
import { DeployError, type DeployRequest as DeployOptions, deploy } from '../../src/frontend/deploy.js';
import { history, rollback } from '../../src/frontend/manage.js';
import { restartComponent } from '../faults/faults.js';
import { clusterDir } from './env.js';
import { needs } from './harness.js';
import { kubeconfigPath, kubectl, localDeploy, ROOT, uniqueName, writeDir } from './helpers.js';

// Acceptance of the "operating deployments" issue on the local cluster: failed rollouts fail fast
// and roll back, concurrent deploys serialize per deployment, a killed deploy and a stopped API
// server leave nothing half-done that a re-run does not converge.

const ns = uniqueName('itg-operate');
const roots: string[] = [];

/** Writes a spread directory (removed after the file's tests). */
function dir(name: string, files: Record<string, string>): string {
  const root = writeDir(name, files);
  roots.push(path.dirname(root));
  return root;
}

function run(root: string, extra: Partial<DeployOptions> = {}) {
  return deploy(localDeploy(root, ns, extra));
}

/** A logger that keeps every line, for assertions on what a deploy said. */
function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => lines.push(m),
    warn: (m) => lines.push(`warning: ${m}`),
    error: (m) => lines.push(`error: ${m}`),
    debug: () => {},
    group: (_name, fn) => fn(),
  };
}

const web = (image: string, name = 'web') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 2
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
      - name: web
        image: ${image}
`;

const configMaps = (prefix: string, n: number, value: string) =>
  Array.from(
    { length: n },
    (_, i) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${prefix}-${i}\ndata: {v: "${value}"}\n`,
  ).join('---\n');

async function getJson(kind: string, name: string) {
  return JSON.parse(
    (await kubectl(['--context', 'spread-local', '-n', ns, 'get', kind, name, '-o', 'json'])).stdout,
  );
}

beforeAll(async () => {
  await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
});
afterAll(async () => {
  await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
    allowFail: true,
  });
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

describe('a rollout that cannot succeed', () => {
  test('an unpullable image fails within 60 s with the pod reason; --rollback-on-failure puts the previous revision back', async () => {
    const good = await run(dir('web', { 'deployment.yaml': web('registry.example/web:1') }));
    expect(good.revision).toBeGreaterThan(0);
    const started = Date.now();
    const error = await run(dir('web', { 'deployment.yaml': web('unpullable.invalid/web:2') }), {
      rollbackOnFailure: true,
      timeoutMs: 300_000,
    }).catch((e) => e);
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(Error);
    expect(elapsed).toBeLessThan(60_000);
    expect(error.message).toMatch(/ImagePullBackOff/);
    expect(error.message).toMatch(/rolled back to revision 1/);
    expect(error.report?.rolledBackTo).toBe(1);
    const live = await getJson('deployment', 'web');
    expect(live.spec.template.spec.containers[0].image).toBe('registry.example/web:1');
    expect(live.status.availableReplicas).toBe(2);
    expect(live.status.updatedReplicas).toBe(2);
  });
});

const rc = (name: string, image: string) => `apiVersion: v1
kind: ReplicationController
metadata:
  name: ${name}
spec:
  replicas: 2
  selector: {app: ${name}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
      - name: web
        image: ${image}
`;

interface LivePod {
  metadata: { name: string; deletionTimestamp?: string };
  spec: { containers: { image: string }[] };
  status: { conditions?: { type: string; status: string }[] };
}

async function livePods(selector: string): Promise<LivePod[]> {
  const list = JSON.parse(
    (await kubectl(['--context', 'spread-local', '-n', ns, 'get', 'pods', '-l', selector, '-o', 'json']))
      .stdout,
  ) as { items: LivePod[] };
  return list.items.filter((p) => !p.metadata.deletionTimestamp);
}

const manage = {
  kubeconfig: { paths: [kubeconfigPath()] },
  context: 'spread-local',
  namespace: ns,
  logger: silentLogger,
};

describe('a ReplicationController rollout that cannot succeed', () => {
  test('an unpullable image fails on ImagePullBackOff, not at the timeout; --rollback-on-failure restores the template and replaces the broken pod', async () => {
    const good = await run(dir('rcweb', { 'rc.yaml': rc('rcweb', 'registry.example/web:1') }));
    expect(good.revision).toBe(1);
    const error = await run(dir('rcweb', { 'rc.yaml': rc('rcweb', 'unpullable.invalid/web:2') }), {
      rollbackOnFailure: true,
      timeoutMs: 600_000,
    }).catch((e) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error.message).not.toMatch(/not finished within|still running after/);
    expect(error.message).toMatch(
      /ReplicationController .*rcweb: pod rcweb-\w+: container web: ImagePullBackOff/,
    );
    expect(error.message).toMatch(/rolled back to revision 1$/);
    expect(error.report?.rolledBackTo).toBe(1);
    expect(error.report?.revision).toBe(3);
    const live = await getJson('replicationcontroller', 'rcweb');
    expect(live.spec.template.spec.containers[0].image).toBe('registry.example/web:1');
    // The broken pod was replaced: every pod left comes from the restored template and is Ready.
    const pods = await livePods('app=rcweb');
    expect(pods.map((p) => p.spec.containers[0]!.image)).toEqual([
      'registry.example/web:1',
      'registry.example/web:1',
    ]);
    for (const p of pods)
      expect(p.status.conditions?.find((c) => c.type === 'Ready')?.status, p.metadata.name).toBe('True');
    // The failed rollout is a revision of its own, then the rollback one.
    const h = await history('rcweb', manage);
    expect(h.current).toBe(3);
    expect(h.revisions.map((r) => [r.revision, r.status, r.description ?? ''])).toEqual([
      [3, 'deployed', 'rollback to 1'],
      [
        2,
        'failed',
        expect.stringMatching(
          /^rollout failed: ReplicationController .*rcweb: pod rcweb-\w+: container web: ImagePullBackOff/,
        ),
      ],
      [1, 'deployed', ''],
    ]);
  }, 180_000);
});

describe('a failed rollout is recorded', () => {
  test('as a failed revision; spread rollback with no number goes to the last good one, past failed ones', async () => {
    expect(
      (await run(dir('failweb', { 'deployment.yaml': web('registry.example/web:1', 'failweb') }))).revision,
    ).toBe(1);
    for (const tag of ['2', '3']) {
      const error = await run(
        dir('failweb', { 'deployment.yaml': web(`unpullable.invalid/web:${tag}`, 'failweb') }),
      ).catch((e) => e);
      expect(error.message).toMatch(/ImagePullBackOff/);
      expect(error.report?.revision).toBe(Number(tag));
    }
    const before = await history('failweb', manage);
    expect(before.current).toBe(3);
    expect(before.revisions.map((r) => [r.revision, r.status])).toEqual([
      [3, 'failed'],
      [2, 'failed'],
      [1, 'deployed'],
    ]);
    expect(before.revisions[0]!.images.map((i) => i.image)).toEqual(['unpullable.invalid/web:3']);
    const back = await rollback('failweb', undefined, { ...manage, timeoutMs: 120_000 });
    expect(back.rolledBackTo).toBe(1);
    expect(back.revision).toBe(4);
    const live = await getJson('deployment', 'failweb');
    expect(live.spec.template.spec.containers[0].image).toBe('registry.example/web:1');
    const after = await history('failweb', manage);
    expect(after.current).toBe(4);
    expect(after.revisions[0]).toMatchObject({
      revision: 4,
      status: 'deployed',
      description: 'rollback to 1',
    });
  }, 180_000);
});

describe('a workload whose pods cannot be created', () => {
  test('a missing ServiceAccount fails the rollout early with the reason, not at the timeout', async () => {
    const sa = web('registry.example/web:1')
      .replace(/name: web\n/, 'name: nosa\n')
      .replace(/app: web/g, 'app: nosa')
      .replace('    spec:\n', '    spec:\n      serviceAccountName: nope\n');
    expect(sa).toContain('serviceAccountName: nope');
    const started = Date.now();
    const error = await run(dir('nosa', { 'deployment.yaml': sa }), { timeoutMs: 120_000 }).catch((e) => e);
    expect(error).toBeInstanceOf(DeployError);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(error.message).toMatch(/pods cannot be created: FailedCreate .*serviceaccount "nope" not found/);
  });
});

describe('a rollback that fails too', () => {
  test('one error naming both failures, and the report of what the deploy did', async () => {
    const root = (image: string) =>
      dir('rbfail', {
        'deployment.yaml': web(image)
          .replace(/name: web\n/, 'name: rbfail\n')
          .replace(/app: web/g, 'app: rbfail'),
      });
    // Revision 1 never became ready either (recorded without waiting).
    await run(root('unpullable.invalid/web:1'), { wait: false });
    const error = await run(root('unpullable.invalid/web:2'), {
      rollbackOnFailure: true,
      timeoutMs: 120_000,
    }).catch((e) => e);
    expect(error).toBeInstanceOf(DeployError);
    expect(error.message).toMatch(
      /ImagePullBackOff[\s\S]*the rollback to revision 1 failed too: [\s\S]*ImagePullBackOff/,
    );
    expect(error.report.objects).toEqual([
      expect.objectContaining({ kind: 'Deployment', name: 'rbfail', action: 'configured' }),
    ]);
    expect(error.report.rollout).toEqual([expect.objectContaining({ name: 'rbfail', ready: false })]);
  });
});

describe('ten deploys at once', () => {
  test('deploys of A wait for each other, B never waits for A, nothing of A is pruned by B, the last of each wins', async () => {
    const finished: { who: string; variant: number; at: number }[] = [];
    const loggers = new Map<string, ReturnType<typeof recordingLogger>>();
    const runs = [];
    for (let i = 0; i < 5; i++) {
      for (const who of ['alpha', 'beta']) {
        const logger = recordingLogger();
        loggers.set(`${who}${i}`, logger);
        const root = dir(who, { '.k2e/cms.yaml': configMaps(who, 5, String(i)) });
        runs.push(
          run(root, { wait: false, logger }).then(() => finished.push({ who, variant: i, at: Date.now() })),
        );
      }
    }
    await Promise.all(runs);
    expect(finished).toHaveLength(10);
    for (const [key, logger] of loggers) {
      const waits = logger.lines.filter((l) => l.startsWith('waiting for '));
      // Each deploy only ever waits on its own deployment's Lease.
      for (const w of waits)
        expect(w).toContain(`deploying ${key.replace(/\d$/, '')} (Lease spread.${key.replace(/\d$/, '')})`);
    }
    const waitedAlpha = [...loggers].filter(
      ([k, l]) => k.startsWith('alpha') && l.lines.some((x) => x.startsWith('waiting for ')),
    );
    expect(waitedAlpha.length).toBeGreaterThanOrEqual(1);
    for (const who of ['alpha', 'beta']) {
      const last = finished
        .filter((f) => f.who === who)
        .sort((a, b) => a.at - b.at)
        .at(-1)!;
      for (let i = 0; i < 5; i++) {
        const cm = await getJson('configmap', `${who}-${i}`);
        expect(cm.data.v).toBe(String(last.variant));
      }
    }
  });
});

describe('interrupted deploys converge', () => {
  test('a deploy killed with SIGKILL mid-apply; a re-run takes the Lease over after it expires and converges', async () => {
    const root = dir('killed', { '.k2e/cms.yaml': configMaps('killed', 150, 'one') });
    const child = spawn(
      process.execPath,
      [
        path.join(ROOT, 'dist/cli/index.js'),
        'deploy',
        root,
        'spread-local',
        '-n',
        ns,
        '--no-wait',
        '--concurrency',
        '1',
      ],
      { env: process.env },
    );
    let seen = 0;
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        seen += (String(d).match(/configmap\/killed-\d+ -n \S+ created/g) ?? []).length;
        if (seen >= 10) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.on('close', () =>
        seen >= 10 ? resolve() : reject(new Error('the deploy ended before it was killed')),
      );
    });
    const before = await kubectl(['--context', 'spread-local', '-n', ns, 'get', 'configmaps', '-o', 'name']);
    const partial = before.stdout.split('\n').filter((l) => l.startsWith('configmap/killed-')).length;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(150);
    const lease = await getJson('lease', 'spread.killed');
    expect(lease.spec.holderIdentity).toMatch(/\//);
    const logger = recordingLogger();
    const report = await run(root, { wait: false, logger, lockTimeoutMs: 90_000 });
    expect(logger.lines.some((l) => l.startsWith('waiting for '))).toBe(true);
    expect(report.objects.filter((o) => o.kind === 'ConfigMap')).toHaveLength(150);
    const after = await kubectl(['--context', 'spread-local', '-n', ns, 'get', 'configmaps', '-o', 'name']);
    expect(after.stdout.split('\n').filter((l) => l.startsWith('configmap/killed-'))).toHaveLength(150);
  });

  test('the API server stopped during a deploy: non-zero, says what was and was not applied, prunes nothing; a re-run converges', {
    ...needs('restart'),
    timeout: 400_000,
  }, async () => {
    // The API server of the cluster this run was given (SPREAD_CLUSTER_DIR), never another one.
    const pidFile = path.join(clusterDir(), 'run/kube-apiserver.pid');
    const resume = () => process.kill(Number(readFileSync(pidFile, 'utf8').trim()), 'SIGCONT');
    const old = dir('outage', { '.k2e/keep.yaml': configMaps('keep', 1, 'x') });
    await run(old, { wait: false });
    const root = dir('outage', { '.k2e/cms.yaml': configMaps('outage', 120, 'v') });
    let stopped = false;
    const logger = recordingLogger();
    const origInfo = logger.info;
    logger.info = (m: string) => {
      origInfo(m);
      if (!stopped && /configmap\/outage-\d+ .* created/.test(m)) {
        stopped = true;
        // Stopped, not killed: connections hang like in a real outage. Resumed in `finally`, and by
        // a timer in case this test is cut short, so the shared API server is never left stopped.
        process.kill(Number(readFileSync(pidFile, 'utf8').trim()), 'SIGSTOP');
        // Long enough for spread's in-flight request to time out (30 s), short enough not to leave the
        // cluster's own components without an API server for long.
        setTimeout(resume, 35_000).unref();
      }
    };
    const started = Date.now();
    let error: Error & { applied?: unknown[] };
    try {
      error = await run(root, { wait: false, logger, concurrency: 1, timeoutMs: 30_000 }).catch((e) => e);
    } finally {
      resume();
    }
    expect(stopped).toBe(true);
    expect(error).toBeInstanceOf(Error);
    expect(Date.now() - started).toBeLessThan(180_000);
    expect(error.message).toMatch(/applied/);
    expect(error.message).toMatch(/not applied|failed/);
    // Nothing was pruned: the object the new directory dropped is still there.
    const keep = await kubectl(
      ['--context', 'spread-local', '-n', ns, 'get', 'configmap', 'keep-0', '-o', 'name'],
      {
        allowFail: true,
      },
    );
    expect(keep.stdout.trim()).toBe('configmap/keep-0');
    const report = await run(root, { wait: false, lockTimeoutMs: 90_000 });
    expect(report.objects.filter((o) => o.action === 'pruned').map((o) => o.name)).toEqual(['keep-0']);
    const after = await kubectl(['--context', 'spread-local', '-n', ns, 'get', 'configmaps', '-o', 'name']);
    expect(after.stdout.split('\n').filter((l) => l.startsWith('configmap/outage-'))).toHaveLength(120);
  });
});

describe('the API server restarted during the rollout wait', () => {
  test('the wait rides it out (its watches resumed or listed again) and the deploy succeeds', {
    ...needs('restart'),
    timeout: 400_000,
  }, async () => {
    // Available 20 s after its pods are ready: the wait lasts through the restart, which begins as
    // soon as the wait does (the API server is then down 5 s, and takes a few more to be healthy).
    // The controller manager can take 90 s more to mark it available (seen on v1.34).
    const root = dir('restart-wait', {
      '.k2e/web.yaml': `apiVersion: apps/v1
kind: Deployment
metadata: {name: restarted}
spec:
  replicas: 2
  minReadySeconds: 20
  selector: {matchLabels: {app: restarted}}
  template:
    metadata: {labels: {app: restarted}}
    spec: {containers: [{name: web, image: registry.example/web:1}]}
`,
    });
    // Its pods need the namespace's default ServiceAccount, which a new namespace gets a moment later.
    for (let i = 0; i < 100; i++) {
      const sa = ['--context', 'spread-local', '-n', ns, 'get', 'serviceaccount', 'default'];
      if ((await kubectl(sa, { allowFail: true })).stdout.trim()) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const logger = recordingLogger();
    let restarted: Promise<void> | undefined;
    /** When the restarted API server was healthy again. */
    let back = 0;
    const said = logger.info;
    logger.info = (m: string) => {
      said(m);
      if (restarted || !m.startsWith('waiting for ')) return;
      restarted = restartComponent('kube-apiserver', 5).then(() => {
        back = Date.now();
      });
    };
    const report = await run(root, { logger, timeoutMs: 300_000 });
    const ended = Date.now();
    expect(restarted).toBeDefined();
    await restarted;
    // The wait went on through the restart: the API server was healthy again before it ended.
    expect(back).toBeGreaterThan(0);
    expect(back).toBeLessThanOrEqual(ended);
    expect(report.rollout).toMatchObject([{ kind: 'Deployment', name: 'restarted', ready: true }]);
  });
});
