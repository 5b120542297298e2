// The in-memory API server (fake-cluster.ts) answers as kube-apiserver does where spread relies on
// it (shapes checked against the local cluster with kubectl get --raw), and the informer of
// engine/wait runs on it through the ClusterPort alone.

import { describe, expect, test } from 'vitest';
import { METADATA_LIST_ACCEPT } from '../../../src/cluster/client.js';
import { informer } from '../../../src/engine/wait/watcher.js';
import { FakeCluster } from './fake-cluster.js';

const cm = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'a', labels },
});

function cluster(): FakeCluster {
  const kube = new FakeCluster();
  kube.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } });
  return kube;
}

describe('FakeCluster', () => {
  test('lists: selectors (!= matches an object without the label), pages, metadata only', async () => {
    const kube = cluster();
    kube.put(cm('x', { app: 'web' }));
    kube.put(cm('y'));
    const names = async (query: Record<string, string | number>, accept?: string) => {
      const body = (
        await kube.request<{ kind: string; items: { kind?: string; metadata: { name: string } }[] }>({
          method: 'GET',
          path: '/api/v1/namespaces/a/configmaps',
          query,
          ...(accept ? { accept } : {}),
        })
      ).body;
      return [body.kind, ...body.items.map((i) => `${i.kind ?? '-'}:${i.metadata.name}`)];
    };
    expect(await names({ labelSelector: 'app!=web' })).toEqual([
      'ConfigMapList',
      '-:kube-root-ca.crt',
      '-:y',
    ]);
    expect(await names({ labelSelector: 'app in (web,api)' })).toEqual(['ConfigMapList', '-:x']);
    expect(await names({ fieldSelector: 'metadata.name=y' })).toEqual(['ConfigMapList', '-:y']);
    expect(await names({ limit: 1, continue: '2' })).toEqual(['ConfigMapList', '-:y']);
    expect(await names({ labelSelector: 'app' }, METADATA_LIST_ACCEPT)).toEqual([
      'PartialObjectMetadataList',
      'PartialObjectMetadata:x',
    ]);
  });

  test('the informer lists, watches from the list, and lists again after 410 Gone', async () => {
    const kube = cluster();
    kube.put(cm('x'));
    const stop = new AbortController();
    const seen: string[] = [];
    const running = informer(kube, '/api/v1/namespaces/a/configmaps', {
      signal: stop.signal,
      labelSelector: 'app=web',
      // Each watch ends after 50 ms, as the server ends them at timeoutSeconds, and is resumed.
      watchSeconds: 0.05,
      onEvent: (e) =>
        seen.push(e.type === 'LIST' ? `LIST ${e.objects.length}` : `${e.type} ${e.object.metadata.name}`),
    });
    await until(() => seen.length === 1);
    await kube.request({
      method: 'POST',
      path: '/api/v1/namespaces/a/configmaps',
      body: cm('y', { app: 'web' }),
    });
    await until(() => seen.length === 2);
    await kube.request({ method: 'DELETE', path: '/api/v1/namespaces/a/configmaps/y' });
    await until(() => seen.length === 3);
    expect(seen).toEqual(['LIST 0', 'ADDED y', 'DELETED y']);
    // Resumed from the last resourceVersion, the watches saw nothing twice.
    await until(() => kube.log.filter((l) => l.startsWith('WATCH')).length >= 3);
    expect(seen).toEqual(['LIST 0', 'ADDED y', 'DELETED y']);
    // A change the watch does not select, then the history compacted: the next resume (from the
    // last resourceVersion the informer saw) gets 410 Gone, and the informer lists again.
    kube.put(cm('z'));
    kube.compact();
    await until(() => seen.length === 4);
    expect(seen[3]).toBe('LIST 0');
    stop.abort();
    await running;
    expect(kube.watchers).toBe(0);
  });

  test('generation: bumped by a spec change of a Deployment, absent on a ConfigMap', async () => {
    const kube = cluster();
    kube.rollout = 'none';
    const d = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'w', namespace: 'a' },
      spec: { replicas: 1 },
    };
    const path = '/apis/apps/v1/namespaces/a/deployments/w';
    const apply = (body: unknown) =>
      kube.request({
        method: 'PATCH',
        path,
        body,
        contentType: 'application/apply-patch+yaml',
        query: { fieldManager: 'spread' },
      });
    await apply(d);
    await apply({ ...d, metadata: { ...d.metadata, labels: { a: 'b' } } });
    expect(kube.get('Deployment', 'a', 'w')?.metadata).toMatchObject({ generation: 1 });
    await apply({ ...d, spec: { replicas: 3 } });
    expect(kube.get('Deployment', 'a', 'w')?.metadata).toMatchObject({ generation: 2 });
    expect(kube.put(cm('c')).metadata).not.toHaveProperty('generation');
  });
});

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
}
