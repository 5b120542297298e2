import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import { APPLYSET, SPREAD } from '../../../src/base/labels.js';
import type { Logger } from '../../../src/base/logger.js';
import { originAnnotations } from '../../../src/base/origin.js';
import { KubeApiError, type KubeClient } from '../../../src/cluster/client.js';
import {
  checkedIdentity,
  deploymentIdentity,
  elsewhereWarning,
  originConflict,
  sameOriginElsewhere,
} from '../../../src/core/identity.js';
import { applySetFor, parentObject, readParent } from '../../../src/engine/inventory/applyset.js';
import { FakeKube } from '../engine/fake-kube.js';

const SHOP = { repository: 'github.com/acme/shop', path: 'k8s' };
const BILLING = { repository: 'github.com/acme/billing', path: 'k8s' };
const logged: string[] = [];
const logger = { info: (m: string) => logged.push(m), debug: () => {}, warn: () => {} } as unknown as Logger;

/** A fake cluster holding the parents of deployments `name` in `app`, each from its origin (or none). */
function cluster(parents: Record<string, typeof SHOP | undefined>): KubeClient {
  const kube = new FakeKube();
  for (const [name, origin] of Object.entries(parents))
    kube.put(parentObject(applySetFor(name, 'app', origin), [], []));
  return kube as unknown as KubeClient;
}

