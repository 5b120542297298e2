import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/base/logger.js';
import { KubeClient } from '../../src/cluster/client.js';
import { loadKubeconfig } from '../../src/cluster/kubeconfig.js';
import { readDeployment } from '../../src/core/read.js';
import { applySetFor, labelForApplySet } from '../../src/engine/inventory/applyset.js';
import { listRevisions, recordRevision } from '../../src/engine/inventory/history.js';
import { deploy } from '../../src/frontend/deploy.js';
import { deletes, history, list, rollback } from '../../src/frontend/manage.js';
import { kubeconfigPath, kubectl, uniqueName } from './helpers.js';

const ns = uniqueName('itg-manage');
const ctx = ['--context', 'spread-local'];
const root = path.join(mkdtempSync(path.join(tmpdir(), 'spread-manage-')), 'shop');
const base = {
  kubeconfig: { paths: [kubeconfigPath()] },
  context: 'spread-local',
  namespace: ns,
  logger: silentLogger,
};
let client: KubeClient;

function write(image: string, configMaps: string[]): void {
  rmSync(root, { recursive: true, force: true });
  mkdirSync(path.join(root, '.k2e'), { recursive: true });
  writeFileSync(
    path.join(root, 'deployment.yaml'),
    `apiVersion: apps/v1
kind: Deployment
metadata: {name: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: shop}}
  template:
    metadata: {labels: {app: shop}}
    spec:
      containers: [{name: web, image: "${image}"}]
`,
  );
  for (const name of configMaps)
    writeFileSync(
      path.join(root, '.k2e', `${name}.yaml`),
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: {k: v}\n`,
    );
}

/** A deploy followed by what the lead's wiring will do after it: record the revision. */
async function deployAndRecord(commit: string) {
  const report = await deploy({
    ...base,
    path: root,
    mode: 'deploy',
    wait: true,
    timeoutMs: 120_000,
    forceConflicts: false,
    prune: true,
    concurrency: 8,
    commit,
    runUrl: `https://ci.example/${commit}`,
  });
  return { report, revision: { revision: report.revision } };
}

const image = async () =>
  (
    await kubectl([
      ...ctx,
      '-n',
      ns,
      'get',
      'deployment',
      'shop',
      '-o',
      'jsonpath={.spec.template.spec.containers[0].image}',
    ])
  ).stdout;
const configMaps = async () =>
  (
    await kubectl([
      ...ctx,
      '-n',
      ns,
      'get',
      'configmap',
      '-l',
      'app.kubernetes.io/managed-by=spread',
      '-o',
      'name',
    ])
  ).stdout
    .split('\n')
    .filter(Boolean)
    .sort();

