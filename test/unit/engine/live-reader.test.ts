import { describe, expect, test } from 'vitest';
import type { KubeObject, SourcedObject } from '../../../src/base/kube-object.js';
import type { ResourceInfo } from '../../../src/cluster/discovery.js';
import { LIST_THRESHOLD, type ListedMembers, liveReader } from '../../../src/engine/plan/live.js';
import { FakeKube, fakeDiscovery, pathOf } from './fake-kube.js';

const configMap = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'app' },
  data: { name },
});
const sourced = (object: KubeObject): SourcedObject => ({ object, source: { file: 'a.yaml', line: 1 } });

async function readerOf(kube: FakeKube, objects: SourcedObject[], members?: ListedMembers) {
  const discovery = fakeDiscovery();
  const resources = new Map<SourcedObject, ResourceInfo | undefined>();
  for (const o of objects) resources.set(o, await discovery.resolve(o.object.apiVersion, o.object.kind));
  const read = liveReader(kube, objects, resources, 4, undefined, members);
  return (o: SourcedObject) => read(resources.get(o)!, o, pathOf(o.object));
}

describe('liveReader', () => {
  const set = Array.from({ length: LIST_THRESHOLD }, (_, i) => sourced(configMap(`c${i}`)));

  test('a collection with enough objects of the set is read with one LIST; each object is handed out once, a second read is a GET', async () => {
    const kube = new FakeKube();
    kube.put(configMap('c0'));
    kube.put(configMap('other'));
    const read = await readerOf(kube, set);
    const first = await read(set[0]!);
    expect(first).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { name: 'c0' } });
    expect(await read(set[1]!)).toBeUndefined();
    expect(kube.log).toEqual(['GET /api/v1/namespaces/app/configmaps']);
    kube.log.length = 0;
    expect(await read(set[0]!)).toMatchObject({ data: { name: 'c0' } });
    expect(kube.log).toEqual(['GET /api/v1/namespaces/app/configmaps/c0']);
  });

  test('fewer objects than the threshold are read with a GET each', async () => {
    const kube = new FakeKube();
    kube.put(configMap('c0'));
    const few = set.slice(0, LIST_THRESHOLD - 1);
    const read = await readerOf(kube, few);
    expect(await read(few[0]!)).toMatchObject({ data: { name: 'c0' } });
    expect(await read(few[1]!)).toBeUndefined();
    expect(kube.log).toEqual([
      'GET /api/v1/namespaces/app/configmaps/c0',
      'GET /api/v1/namespaces/app/configmaps/c1',
    ]);
  });

  test("with `members`, a LIST notes the set's other members, metadata only, and nothing of anyone else's", async () => {
    const kube = new FakeKube();
    const labelled = (name: string, partOf: string): KubeObject => ({
      ...configMap(name),
      metadata: {
        name,
        namespace: 'app',
        labels: { 'applyset.kubernetes.io/part-of': partOf },
        managedFields: [{ manager: 'spread', operation: 'Apply' }],
      },
    });
    kube.put(labelled('c0', 'applyset-ours-v1'));
    kube.put(labelled('dropped', 'applyset-ours-v1'));
    kube.put(labelled('theirs', 'applyset-theirs-v1'));
    kube.put(configMap('by-hand'));
    const members: ListedMembers = { partOf: 'applyset-ours-v1', byCollection: new Map() };
    const read = await readerOf(kube, set, members);
    await read(set[0]!);
    expect([...members.byCollection.keys()]).toEqual(['/api/v1/namespaces/app/configmaps']);
    expect(members.byCollection.get('/api/v1/namespaces/app/configmaps')).toEqual([
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'dropped',
          namespace: 'app',
          labels: { 'applyset.kubernetes.io/part-of': 'applyset-ours-v1' },
          resourceVersion: expect.any(String),
          uid: 'uid-dropped',
        },
      },
    ]);
  });

  test('with `members`, a collection read with GETs is not noted: prune lists it', async () => {
    const kube = new FakeKube();
    const members: ListedMembers = { partOf: 'applyset-ours-v1', byCollection: new Map() };
    const few = set.slice(0, LIST_THRESHOLD - 1);
    const read = await readerOf(kube, few, members);
    await read(few[0]!);
    expect(members.byCollection.size).toBe(0);
  });
});
