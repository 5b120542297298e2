// Runs in drift against the real API server (src/core/status-runs.ts): a pre Job that failed after
// its template changed (immutable, so the deploy re-created it) is no drift against the last good
// revision, so heal's rollback, which runs no phase and keeps the Job, closes the drift. kwok runs no
// containers: a pod whose image is in `unpullable.invalid` never starts, so its Job fails by its
// activeDeadlineSeconds.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/base/logger.js';
import { DeployError } from '../../src/core/deploy/index.js';
import { deploy } from '../../src/frontend/deploy.js';
import { drift, rollback } from '../../src/frontend/manage.js';
import { kubeconfigPath, kubectl, localDeploy, uniqueName, writeDir } from './helpers.js';

const ns = uniqueName('status-runs');
const roots: string[] = [];
const cluster = { kubeconfig: { paths: [kubeconfigPath()] }, context: 'spread-local' };

const job = (image: string) => `apiVersion: batch/v1
kind: Job
metadata: {name: migrate, annotations: {spread.rsprd.com/phase: pre}}
spec:
  backoffLimit: 0
  activeDeadlineSeconds: 4
  template:
    spec: {restartPolicy: Never, containers: [{name: main, image: ${image}}]}
`;
const settings = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {greeting: hi}\n';

function dir(files: Record<string, string>): string {
  const root = writeDir('runs', files);
  roots.push(path.dirname(root));
  return root;
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

describe('Integration: a failed phase Job is a run, not drift', () => {
  test('its template changed and it failed: no drift against the last good revision; heal closes a drift', async () => {
    const good = dir({ 'settings.yaml': settings, 'migrate.yaml': job('registry.k8s.io/pause:3.10') });
    await deploy(localDeploy(good, ns, { name: 'runs' }));
    const bad = dir({ 'settings.yaml': settings, 'migrate.yaml': job('unpullable.invalid/migrate:2') });
    const failed = await deploy(localDeploy(bad, ns, { name: 'runs' })).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(DeployError);
    // The deploy fails on the pod's image; the Job controller fails the Job at its deadline.
    await kubectl([
      '--context',
      'spread-local',
      '-n',
      ns,
      'wait',
      '--for=condition=Failed',
      'job/migrate',
      '--timeout=60s',
    ]);
    const compare = () =>
      drift({ path: bad, name: 'runs', namespace: ns, cluster, logger: silentLogger, against: 'revision' });
    const first = await compare();
    expect(first.drift.comparedWith).toMatchObject({ against: 'revision', revision: 1 });
    expect(first.drift.drifted).toBe(false);
    expect(first.status.root.objects.find((o) => o.name === 'migrate')).toMatchObject({
      state: 'in sync',
      message: expect.stringMatching(
        /^Job of phase pre .*, not compared: last run failed \(DeadlineExceeded/,
      ),
    });
    // A change by hand is drift; heal's rollback to revision 1 keeps the Job and puts the rest back.
    await kubectl([
      '--context',
      'spread-local',
      '-n',
      ns,
      'patch',
      'configmap',
      'settings',
      '-p',
      '{"data":{"greeting":"edited"}}',
    ]);
    expect((await compare()).drift.drifted).toBe(true);
    // As heal runs it (src/frontend/heal.ts): taking back what another manager changed.
    await rollback('runs', 1, {
      ...cluster,
      namespace: ns,
      logger: silentLogger,
      timeoutMs: 60_000,
      forceConflicts: true,
    });
    expect((await compare()).drift.drifted).toBe(false);
  }, 120_000);
});
