import { describe, expect, test } from 'vitest';
import type { KubeObject, SourcedObject } from '../../../src/base/kube-object.js';
import { applyObjects } from '../../../src/engine/apply/applier.js';
import { ApplyError } from '../../../src/engine/apply/errors.js';
import { objectFingerprint } from '../../../src/engine/plan/fingerprint.js';
import { planObjects } from '../../../src/engine/plan/planner.js';
import type { ApplyOptions } from '../../../src/engine/shared/options.js';
import { FakeKube, fakeDiscovery } from './fake-kube.js';

const ID = 'applyset-mine-v1';
const PART_OF = 'applyset.kubernetes.io/part-of';
const options: ApplyOptions = {
  fieldManager: 'spread',
  forceConflicts: false,
  concurrency: 4,
  ownership: { applySetId: ID, foreign: 'refuse' },
};
const configMap = (
  name: string,
  data: Record<string, string>,
  labels: Record<string, string> = { [PART_OF]: ID },
  namespace = 'app',
): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, labels },
  data,
});
const sourced = (object: KubeObject, line = 1): SourcedObject => ({
  object,
  source: { file: '.k2e/objects.yaml', line },
});
/** The object as spread left it: stored through the fake's server-side apply by field manager spread. */
async function applied(kube: FakeKube, object: KubeObject): Promise<KubeObject> {
  const [p] = await planObjects(kube, fakeDiscovery(), [sourced(object)], {
    ...options,
    ownership: undefined,
  });
  const [a] = await applyObjects(kube, fakeDiscovery(), [p!], () => 0, options);
  return a!.live;
}
async function planError(
  kube: FakeKube,
  objects: SourcedObject[],
  opts: ApplyOptions = options,
): Promise<ApplyError> {
  const error = await planObjects(kube, fakeDiscovery(), objects, opts).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApplyError);
  return error as ApplyError;
}

