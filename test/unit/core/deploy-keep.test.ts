// Objects kept by their annotation against the in-memory API server (test/unit/engine/fake-cluster.ts):
// a Namespace or CRD the deployment also manages is kept while a kept object is in it or of it, since
// deleting it would delete that object; Helm's and Argo CD's words read as those tools read them.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { silentLogger } from '../../../src/base/logger.js';
import { Discovery } from '../../../src/cluster/discovery.js';
import { deletes } from '../../../src/core/delete.js';
import { type DeployCluster, type DeployOptions, deploy } from '../../../src/core/deploy/index.js';
import { FakeCluster } from '../engine/fake-cluster.js';

const NS = 'shop';
let dir: string;
let kube: FakeCluster;
let cluster: DeployCluster;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'spread-keep-'));
  kube = new FakeCluster();
  kube.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  cluster = { api: kube, discovery: await Discovery.load(kube), context: 'fake', namespace: NS };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Writes the directory `shop` with these files (name → YAML), and only these. */
function write(files: Record<string, string>): void {
  const root = path.join(dir, 'shop');
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  for (const [name, yaml] of Object.entries(files)) writeFileSync(path.join(root, name), yaml);
}

const options = (): DeployOptions => ({
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
});

const base = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: base}\ndata: {a: b}\n`;
const extraNs = `apiVersion: v1\nkind: Namespace\nmetadata: {name: extra}\n`;
const keptIn = (annotation: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: data, namespace: extra, annotations: {${annotation}}}\ndata: {a: b}\n`;

const byName = (r: { objects: readonly { kind: string; name: string; action: string; note?: string }[] }) =>
  Object.fromEntries(r.objects.map((o) => [`${o.kind}/${o.name}`, [o.action, o.note ?? '']]));

describe('a Namespace holding a kept object is kept', () => {
  test('prune: the directory drops both; the object and its Namespace stay, the Namespace says why', async () => {
    write({ 'base.yaml': base, 'ns.yaml': extraNs, 'data.yaml': keptIn("'spread.rsprd.com/prune': keep") });
    await deploy(options());
    write({ 'base.yaml': base });
    const report = await deploy(options());
    const got = byName(report);
    expect(got['ConfigMap/data']?.[0]).toBe('kept');
    expect(got['Namespace/extra']).toEqual([
      'kept',
      expect.stringContaining('it holds 1 object kept by its annotation (ConfigMap extra/data)'),
    ]);
    expect(kube.get('Namespace', '', 'extra')).toBeDefined();
    expect(kube.get('ConfigMap', 'extra', 'data')).toBeDefined();
  });

  test('spread delete: the kept object and its Namespace stay', async () => {
    write({
      'base.yaml': base,
      'ns.yaml': extraNs,
      'data.yaml': keptIn("'helm.sh/resource-policy': ' Keep'"),
    });
    await deploy(options());
    const report = await deletes('shop', { logger: silentLogger, cluster });
    const got = byName(report);
    expect(got['ConfigMap/data']?.[0]).toBe('kept');
    expect(got['Namespace/extra']).toEqual(['kept', expect.stringContaining('kept by its annotation')]);
    expect(got['ConfigMap/base']?.[0]).toBe('pruned');
    expect(kube.get('Namespace', '', 'extra')).toBeDefined();
    expect(kube.get('ConfigMap', 'extra', 'data')).toBeDefined();
  });

  test("spread delete honours Argo CD's Delete=false; prune does not", async () => {
    const argo = "'argocd.argoproj.io/sync-options': 'ServerSideApply=true, Delete=false'";
    write({ 'base.yaml': base, 'ns.yaml': extraNs, 'data.yaml': keptIn(argo) });
    await deploy(options());
    const report = await deletes('shop', { logger: silentLogger, cluster });
    expect(byName(report)['ConfigMap/data']).toEqual([
      'kept',
      expect.stringContaining("(Argo CD's keep when the application is deleted)"),
    ]);
    expect(kube.get('ConfigMap', 'extra', 'data')).toBeDefined();
    write({ 'base.yaml': base, 'ns.yaml': extraNs, 'data.yaml': keptIn(argo) });
    await deploy(options());
    write({ 'base.yaml': base, 'ns.yaml': extraNs });
    expect(byName(await deploy(options()))['ConfigMap/data']?.[0]).toBe('pruned');
  });
});
