// Whole deploys with phases and waves (docs/phases.md) against the in-memory API server
// (test/unit/engine/fake-cluster.ts, whose Job controller runs a pod with a log and ends the Job): the
// order of writes, a failed pre Job stopping the deploy before the main phase, a failed post Job
// rolling back, hooks' delete policies, and bad annotations as input errors.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import { type Logger, silentLogger } from '../../../src/base/logger.js';
import { InputError } from '../../../src/base/source.js';
import { Discovery } from '../../../src/cluster/discovery.js';
import {
  type DeployCluster,
  DeployError,
  type DeployOptions,
  deploy,
} from '../../../src/core/deploy/index.js';
import { rollback } from '../../../src/core/manage.js';
import { status } from '../../../src/core/status.js';
import { formatReportText } from '../../../src/report/report.js';
import { FakeCluster } from '../engine/fake-cluster.js';

const NS = 'shop';
const web = (image: string, annotations = '{}') => `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, annotations: ${annotations}}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: ${image}}]}
`;
const job = (name: string, annotations: string, image = 'migrate:1') => `apiVersion: batch/v1
kind: Job
metadata: {name: ${name}, annotations: ${annotations}}
spec:
  template:
    spec: {restartPolicy: Never, containers: [{name: main, image: ${image}}]}
`;
const configMap = (name: string, annotations = '{}') =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, annotations: ${annotations}}\ndata: {a: b}\n`;

let dir: string;
let kube: FakeCluster;
let cluster: DeployCluster;
let lines: string[];

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'spread-phases-'));
  kube = new FakeCluster();
  kube.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  cluster = { api: kube, discovery: await Discovery.load(kube), context: 'fake', namespace: NS };
  lines = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(files: Record<string, string>): void {
  const root = path.join(dir, 'shop', '.k2e');
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(root, name), text);
}

const logger: Logger = {
  ...silentLogger,
  info: (m) => lines.push(m),
  warn: (m) => lines.push(`warning: ${m}`),
  group: (name, fn) => {
    lines.push(`## ${name}`);
    return fn();
  },
};

function options(extra: Partial<DeployOptions> = {}): DeployOptions {
  return {
    path: path.join(dir, 'shop'),
    mode: 'deploy',
    wait: true,
    timeoutMs: 5_000,
    forceConflicts: false,
    concurrency: 4,
    prune: true,
    logger,
    cluster,
    lockTimeoutMs: 1_000,
    ...extra,
  };
}

/** The objects written (not dry runs, not the parent, lease or revisions), in order, as `VERB kind/name`. */
const writes = () =>
  kube.log
    .filter((l) => /^(PATCH|POST|DELETE) (?!dry)/.test(l))
    .filter((l) => /\/(jobs|deployments|configmaps)\b/.test(l))
    .map((l) => l.replace(/ \/api.*\/(jobs|deployments|configmaps)/, ' $1').replace(/\?.*$/, ''));

const migrate = (succeeds: boolean) => (o: KubeObject) =>
  o.metadata.name?.startsWith('migrate')
    ? { succeeds, log: ['connecting', succeeds ? 'migrated 3 tables' : 'ERROR: relation "users" exists'] }
    : o.metadata.name?.startsWith('smoke')
      ? { succeeds, log: [succeeds ? 'smoke ok' : 'smoke: GET / answered 500'] }
      : undefined;