describe('planObjects against a fake KubeApi', () => {
  test('a new object is a create with the dry run as `after`; the same again is unchanged; a change is an update', async () => {
    const kube = new FakeKube();
    const [created] = await planObjects(
      kube,
      fakeDiscovery(),
      [sourced(configMap('c', { a: '1' }))],
      options,
    );
    expect(created).toMatchObject({ action: 'create', after: { data: { a: '1' } } });
    expect(kube.log).toEqual([
      'GET /api/v1/namespaces/app/configmaps/c',
      'PATCH dry /api/v1/namespaces/app/configmaps/c',
    ]);
    await applied(kube, configMap('c', { a: '1' }));
    const [same] = await planObjects(kube, fakeDiscovery(), [sourced(configMap('c', { a: '1' }))], options);
    expect(same?.action).toBe('unchanged');
    const [changed] = await planObjects(
      kube,
      fakeDiscovery(),
      [sourced(configMap('c', { a: '2' }))],
      options,
    );
    expect(changed?.action).toBe('update');
    expect(changed?.changes?.map((c) => c.path)).toContainEqual(expect.stringContaining('data'));
  });

  test('another deployment’s object and an object no deployment owns are refused, all in one error; adopting plans them', async () => {
    const kube = new FakeKube();
    kube.put(configMap('theirs', { a: '1' }, { [PART_OF]: 'applyset-other-v1' }));
    kube.put(configMap('by-hand', { a: '1' }, {}));
    const objects = [
      sourced(configMap('theirs', { a: '1' }), 1),
      sourced(configMap('by-hand', { a: '1' }), 9),
    ];
    const error = await planError(kube, objects);
    expect(error.failures.map((f) => f.message)).toEqual([
      expect.stringMatching(
        /^belongs to another deployment: its applyset.kubernetes.io\/part-of label is applyset-other-v1/,
      ),
      expect.stringMatching(/^exists, but no spread deployment owns it/),
    ]);
    expect(error.message).toMatch(/the plan failed for 2 object\(s\); nothing was written/);
    // No dry run was sent for a refused object.
    expect(kube.log.filter((l) => l.startsWith('PATCH'))).toEqual([]);
    const adopted = await planObjects(kube, fakeDiscovery(), objects, {
      ...options,
      ownership: { applySetId: ID, foreign: 'adopt' },
    });
    expect(adopted.map((p) => p.action)).toEqual(['update', 'update']);
  });

  test('without an ownership policy, no ownership is checked', async () => {
    const kube = new FakeKube();
    kube.put(configMap('by-hand', { a: '1' }, {}));
    const [p] = await planObjects(kube, fakeDiscovery(), [sourced(configMap('by-hand', { a: '1' }, {}))], {
      ...options,
      ownership: undefined,
    });
    expect(p?.action).toBe('update');
  });

  test('an object in a Namespace the set creates is deferred, not dry-run', async () => {
    const kube = new FakeKube();
    const ns: KubeObject = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'fresh', labels: { [PART_OF]: ID } },
    };
    const planned = await planObjects(
      kube,
      fakeDiscovery(),
      [sourced(ns), sourced(configMap('c', { a: '1' }, { [PART_OF]: ID }, 'fresh'))],
      options,
    );
    expect(planned.map((p) => [p.action, p.deferred])).toEqual([
      ['create', undefined],
      ['create', 'its Namespace fresh is created by this deploy'],
    ]);
    expect(kube.log).not.toContain('PATCH dry /api/v1/namespaces/fresh/configmaps/c');
  });

  test('a custom resource of a CRD in the set is deferred; in a version the CRD does not serve it fails', async () => {
    const kube = new FakeKube();
    const crd: KubeObject = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com', labels: { [PART_OF]: ID } },
      spec: {
        group: 'example.com',
        names: { kind: 'Widget', plural: 'widgets' },
        versions: [{ name: 'v1', served: true, storage: true }],
      },
    };
    const widget = (version: string): KubeObject => ({
      apiVersion: `example.com/${version}`,
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'app' },
    });
    const planned = await planObjects(kube, fakeDiscovery(), [sourced(crd), sourced(widget('v1'))], options);
    expect(planned[1]).toMatchObject({ action: 'create', deferred: 'its CRD is created by this deploy' });
    const error = await planError(kube, [sourced(crd), sourced(widget('v2'), 7)]);
    expect(error.failures).toEqual([
      expect.objectContaining({
        message:
          'its CustomResourceDefinition widgets.example.com (.k2e/objects.yaml) does not serve version v2 (it serves v1)',
      }),
    ]);
  });

  test('a Secret whose data is not a map of strings fails before any request, naming no value', async () => {
    const kube = new FakeKube();
    const secret: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'app' },
      data: { token: 42 },
    };
    const error = await planError(kube, [sourced(secret)]);
    expect(error.failures.map((f) => f.message)).toEqual([
      'data token must be a string, found a number (value not shown)',
    ]);
    expect(kube.log).toEqual([]);
  });

  test('a kind the server does not serve fails', async () => {
    const kube = new FakeKube();
    const error = await planError(kube, [
      sourced({ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g', namespace: 'app' } }),
    ]);
    expect(error.failures[0]?.message).toMatch(/example.com\/v1.*Gadget|Gadget.*example.com\/v1/);
  });

  test('an object whose live state a recorded fingerprint matches is unchanged without a dry run', async () => {
    const kube = new FakeKube();
    const object = configMap('c', { a: '1' });
    const live = await applied(kube, object);
    const print = objectFingerprint(object, live, 'spread');
    expect(print).toBeDefined();
    kube.log.length = 0;
    const [p] = await planObjects(kube, fakeDiscovery(), [sourced(object)], {
      ...options,
      fingerprints: new Set([print!]),
    });
    expect(p).toMatchObject({ action: 'unchanged', fingerprint: print });
    expect(kube.log).toEqual(['GET /api/v1/namespaces/app/configmaps/c']);
    // Its live state is held without managedFields, which only the fingerprint read.
    expect(live.metadata.managedFields).toBeDefined();
    expect(p!.live).toEqual({ ...live, metadata: { ...live.metadata, managedFields: undefined } });
    expect(p!.live?.metadata).not.toHaveProperty('managedFields');
    expect(p!.after).toBe(p!.live);
  });

  test('an object that changed after it was read (a controller writing its status) is read again: unchanged, not an update', async () => {
    const kube = new FakeKube();
    const stored = await applied(kube, configMap('c', { a: '1' }));
    const path = '/api/v1/namespaces/app/configmaps/c';
    let writes = 0;
    // Between the plan's read and its dry run, another writer changes the status twice.
    kube.refuse = (req) => {
      if (req.query?.dryRun === 'All' && writes < 2) {
        writes++;
        const now = kube.objects.get(path)!;
        kube.objects.set(path, {
          ...now,
          metadata: { ...now.metadata, resourceVersion: `${900 + writes}` },
          status: { observed: writes },
        });
      }
      return undefined;
    };
    kube.log.length = 0;
    const [p] = await planObjects(kube, fakeDiscovery(), [sourced(configMap('c', { a: '1' }))], options);
    expect(stored.metadata.resourceVersion).not.toBe('902');
    expect(p).toMatchObject({ action: 'unchanged', live: { metadata: { resourceVersion: '902' } } });
    expect(kube.log).toEqual([
      `GET ${path}`,
      `PATCH dry ${path}`,
      `GET ${path}`,
      `PATCH dry ${path}`,
      `GET ${path}`,
      `PATCH dry ${path}`,
    ]);
  });

  test('an object that keeps changing is planned from its last read after three reads again', async () => {
    const kube = new FakeKube();
    await applied(kube, configMap('c', { a: '1' }));
    const path = '/api/v1/namespaces/app/configmaps/c';
    let version = 900;
    kube.refuse = (req) => {
      if (req.query?.dryRun !== 'All') return undefined;
      const now = kube.objects.get(path)!;
      version++;
      kube.objects.set(path, { ...now, metadata: { ...now.metadata, resourceVersion: `${version}` } });
      return undefined;
    };
    kube.log.length = 0;
    const [p] = await planObjects(kube, fakeDiscovery(), [sourced(configMap('c', { a: '2' }))], options);
    expect(p?.action).toBe('update');
    expect(kube.log.filter((l) => l.startsWith('PATCH dry'))).toHaveLength(4);
  });
});
