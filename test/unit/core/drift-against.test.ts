// Drift against the last deployed revision (what mode drift compares with) rather than the directory
// (what `spread status` compares with), and heal's rollback, against the in-memory API server.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { silentLogger } from '../../../src/base/logger.js';
import { Discovery } from '../../../src/cluster/discovery.js';
import { type DeployCluster, deploy } from '../../../src/core/deploy/index.js';
import { drift } from '../../../src/core/drift.js';
import { history, rollback } from '../../../src/core/manage.js';
import { FakeCluster } from '../engine/fake-cluster.js';

const NS = 'shop';
let dir: string;
let kube: FakeCluster;
let cluster: DeployCluster;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'spread-drift-against-'));
  mkdirSync(path.join(dir, 'shop', '.k2e'), { recursive: true });
  kube = new FakeCluster();
  kube.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  cluster = { api: kube, discovery: await Discovery.load(kube), context: 'fake', namespace: NS };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(value: string): void {
  writeFileSync(
    path.join(dir, 'shop', '.k2e', 'settings.yaml'),
    `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {greeting: ${value}}\n`,
  );
}

const root = () => path.join(dir, 'shop');
const deployIt = () =>
  deploy({
    path: root(),
    mode: 'deploy',
    wait: false,
    timeoutMs: 5_000,
    forceConflicts: false,
    concurrency: 4,
    prune: true,
    logger: silentLogger,
    cluster,
    lockTimeoutMs: 1_000,
    commit: 'c0ffee1234567890',
  });
const compare = (against: 'revision' | 'directory') =>
  drift({ path: root(), namespace: NS, logger: silentLogger, cluster: { connection: cluster }, against });

describe('drift against the last deployed revision', () => {
  test('a commit not deployed yet is drift against the directory, not against the revision', async () => {
    write('hello');
    await deployIt();
    write('bonjour');
    const directory = await compare('directory');
    expect(directory.drift.drifted).toBe(true);
    expect(directory.drift.comparedWith).toEqual({ against: 'directory' });
    const revision = await compare('revision');
    expect(revision.drift.drifted).toBe(false);
    expect(revision.drift.comparedWith).toMatchObject({
      against: 'revision',
      revision: 1,
      commit: 'c0ffee1234567890',
    });
  });

  test('a change by hand is drift against the revision, the revision’s value shown', async () => {
    write('hello');
    await deployIt();
    write('bonjour');
    const live = kube.get('ConfigMap', NS, 'settings')!;
    kube.put({ ...live, data: { greeting: 'by-hand' } });
    const found = await compare('revision');
    expect(found.drift.drifted).toBe(true);
    expect(
      found.drift.objects.map((o) => [o.kind, o.name, o.fields.map((f) => [f.path, f.before, f.after])]),
    ).toEqual([['ConfigMap', 'settings', [['data.greeting', '"by-hand"', '"hello"']]]]);
  });

  test('no revision in the history: compared with the directory, and the report says so', async () => {
    write('hello');
    const found = await compare('revision');
    expect(found.drift.comparedWith).toEqual({
      against: 'directory',
      note: expect.stringMatching(/no deployed revision/),
    });
    expect(found.drift.drifted).toBe(true);
  });
});

describe("heal's rollback records a revision only when it wrote something", () => {
  const heal = () =>
    rollback('shop', 1, {
      logger: silentLogger,
      cluster,
      timeoutMs: 5_000,
      recordUnchanged: false,
      forceConflicts: true,
    });
  const revisions = async () =>
    (await history('shop', { logger: silentLogger, cluster })).revisions.map((r) => r.revision);

  test('nothing drifted: nothing written, no revision recorded', async () => {
    write('hello');
    await deployIt();
    const report = await heal();
    expect(report.revision).toBeUndefined();
    expect(await revisions()).toEqual([1]);
  });

  test('a change by hand: put back, recorded as a new revision', async () => {
    write('hello');
    await deployIt();
    const live = kube.get('ConfigMap', NS, 'settings')!;
    kube.put({ ...live, data: { greeting: 'by-hand' } });
    const report = await heal();
    expect(report.revision).toBe(2);
    expect(kube.get('ConfigMap', NS, 'settings')?.data).toEqual({ greeting: 'hello' });
    expect(await revisions()).toEqual([2, 1]);
  });
});
