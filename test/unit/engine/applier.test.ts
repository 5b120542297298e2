import { describe, expect, test } from 'vitest';
import type { KubeObject, SourcedObject } from '../../../src/base/kube-object.js';
import { KubeApiError } from '../../../src/cluster/client.js';
import { applyObjects } from '../../../src/engine/apply/applier.js';
import { ApplyError } from '../../../src/engine/apply/errors.js';
import { planObjects } from '../../../src/engine/plan/planner.js';
import type { ApplyOptions } from '../../../src/engine/shared/options.js';
import { FakeKube, fakeDiscovery } from './fake-kube.js';

const options: ApplyOptions = { fieldManager: 'spread', forceConflicts: false, concurrency: 4 };
const configMap = (name: string, data: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'app' },
  data,
});
const deployment = (name: string): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'app' },
  spec: { replicas: 1 },
});
const sourced = (object: KubeObject): SourcedObject => ({ object, source: { file: 'x.yaml', line: 1 } });
/** Config first, then workloads, as the Deployment's apply order ranks them. */
const groupOf = (o: SourcedObject) => (o.object.kind === 'Deployment' ? 2 : 1);

async function deploy(kube: FakeKube, objects: KubeObject[]) {
  const plan = await planObjects(kube, fakeDiscovery(), objects.map(sourced), options);
  kube.log.length = 0;
  return applyObjects(kube, fakeDiscovery(), plan, groupOf, options);
}

describe('applyObjects against a fake KubeApi', () => {
  test('applies group after group; reports created, configured and unchanged; sends nothing for unchanged', async () => {
    const kube = new FakeKube();
    const first = await deploy(kube, [deployment('web'), configMap('c', { a: '1' })]);
    expect(first.map((a) => [a.object.metadata.name, a.action])).toEqual([
      ['c', 'created'],
      ['web', 'created'],
    ]);
    expect(kube.log).toEqual([
      'PATCH /api/v1/namespaces/app/configmaps/c',
      'PATCH /apis/apps/v1/namespaces/app/deployments/web',
    ]);
    const second = await deploy(kube, [deployment('web'), configMap('c', { a: '2' })]);
    expect(second.map((a) => [a.object.metadata.name, a.action])).toEqual([
      ['c', 'configured'],
      ['web', 'unchanged'],
    ]);
    expect(kube.log).toEqual(['PATCH /api/v1/namespaces/app/configmaps/c']);
  });

  test('a failed group stops the apply: the error names what was applied and what was not', async () => {
    const kube = new FakeKube();
    const plan = await planObjects(
      kube,
      fakeDiscovery(),
      [configMap('c', { a: '1' }), configMap('d', { a: '1' }), deployment('web')].map(sourced),
      options,
    );
    kube.refuse = (req) =>
      req.method === 'PATCH' && req.path.endsWith('/configmaps/d')
        ? new KubeApiError(403, `PATCH ${req.path}`, { message: 'configmaps "d" is forbidden' } as never, '')
        : undefined;
    const error = await applyObjects(kube, fakeDiscovery(), plan, groupOf, options).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApplyError);
    const e = error as ApplyError;
    expect(e.failures.map((f) => f.message)).toEqual(['forbidden: configmaps "d" is forbidden']);
    expect(e.applied.map((a) => a.object.metadata.name)).toEqual(['c']);
    expect(e.notApplied.map((o) => o.object.metadata.name)).toEqual(['web']);
    expect(kube.objects.has('/apis/apps/v1/namespaces/app/deployments/web')).toBe(false);
  });

  test('a server-named object is created with a POST, and named as the server named it', async () => {
    const kube = new FakeKube();
    const job: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { generateName: 'smoke-', namespace: 'app' },
    };
    const [a] = await deploy(kube, [job]);
    expect(a).toMatchObject({ action: 'created', object: { metadata: { name: 'smoke-x1' } } });
    expect(kube.log).toEqual(['POST /api/v1/namespaces/app/configmaps']);
  });

  test('onApplied sees each object as it is applied', async () => {
    const kube = new FakeKube();
    const plan = await planObjects(kube, fakeDiscovery(), [configMap('c', { a: '1' })].map(sourced), options);
    const seen: string[] = [];
    await applyObjects(kube, fakeDiscovery(), plan, groupOf, options, (a) =>
      seen.push(`${a.object.metadata.name} ${a.action}`),
    );
    expect(seen).toEqual(['c created']);
  });

  test("an object deferred for the deploy's own Namespace is dry-run once that Namespace is applied, with no GET of it", async () => {
    const kube = new FakeKube();
    const namespace: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fresh' } };
    const inFresh = { ...configMap('c', { a: '1' }), metadata: { name: 'c', namespace: 'fresh' } };
    const plan = await planObjects(kube, fakeDiscovery(), [namespace, inFresh].map(sourced), options);
    expect(plan.find((p) => p.object.kind === 'ConfigMap')?.deferred).toBe(
      'its Namespace fresh is created by this deploy',
    );
    kube.log.length = 0;
    const byKind = (o: SourcedObject) => (o.object.kind === 'Namespace' ? 0 : 1);
    await applyObjects(kube, fakeDiscovery(), plan, byKind, options);
    expect(kube.log).toEqual([
      'PATCH /api/v1/namespaces/fresh',
      'PATCH dry /api/v1/namespaces/fresh/configmaps/c',
      'PATCH /api/v1/namespaces/fresh/configmaps/c',
    ]);
  });
});