describe('phases and waves on the in-memory API server', () => {
  test('pre Job first and waited for, then main; its log shown in its group', async () => {
    write({
      'web.yaml': web('web:1'),
      'migrate.yaml': job('migrate', '{spread.rsprd.com/phase: pre}'),
    });
    kube.job = migrate(true);
    const r = await deploy(options());
    expect(r.revision).toBe(1);
    const w = writes();
    expect(w.findIndex((l) => l.includes('jobs/migrate'))).toBeLessThan(
      w.findIndex((l) => l.includes('deployments/web')),
    );
    expect(lines).toContain('## Wait for pre');
    expect(lines).toContain('job/migrate pod/migrate-pod: migrated 3 tables');
  });

  test("with phases, prune lists the set's members after the last step, not beside the plan", async () => {
    const files = {
      'web.yaml': web('web:1'),
      'migrate.yaml': job('migrate', '{spread.rsprd.com/phase: pre}'),
      'extra.yaml': configMap('extra'),
    };
    write(files);
    kube.job = migrate(true);
    await deploy(options());
    const { 'extra.yaml': _, ...kept } = files;
    write({ ...kept, 'web.yaml': web('web:2') });
    kube.log.length = 0;
    const memberLists: number[] = [];
    kube.refuse = (req) => {
      if (String(req.query?.labelSelector ?? '').startsWith('applyset.kubernetes.io/part-of='))
        memberLists.push(kube.log.length - 1);
      return undefined;
    };
    const r = await deploy(options());
    expect(r.objects.find((o) => o.name === 'extra')?.action).toBe('pruned');
    const main = kube.log.findIndex((l) =>
      /^PATCH \/apis\/apps\/v1\/namespaces\/shop\/deployments\/web$/.test(l),
    );
    expect(main).toBeGreaterThan(0);
    expect(memberLists.length).toBeGreaterThan(0);
    for (const i of memberLists) expect(i).toBeGreaterThan(main);
  });

  test('the cluster stops answering while a pre Job is waited for: the deploy fails then, naming the step', async () => {
    write({
      'web.yaml': web('web:1'),
      'migrate.yaml': job('migrate', '{spread.rsprd.com/phase: pre}'),
    });
    // The Job never ends by itself; the watches give up after 300 ms without a success.
    kube.maxRetryTimeMs = 300;
    const failing = deploy(options({ timeoutMs: 60_000 })).then(
      (): Error & { code?: string } => new Error('deployed'),
      (e: unknown) => e as Error & { code?: string },
    );
    while (kube.watchers < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    const reset = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    kube.refuse = () => reset();
    kube.breakWatches(reset());
    const failed = await failing;
    expect(failed.message).toMatch(
      /^gave up after \d+ tries, last ECONNRESET: read ECONNRESET; the cluster stopped answering while waiting for pre: its objects and those of the steps before it were applied, not those of the steps after it; nothing was pruned and no revision was recorded \(deploy again to converge\)$/,
    );
    expect(failed.code).toBe('ECONNRESET');
    expect(writes()).toEqual(['PATCH jobs/migrate']);
  });

  test('each step is waited for once: the last one is not waited again as the whole rollout', async () => {
    write({
      'web.yaml': web('web:1'),
      'migrate.yaml': job('migrate', '{spread.rsprd.com/phase: pre}'),
    });
    kube.job = migrate(true);
    const r = await deploy(options());
    const watched = (resource: string) =>
      kube.log.filter((l) => l.startsWith('WATCH ') && l.includes(`/${resource}`)).length;
    expect(watched('jobs')).toBe(1);
    expect(watched('deployments')).toBe(1);
    expect(lines.filter((l) => l.startsWith('## Wait'))).toEqual(['## Wait for pre', '## Wait for main']);
    // The report's rollout holds every step's objects, once each.
    expect(r.rollout.map((o) => `${o.kind}/${o.name} ${o.ready}`).sort()).toEqual([
      'Deployment/web true',
      'Job/migrate true',
    ]);
  });

  test('a failed pre Job: nothing of main written, its last log lines in the error, nothing pruned', async () => {
    write({ 'web.yaml': web('web:1'), 'old.yaml': configMap('old') });
    await deploy(options());
    const generation = Number(kube.get('Deployment', NS, 'web')?.metadata.generation);
    write({ 'web.yaml': web('web:2'), 'migrate.yaml': job('migrate', '{spread.rsprd.com/phase: pre}') });
    kube.job = migrate(false);
    kube.log.length = 0;
    const error = await deploy(options()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeployError);
    const message = (error as Error).message;
    expect(message).toMatch(/^pre failed; nothing of the main phase was applied/);
    expect(message).toContain(
      'last log lines of job/migrate:\n    connecting\n    ERROR: relation "users" exists',
    );
    expect(writes().filter((l) => !l.includes('jobs/migrate'))).toEqual([]);
    expect(kube.get('Deployment', NS, 'web')?.metadata.generation).toBe(generation);
    expect(kube.get('ConfigMap', NS, 'old')).toBeDefined();
    expect((error as DeployError).report.revision).toBe(1);
    expect(formatReportText((error as DeployError).report).split('\n')[0]).toBe(
      'Deploy of shop to namespace shop (context fake) FAILED in pre, before the main phase (nothing of it written):',
    );
    // Fixed: the Job's template changes (immutable), so it is replaced and runs, then main rolls out.
    write({
      'web.yaml': web('web:2'),
      'migrate.yaml': job('migrate', '{spread.rsprd.com/phase: pre}', 'migrate:2'),
    });
    kube.job = migrate(true);
    const fixed = await deploy(options());
    expect(fixed.objects.find((o) => o.name === 'migrate')).toMatchObject({
      action: 'configured',
      replaced: true,
    });
    expect(kube.get('Deployment', NS, 'web')?.metadata.generation).toBe(generation + 1);
    expect(kube.get('ConfigMap', NS, 'old')).toBeUndefined();
  });

  test('a pre Job that failed, its template unchanged: the next deploy re-runs it; a completed one is left', async () => {
    const pre = '{spread.rsprd.com/phase: pre}';
    write({ 'web.yaml': web('web:1'), 'migrate.yaml': job('migrate', pre) });
    kube.job = migrate(false);
    await expect(deploy(options())).rejects.toThrow(/^pre failed/);
    // Retried as it is (a CI job run again): the plan says it runs again, and why.
    kube.job = migrate(true);
    const plan = await deploy(options({ mode: 'plan' }));
    expect(plan.objects.find((o) => o.name === 'migrate')).toMatchObject({
      action: 'replace',
      note: 're-run: failed in an earlier deploy',
    });
    kube.log.length = 0;
    const retried = await deploy(options());
    expect(retried.objects.find((o) => o.name === 'migrate')).toMatchObject({
      action: 'configured',
      replaced: true,
      note: 're-run: failed in an earlier deploy',
    });
    expect(writes().filter((l) => l.includes('jobs/migrate'))).toEqual([
      'DELETE jobs/migrate',
      'PATCH jobs/migrate',
    ]);
    expect(lines).toContain('job/migrate -n shop configured (replaced: re-run: failed in an earlier deploy)');
    expect(kube.get('Deployment', NS, 'web')).toBeDefined();
    // Completed and unchanged: left as it is, not run again.
    kube.log.length = 0;
    const again = await deploy(options());
    expect(again.objects.find((o) => o.name === 'migrate')).toMatchObject({ action: 'unchanged' });
    expect(writes().filter((l) => l.includes('jobs/migrate'))).toEqual([]);
  });

  test('an unplaced Namespace goes in the first step: a pre Job in it is written after it', async () => {
    write({
      'ns.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {name: jobs}\n',
      'web.yaml': web('web:1'),
      'migrate.yaml': job('migrate', '{spread.rsprd.com/phase: pre}').replace(
        'name: migrate,',
        'name: migrate, namespace: jobs,',
      ),
    });
    kube.job = migrate(true);
    const plan = await deploy(options({ mode: 'plan' }));
    expect(plan.objects.map((o) => o.name).sort()).toEqual(['jobs', 'migrate', 'web']);
    await deploy(options());
    const all = kube.log.filter((l) => /^(PATCH|POST) (?!dry)/.test(l));
    const ns = all.findIndex((l) => l.includes('/namespaces/jobs') && !l.includes('/jobs/'));
    expect(ns).toBeGreaterThanOrEqual(0);
    expect(ns).toBeLessThan(all.findIndex((l) => l.includes('jobs/migrate')));
    expect(kube.get('Job', 'jobs', 'migrate')).toBeDefined();
  });

  test('a Namespace placed after a Job in it: an error at both files, in the plan and before any write', async () => {
    write({
      'ns.yaml':
        'apiVersion: v1\nkind: Namespace\nmetadata: {name: jobs, annotations: {spread.rsprd.com/phase: post}}\n',
      'web.yaml': web('web:1'),
      'migrate.yaml': job('migrate', '{spread.rsprd.com/phase: pre}').replace(
        'name: migrate,',
        'name: migrate, namespace: jobs,',
      ),
    });
    for (const mode of ['plan', 'deploy'] as const) {
      kube.log.length = 0;
      const error = await deploy(options({ mode })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InputError);
      expect((error as Error).message).toContain(
        '.k2e/migrate.yaml:1: Job migrate: placed in pre, it is in Namespace jobs, which is placed later, in post (.k2e/ns.yaml:1)',
      );
      expect(kube.log.filter((l) => /^(PATCH|POST|DELETE|PUT) (?!dry)/.test(l))).toEqual([]);
    }
  });

  test('a failed post Job with rollbackOnFailure: back at the previous revision', async () => {
    write({ 'web.yaml': web('web:1') });
    await deploy(options());
    write({ 'web.yaml': web('web:2'), 'smoke.yaml': job('smoke', '{spread.rsprd.com/phase: post}') });
    kube.job = migrate(false);
    const error = await deploy(options({ rollbackOnFailure: true })).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^post failed: rollout failed/);
    expect((error as Error).message).toContain('smoke: GET / answered 500');
    expect((error as DeployError).report.rolledBackTo).toBe(1);
    expect(formatReportText((error as DeployError).report).split('\n')[0]).toBe(
      'Deploy of shop to namespace shop (context fake) FAILED in post, rolled back to revision 1:',
    );
    const spec = kube.get('Deployment', NS, 'web')?.spec as
      | { template: { spec: { containers: { image: string }[] } } }
      | undefined;
    const image = spec?.template.spec.containers[0]?.image;
    expect(image).toBe('web:1');
  });

  test('a pre Job that cannot create its pods: its FailedCreate event in the error, early when fatal', async () => {
    write({
      'web.yaml': web('web:1'),
      'migrate.yaml': job('migrate', '{spread.rsprd.com/phase: pre}'),
    });
    // The Job controller makes no pod; it says why in an event on the Job, as the real one does.
    kube.job = () => undefined;
    const started = Date.now();
    const running = deploy(options({ timeoutMs: 20_000 })).catch((e: unknown) => e);
    for (let i = 0; i < 200 && !kube.get('Job', NS, 'migrate'); i++)
      await new Promise((r) => setTimeout(r, 10));
    const uid = kube.get('Job', NS, 'migrate')?.metadata.uid;
    const because = (name: string, message: string, involved = { uid }) =>
      kube.put({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace: NS },
        involvedObject: { kind: 'Job', namespace: NS, name: 'migrate', ...involved },
        reason: 'FailedCreate',
        type: 'Warning',
        message,
        count: 2,
        lastTimestamp: '2026-01-01T00:00:00Z',
      } as KubeObject);
    // A replaced Job's event of the same name is not this Job's.
    because('old', 'Error creating: an older Job', { uid: 'another' });
    because(
      'now',
      'Error creating: pods "migrate-x" is forbidden: error looking up service account shop/migrator: serviceaccount "migrator" not found',
    );
    const error = await running;
    expect(error).toBeInstanceOf(DeployError);
    expect((error as Error).message).toMatch(
      /^pre failed; nothing of the main phase was applied: rollout failed:\n {2}Job\.batch shop\/migrate: cannot create its pods: Warning FailedCreate \(x2\): Error creating: pods "migrate-x" is forbidden: error looking up service account shop\/migrator: serviceaccount "migrator" not found/,
    );
    expect((error as Error).message).not.toContain('an older Job');
    // Failed on the event, not at the timeout.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  test('a FailedCreate the Job controller may get past (a quota) is in the timeout error, not fatal', async () => {
    write({ 'web.yaml': web('web:1'), 'migrate.yaml': job('migrate', '{spread.rsprd.com/phase: pre}') });
    kube.job = () => undefined;
    const running = deploy(options({ timeoutMs: 1_500 })).catch((e: unknown) => e);
    for (let i = 0; i < 200 && !kube.get('Job', NS, 'migrate'); i++)
      await new Promise((r) => setTimeout(r, 10));
    kube.put({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'quota', namespace: NS },
      involvedObject: {
        kind: 'Job',
        namespace: NS,
        name: 'migrate',
        uid: kube.get('Job', NS, 'migrate')?.metadata.uid,
      },
      reason: 'FailedCreate',
      type: 'Warning',
      message: 'Error creating: pods "migrate-x" is forbidden: exceeded quota: pods',
    } as KubeObject);
    const message = ((await running) as Error).message;
    expect(message).toMatch(
      /^pre failed; nothing of the main phase was applied: rollout not finished within 2s:/,
    );
    expect(message).toContain(
      '(cannot create its pods: Warning FailedCreate: Error creating: pods "migrate-x" is forbidden: exceeded quota: pods)',
    );
  });

  test('a failed pre Job with rollbackOnFailure: what the pre phase changed is restored, the Job not run', async () => {
    const pre = '{spread.rsprd.com/phase: pre}';
    write({
      'web.yaml': web('web:1'),
      'settings.yaml': configMap('settings', pre),
      'migrate.yaml': job('migrate', pre, 'migrate:1'),
    });
    kube.job = migrate(true);
    await deploy(options());
    write({
      'web.yaml': web('web:2'),
      'settings.yaml': configMap('settings', '{spread.rsprd.com/phase: pre, changed: "yes"}'),
      'extra.yaml': configMap('extra', pre),
      'migrate.yaml': job('migrate', pre, 'migrate:2'),
    });
    kube.job = migrate(false);
    kube.log.length = 0;
    const error = await deploy(options({ rollbackOnFailure: true })).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^pre failed; nothing of the main phase was applied/);
    expect((error as Error).message).toMatch(/\nrolled back to revision 1$/);
    expect((error as DeployError).report.rolledBackTo).toBe(1);
    expect((error as DeployError).report.failedBeforeMain).toBe('pre');
    expect(kube.get('ConfigMap', NS, 'settings')?.metadata.annotations?.changed).toBeUndefined();
    expect(kube.get('ConfigMap', NS, 'extra')).toBeUndefined();
    expect(
      (error as DeployError).report.rollback
        ?.filter((o) => o.action !== 'unchanged')
        .map((o) => [o.name, o.action]),
    ).toEqual([
      ['settings', 'configured'],
      ['extra', 'pruned'],
    ]);
    // The failed Job is kept as it is (a rollback runs no phase), and main was never written.
    const image = (o: KubeObject | undefined) =>
      (o?.spec as { template: { spec: { containers: { image: string }[] } } } | undefined)?.template.spec
        .containers[0]?.image;
    expect(image(kube.get('Job', NS, 'migrate'))).toBe('migrate:2');
    expect(writes().filter((l) => l.includes('deployments/web'))).toEqual([]);
    expect(image(kube.get('Deployment', NS, 'web'))).toBe('web:1');
  });

  test('a failed pre phase that changed only its Job: nothing to roll back', async () => {
    const pre = '{spread.rsprd.com/phase: pre}';
    write({ 'web.yaml': web('web:1'), 'migrate.yaml': job('migrate', pre, 'migrate:1') });
    kube.job = migrate(true);
    await deploy(options());
    write({ 'web.yaml': web('web:2'), 'migrate.yaml': job('migrate', pre, 'migrate:2') });
    kube.job = migrate(false);
    const error = await deploy(options({ rollbackOnFailure: true })).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^pre failed/);
    expect((error as DeployError).report.rolledBackTo).toBeUndefined();
    expect((error as DeployError).report.revision).toBe(1);
    expect(lines).toContain(
      'warning: pre failed; nothing to roll back: the pre phase created or changed only Jobs and Pods, which a rollback keeps as they are (they hold the logs), and the main phase was not written',
    );
  });

  test('a first deploy whose pre Job fails, with rollbackOnFailure: nothing to roll back, and why', async () => {
    write({ 'web.yaml': web('web:1'), 'migrate.yaml': job('migrate', '{spread.rsprd.com/phase: pre}') });
    kube.job = migrate(false);
    const error = await deploy(options({ rollbackOnFailure: true })).catch((e: unknown) => e);
    expect((error as DeployError).report.rolledBackTo).toBeUndefined();
    expect(lines).toContain(
      "warning: pre failed; nothing to roll back: this was the deployment's first deploy, so there is no earlier revision (what the pre phase applied stays)",
    );
  });

  test('a first deploy whose post Job fails, with rollbackOnFailure: nothing to roll back, and why', async () => {
    write({ 'web.yaml': web('web:1'), 'smoke.yaml': job('smoke', '{spread.rsprd.com/phase: post}') });
    kube.job = migrate(false);
    const error = await deploy(options({ rollbackOnFailure: true })).catch((e: unknown) => e);
    expect((error as DeployError).report.rolledBackTo).toBeUndefined();
    expect(lines).toContain(
      "warning: the rollout failed; nothing to roll back: this was the deployment's first deploy, so there is no earlier revision (what it applied stays)",
    );
  });

  test('a hook Secret the rollback applies is said applied, not waited for (only a Job or Pod is not run)', async () => {
    const hook = (data: string) =>
      `apiVersion: v1\nkind: Secret\nmetadata: {name: hooksecret, annotations: {helm.sh/hook: "pre-install,pre-upgrade"}}\nstringData: {a: "${data}"}\n`;
    const post = '{spread.rsprd.com/phase: post}';
    write({ 'web.yaml': web('web:1'), 'hook.yaml': hook('1'), 'smoke.yaml': job('smoke', post, 'smoke:1') });
    kube.job = migrate(true);
    await deploy(options());
    write({ 'web.yaml': web('web:2'), 'hook.yaml': hook('2'), 'smoke.yaml': job('smoke', post, 'smoke:2') });
    kube.job = migrate(false);
    lines.length = 0;
    const error = await deploy(options({ rollbackOnFailure: true })).catch((e: unknown) => e);
    expect((error as DeployError).report.rolledBackTo).toBe(1);
    const said = lines.filter((l) => /^(Secret|Job) /.test(l));
    expect(said).toEqual([
      'Secret hooksecret (pre) applied, not waited for: a rollback runs no phase, and waits for no hook',
      'Job smoke (post) not run nor waited for: a rollback runs no phase',
    ]);
    expect((error as DeployError).report.rollback?.find((o) => o.name === 'hooksecret')).toMatchObject({
      action: 'configured',
      note: 'applied, not waited for: a rollback runs no phase, and waits for no hook',
    });
  });

  test('a rollback runs no phase: a pre Job whose template changed is kept as it is', async () => {
    const pre = '{spread.rsprd.com/phase: pre}';
    write({ 'web.yaml': web('web:1'), 'migrate.yaml': job('migrate', pre, 'migrate:1') });
    kube.job = migrate(true);
    await deploy(options());
    write({
      'web.yaml': web('web:2'),
      'migrate.yaml': job('migrate', pre, 'migrate:2'),
      'smoke.yaml': job('smoke', '{spread.rsprd.com/phase: post}'),
    });
    kube.job = (o) => migrate(!o.metadata.name?.startsWith('smoke'))(o);
    const error = await deploy(options({ rollbackOnFailure: true })).catch((e: unknown) => e);
    expect((error as DeployError).report.rolledBackTo).toBe(1);
    const image = (o: KubeObject | undefined) =>
      (o?.spec as { template: { spec: { containers: { image: string }[] } } } | undefined)?.template.spec
        .containers[0]?.image;
    expect(image(kube.get('Deployment', NS, 'web'))).toBe('web:1');
    expect(image(kube.get('Job', NS, 'migrate'))).toBe('migrate:2');
    // The failed post Job is not in revision 1, yet kept: it holds the failure's logs.
    expect(kube.get('Job', NS, 'smoke')).toBeDefined();
    const back = (error as DeployError).report.rollback ?? [];
    expect(back.filter((o) => o.kind === 'Job').map((o) => [o.name, o.action, o.note])).toEqual([
      ['migrate', 'unchanged', 'not run: a rollback runs no phase'],
      [
        'smoke',
        'kept',
        'the failed deploy ran it: a rollback keeps it as it is, with its logs (kubectl logs job/smoke -n shop)',
      ],
    ]);
    expect(formatReportText((error as DeployError).report)).toMatch(
      /\nRolled back to revision 1:\n(.*\n)*rollback: 0 created, 1 configured, 1 unchanged, 0 pruned, 1 kept\n$/,
    );
  });

  test('a failed post Job: the report says the deploy failed in post, its rollout holds every step', async () => {
    write({
      'web.yaml': web('web:1'),
      'migrate.yaml': job('migrate', '{spread.rsprd.com/phase: pre}'),
      'smoke.yaml': job('smoke', '{spread.rsprd.com/phase: post}'),
    });
    kube.job = (o) => migrate(!o.metadata.name?.startsWith('smoke'))(o);
    const error = await deploy(options()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeployError);
    const report = (error as DeployError).report;
    expect(report.failedIn).toBe('post');
    expect(report.failedBeforeMain).toBeUndefined();
    expect(report.skipped).toBeUndefined();
    expect(report.rollout.map((o) => `${o.kind}/${o.name} ${o.ready}`)).toEqual([
      'Job/migrate true',
      'Deployment/web true',
      'Job/smoke false',
    ]);
    const text = formatReportText(report).split('\n');
    expect(text[0]).toBe('Deploy of shop to namespace shop (context fake) FAILED in post:');
    expect(text.filter((l) => l.startsWith('  rollout '))).toHaveLength(3);
  });

  test('a failed wave: the waves after it are not applied, and the report lists them as such', async () => {
    write({
      'a.yaml': configMap('a'),
      'smoke.yaml': job('smoke', '{spread.rsprd.com/wave: "1"}'),
      'late.yaml': configMap('late', '{spread.rsprd.com/wave: "2"}'),
      'later.yaml': job('later', '{spread.rsprd.com/phase: post}'),
    });
    kube.job = migrate(false);
    const error = await deploy(options()).catch((e: unknown) => e);
    const report = (error as DeployError).report;
    expect(report.failedIn).toBe('main wave 1');
    expect(kube.get('ConfigMap', NS, 'late')).toBeUndefined();
    expect(report.skipped).toEqual([
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: NS,
        name: 'late',
        phase: 'main wave 2',
        source: '.k2e/late.yaml:1',
      },
      {
        apiVersion: 'batch/v1',
        kind: 'Job',
        namespace: NS,
        name: 'later',
        phase: 'post',
        source: '.k2e/later.yaml:1',
      },
    ]);
    const text = formatReportText(report);
    expect(text.split('\n')[0]).toBe(
      'Deploy of shop to namespace shop (context fake) FAILED in main wave 1:',
    );
    expect(text).toContain('  configmap/late not applied -n shop [main wave 2]  (.k2e/late.yaml:1)\n');
    expect(text).toContain('  job.batch/later not applied -n shop [post]  (.k2e/later.yaml:1)\n');
  });

  test('without wait, the steps before the last are waited for all the same, and in the report', async () => {
    write({ 'web.yaml': web('web:1'), 'b.yaml': configMap('b', '{spread.rsprd.com/wave: "1"}') });
    const r = await deploy(options({ wait: false }));
    expect(r.rollout.map((o) => `${o.kind}/${o.name} ${o.ready}`)).toEqual(['Deployment/web true']);
    expect(lines.filter((l) => l.startsWith('## Wait'))).toEqual(['## Wait for main']);
  });

  test('a failed post Job kept by the rollback is not waited for: the rollback succeeds, the report says so', async () => {
    const post = '{spread.rsprd.com/phase: post}';
    write({ 'web.yaml': web('web:1'), 'smoke.yaml': job('smoke', post, 'smoke:1') });
    kube.job = migrate(true);
    await deploy(options());
    write({ 'web.yaml': web('web:2'), 'smoke.yaml': job('smoke', post, 'smoke:2') });
    kube.job = migrate(false);
    const error = await deploy(options({ rollbackOnFailure: true })).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^post failed: rollout failed/);
    expect((error as Error).message).not.toMatch(/the rollback to revision 1 failed too/);
    expect((error as DeployError).report.rolledBackTo).toBe(1);
    const image = (o: KubeObject | undefined) =>
      (o?.spec as { template: { spec: { containers: { image: string }[] } } } | undefined)?.template.spec
        .containers[0]?.image;
    expect(image(kube.get('Deployment', NS, 'web'))).toBe('web:1');
    // Kept as it is, failed: neither run again nor waited for.
    expect(image(kube.get('Job', NS, 'smoke'))).toBe('smoke:2');
    expect(lines.join('\n')).toMatch(/Job smoke \(post\) not run nor waited for: a rollback runs no phase/);
    // `spread rollback` alone too, with the Job in its report as not run.
    const back = await rollback('shop', 1, {
      cluster,
      namespace: NS,
      logger,
      timeoutMs: 5_000,
      lockTimeoutMs: 1_000,
    });
    expect(back.rolledBackTo).toBe(1);
    expect(back.objects.find((o) => o.kind === 'Job')?.note).toBe('not run: a rollback runs no phase');
  });

  test('waves: each wave written after the one before, kind order inside a wave', async () => {
    write({
      'a.yaml': configMap('a', '{spread.rsprd.com/wave: "2"}'),
      'b.yaml': web('web:1', '{spread.rsprd.com/wave: "1"}'),
      'c.yaml': configMap('c', '{spread.rsprd.com/wave: "1"}'),
      'd.yaml': configMap('d', '{argocd.argoproj.io/sync-wave: "-1"}'),
    });
    await deploy(options());
    const order = writes().map((l) => l.split(' ')[1]);
    expect(order).toEqual(['configmaps/d', 'configmaps/c', 'deployments/web', 'configmaps/a']);
    expect(lines).toContain('## Wait for main wave 1');
  });

  test('Helm hooks: pre-upgrade in pre on upgrades only, weights as waves, hook-succeeded deleted, test hooks not deployed', async () => {
    write({
      'web.yaml': web('web:1'),
      'migrate.yaml': job(
        'migrate',
        '{helm.sh/hook: pre-upgrade, helm.sh/hook-weight: "5", helm.sh/hook-delete-policy: hook-succeeded}',
      ),
      'seed.yaml': job('seed', '{helm.sh/hook: post-install}'),
      'test.yaml': job('smoke-test', '{helm.sh/hook: test}'),
    });
    kube.job = () => ({ succeeds: true, log: ['ok'] });
    // The first deploy is the install: the pre-upgrade hook does not run, the post-install one does.
    const installed = await deploy(options());
    expect(installed.objects.map((o) => `${o.name} ${o.phase ?? ''}`).sort()).toEqual(['seed post', 'web ']);
    expect(lines).toContain(
      'Job migrate (.k2e/migrate.yaml:1): a Helm hook of pre-upgrade only, and this deploy is the first (an install): not run',
    );
    // An upgrade: the pre-upgrade hook runs, in wave 5, and is deleted once it succeeded.
    write({
      'web.yaml': web('web:2'),
      'migrate.yaml': job(
        'migrate',
        '{helm.sh/hook: pre-upgrade, helm.sh/hook-weight: "5", helm.sh/hook-delete-policy: hook-succeeded}',
      ),
      'seed.yaml': job('seed', '{helm.sh/hook: post-install}'),
      'smoke.yaml': job('smoke', '{helm.sh/hook: post-upgrade, helm.sh/hook-delete-policy: hook-succeeded}'),
    });
    kube.log.length = 0;
    const r = await deploy(options());
    expect(r.objects.map((o) => o.name)).not.toContain('smoke-test');
    expect(kube.get('Job', NS, 'migrate')).toBeUndefined();
    expect(kube.get('Job', NS, 'smoke')).toBeUndefined();
    // Deleted by their policy, the hooks were created all the same: in the report, and its count.
    expect(r.objects.filter((o) => o.kind === 'Job' && o.action === 'created')).toEqual([
      expect.objectContaining({
        name: 'migrate',
        phase: 'pre wave 5',
        note: 'deleted by its hook-delete-policy hook-succeeded',
      }),
      expect.objectContaining({
        name: 'smoke',
        phase: 'post',
        note: 'deleted by its hook-delete-policy hook-succeeded',
      }),
    ]);
    expect(formatReportText(r)).toMatch(/\b2 created, 1 configured\b/);
    expect(lines).toContain('## Wait for pre wave 5');
    expect(writes().filter((l) => l.includes('jobs/migrate'))).toEqual([
      'PATCH jobs/migrate',
      'DELETE jobs/migrate',
    ]);
    expect(writes().filter((l) => l.includes('deployments/web'))).toEqual(['PATCH deployments/web']);
    expect(writes().findIndex((l) => l.includes('jobs/migrate'))).toBeLessThan(
      writes().findIndex((l) => l.includes('deployments/web')),
    );
    // status: the hook deleted by its policy and the install-only hook are no drift.
    const s = await status({
      path: path.join(dir, 'shop'),
      cluster: { connection: cluster },
      logger: silentLogger,
    });
    const found: { name: string; state: string; message?: string }[] = [];
    JSON.stringify(s, (_k, v: unknown) => {
      if (v && typeof v === 'object' && 'kind' in v && 'state' in v)
        found.push(v as unknown as (typeof found)[number]);
      return v;
    });
    const states = Object.fromEntries(found.map((o) => [o.name, `${o.state}: ${o.message ?? ''}`]));
    expect(states).toMatchObject({
      migrate: expect.stringMatching(
        /^in sync: finished and removed by its hook-delete-policy hook-succeeded after revision 2/,
      ),
      // The install-only hook is not run by the upgrade, and not pruned either (Helm deletes no hook
      // it does not run): still in the cluster as the install left it.
      seed: expect.stringMatching(/^in sync/),
    });
    expect(kube.get('Job', NS, 'seed')).toBeDefined();
    // Run again: the hook runs again (it was deleted, so it is created anew).
    kube.log.length = 0;
    await deploy(options());
    expect(writes().filter((l) => l.includes('jobs/migrate'))).toEqual([
      'PATCH jobs/migrate',
      'DELETE jobs/migrate',
    ]);
  });

  test('a hook kept by before-hook-creation runs again on every deploy', async () => {
    write({ 'web.yaml': web('web:1'), 'migrate.yaml': job('migrate', '{argocd.argoproj.io/hook: PreSync}') });
    kube.job = migrate(true);
    await deploy(options());
    // The plan says why an unchanged hook is replaced, on its line.
    const plan = await deploy(options({ mode: 'plan' }));
    expect(plan.objects.find((o) => o.name === 'migrate')).toMatchObject({
      action: 'replace',
      note: 'hook: re-created each deploy, before-hook-creation',
    });
    expect(formatReportText(plan)).toContain(
      'job.batch/migrate replace -n shop [pre]  (.k2e/migrate.yaml:1)\n      (hook: re-created each deploy, before-hook-creation)',
    );
    kube.log.length = 0;
    const again = await deploy(options());
    expect(again.objects.find((o) => o.name === 'migrate')).toMatchObject({
      replaced: true,
      note: 'hook: re-created each deploy, before-hook-creation',
    });
    expect(writes().slice(0, 2)).toEqual(['DELETE jobs/migrate', 'PATCH jobs/migrate']);
  });

  test('the plan shows the phase and wave of each object, the text and the report alike', async () => {
    write({
      'web.yaml': web('web:1', '{spread.rsprd.com/wave: "2"}'),
      'migrate.yaml': job('migrate', '{spread.rsprd.com/phase: pre}'),
      'cm.yaml': configMap('plain'),
    });
    const plan = await deploy(options({ mode: 'plan' }));
    expect(Object.fromEntries(plan.objects.map((o) => [o.name, o.phase]))).toEqual({
      migrate: 'pre',
      web: 'main wave 2',
      plain: undefined,
    });
    expect(formatReportText(plan)).toContain('job.batch/migrate create -n shop [pre]  (.k2e/migrate.yaml:1)');
    expect(writes()).toEqual([]);
  });

  test('a pre Job still running whose template changed: the plan says it is replaced, the deploy warns', async () => {
    write({ 'web.yaml': web('web:1'), 'migrate.yaml': job('migrate', '{spread.rsprd.com/phase: pre}') });
    kube.job = migrate(true);
    await deploy(options());
    // Still running, as an interrupted deploy's or a slow migration's Job is.
    kube.setStatus('Job', NS, 'migrate', { active: 1 });
    write({
      'web.yaml': web('web:1'),
      'migrate.yaml': job('migrate', '{spread.rsprd.com/phase: pre}', 'migrate:2'),
    });
    const plan = await deploy(options({ mode: 'plan' }));
    expect(plan.objects.find((o) => o.name === 'migrate')).toMatchObject({
      action: 'replace',
      note: 'the running Job will be replaced: its 1 active pod is stopped',
    });
    const warnings: string[] = [];
    await deploy(options({ logger: { ...logger, warn: (m) => warnings.push(m) } }));
    expect(warnings).toContain(
      'Job migrate (.k2e/migrate.yaml:1): the running Job will be replaced: its 1 active pod is stopped',
    );
    // A Job that completed is replaced without a warning.
    write({
      'web.yaml': web('web:1'),
      'migrate.yaml': job('migrate', '{spread.rsprd.com/phase: pre}', 'migrate:3'),
    });
    const quiet: string[] = [];
    const again = await deploy(options({ mode: 'plan', logger: { ...logger, warn: (m) => quiet.push(m) } }));
    expect(again.objects.find((o) => o.name === 'migrate')?.note).toBeUndefined();
  });

  test('bad phase and wave values: input errors at their files, all at once, nothing written', async () => {
    write({
      'a.yaml': configMap('a', '{spread.rsprd.com/phase: before}'),
      'b.yaml': configMap('b', '{spread.rsprd.com/wave: "1.5"}'),
      'c.yaml': configMap('c', '{argocd.argoproj.io/sync-wave: soon}'),
      // Not hidden by the phases' errors: a bad prune value and a Namespace placed after its object.
      'd.yaml': configMap('d', '{spread.rsprd.com/prune: Keep}'),
      'e.yaml': `${configMap('e', '{spread.rsprd.com/phase: pre}').replace('name: e,', 'name: e, namespace: late,')}`,
      'ns.yaml':
        'apiVersion: v1\nkind: Namespace\nmetadata: {name: late, annotations: {spread.rsprd.com/phase: post}}\n',
    });
    const error = await deploy(options()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    const issues = (error as InputError).issues.map((i) => `${i.source.file}:${i.source.line} ${i.message}`);
    expect(issues).toEqual([
      expect.stringMatching(
        /^\.k2e\/a\.yaml:1 ConfigMap a: annotation spread\.rsprd\.com\/phase: "before" is not a phase/,
      ),
      expect.stringMatching(
        /^\.k2e\/b\.yaml:1 ConfigMap b: annotation spread\.rsprd\.com\/wave: "1\.5" is not an integer/,
      ),
      expect.stringMatching(
        /^\.k2e\/c\.yaml:1 ConfigMap c: annotation argocd\.argoproj\.io\/sync-wave: "soon" is not an integer/,
      ),
      expect.stringMatching(
        /^\.k2e\/d\.yaml:1 ConfigMap d: annotation spread\.rsprd\.com\/prune: "Keep" is not "keep"/,
      ),
      expect.stringMatching(
        /^\.k2e\/e\.yaml:1 placed in pre, it is in Namespace late, which is placed later, in post \(\.k2e\/ns\.yaml:1\)/,
      ),
    ]);
    expect(writes()).toEqual([]);
  });

  test("a file that does not parse hides no other file's phase and wave errors", async () => {
    write({
      'a.yaml': `${configMap('a', '{spread.rsprd.com/phase: before}')}---\n${configMap('b', '{spread.rsprd.com/wave: "1.5"}')}`,
      'broken.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations: {a: b\ndata: {}\n',
    });
    writeFileSync(
      path.join(dir, 'shop', 'spread.yaml'),
      'health:\n  Widget.example.com:\n    current: nosuch()\n',
    );
    const error = await deploy(options()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    const issues = (error as InputError).issues.map((i) => `${i.source.file}:${i.source.line} ${i.message}`);
    expect(issues).toEqual([
      expect.stringMatching(/^spread\.yaml:3 current: column 1: unknown function nosuch\(\)/),
      expect.stringMatching(/^\.k2e\/broken\.yaml:6 YAML: /),
      expect.stringMatching(
        /^\.k2e\/a\.yaml:1 ConfigMap a: annotation spread\.rsprd\.com\/phase: "before" is not a phase/,
      ),
      expect.stringMatching(
        /^\.k2e\/a\.yaml:6 ConfigMap b: annotation spread\.rsprd\.com\/wave: "1\.5" is not an integer/,
      ),
    ]);
    expect(writes()).toEqual([]);
  });

  test('a health rule of spread.yaml holds back the next wave until the custom resource is current', async () => {
    write({
      'widget.yaml':
        'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: db, annotations: {spread.rsprd.com/wave: "0"}}\nspec: {size: 1}\n',
      'after.yaml': configMap('after', '{spread.rsprd.com/wave: "1"}'),
    });
    writeFileSync(
      path.join(dir, 'shop', 'spread.yaml'),
      "health:\n  Widget.example.com:\n    current: status.phase == 'Ready'\n",
    );
    const running = deploy(options());
    const until = async (done: () => boolean) => {
      for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
    };
    await until(() => kube.get('Widget', NS, 'db') !== undefined);
    // Written, its status not yet current: a few watch rounds later, wave 1 is still unwritten.
    await new Promise((r) => setTimeout(r, 200));
    expect(kube.get('Widget', NS, 'db')).toBeDefined();
    expect(kube.get('ConfigMap', NS, 'after')).toBeUndefined();
    kube.setStatus('Widget', NS, 'db', { phase: 'Ready' });
    await running;
    expect(kube.get('ConfigMap', NS, 'after')).toBeDefined();
  });

  test('the timeout bounds each step on its own: steps longer than it together pass, one longer fails', async () => {
    const widget = (name: string, wave: number) =>
      `apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: ${name}, annotations: {spread.rsprd.com/wave: "${wave}"}}\nspec: {size: 1}\n`;
    write({ 'a.yaml': widget('a', 0), 'b.yaml': widget('b', 1) });
    writeFileSync(
      path.join(dir, 'shop', 'spread.yaml'),
      "health:\n  Widget.example.com:\n    current: status.phase == 'Ready'\n",
    );
    // Each Widget is ready 700 ms after it is written: two steps of 0.7 s, 1.4 s in all, under 1 s each.
    const ready = (name: string, then: () => void) => {
      const timer = setInterval(() => {
        if (!kube.get('Widget', NS, name)) return;
        clearInterval(timer);
        setTimeout(() => {
          kube.setStatus('Widget', NS, name, { phase: 'Ready' });
          then();
        }, 700);
      }, 10);
    };
    ready('a', () => ready('b', () => {}));
    const started = Date.now();
    await deploy(options({ timeoutMs: 1_000 }));
    expect(Date.now() - started).toBeGreaterThan(1_400);
    expect(kube.get('Widget', NS, 'b')?.status).toEqual({ phase: 'Ready' });
    // One step longer than the timeout fails at it, naming the timeout.
    write({ 'a.yaml': widget('a', 0), 'c.yaml': widget('c', 1) });
    const error = await deploy(options({ timeoutMs: 500 })).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^main wave 1 failed: rollout not finished within 1s/);
  });

  test('a rollback creates again the pre and post objects that run nothing, not the Jobs', async () => {
    const pre = '{spread.rsprd.com/phase: pre}';
    write({
      'web.yaml': web('web:1'),
      'settings.yaml': configMap('settings', pre),
      'report.yaml': configMap('report', '{spread.rsprd.com/phase: post}'),
      'migrate.yaml': job('migrate', pre),
    });
    kube.job = migrate(true);
    await deploy(options());
    write({ 'web.yaml': web('web:2') });
    await deploy(options());
    expect(kube.get('ConfigMap', NS, 'settings')).toBeUndefined();
    expect(kube.get('Job', NS, 'migrate')).toBeUndefined();
    kube.log.length = 0;
    const back = await rollback('shop', 1, {
      cluster,
      namespace: NS,
      logger,
      timeoutMs: 5_000,
      lockTimeoutMs: 1_000,
    });
    expect(back.rolledBackTo).toBe(1);
    expect(kube.get('ConfigMap', NS, 'settings')).toBeDefined();
    expect(kube.get('ConfigMap', NS, 'report')).toBeDefined();
    expect(kube.get('Job', NS, 'migrate')).toBeUndefined();
    expect(writes().filter((l) => l.includes('jobs/migrate'))).toEqual([]);
    expect(lines.join('\n')).toMatch(/Job migrate .*pre\) not run: a rollback runs no phase/);
  });

  test('a rollback creates no hook its delete policy removed: the pre Job is not run again', async () => {
    const hook = '{helm.sh/hook: "pre-install,pre-upgrade", helm.sh/hook-delete-policy: hook-succeeded}';
    write({
      'web.yaml': web('web:1'),
      'cm.yaml': configMap('settings'),
      'migrate.yaml': job('migrate', hook),
    });
    kube.job = migrate(true);
    await deploy(options());
    expect(kube.get('Job', NS, 'migrate')).toBeUndefined();
    write({
      'web.yaml': web('web:1'),
      'cm.yaml': configMap('settings', '{changed: "yes"}'),
      'migrate.yaml': `# the migration\n# of the schema\n${job('migrate', hook)}`,
    });
    await deploy(options());
    expect(kube.get('Job', NS, 'migrate')).toBeUndefined();
    // Revision 1's objects name their lines: a rollback's log and report give them, not line 0.
    await rollback('shop', 2, { cluster, namespace: NS, logger, timeoutMs: 5_000, lockTimeoutMs: 1_000 });
    expect(lines).toContain(
      'Job migrate (.k2e/migrate.yaml:3, a hook in pre) not run: a rollback runs no phase, and it is not in the cluster',
    );
    lines.length = 0;
    kube.log.length = 0;
    const back = await rollback('shop', 1, {
      cluster,
      namespace: NS,
      logger,
      timeoutMs: 5_000,
      lockTimeoutMs: 1_000,
    });
    expect(back.rolledBackTo).toBe(1);
    expect(back.objects.find((o) => o.name === 'settings')?.source).toBe('.k2e/cm.yaml:1');
    // Applied as a deploy applies it: the annotation names the file only.
    expect(kube.get('ConfigMap', NS, 'settings')?.metadata.annotations?.['spread.rsprd.com/source']).toBe(
      '.k2e/cm.yaml',
    );
    expect(writes().filter((l) => l.includes('jobs/migrate'))).toEqual([]);
    expect(kube.get('Job', NS, 'migrate')).toBeUndefined();
    expect(kube.get('ConfigMap', NS, 'settings')?.metadata.annotations?.changed).toBeUndefined();
    expect(lines.join('\n')).toMatch(/Job migrate .*not run: a rollback runs no phase/);
  });
});

