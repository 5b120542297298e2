// Phases and waves (docs/phases.md) against the local cluster's real API server, Job and Deployment
// controllers: a failed pre Job leaves the Deployment untouched, its fix rolls out; a failed post Job
// rolls back; three waves written one after the other, read from the API server's audit log
// (scripts/cluster/audit-policy.yaml) against the times a watch saw each wave's Deployment available.
// kwok runs no containers: its pod-complete stage ends a Job's pods Succeeded, and a pod whose image
// is in `unpullable.invalid` never starts, so that Job fails (activeDeadlineSeconds, the Job controller's).
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/base/logger.js';
import { DeployError } from '../../src/core/deploy/index.js';
import { deploy } from '../../src/frontend/deploy.js';
import { history, rollback } from '../../src/frontend/manage.js';
import { formatReportText } from '../../src/report/report.js';
import { clusterDir } from './env.js';
import { needs } from './harness.js';
import { kubeconfigPath, kubectl, localDeploy, uniqueName, writeDir } from './helpers.js';

const ns = uniqueName('phases');
const jobsNs = uniqueName('phases-jobs');
const group = `${uniqueName('p')}.example.com`;
const roots: string[] = [];
const AUDIT = path.join(clusterDir(), 'logs/audit.log');

const web = (name: string, image: string, annotations = '{}') => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, annotations: ${annotations}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec: {containers: [{name: web, image: ${image}}]}
`;
const job = (name: string, phase: string, image: string) => `apiVersion: batch/v1
kind: Job
metadata: {name: ${name}, annotations: {spread.rsprd.com/phase: ${phase}}}
spec:
  backoffLimit: 0
  activeDeadlineSeconds: 4
  template:
    spec: {restartPolicy: Never, containers: [{name: main, image: ${image}}]}
`;
const configMap = (name: string, wave: number) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, annotations: {spread.rsprd.com/wave: "${wave}"}}\ndata: {a: b}\n`;

function dir(files: Record<string, string>): string {
  const root = writeDir('phases', files);
  roots.push(path.dirname(root));
  return root;
}

async function getJson(args: string[]): Promise<Record<string, unknown>> {
  return JSON.parse((await kubectl(['--context', 'spread-local', 'get', ...args, '-o', 'json'])).stdout);
}

