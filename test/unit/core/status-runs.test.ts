// Run-to-completion objects in `spread status` and drift (docs/drift.md, "Hooks and phase Jobs"): Helm
// and Argo CD hooks and the Jobs and Pods of the pre and post phases are runs, not states, so they are
// not compared: neither missing nor differing, each described by its last run. Against the in-memory
// API server (test/unit/engine/fake-cluster.ts).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { silentLogger } from '../../../src/base/logger.js';
import { Discovery } from '../../../src/cluster/discovery.js';
import { type DeployCluster, type DeployOptions, deploy } from '../../../src/core/deploy/index.js';
import { drift } from '../../../src/core/drift.js';
import { rollback } from '../../../src/core/manage.js';
import { status } from '../../../src/core/status.js';
import type { StatusReport } from '../../../src/core/status-report.js';
import { FakeCluster } from '../engine/fake-cluster.js';

const NS = 'shop';
const web = (image: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
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
  backoffLimit: 0
  template:
    spec: {restartPolicy: Never, containers: [{name: main, image: ${image}}]}
`;
// A chart's install-only password: `randAlphaNum` renders another value on every render.
const password = (value: string) =>
  `apiVersion: v1\nkind: Secret\nmetadata: {name: db-password, annotations: {helm.sh/hook: pre-install, helm.sh/resource-policy: keep}}\nstringData: {password: ${value}}\n`;

let dir: string;
let kube: FakeCluster;
let cluster: DeployCluster;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'spread-status-runs-'));
  kube = new FakeCluster();
  kube.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  cluster = { api: kube, discovery: await Discovery.load(kube), context: 'fake', namespace: NS };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(files: Record<string, string>): void {
  const root = path.join(dir, 'shop', '.k2e');
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(root, name), text);
}

function options(extra: Partial<DeployOptions> = {}): DeployOptions {
  return {
    path: path.join(dir, 'shop'),
    mode: 'deploy',
    wait: true,
    timeoutMs: 5_000,
    forceConflicts: false,
    concurrency: 4,
    prune: true,
    logger: silentLogger,
    cluster,
    lockTimeoutMs: 1_000,
    ...extra,
  };
}

/** Each object of a report as `name: state: message`. */
function states(report: StatusReport): Record<string, string> {
  const found: { name: string; state: string; message?: string }[] = [];
  JSON.stringify(report, (_k, v: unknown) => {
    if (v && typeof v === 'object' && 'kind' in v && 'state' in v)
      found.push(v as unknown as (typeof found)[number]);
    return v;
  });
  return Object.fromEntries(found.map((o) => [o.name, `${o.state}: ${o.message ?? ''}`]));
}

const statusNow = () =>
  status({ path: path.join(dir, 'shop'), cluster: { connection: cluster }, logger: silentLogger });
const driftNow = (against: 'revision' | 'directory') =>
  drift({
    path: path.join(dir, 'shop'),
    namespace: NS,
    logger: silentLogger,
    cluster: { connection: cluster },
    against,
  });

describe('hooks and phase Jobs are runs: not compared', () => {
  test('a chart with hooks: the test hook is not missing, the install-only Secret rendered anew does not differ', async () => {
    const files = (value: string) => ({
      'web.yaml': web('web:1'),
      'secret.yaml': password(value),
      'test.yaml': job('smoke-test', '{helm.sh/hook: test}'),
      'migrate.yaml': job('migrate', '{helm.sh/hook: pre-upgrade}'),
    });
    kube.job = () => ({ succeeds: true, log: ['ok'] });
    write(files('first'));
    await deploy(options());
    write(files('second'));
    await deploy(options());
    expect((kube.get('Secret', NS, 'db-password')?.data as { password?: string } | undefined)?.password).toBe(
      btoa('first'),
    );
    // Rendered again: another random value, as `randAlphaNum` gives.
    write(files('third'));
    const s = await statusNow();
    expect(states(s)).toEqual({
      web: 'in sync: ',
      'db-password':
        'in sync: Helm hook pre-install (Helm keeps hooks out of its release), not compared: in the cluster as its last run left it',
      migrate:
        'in sync: Helm hook pre-upgrade (Helm keeps hooks out of its release), not compared: last run complete',
      'smoke-test': expect.stringMatching(
        /^in sync: not deployed, not compared: a hook \(helm\.sh\/hook: test\)/,
      ),
    });
    expect(s.counts).toMatchObject({ missing: 0, differs: 0 });
    // Against the last deployed revision (an upgrade, which did not run the install hook): kept as a
    // hook that revision did not run, not as kept by its resource-policy.
    const d = await driftNow('revision');
    expect(d.drift.drifted).toBe(false);
    expect(d.status.kept).toEqual([
      expect.objectContaining({
        name: 'db-password',
        message:
          'a Helm hook revision 2 did not run: not compared, and a rollback to it runs none; Helm deletes no hook it does not run',
      }),
    ]);
    expect(d.status.notInDirectory).toEqual([]);
  });

  test('a failed pre Job whose template changed is no drift against the last good revision, so heal closes the issue', async () => {
    kube.job = (o) => ({
      succeeds:
        (o.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers[0]
          ?.image === 'migrate:1',
      log: ['migrating'],
    });
    const settings = (v: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {greeting: ${v}}\n`;
    const pre = (image: string) => job('migrate', '{spread.rsprd.com/phase: pre}', image);
    write({ 'web.yaml': web('web:1'), 'settings.yaml': settings('hi'), 'migrate.yaml': pre('migrate:1') });
    await deploy(options());
    // The next deploy re-creates the Job with a new template (immutable), and it fails.
    write({ 'web.yaml': web('web:1'), 'settings.yaml': settings('hi'), 'migrate.yaml': pre('migrate:2') });
    await expect(deploy(options())).rejects.toThrow(/pre failed/);
    const failed = await driftNow('revision');
    expect(failed.drift.drifted).toBe(false);
    expect(states(failed.status).migrate).toBe(
      'in sync: Job of phase pre (a run: a deploy re-creates it when its template changed), not compared: last run failed (BackoffLimitExceeded: Job has reached the specified backoff limit)',
    );
    // A change by hand is drift; heal's rollback to the last good revision keeps the Job (it runs no
    // phase), and the comparison after it finds the cluster matching: the issue closes.
    const edited = kube.get('ConfigMap', NS, 'settings')!;
    kube.put({ ...edited, data: { greeting: 'changed by hand' } });
    expect((await driftNow('revision')).drift.drifted).toBe(true);
    await rollback('shop', 1, { logger: silentLogger, cluster, timeoutMs: 5_000 });
    expect(kube.get('Job', NS, 'migrate')?.spec).toMatchObject({
      template: { spec: { containers: [{ image: 'migrate:2' }] } },
    });
    expect((await driftNow('revision')).drift.drifted).toBe(false);
  });

  test('a deployment never deployed: its hooks and phase Jobs are missing, as everything else', async () => {
    write({ 'web.yaml': web('web:1'), 'migrate.yaml': job('migrate', '{spread.rsprd.com/phase: pre}') });
    expect(states(await statusNow())).toEqual({ web: 'missing: ', migrate: 'missing: ' });
  });
});