describe('a Helm hook this deploy does not run stays', () => {
  test('install creates a pre-install Secret; the upgrade neither applies nor prunes it, and says why', async () => {
    const secret = `apiVersion: v1\nkind: Secret\nmetadata: {name: db-password, annotations: {helm.sh/hook: pre-install}}\nstringData: {password: generated}\n`;
    write({ 'web.yaml': web('web:1'), 'secret.yaml': secret });
    await deploy(options());
    expect(kube.get('Secret', NS, 'db-password')).toBeDefined();
    kube.log.length = 0;
    write({ 'web.yaml': web('web:2'), 'secret.yaml': secret });
    const r = await deploy(options());
    expect(kube.get('Secret', NS, 'db-password')).toBeDefined();
    expect(writes().filter((l) => l.includes('secrets/db-password'))).toEqual([]);
    expect(r.objects.find((o) => o.name === 'db-password')).toMatchObject({
      action: 'kept',
      note: expect.stringContaining(
        'a Helm hook of pre-install only, and this deploy is an upgrade: not run',
      ),
    });
    // Still in the ApplySet (labelled): a third deploy keeps it too.
    kube.log.length = 0;
    await deploy(options());
    expect(kube.get('Secret', NS, 'db-password')).toBeDefined();
    expect(
      kube.get('Secret', NS, 'db-password')?.metadata.labels?.['applyset.kubernetes.io/part-of'],
    ).toBeDefined();
    // A rollback to revision 2 (which did not run it) leaves it too.
    write({ 'web.yaml': web('web:3'), 'secret.yaml': secret });
    await deploy(options());
    const back = await rollback('shop', 2, { logger: silentLogger, cluster, timeoutMs: 5_000 });
    expect(back.rolledBackTo).toBe(2);
    expect(kube.get('Secret', NS, 'db-password')).toBeDefined();
  });

  test('a generateName hook: its objects stay while it is not run, and go once the chart drops it', async () => {
    const seed = job('seed', '{helm.sh/hook: post-install}').replace('name: seed,', 'generateName: seed-,');
    write({ 'web.yaml': web('web:1'), 'seed.yaml': seed });
    kube.job = () => ({ succeeds: true, log: ['seeded'] });
    await deploy(options());
    const seeds = () =>
      [...kube.objects.values()].filter((o) => o.kind === 'Job' && o.metadata.generateName === 'seed-');
    expect(seeds()).toHaveLength(1);
    const made = seeds()[0]!.metadata.name;
    // An upgrade: the post-install hook does not run, and what the install made stays, kept.
    write({ 'web.yaml': web('web:2'), 'seed.yaml': seed });
    const r = await deploy(options());
    expect(seeds().map((o) => o.metadata.name)).toEqual([made]);
    expect(r.objects.find((o) => o.name === made)).toMatchObject({
      action: 'kept',
      note: expect.stringContaining(
        'a Helm hook of post-install only, and this deploy is an upgrade: not run; Helm deletes no hook it does not run',
      ),
    });
    // Dropped from the chart: an object of the deployment no longer declared, pruned.
    write({ 'web.yaml': web('web:2') });
    const dropped = await deploy(options());
    expect(dropped.objects.find((o) => o.name === made)).toMatchObject({ action: 'pruned' });
    expect(seeds()).toEqual([]);
  });
});