describe('deploymentIdentity', () => {
  test('a generic folder gets a name of its repository; a given name is used as given', async () => {
    const client = cluster({});
    expect((await deploymentIdentity(client, 'app', { origin: SHOP, path: '/w/k8s' }, logger)).name).toBe(
      'shop-k8s',
    );
    expect((await deploymentIdentity(client, 'app', { origin: BILLING, path: '/v/k8s' }, logger)).name).toBe(
      'billing-k8s',
    );
    expect(
      (await deploymentIdentity(client, 'app', { name: 'k8s', origin: SHOP, path: '/w/k8s' }, logger)).name,
    ).toBe('k8s');
    // Without an origin (a library call), the folder's name, as before.
    expect((await deploymentIdentity(client, 'app', { path: '/w/k8s' }, logger)).name).toBe('k8s');
  });

  test('a folder deployed under its generic name before keeps it, unless another folder deployed it', async () => {
    const before = await deploymentIdentity(
      cluster({ k8s: undefined }),
      'app',
      { origin: SHOP, path: '/w/k8s' },
      logger,
    );
    expect(before.name).toBe('k8s');
    expect(before.parent.exists).toBe(true);
    expect(logged.at(-1)).toMatch(
      /^deployment k8s: the name this folder was deployed under before \(the default is now shop-k8s/,
    );
    expect(
      (await deploymentIdentity(cluster({ k8s: SHOP }), 'app', { origin: SHOP, path: '/w/k8s' }, logger))
        .name,
    ).toBe('k8s');
    expect(
      (await deploymentIdentity(cluster({ k8s: BILLING }), 'app', { origin: SHOP, path: '/w/k8s' }, logger))
        .name,
    ).toBe('shop-k8s');
  });
});

describe('originConflict', () => {
  const parentOf = async (origin?: typeof SHOP) =>
    readParent(cluster({ web: origin }), applySetFor('web', 'app'));

  test('another origin fails, naming both and the ways out; same origin, none recorded or --adopt pass', async () => {
    const error = originConflict('web', 'app', await parentOf(BILLING), SHOP, false);
    expect(error?.message).toBe(
      "deployment web in namespace app was deployed from github.com/acme/billing, path k8s, and this deploy comes from github.com/acme/shop, path k8s: two folders deploying as one deployment prune each other's objects, so nothing was written. Give this folder a deployment of its own (⟦name⟧ NAME), or, if this folder replaces that one, take the deployment over (⟦adopt⟧, which records the new origin)",
    );
    expect(
      originConflict('web', 'app', await parentOf({ ...SHOP, path: 'old' }), SHOP, false)?.message,
    ).toMatch(/if this folder was moved or renamed from old, take the deployment over/);
    expect(originConflict('web', 'app', await parentOf(SHOP), SHOP, false)).toBeUndefined();
    expect(originConflict('web', 'app', await parentOf(undefined), SHOP, false)).toBeUndefined();
    expect(originConflict('web', 'app', await parentOf(BILLING), SHOP, true)).toBeUndefined();
    expect(originConflict('web', 'app', await parentOf(BILLING), undefined, false)).toBeUndefined();
  });

  test('the annotations it reads are those the parent writes', async () => {
    const parent = (await parentOf(SHOP)).object as KubeObject;
    expect(parent.metadata.annotations).toMatchObject(originAnnotations(SHOP));
    expect(parent.metadata.labels?.[APPLYSET.id]).toBe(applySetFor('web', 'app').id);
    expect(parent.metadata.annotations?.[SPREAD.deployment]).toBe('web');
  });
});

describe('sameOriginElsewhere', () => {
  test('the deployments of the same folder in other namespaces, and the -n that reaches them', async () => {
    const kube = new FakeKube();
    kube.put(parentObject(applySetFor('shop-k8s', 'old', SHOP), [], []));
    kube.put(parentObject(applySetFor('shop-k8s', 'app', SHOP), [], []));
    kube.put(parentObject(applySetFor('billing-k8s', 'old', BILLING), [], []));
    kube.put(parentObject(applySetFor('legacy', 'old'), [], []));
    const client = kube as unknown as KubeClient;
    const elsewhere = await sameOriginElsewhere(client, 'app', SHOP);
    expect(elsewhere).toEqual(['old/shop-k8s']);
    expect(elsewhereWarning('shop-k8s', 'app', elsewhere)).toBe(
      "this folder is also deployed as old/shop-k8s; this deploy makes a new deployment shop-k8s in namespace app, and the other keeps its objects. If the namespace changed (the context's), deploy to the old one with ⟦namespace⟧ old, or remove that deployment (spread delete shop-k8s -n old)",
    );
    kube.refuse = () => new KubeApiError(403, 'GET /api/v1/secrets', {} as never, '');
    expect(await sameOriginElsewhere(client, 'app', SHOP)).toEqual([]);
  });

  test('another declared environment of the folder is not a namespace that changed', async () => {
    const kube = new FakeKube();
    kube.put(parentObject(applySetFor('web', 'web-staging', { ...SHOP, environment: 'staging' }), [], []));
    kube.put(parentObject(applySetFor('web', 'web-old', { ...SHOP, environment: 'preview' }), [], []));
    kube.put(parentObject(applySetFor('web', 'web-legacy', SHOP), [], []));
    const client = kube as unknown as KubeClient;
    // A preview deployed beside staging: staging is a deployment of its own, on purpose.
    expect(await sameOriginElsewhere(client, 'web-pr-7', { ...SHOP, environment: 'preview' })).toEqual([
      'web-legacy/web',
      'web-old/web',
    ]);
    // Without an environment every deployment of the folder is named, as before.
    expect(await sameOriginElsewhere(client, 'web-pr-7', SHOP)).toEqual([
      'web-legacy/web',
      'web-old/web',
      'web-staging/web',
    ]);
    expect(
      parentObject(applySetFor('web', 'x', { ...SHOP, environment: 'staging' }), [], []).metadata.annotations,
    ).toMatchObject({ [SPREAD.environment]: 'staging' });
  });

  test("a preview's first deploy looks for no other deployment of its folder (one per pull request)", async () => {
    const kube = new FakeKube();
    kube.put(parentObject(applySetFor('web', 'web-pr-1', { ...SHOP, environment: 'preview' }), [], []));
    const client = kube as unknown as KubeClient;
    const options = { origin: { ...SHOP, environment: 'preview' }, path: '/w/k8s', name: 'web' };
    expect(await (await checkedIdentity(client, 'web-pr-2', options, logger)).elsewhere).toContain(
      'also deployed as web-pr-1/web',
    );
    const preview = { ...options, createNamespace: { source: { file: 'spread.yaml', line: 10 } } };
    expect(await (await checkedIdentity(client, 'web-pr-2', preview, logger)).elsewhere).toBeUndefined();
  });
});
