import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import { APPLYSET, SPREAD } from '../../../src/base/labels.js';
import { originAnnotations } from '../../../src/base/origin.js';
import { ownershipProblem } from '../../../src/engine/plan/ownership.js';
import type { OwnershipPolicy } from '../../../src/engine/shared/options.js';
import { FakeKube } from './fake-kube.js';

const SHOP = { repository: 'github.com/acme/shop', path: 'deploy/k8s' };
const mine: OwnershipPolicy = {
  applySetId: 'applyset-mine-v1',
  foreign: 'refuse',
  deployment: { name: 'shop-k8s', namespace: 'app', origin: SHOP },
};
const parent = (name: string, namespace: string, annotations: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace, labels: { [APPLYSET.id]: 'applyset-other-v1' }, annotations },
});
const child = (namespace = 'app', annotations: Record<string, string> = {}, partOf = 'applyset-other-v1') =>
  ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', namespace, labels: partOf ? { [APPLYSET.partOf]: partOf } : {}, annotations },
  }) as KubeObject;
const spreadParent = (name: string, namespace: string, origin?: typeof SHOP) =>
  parent(`spread.${name}`, namespace, {
    [APPLYSET.tooling]: 'spread/v0.9.0',
    [SPREAD.deployment]: name,
    ...(origin ? originAnnotations(origin) : {}),
  });
const problem = async (live: KubeObject, ...parents: KubeObject[]) => {
  const kube = new FakeKube();
  for (const p of parents) kube.put(p);
  return ownershipProblem(kube, live, mine);
};

describe('ownershipProblem names who owns an object and the way out', () => {
  test("a kubectl ApplySet's object names kubectl and its version, not a spread deployment", async () => {
    const message = await problem(
      child(),
      parent('shop', 'app', {
        [APPLYSET.tooling]: 'kubectl/v1.34.4',
        [APPLYSET.containsGroupKinds]: 'ConfigMap',
      }),
    );
    expect(message).toMatch(
      /^belongs to an ApplySet of kubectl \(kubectl\/v1\.34\.4\), not of spread: its parent is secret\/shop in app/,
    );
    expect(message).not.toMatch(/spread deployment/);
  });

  test('a parent that names no tool says so', async () => {
    expect(await problem(child(), parent('x', 'app', {}))).toMatch(
      /ApplySet of a tool its parent does not name/,
    );
  });

  test('the same folder under another name: deploy it with --name', async () => {
    const message = await problem(child(), spreadParent('k8s', 'app', SHOP));
    expect(message).toMatch(
      /^belongs to another deployment \(spread deployment app\/k8s, deployed from github.com\/acme\/shop, path deploy\/k8s\), of this same folder: /,
    );
    expect(message).toContain('with ⟦name⟧ k8s,');
  });

  test('the same folder in another namespace (the context changed): -n, found in any namespace', async () => {
    const message = await problem(child('shared'), spreadParent('shop-k8s', 'old', SHOP));
    expect(message).toContain('with ⟦namespace⟧ old,');
    expect(message).not.toMatch(/with ⟦name⟧/);
  });

  test('a renamed folder of the same repository: --name and --adopt, naming the old path', async () => {
    const message = await problem(child(), spreadParent('k8s', 'app', { ...SHOP, path: 'k8s' }));
    expect(message).toMatch(
      /moved or renamed from k8s, deploy it as that deployment with ⟦name⟧ k8s ⟦adopt⟧/,
    );
  });

  test('another repository: its origin named', async () => {
    const message = await problem(
      child(),
      spreadParent('web', 'app', { repository: 'github.com/acme/billing', path: 'k8s' }),
    );
    expect(message).toMatch(
      /deployed from github.com\/acme\/billing, path k8s\); rename the object, or deploy it from there/,
    );
  });

  test('a parent of an older spread (no origin): --name of that deployment', async () => {
    expect(await problem(child(), spreadParent('k8s', 'app'))).toMatch(
      /^belongs to another deployment \(spread deployment app\/k8s\), whose parent records no origin \(an older spread deployed it\).*deploy with ⟦name⟧ k8s/,
    );
  });

  test('an object `spread delete` of this deployment released is taken back; of another, refused', async () => {
    const released = (id: string) => child('app', { [SPREAD.releasedFrom]: id }, '');
    expect(await problem(released('applyset-mine-v1'))).toBeUndefined();
    expect(await problem(released('applyset-other-v1'))).toMatch(/^exists, but no spread deployment owns it/);
  });
});