describe('history, rollback, list and delete on the local cluster', () => {
  beforeAll(async () => {
    await kubectl([...ctx, 'create', 'namespace', ns]);
    client = new KubeClient(loadKubeconfig({ paths: [kubeconfigPath()] }, 'spread-local').kubeConfig);
  });
  afterAll(async () => {
    client?.close();
    await kubectl([...ctx, 'delete', 'namespace', ns, '--wait=false'], { allowFail: true });
  });

  test('each deploy records a revision; history lists them newest first with the current one', async () => {
    write('nginx:1.26', ['settings', 'old-only']);
    const one = await deployAndRecord('c0ffee1');
    expect(one.revision.revision).toBe(1);
    write('nginx:1.27', ['settings', 'new-only']);
    const two = await deployAndRecord('c0ffee2');
    expect(two.revision.revision).toBe(2);
    const h = await history('shop', base);
    expect(h.current).toBe(2);
    expect(h.revisions.map((r) => [r.revision, r.commit, r.objectCount])).toEqual([
      [2, 'c0ffee2', 3],
      [1, 'c0ffee1', 3],
    ]);
    expect(h.revisions[0]!.images).toEqual([{ image: 'nginx:1.27' }]);
    const secret = JSON.parse(
      (await kubectl([...ctx, '-n', ns, 'get', 'secret', 'spread.shop.v2', '-o', 'json'])).stdout,
    );
    expect(secret.type).toBe('spread.rsprd.com/revision');
    expect(secret.metadata.labels['spread.rsprd.com/deployment']).toBe('shop');
  });

  test('rollback re-applies the previous revision, prunes what it does not hold and records a new revision', async () => {
    expect(await image()).toBe('nginx:1.27');
    const report = await rollback('shop', undefined, { ...base, timeoutMs: 120_000 });
    expect(report.rolledBackTo).toBe(1);
    expect(report.revision).toBe(3);
    expect(await image()).toBe('nginx:1.26');
    expect(await configMaps()).toEqual(['configmap/old-only', 'configmap/settings']);
    expect(report.objects).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'ConfigMap', name: 'new-only', action: 'pruned' }),
      ]),
    );
    expect(report.rollout).toEqual([expect.objectContaining({ name: 'shop', ready: true })]);
    const h = await history('shop', base);
    expect(h.current).toBe(3);
    expect(h.revisions[0]).toMatchObject({ revision: 3, description: 'rollback to 1', commit: 'c0ffee1' });
    // And forward again to a named revision.
    const forward = await rollback('shop', 2, { ...base, timeoutMs: 120_000 });
    expect(forward.revision).toBe(4);
    expect(await image()).toBe('nginx:1.27');
    expect(await configMaps()).toEqual(['configmap/new-only', 'configmap/settings']);
  });

  test('rollback does not take over an object made by hand since: the plan refuses it, nothing is written', async () => {
    // Revision 1 holds old-only, which revision 4 (current) pruned; someone makes one by hand.
    await kubectl([...ctx, '-n', ns, 'create', 'configmap', 'old-only', '--from-literal=mine=yes']);
    try {
      const error = await rollback('shop', 1, { ...base, timeoutMs: 120_000 }).catch((e) => e);
      expect(String(error)).toMatch(
        /ConfigMap .*\/old-only \(.*\): exists, but no spread deployment owns it/,
      );
      const cm = JSON.parse(
        (await kubectl([...ctx, '-n', ns, 'get', 'configmap', 'old-only', '-o', 'json'])).stdout,
      );
      expect(cm.data).toEqual({ mine: 'yes' });
      expect(cm.metadata.labels?.['applyset.kubernetes.io/part-of']).toBeUndefined();
      expect(await image()).toBe('nginx:1.27');
      expect((await history('shop', base)).current).toBe(4);
    } finally {
      await kubectl([...ctx, '-n', ns, 'delete', 'configmap', 'old-only']);
    }
  });

  test('a missing revision is a clear error', async () => {
    await expect(rollback('shop', 99, base)).rejects.toThrow(/has no revision 99/);
  });

  test('list shows the deployment with its revision, objects and status', async () => {
    const all = await list({ ...base, namespace: undefined });
    const mine = all.find((d) => d.namespace === ns && d.name === 'shop');
    expect(mine).toMatchObject({ name: 'shop', namespace: ns, revision: 4, objects: 3, status: 'ready' });
    expect(mine!.ageMs).toBeLessThan(120_000);
    const only = await list(base);
    expect(only.map((d) => d.name)).toEqual(['shop']);
  });

  test('old revisions beyond the limit are deleted', async () => {
    const set = applySetFor('shop', ns);
    const read = await readDeployment(root, { namespace: ns, logger: silentLogger });
    const objects = read.objects.map((o) => labelForApplySet(o, set));
    await recordRevision(client, set, { objects }, { keep: 2 });
    expect((await listRevisions(client, set)).map((r) => r.revision)).toEqual([5, 4]);
  });

  test('delete removes every object, the revisions, the lease and the parent', async () => {
    const report = await deletes('shop', base);
    expect(report.objects.map((o) => `${o.kind}/${o.name}`).sort()).toEqual([
      'ConfigMap/new-only',
      'ConfigMap/settings',
      'Deployment/shop',
    ]);
    expect(report.revisions).toBe(2);
    const left = (
      await kubectl([...ctx, '-n', ns, 'get', 'deployments,configmaps,secrets,leases', '-o', 'name'])
    ).stdout;
    expect(left).not.toMatch(/shop|settings|new-only/);
    expect((await list(base)).length).toBe(0);
    await expect(history('shop', base)).rejects.toThrow(/no deployment shop/);
  });
});

