import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import { applySetFor } from '../../../src/engine/inventory/applyset.js';
import { isForeign } from '../../../src/engine/inventory/foreign.js';
import { foreignReason } from '../../../src/engine/inventory/prune.js';

const set = applySetFor('web', 'prod');
const other = applySetFor('api', 'prod');
const meta = (m: KubeObject['metadata']): Pick<KubeObject, 'metadata'> => ({
  metadata: { namespace: 'prod', ...m },
});
const core = (kind: string) => ({ group: '', kind });

describe('isForeign: what deleting a Namespace would delete besides the deployment', () => {
  test.each([
    ['a ConfigMap made by hand', core('ConfigMap'), meta({ name: 'hand' }), true],
    [
      "another deployment's object",
      core('ConfigMap'),
      meta({ name: 'x', labels: { 'applyset.kubernetes.io/part-of': other.id } }),
      true,
    ],
    ['a bare Pod', core('Pod'), meta({ name: 'debug' }), true],
    [
      'an object of the deployment',
      core('ConfigMap'),
      meta({ name: 'x', labels: { 'applyset.kubernetes.io/part-of': set.id } }),
      false,
    ],
    [
      'a dependent (a ReplicaSet pod)',
      core('Pod'),
      meta({ name: 'p', ownerReferences: [{ uid: 'u' }] }),
      false,
    ],
    ['an object being deleted', core('ConfigMap'), meta({ name: 'x', deletionTimestamp: 'now' }), false],
    ['the default ServiceAccount', core('ServiceAccount'), meta({ name: 'default' }), false],
    ['the root CA ConfigMap', core('ConfigMap'), meta({ name: 'kube-root-ca.crt' }), false],
    ['the Endpoints of a Service', core('Endpoints'), meta({ name: 'svc' }), false],
    ['Endpoints made by hand (no such Service)', core('Endpoints'), meta({ name: 'external' }), true],
    ["the deployment's ApplySet parent", core('Secret'), meta({ name: 'spread.web' }), false],
    [
      "the deployment's revisions",
      core('Secret'),
      meta({ name: 'spread.web.v3', labels: { 'spread.rsprd.com/applyset-id': set.id } }),
      false,
    ],
    ["another deployment's revision", core('Secret'), meta({ name: 'spread.api.v1' }), true],
    [
      "the deployment's Lease",
      { group: 'coordination.k8s.io', kind: 'Lease' },
      meta({ name: 'spread.web' }),
      false,
    ],
    [
      'a parent-named Secret in another namespace',
      core('Secret'),
      meta({ name: 'spread.web', namespace: 'elsewhere' }),
      true,
    ],
  ])('%s: %s', (_, resource, object, expected) => {
    expect(isForeign(resource, object, set, new Set(['svc']))).toBe(expected);
  });
});

describe('foreignReason', () => {
  const o = (name: string, extra = {}) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: 'n',
    name,
    ...extra,
  });
  test('names five, counts the rest, says whose and what could not be listed', () => {
    expect(
      foreignReason({
        foreign: [
          { ...o('a'), apiVersion: 'apps/v1', kind: 'Deployment', applySet: 'api' },
          ...['b', 'c', 'd', 'e', 'f', 'g'].map((n) => o(n)),
        ],
        unlisted: ['secrets (no list right)'],
      }),
    ).toBe(
      'it holds 7 objects not of this deployment (deployment.apps/a (of spread deployment api), configmap/b, configmap/c, configmap/d, configmap/e, … and 2 more), which deleting it would delete; it could not be checked for secrets (no list right), which may hold objects not of this deployment',
    );
    expect(foreignReason({ foreign: [o('a')], unlisted: [] })).toBe(
      'it holds 1 object not of this deployment (configmap/a), which deleting it would delete',
    );
  });
});

test('foreignReason caps the kinds it could not check at five', () => {
  const unlisted = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((k) => `${k}s (no list right)`);
  expect(foreignReason({ foreign: [], unlisted })).toBe(
    'it could not be checked for as (no list right), bs (no list right), cs (no list right), ds (no list right), es (no list right), … and 2 more kinds, which may hold objects not of this deployment',
  );
});
