// A pre-phase migration Job's log, followed while it runs and quoted when it fails, through the real
// API server's `pods/log?follow=true`. kwok's Nodes have no kubelet to serve logs, so the Job's pods
// run on a stand-in Node whose kubelet endpoint is the test's (kubelet-standin.ts); the Job and
// Deployment controllers are the cluster's own.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Logger, silentLogger } from '../../src/base/logger.js';
import { DeployError } from '../../src/core/deploy/index.js';
import { deploy } from '../../src/frontend/deploy.js';
import { kubectl, localDeploy, uniqueName, writeDir } from './helpers.js';
import { type StandIn, startKubelet } from './kubelet-standin.js';

const ns = uniqueName('phases-logs');
const roots: string[] = [];
let kubelet: StandIn;
let migration = { lines: ['applying 0001_users', 'ERROR: relation "users" already exists'], exitCode: 1 };

const files = (node: string, image: string) => ({
  'web.yaml': `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: ${image}}]}
`,
  'migrate.yaml': `apiVersion: batch/v1
kind: Job
metadata:
  generateName: migrate-
  annotations: {spread.rsprd.com/phase: pre}
spec:
  backoffLimit: 0
  template:
    spec:
      nodeName: ${node}
      restartPolicy: Never
      containers: [{name: migrate, image: ${image}, command: [./migrate, up]}]
`,
});

function dir(f: Record<string, string>): string {
  const root = writeDir('phases-logs', f);
  roots.push(path.dirname(root));
  return root;
}

/** A logger keeping the info lines and the groups they were printed in. */
function recording(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  let group = '';
  const logger: Logger = {
    ...silentLogger,
    info: (m) => lines.push(`${group}|${m}`),
    group: async (name, fn) => {
      const outer = group;
      group = name;
      try {
        return await fn();
      } finally {
        group = outer;
      }
    },
  };
  return { logger, lines };
}

beforeAll(async () => {
  await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
  kubelet = await startKubelet(`${ns}-node`, (job) =>
    job.startsWith('migrate-') ? migration : { lines: [], exitCode: 0 },
  );
});
afterAll(async () => {
  await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
    allowFail: true,
  });
  await kubelet?.stop();
  const { rmSync } = await import('node:fs');
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

describe('Integration: a pre Job its log', () => {
  test('followed in its group while it runs, its last lines in the error; fixed, the next deploy runs it again', async () => {
    await deploy(
      localDeploy(dir({ 'web.yaml': files(kubelet.node, 'registry.k8s.io/pause:3.10')['web.yaml'] }), ns),
    );
    const generation = JSON.parse(
      (await kubectl(['--context', 'spread-local', 'get', 'deployment', 'web', '-n', ns, '-o', 'json']))
        .stdout,
    ).metadata.generation;
    const failed = recording();
    const error = await deploy(
      localDeploy(dir(files(kubelet.node, 'registry.k8s.io/pause:3.9')), ns, { logger: failed.logger }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeployError);
    expect((error as Error).message).toMatch(/^pre failed; nothing of the main phase was applied/);
    expect((error as Error).message).toMatch(
      /last log lines of job\/migrate-\w+:\n {4}applying 0001_users\n {4}ERROR: relation "users" already exists/,
    );
    expect(failed.lines).toContainEqual(
      expect.stringMatching(/^Wait for pre\|job\/migrate-\w+ pod\/migrate-\w+-\w+: applying 0001_users$/),
    );
    const after = JSON.parse(
      (await kubectl(['--context', 'spread-local', 'get', 'deployment', 'web', '-n', ns, '-o', 'json']))
        .stdout,
    );
    expect(after.metadata.generation).toBe(generation);
    // Fixed: generateName makes a new Job on every deploy, which runs, then the rollout.
    migration = { lines: ['applying 0001_users', 'done'], exitCode: 0 };
    const fixed = recording();
    const report = await deploy(
      localDeploy(dir(files(kubelet.node, 'registry.k8s.io/pause:3.9')), ns, { logger: fixed.logger }),
    );
    expect(fixed.lines).toContainEqual(
      expect.stringMatching(/^Wait for pre\|job\/migrate-\w+ pod\/migrate-\w+-\w+: done$/),
    );
    expect(report.objects.filter((o) => o.kind === 'Job').map((o) => o.action)).toEqual([
      'created',
      'pruned',
    ]);
    const rolled = JSON.parse(
      (await kubectl(['--context', 'spread-local', 'get', 'deployment', 'web', '-n', ns, '-o', 'json']))
        .stdout,
    );
    expect(rolled.metadata.generation).toBe(generation + 1);
  }, 120_000);
});