describe('a rollback writes only what differs', () => {
  const rns = uniqueName('itg-rb');
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'spread-rb-')), 'rb');
  const rbase = { ...base, namespace: rns };
  const write = (value: string) => {
    mkdirSync(path.join(dir, '.k2e'), { recursive: true });
    writeFileSync(
      path.join(dir, 'deployment.yaml'),
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: rb}\nspec:\n  selector: {matchLabels: {app: rb}}\n  template:\n    metadata: {labels: {app: rb}}\n    spec:\n      containers: [{name: web, image: "nginx:1.27"}]\n',
    );
    writeFileSync(
      path.join(dir, '.k2e', 'cm.yaml'),
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: rb}\ndata: {k: "${value}"}\n`,
    );
  };
  const run = (commit: string) =>
    deploy({
      ...rbase,
      path: dir,
      mode: 'deploy',
      wait: false,
      timeoutMs: 60_000,
      forceConflicts: false,
      prune: true,
      concurrency: 8,
      commit,
      annotations: {
        'spread.rsprd.com/commit': commit,
        'spread.rsprd.com/deployed-at': `2026-01-0${commit.length % 9}T00:00:00Z`,
      },
    });
  const get = async (kind: string) =>
    JSON.parse((await kubectl([...ctx, '-n', rns, 'get', kind, 'rb', '-o', 'json'])).stdout);
  beforeAll(async () => {
    await kubectl([...ctx, 'create', 'namespace', rns]);
  });
  afterAll(async () => {
    await kubectl([...ctx, 'delete', 'namespace', rns, '--wait=false'], { allowFail: true });
  });

  test('an object the rollback does not change stays as it is: reported unchanged, annotations and generation kept', async () => {
    write('one');
    await run('a1');
    write('two');
    await run('b22');
    const before = await get('deployment');
    const report = await rollback('rb', undefined, { ...rbase, timeoutMs: 60_000 });
    const action = (kind: string) => report.objects.find((o) => o.kind === kind)?.action;
    expect(action('Deployment')).toBe('unchanged');
    expect(action('ConfigMap')).toBe('configured');
    const after = await get('deployment');
    expect(after.metadata.generation).toBe(before.metadata.generation);
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.metadata.annotations['spread.rsprd.com/commit']).toBe('a1');
    expect((await get('configmap')).data).toEqual({ k: 'one' });
  });
});

describe('a Namespace of the deployment that holds objects not of it', () => {
  const made: string[] = [];
  const roots: string[] = [];
  afterAll(async () => {
    for (const n of made)
      await kubectl([...ctx, 'delete', 'namespace', n, '--wait=false'], { allowFail: true });
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  });

  /** Deploys a directory holding Namespace `n` (with a pod-security label) and a Deployment, Service and ConfigMap in it. */
  async function deployOwnNamespace(n: string): Promise<void> {
    made.push(n);
    const d = path.join(mkdtempSync(path.join(tmpdir(), 'spread-ownns-')), 'ownns');
    roots.push(path.dirname(d));
    mkdirSync(path.join(d, '.k2e'), { recursive: true });
    writeFileSync(
      path.join(d, 'deployment.yaml'),
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: web, image: registry.example/web:1}]\n',
    );
    writeFileSync(
      path.join(d, '.k2e', 'objects.yaml'),
      `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${n}\n  labels: {pod-security.kubernetes.io/enforce: baseline}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: ours}\ndata: {k: v}\n`,
    );
    await deploy({
      ...base,
      namespace: n,
      path: d,
      mode: 'deploy',
      wait: true,
      timeoutMs: 120_000,
      forceConflicts: false,
      prune: true,
      concurrency: 8,
    });
  }
  const namespaceJson = async (n: string) =>
    JSON.parse((await kubectl([...ctx, 'get', 'namespace', n, '-o', 'json'])).stdout);

  test('objects made by hand in it keep the Namespace: reported kept with their names, its spread labels removed, nothing of theirs lost', async () => {
    const n = uniqueName('itg-ownns');
    await deployOwnNamespace(n);
    await kubectl([...ctx, '-n', n, 'create', 'configmap', 'hand-made', '--from-literal=k=v']);
    await kubectl([
      ...ctx,
      '-n',
      n,
      'create',
      'secret',
      'generic',
      'by-hand',
      '--from-literal=password=hunter2',
    ]);
    const report = await deletes('ownns', { ...base, namespace: n });
    const kept = report.objects.filter((o) => o.action === 'kept');
    expect(kept.map((o) => `${o.kind}/${o.name}`)).toEqual([`Namespace/${n}`]);
    expect(kept[0]!.note).toMatch(
      /^it holds 2 objects not of this deployment \(configmap\/hand-made, secret\/by-hand\), which deleting it would delete/,
    );
    expect(kept[0]!.note).not.toContain('hunter2');
    expect(
      report.objects
        .filter((o) => o.action === 'pruned')
        .map((o) => `${o.kind}/${o.name}`)
        .sort(),
    ).toEqual(['ConfigMap/ours', 'Deployment/web', 'Service/web']);
    const live = await namespaceJson(n);
    expect(live.metadata.deletionTimestamp).toBeUndefined();
    expect(live.metadata.labels['applyset.kubernetes.io/part-of']).toBeUndefined();
    expect(live.metadata.labels['app.kubernetes.io/managed-by']).toBeUndefined();
    expect(live.metadata.annotations?.['spread.rsprd.com/source']).toBeUndefined();
    expect(live.metadata.labels['pod-security.kubernetes.io/enforce']).toBe('baseline');
    const left = (await kubectl([...ctx, '-n', n, 'get', 'configmaps,secrets,leases', '-o', 'name'])).stdout;
    expect(left).toMatch(/configmap\/hand-made/);
    expect(left).toMatch(/secret\/by-hand/);
    expect(left).not.toMatch(/configmap\/ours|spread\.ownns/);
  });

  test('without such objects (only its own, their pods, Endpoints and the namespace defaults) the Namespace is deleted', async () => {
    const n = uniqueName('itg-ownns');
    await deployOwnNamespace(n);
    const report = await deletes('ownns', { ...base, namespace: n });
    expect(report.objects.filter((o) => o.action === 'kept')).toEqual([]);
    expect(report.objects.map((o) => `${o.kind}/${o.name}`)).toContain(`Namespace/${n}`);
    const live = await kubectl([...ctx, 'get', 'namespace', n, '-o', 'json'], { allowFail: true });
    if (live.code === 0) expect(JSON.parse(live.stdout).metadata.deletionTimestamp).toBeDefined();
    else expect(live.stderr).toMatch(/not found/);
  });

  test('prune keeps a dropped Namespace that holds objects made by hand, and says which (plan and deploy)', async () => {
    const dropped = uniqueName('itg-dropped');
    made.push(dropped);
    const d = path.join(mkdtempSync(path.join(tmpdir(), 'spread-prunens-')), 'prunens');
    roots.push(path.dirname(d));
    const state = (withNamespace: boolean) => {
      rmSync(d, { recursive: true, force: true });
      mkdirSync(path.join(d, '.k2e'), { recursive: true });
      writeFileSync(
        path.join(d, '.k2e', 'objects.yaml'),
        `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: prunens-stays}\n${withNamespace ? `---\napiVersion: v1\nkind: Namespace\nmetadata: {name: ${dropped}}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: inside, namespace: ${dropped}}\n` : ''}`,
      );
    };
    // No -n: the objects name their namespaces; the deployment lives in the context's namespace.
    const { namespace: _, ...noNamespace } = base;
    const options = (mode: 'deploy' | 'plan') => ({
      ...noNamespace,
      path: d,
      mode,
      wait: false,
      timeoutMs: 60_000,
      forceConflicts: false,
      prune: true,
      concurrency: 8,
    });
    try {
      state(true);
      await deploy(options('deploy'));
      await kubectl([...ctx, '-n', dropped, 'create', 'configmap', 'hand-made', '--from-literal=k=v']);
      state(false);
      for (const mode of ['plan', 'deploy'] as const) {
        const report = await deploy(options(mode));
        const ns = report.objects.find((o) => o.kind === 'Namespace');
        expect(ns, mode).toMatchObject({ action: mode === 'plan' ? 'keep' : 'kept' });
        expect(ns?.note).toBe(
          'it holds 1 object not of this deployment (configmap/hand-made), which deleting it would delete',
        );
        expect(report.objects.find((o) => o.name === 'inside')?.action).toBe(
          mode === 'plan' ? 'prune' : 'pruned',
        );
      }
      const left = (await kubectl([...ctx, '-n', dropped, 'get', 'configmaps', '-o', 'name'])).stdout;
      expect(left).toMatch(/configmap\/hand-made/);
      expect(left).not.toMatch(/configmap\/inside/);
      expect((await namespaceJson(dropped)).metadata.deletionTimestamp).toBeUndefined();
    } finally {
      await deletes('prunens', noNamespace).catch(() => undefined);
    }
  });
});

describe('spread delete and the CRDs of the deployment', () => {
  const cns = uniqueName('itg-delcrd');
  const group = `${uniqueName('dc')}.example.com`;
  const crdName = `widgets.${group}`;
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'spread-delcrd-')), 'delcrd');
  const cbase = { ...base, namespace: cns };
  const widget = (name: string) =>
    `apiVersion: ${group}/v1\nkind: Widget\nmetadata: {name: ${name}}\nspec: {size: 1}\n`;
  const deployIt = () =>
    deploy({
      ...cbase,
      path: dir,
      mode: 'deploy',
      wait: false,
      timeoutMs: 60_000,
      forceConflicts: false,
      prune: true,
      concurrency: 4,
    });
  beforeAll(async () => {
    await kubectl([...ctx, 'create', 'namespace', cns]);
    mkdirSync(path.join(dir, '.k2e'), { recursive: true });
    writeFileSync(
      path.join(dir, '.k2e', '0-crd.yaml'),
      `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ${crdName}}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`,
    );
    writeFileSync(path.join(dir, '.k2e', '1-w.yaml'), widget('ours'));
  });
  afterAll(async () => {
    await kubectl([...ctx, 'delete', 'namespace', cns, '--wait=false'], { allowFail: true });
    await kubectl([...ctx, 'delete', 'crd', crdName, '--wait=false'], { allowFail: true });
  });

  test("the CRD is kept with somebody else's custom resources, unclaimed; --prune-crds deletes it", async () => {
    await deployIt();
    await kubectl([...ctx, '-n', cns, 'apply', '-f', '-'], { input: widget('handmade') });
    const report = await deletes('delcrd', cbase);
    const row = (kind: string) => report.objects.find((o) => o.kind === kind);
    expect(row('Widget')?.action).toBe('pruned');
    expect(row('CustomResourceDefinition')).toMatchObject({
      action: 'kept',
      note: expect.stringMatching(
        /^a CRD is pruned only when asked for, since deleting it deletes its 1 custom resource; a later deploy of delcrd in \S+ takes it back$/,
      ),
    });
    const crd = JSON.parse((await kubectl([...ctx, 'get', 'crd', crdName, '-o', 'json'])).stdout);
    expect(crd.metadata.labels?.['applyset.kubernetes.io/part-of']).toBeUndefined();
    expect(
      (await kubectl([...ctx, '-n', cns, 'get', 'widget', 'handmade', '-o', 'name'])).stdout.trim(),
    ).toBe(`widget.${group}/handmade`);
    // Deployed again, it is this deployment's CRD again (released from it: no --adopt), then deleted on request.
    await deploy({
      ...cbase,
      path: dir,
      mode: 'deploy',
      wait: false,
      timeoutMs: 60_000,
      forceConflicts: false,
      prune: true,
      concurrency: 4,
    });
    const asked = await deletes('delcrd', { ...cbase, pruneCrds: true });
    expect(asked.objects.find((o) => o.kind === 'CustomResourceDefinition')?.action).toBe('pruned');
    await kubectl([...ctx, 'wait', '--for=delete', `crd/${crdName}`, '--timeout=60s']);
  });
});
