import pLimit from 'p-limit';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { KubeObject } from '../../src/base/kube-object.js';
import { KubeClient } from '../../src/cluster/client.js';
import { loadKubeconfig } from '../../src/cluster/kubeconfig.js';
import { informer } from '../../src/engine/wait/watcher.js';
import { kubeconfigPath, kubectl, uniqueName } from './helpers.js';

const ns = uniqueName('itg-watch');
const ctx = ['--context', 'spread-local'];

describe('informer (list + watch) on the local cluster', () => {
  let client: KubeClient;
  beforeAll(async () => {
    await kubectl([...ctx, 'create', 'namespace', ns]);
    client = new KubeClient(loadKubeconfig({ paths: [kubeconfigPath()] }, 'spread-local').kubeConfig);
  });
  afterAll(async () => {
    client?.close();
    await kubectl([...ctx, 'delete', 'namespace', ns, '--wait=false'], { allowFail: true });
  });

  test('sees changes across watches the server ends early (resumed from the last resourceVersion)', async () => {
    const stop = new AbortController();
    const seen: string[][] = [];
    const run = informer(client, `/api/v1/namespaces/${ns}/configmaps`, {
      labelSelector: 'itg=watch',
      signal: stop.signal,
      watchSeconds: 1,
      onChange: (items: readonly KubeObject[]) => seen.push(items.map((o) => o.metadata.name ?? '').sort()),
    });
    const make = (name: string) =>
      kubectl([...ctx, '-n', ns, 'create', 'configmap', name, '--from-literal=k=v']).then(() =>
        kubectl([...ctx, '-n', ns, 'label', 'configmap', name, 'itg=watch']),
      );
    await make('one');
    // Several 1 s watches end meanwhile; each is resumed.
    await new Promise((r) => setTimeout(r, 2500));
    await make('two');
    await kubectl([...ctx, '-n', ns, 'delete', 'configmap', 'one']);
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && JSON.stringify(seen.at(-1)) !== JSON.stringify(['two']))
      await new Promise((r) => setTimeout(r, 100));
    stop.abort();
    await run;
    expect(seen[0]).toEqual([]);
    expect(seen).toContainEqual(['one']);
    expect(seen).toContainEqual(['one', 'two']);
    expect(seen.at(-1)).toEqual(['two']);
    expect(seen.length).toBeGreaterThanOrEqual(4);
  });

  test('keeps and passes on objects without their managedFields, listed or watched', async () => {
    await kubectl([...ctx, '-n', ns, 'create', 'configmap', 'listed', '--from-literal=k=v']);
    const { stdout } = await kubectl([
      ...ctx,
      '-n',
      ns,
      'get',
      'configmap',
      'listed',
      '-o',
      'json',
      '--show-managed-fields',
    ]);
    const stored = JSON.parse(stdout) as KubeObject;
    expect((stored.metadata.managedFields as unknown[] | undefined)?.length).toBeGreaterThan(0);
    const stop = new AbortController();
    const events: { type: string; objects: readonly KubeObject[] }[] = [];
    const run = informer(client, `/api/v1/namespaces/${ns}/configmaps`, {
      signal: stop.signal,
      onEvent: (e) => events.push({ type: e.type, objects: e.type === 'LIST' ? e.objects : [e.object] }),
    });
    while (!events.some((e) => e.type === 'LIST')) await new Promise((r) => setTimeout(r, 50));
    await kubectl([...ctx, '-n', ns, 'create', 'configmap', 'watched', '--from-literal=k=v']);
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && !events.some((e) => e.objects.some((o) => o.metadata.name === 'watched')))
      await new Promise((r) => setTimeout(r, 50));
    stop.abort();
    await run;
    const all = events.flatMap((e) => e.objects);
    expect(all.map((o) => o.metadata.name)).toEqual(expect.arrayContaining(['listed', 'watched']));
    for (const o of all) {
      expect(o.metadata.managedFields).toBeUndefined();
      expect(o.metadata.uid).toBeTruthy();
      expect(o.kind).toBe('ConfigMap');
    }
  });

  test('lists in pages: every object once, one LIST request per page, the watch from the list', async () => {
    const names = ['p1', 'p2', 'p3', 'p4', 'p5'];
    for (const name of names)
      await kubectl([...ctx, '-n', ns, 'create', 'configmap', name, '--from-literal=k=v']);
    await kubectl([...ctx, '-n', ns, 'label', 'configmap', ...names, 'itg=pages']);
    const lists: string[] = [];
    const paged = new KubeClient(loadKubeconfig({ paths: [kubeconfigPath()] }, 'spread-local').kubeConfig, {
      onRequest: (method, path) => lists.push(`${method} ${path}`),
    });
    const stop = new AbortController();
    const listed: string[][] = [];
    const changed: string[] = [];
    const run = informer(paged, `/api/v1/namespaces/${ns}/configmaps`, {
      labelSelector: 'itg=pages',
      pageSize: 2,
      signal: stop.signal,
      onEvent: (e) => {
        if (e.type === 'LIST') listed.push(e.objects.map((o) => o.metadata.name ?? ''));
        else changed.push(`${e.type} ${e.object.metadata.name}`);
      },
    });
    const listDeadline = Date.now() + 10_000;
    while (listed.length === 0 && Date.now() < listDeadline) await new Promise((r) => setTimeout(r, 50));
    await kubectl([...ctx, '-n', ns, 'label', 'configmap', 'p3', 'more=1']);
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && !changed.includes('MODIFIED p3'))
      await new Promise((r) => setTimeout(r, 50));
    stop.abort();
    await run;
    paged.close();
    expect(listed).toEqual([names]);
    // Three pages of at most two; nothing listed twice or missed, and no ADDED replayed by the watch.
    expect(lists).toEqual(Array(3).fill(`GET /api/v1/namespaces/${ns}/configmaps`));
    expect(changed).toEqual(['MODIFIED p3']);
  });
  test('informers sharing a pLimit(1) list one collection after the other, each whole', async () => {
    for (const name of ['l1', 'l2', 'l3']) {
      await kubectl([...ctx, '-n', ns, 'create', 'configmap', name, '--from-literal=k=v']);
      await kubectl([...ctx, '-n', ns, 'create', 'secret', 'generic', name, '--from-literal=k=v']);
    }
    await kubectl([...ctx, '-n', ns, 'label', 'configmap', 'l1', 'l2', 'l3', 'itg=turns']);
    await kubectl([...ctx, '-n', ns, 'label', 'secret', 'l1', 'l2', 'l3', 'itg=turns']);
    const run = async (listLimit?: ReturnType<typeof pLimit>) => {
      const requests: string[] = [];
      const counting = new KubeClient(
        loadKubeconfig({ paths: [kubeconfigPath()] }, 'spread-local').kubeConfig,
        { onRequest: (_method, path) => requests.push(path.split('/').at(-1) ?? '') },
      );
      const stop = new AbortController();
      const listed = new Map<string, string[]>();
      const both = ['configmaps', 'secrets'].map((kind) =>
        informer(counting, `/api/v1/namespaces/${ns}/${kind}`, {
          labelSelector: 'itg=turns',
          pageSize: 1,
          signal: stop.signal,
          listLimit,
          onEvent: (e) => {
            if (e.type === 'LIST')
              listed.set(
                kind,
                e.objects.map((o) => o.metadata.name ?? ''),
              );
          },
        }),
      );
      const deadline = Date.now() + 10_000;
      while (listed.size < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      stop.abort();
      await Promise.all(both);
      counting.close();
      return { requests, listed };
    };
    const shared = await run(pLimit(1));
    expect(shared.listed).toEqual(
      new Map([
        ['configmaps', ['l1', 'l2', 'l3']],
        ['secrets', ['l1', 'l2', 'l3']],
      ]),
    );
    // Pages of one object (a last empty page when the server cannot tell it was the last): the
    // secrets' first page only once the config maps' last is in.
    const firstSecret = shared.requests.indexOf('secrets');
    expect(firstSecret).toBeGreaterThanOrEqual(3);
    expect(shared.requests.slice(0, firstSecret).every((r) => r === 'configmaps')).toBe(true);
    expect(shared.requests.slice(firstSecret).every((r) => r === 'secrets')).toBe(true);
    expect(shared.requests.length - firstSecret).toBeGreaterThanOrEqual(3);
    // Without the limit the two collections' pages interleave.
    const apart = await run();
    expect(apart.requests.slice(0, 2).sort()).toEqual(['configmaps', 'secrets']);
  });
  test('metadata only: listed and watched objects carry their metadata, not their data', async () => {
    await kubectl([...ctx, '-n', ns, 'create', 'configmap', 'm1', '--from-literal=k=v']);
    await kubectl([...ctx, '-n', ns, 'label', 'configmap', 'm1', 'itg=meta']);
    const stop = new AbortController();
    const events: { type: string; object: KubeObject }[] = [];
    const run = informer(client, `/api/v1/namespaces/${ns}/configmaps`, {
      labelSelector: 'itg=meta',
      metadataOnly: true,
      signal: stop.signal,
      onEvent: (e) => {
        if (e.type === 'LIST') for (const object of e.objects) events.push({ type: e.type, object });
        else events.push({ type: e.type, object: e.object });
      },
    });
    while (!events.some((e) => e.type === 'LIST')) await new Promise((r) => setTimeout(r, 20));
    await kubectl([...ctx, '-n', ns, 'annotate', 'configmap', 'm1', 'seen=yes']);
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && !events.some((e) => e.type === 'MODIFIED'))
      await new Promise((r) => setTimeout(r, 20));
    stop.abort();
    await run;
    expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['LIST m1', 'MODIFIED m1']);
    for (const { object } of events) {
      expect(object.kind).toBe('PartialObjectMetadata');
      expect((object as { data?: unknown }).data).toBeUndefined();
      expect(object.metadata.labels).toEqual({ itg: 'meta' });
      expect(object.metadata.uid).toBeTruthy();
    }
    expect(events[1]!.object.metadata.annotations).toEqual({ seen: 'yes' });
  });
});
