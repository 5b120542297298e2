// `spread status` right after a deploy whose Job deletes itself once finished
// (ttlSecondsAfterFinished: 0, as ingress-nginx's admission Jobs): the TTL controller of the real
// controller-manager removes it, and that is no drift (src/core/status-finished.ts).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/base/logger.js';
import { deploy } from '../../src/frontend/deploy.js';
import { status, statusExitCode } from '../../src/frontend/manage.js';
import { kubeconfigPath, kubectl, localDeploy, uniqueName, writeDir } from './helpers.js';

const ns = uniqueName('engine-ttljob');
const roots: string[] = [];

const job = (args: string) => `apiVersion: batch/v1
kind: Job
metadata:
  name: admission-create
spec:
  ttlSecondsAfterFinished: 0
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: create
          image: registry.k8s.io/pause:3.10
          args: [${args}]
`;

function dir(files: Record<string, string>): string {
  const root = writeDir('ttljobs', files);
  roots.push(path.dirname(root));
  return root;
}

const cluster = { kubeconfig: { paths: [kubeconfigPath()] }, context: 'spread-local' };

beforeAll(async () => {
  await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
});

afterAll(async () => {
  await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
    allowFail: true,
  });
  const { rmSync } = await import('node:fs');
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

describe('a Job that deletes itself once finished', () => {
  test('is in sync after the deploy that ran it, and missing once the directory changes it', async () => {
    const files = {
      '.k2e/job.yaml': job('"--create"'),
      '.k2e/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata: {a: b}\n',
    };
    const root = dir(files);
    const report = await deploy(localDeploy(root, ns, { wait: true }));
    expect(report.rollout).toEqual([expect.objectContaining({ kind: 'Job', ready: true })]);
    // The TTL controller deletes it once finished.
    await kubectl([
      '--context',
      'spread-local',
      '-n',
      ns,
      'wait',
      '--for=delete',
      'job/admission-create',
      '--timeout=60s',
    ]);

    const after = await status({ path: root, namespace: ns, cluster, logger: silentLogger });
    const job1 = after.root.objects.find((o) => o.kind === 'Job');
    expect(job1).toMatchObject({ state: 'in sync' });
    expect(job1?.message).toMatch(
      /finished and removed by its ttlSecondsAfterFinished \(0\) after revision 1/,
    );
    expect(statusExitCode(after)).toBe(0);

    // A Job the directory changed is no longer the one the revision ran: a deploy would run it.
    const changed = dir({ ...files, '.k2e/job.yaml': job('"--patch"') });
    const drifted = await status({
      path: changed,
      name: 'ttljobs',
      namespace: ns,
      cluster,
      logger: silentLogger,
    });
    expect(drifted.root.objects.find((o) => o.kind === 'Job')?.state).toBe('missing');
    expect(statusExitCode(drifted)).toBe(2);
  });
});