beforeAll(async () => {
  await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
});
afterAll(async () => {
  for (const n of [ns, jobsNs])
    await kubectl(['--context', 'spread-local', 'delete', 'namespace', n, '--wait=false'], {
      allowFail: true,
    });
  await kubectl(['--context', 'spread-local', 'delete', 'crd', `gadgets.${group}`, '--wait=false'], {
    allowFail: true,
  });
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

describe('Integration: phases', () => {
  test('a failed pre Job: the Deployment keeps its template and generation; fixed, the Job runs, then the rollout', async () => {
    const files = { 'web.yaml': web('web', 'registry.k8s.io/pause:3.10') };
    await deploy(localDeploy(dir(files), ns, { name: 'pre' }));
    const before = await getJson(['deployment', 'web', '-n', ns]);
    const broken = {
      'web.yaml': web('web', 'registry.k8s.io/pause:3.9'),
      'migrate.yaml': job('migrate', 'pre', 'unpullable.invalid/migrate:1'),
    };
    const error = await deploy(localDeploy(dir(broken), ns, { name: 'pre' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeployError);
    expect((error as Error).message).toMatch(
      /^pre failed; nothing of the main phase was applied: rollout failed/,
    );
    expect((error as Error).message).toContain('Job.batch');
    const after = await getJson(['deployment', 'web', '-n', ns]);
    expect((after.metadata as { generation: number }).generation).toBe(
      (before.metadata as { generation: number }).generation,
    );
    expect(JSON.stringify((after.spec as { template: unknown }).template)).toBe(
      JSON.stringify((before.spec as { template: unknown }).template),
    );
    // Fixed: the Job's template changed (immutable), so it is replaced and runs; then the rollout.
    const fixed = { ...broken, 'migrate.yaml': job('migrate', 'pre', 'registry.k8s.io/pause:3.10') };
    const report = await deploy(localDeploy(dir(fixed), ns, { name: 'pre' }));
    expect(report.objects.find((o) => o.name === 'migrate')).toMatchObject({ replaced: true });
    const migrate = await getJson(['job', 'migrate', '-n', ns]);
    expect((migrate.status as { succeeded?: number }).succeeded).toBe(1);
    const rolled = await getJson(['deployment', 'web', '-n', ns]);
    expect((rolled.metadata as { generation: number }).generation).toBe(
      (before.metadata as { generation: number }).generation + 1,
    );
  }, 120_000);

  test('a pre Job whose ServiceAccount is in the main phase: its FailedCreate message in the error, early', async () => {
    const files = {
      'web.yaml': web('sa-web', 'registry.k8s.io/pause:3.10'),
      'sa.yaml': 'apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: migrator}\n',
      'migrate.yaml': job('sa-migrate', 'pre', 'registry.k8s.io/pause:3.10').replace(
        'spec: {restartPolicy: Never,',
        'spec: {serviceAccountName: migrator, restartPolicy: Never,',
      ),
    };
    const started = Date.now();
    const error = await deploy(localDeploy(dir(files), ns, { name: 'sa', timeoutMs: 90_000 })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DeployError);
    expect((error as Error).message).toMatch(
      /^pre failed; nothing of the main phase was applied: rollout failed:\n {2}Job\.batch \S+\/sa-migrate: cannot create its pods: Warning FailedCreate( \(x\d+\))?: .*serviceaccount "migrator" not found/,
    );
    // Failed on the event, well before the timeout; nothing of the main phase written.
    expect(Date.now() - started).toBeLessThan(45_000);
    await expect(
      kubectl(['--context', 'spread-local', 'get', 'serviceaccount', 'migrator', '-n', ns]),
    ).rejects.toThrow();
  }, 120_000);

  test('a failed post Job with rollback-on-failure: the Deployment back at the previous revision', async () => {
    await deploy(
      localDeploy(dir({ 'web.yaml': web('api', 'registry.k8s.io/pause:3.10') }), ns, { name: 'post' }),
    );
    const files = {
      'web.yaml': web('api', 'registry.k8s.io/pause:3.9'),
      'smoke.yaml': job('post-smoke', 'post', 'unpullable.invalid/smoke:1'),
    };
    const error = await deploy(localDeploy(dir(files), ns, { name: 'post', rollbackOnFailure: true })).catch(
      (e: unknown) => e,
    );
    expect((error as Error).message).toMatch(/^post failed: rollout failed/);
    const report = (error as DeployError).report;
    expect(report.rolledBackTo).toBe(1);
    const api = await getJson(['deployment', 'api', '-n', ns]);
    const spec = api.spec as { template: { spec: { containers: { image: string }[] } } };
    expect(spec.template.spec.containers[0]?.image).toBe('registry.k8s.io/pause:3.10');
    // The failed Job is not in revision 1, yet kept with its logs, and the report says what the rollback did.
    await getJson(['job', 'post-smoke', '-n', ns]);
    expect(report.rollback?.map((o) => [o.kind, o.name, o.action])).toEqual([
      ['Deployment', 'api', 'configured'],
      ['Job', 'post-smoke', 'kept'],
    ]);
    expect(report.rollback?.[1]?.note).toBe(
      `the failed deploy ran it: a rollback keeps it as it is, with its logs (kubectl logs job/post-smoke -n ${ns})`,
    );
  }, 120_000);

  test("a failed post Job: the report says so, with every step's rollout and the wave not applied; a rollback names lines", async () => {
    const post = (name: string) => `# the smoke test\n${job(name, 'post', 'unpullable.invalid/smoke:1')}`;
    const late = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: late, annotations: {spread.rsprd.com/phase: post, spread.rsprd.com/wave: "1"}}\ndata: {a: b}\n`;
    await deploy(
      localDeploy(dir({ 'web.yaml': web('rep', 'registry.k8s.io/pause:3.10') }), ns, { name: 'report' }),
    );
    const files = {
      'web.yaml': web('rep', 'registry.k8s.io/pause:3.9'),
      'migrate.yaml': job('rep-migrate', 'pre', 'registry.k8s.io/pause:3.10'),
      'smoke.yaml': post('rep-smoke'),
      'late.yaml': late,
    };
    const error = await deploy(localDeploy(dir(files), ns, { name: 'report' })).catch((e: unknown) => e);
    const report = (error as DeployError).report;
    expect(report.failedIn).toBe('post');
    expect(report.rollout.map((r) => `${r.kind}/${r.name} ${r.ready}`)).toEqual([
      'Job/rep-migrate true',
      'Deployment/rep true',
      'Job/rep-smoke false',
    ]);
    expect(report.skipped?.map((o) => `${o.kind}/${o.name} ${o.phase}`)).toEqual([
      'ConfigMap/late post wave 1',
    ]);
    expect(formatReportText(report).split('\n')[0]).toMatch(
      /^Deploy of report to namespace \S+ \(context spread-local\) FAILED in post:$/,
    );
    // The failed revision 2 stored each object's line: a rollback from it names them, not line 0.
    const manage = { kubeconfig: { paths: [kubeconfigPath()] }, context: 'spread-local', namespace: ns };
    const back = await rollback('report', 2, { ...manage, logger: silentLogger, timeoutMs: 60_000 });
    expect(back.objects.find((o) => o.name === 'rep-smoke')?.source).toBe('smoke.yaml:2');
  }, 120_000);

  test('a failed pre Job with rollback-on-failure: the pre phase ConfigMap back as the revision had it', async () => {
    const settings = (value: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, annotations: {spread.rsprd.com/phase: pre}}\ndata: {schema: "${value}"}\n`;
    await deploy(
      localDeploy(
        dir({ 'web.yaml': web('pre-cm', 'registry.k8s.io/pause:3.10'), 'cm.yaml': settings('1') }),
        ns,
        {
          name: 'pre-cm',
        },
      ),
    );
    const files = {
      'web.yaml': web('pre-cm', 'registry.k8s.io/pause:3.9'),
      'cm.yaml': settings('2'),
      'migrate.yaml': job('pre-cm-migrate', 'pre', 'unpullable.invalid/migrate:1'),
      'new.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: newpre, annotations: {spread.rsprd.com/phase: pre}}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: newsecret, annotations: {spread.rsprd.com/phase: pre}}\nstringData: {a: b}\n',
    };
    const error = await deploy(
      localDeploy(dir(files), ns, { name: 'pre-cm', rollbackOnFailure: true }),
    ).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /^pre failed; nothing of the main phase was applied: rollout failed/,
    );
    expect((error as DeployError).report.rolledBackTo).toBe(1);
    const cm = await getJson(['configmap', 'settings', '-n', ns]);
    expect((cm.data as { schema: string }).schema).toBe('1');
    // What the failed pre phase created that runs nothing is pruned; its Job kept (it holds the logs).
    await getJson(['job', 'pre-cm-migrate', '-n', ns]);
    expect(
      (error as DeployError).report.rollback
        ?.filter((o) => o.action !== 'unchanged')
        .map((o) => [o.kind, o.name, o.action]),
    ).toEqual([
      ['ConfigMap', 'settings', 'configured'],
      ['ConfigMap', 'newpre', 'pruned'],
      ['Secret', 'newsecret', 'pruned'],
      ['Job', 'pre-cm-migrate', 'kept'],
    ]);
    for (const gone of ['configmap/newpre', 'secret/newsecret'])
      expect(
        (await kubectl(['--context', 'spread-local', '-n', ns, 'get', gone], { allowFail: true })).code,
      ).not.toBe(0);
    const web1 = await getJson(['deployment', 'pre-cm', '-n', ns]);
    const spec = web1.spec as { template: { spec: { containers: { image: string }[] } } };
    expect(spec.template.spec.containers[0]?.image).toBe('registry.k8s.io/pause:3.10');
  }, 120_000);

  // A rollback keeps the failed Job (it runs no phase), so it must not wait for it either (issue 42).
  test('a failed post Job that the previous revision held: rollback-on-failure succeeds, the Job not waited for', async () => {
    const good = {
      'web.yaml': web('back', 'registry.k8s.io/pause:3.10'),
      'smoke.yaml': job('smoke', 'post', 'registry.k8s.io/pause:3.10'),
    };
    await deploy(localDeploy(dir(good), ns, { name: 'post-kept' }));
    const bad = {
      'web.yaml': web('back', 'registry.k8s.io/pause:3.9'),
      'smoke.yaml': job('smoke', 'post', 'unpullable.invalid/smoke:2'),
    };
    const error = await deploy(
      localDeploy(dir(bad), ns, { name: 'post-kept', rollbackOnFailure: true }),
    ).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^post failed: rollout failed/);
    expect((error as Error).message).not.toMatch(/the rollback to revision 1 failed too/);
    expect((error as DeployError).report.rolledBackTo).toBe(1);
    const back = await getJson(['deployment', 'back', '-n', ns]);
    const spec = back.spec as { template: { spec: { containers: { image: string }[] } } };
    expect(spec.template.spec.containers[0]?.image).toBe('registry.k8s.io/pause:3.10');
    // History: revision 2 failed, the rollback to 1 recorded deployed; `spread rollback` alone succeeds too.
    const manage = { kubeconfig: { paths: [kubeconfigPath()] }, context: 'spread-local', namespace: ns };
    const h = await history('post-kept', { ...manage, logger: silentLogger });
    expect(h.revisions.map((r) => r.status)).toEqual(['deployed', 'failed', 'deployed']);
    const again = await rollback('post-kept', 1, { ...manage, logger: silentLogger, timeoutMs: 60_000 });
    expect(again.rolledBackTo).toBe(1);
    expect(again.objects.find((o) => o.kind === 'Job')?.note).toBe('not run: a rollback runs no phase');
  }, 120_000);

  test('a pre Job that failed, unchanged: the next deploy deletes and creates it again, saying why', async () => {
    const files = {
      'web.yaml': web('rerun', 'registry.k8s.io/pause:3.10'),
      'migrate.yaml': job('rerun-migrate', 'pre', 'unpullable.invalid/migrate:1'),
    };
    await expect(deploy(localDeploy(dir(files), ns, { name: 'rerun' }))).rejects.toThrow(/^pre failed/);
    // The deploy fails as soon as the pod's image does not pull; the Job itself fails at its deadline.
    await kubectl([
      '--context',
      'spread-local',
      'wait',
      '--for=condition=Failed',
      'job/rerun-migrate',
      '-n',
      ns,
      '--timeout=60s',
    ]);
    const first = await getJson(['job', 'rerun-migrate', '-n', ns]);
    // Retried as it is: the Job runs again (a new one), and fails again, as its image still does not pull.
    const error = await deploy(localDeploy(dir(files), ns, { name: 'rerun' })).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^pre failed/);
    expect((error as DeployError).report.objects.find((o) => o.name === 'rerun-migrate')).toMatchObject({
      replaced: true,
      note: 're-run: failed in an earlier deploy',
    });
    const second = await getJson(['job', 'rerun-migrate', '-n', ns]);
    expect((second.metadata as { uid: string }).uid).not.toBe((first.metadata as { uid: string }).uid);
  }, 120_000);

  test('an unplaced Namespace and CRD are applied first: a pre object in the one and of the other works', async () => {
    const files = {
      'ns.yaml': `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${jobsNs}}\n`,
      'crd.yaml': `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.${group}}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`,
      'gadget.yaml': `apiVersion: ${group}/v1\nkind: Gadget\nmetadata: {name: g, annotations: {spread.rsprd.com/phase: pre}}\nspec: {size: 1}\n`,
      'settings.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, annotations: {spread.rsprd.com/phase: pre}}\ndata: {a: b}\n',
      'web.yaml': web('first', 'registry.k8s.io/pause:3.10'),
    };
    const plan = await deploy(localDeploy(dir(files), jobsNs, { name: 'first', mode: 'plan' }));
    expect(plan.objects.map((o) => o.name)).toContain('g');
    const report = await deploy(localDeploy(dir(files), jobsNs, { name: 'first' }));
    expect(report.objects.map((o) => `${o.kind}/${o.name} ${o.action}`).sort()).toEqual([
      'ConfigMap/settings created',
      `CustomResourceDefinition/gadgets.${group} created`,
      'Deployment/first created',
      'Gadget/g created',
      `Namespace/${jobsNs} created`,
    ]);
    // The deployment's own Namespace, created by it: the pre objects were written after it.
    // Placed after what needs it: an input error in the plan, naming both files, nothing written.
    const late = {
      ...files,
      'ns.yaml': `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${jobsNs}, annotations: {spread.rsprd.com/phase: post}}\n`,
    };
    for (const mode of ['plan', 'deploy'] as const) {
      const error = await deploy(localDeploy(dir(late), jobsNs, { name: 'first', mode })).catch(
        (e: unknown) => e,
      );
      expect((error as Error).message).toContain(
        `settings.yaml:1: ConfigMap settings: placed in pre, it is in Namespace ${jobsNs}, which is placed later, in post (ns.yaml:1)`,
      );
    }
  }, 120_000);

  test('three waves: no write of wave N+1 before wave N was available', {
    ...needs('audit'),
    timeout: 120_000,
  }, async () => {
    const files: Record<string, string> = {};
    for (const w of [0, 1, 2]) {
      files[`cm${w}.yaml`] = configMap(`wave${w}`, w);
      files[`web${w}.yaml`] = web(
        `wave${w}`,
        'registry.k8s.io/pause:3.10',
        `{spread.rsprd.com/wave: "${w}"}`,
      );
    }
    // The times this test's own watch saw each Deployment available.
    const seen = new Map<string, number>();
    const watch = spawn(process.env.SPREAD_KUBECTL ?? 'kubectl', [
      '--context',
      'spread-local',
      'get',
      'deployments',
      '-n',
      ns,
      '-w',
      '-o',
      'jsonpath={.metadata.name} {.status.availableReplicas}{"\\n"}',
    ]);
    watch.stdout.on('data', (d: Buffer) => {
      for (const line of d.toString().split('\n')) {
        const [name, available] = line.trim().split(' ');
        if (name && available === '1' && !seen.has(name)) seen.set(name, Date.now());
      }
    });
    const start = readFileSync(AUDIT, 'utf8').length;
    try {
      await deploy(localDeploy(dir(files), ns, { name: 'waves' }));
    } finally {
      watch.kill();
    }
    const writes = readFileSync(AUDIT, 'utf8')
      .slice(start)
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as AuditEvent)
      .filter((e) => e.userAgent === 'spread' && ['create', 'patch', 'update'].includes(e.verb))
      .filter((e) => !e.requestURI.includes('dryRun') && e.objectRef?.namespace === ns)
      .filter((e) => /^wave\d$/.test(e.objectRef?.name ?? ''));
    const firstWrite = (w: number) => {
      const times = writes
        .filter((e) => e.objectRef?.name === `wave${w}`)
        .map((e) => Date.parse(e.requestReceivedTimestamp));
      // Math.min of nothing is Infinity, which would pass: every wave's writes must be in the log.
      expect(times.length, `writes of wave${w} in the audit log`).toBeGreaterThan(0);
      return Math.min(...times);
    };
    for (const w of [1, 2]) {
      const ready = seen.get(`wave${w - 1}`);
      expect(ready, `wave${w - 1} seen available`).toBeDefined();
      // The watch here and spread's see the same event; spread writes at least its 50 ms judging pause later.
      expect(firstWrite(w)).toBeGreaterThan(ready! - 25);
    }
  });
});

interface AuditEvent {
  readonly verb: string;
  readonly requestURI: string;
  readonly userAgent?: string;
  readonly requestReceivedTimestamp: string;
  readonly objectRef?: { readonly resource?: string; readonly name?: string; readonly namespace?: string };
}
