import { describe, expect, test } from 'vitest';
import { APPLYSET } from '../../../src/base/labels.js';
import {
  applySetFor,
  labelForApplySet,
  parentHolds,
  parentObject,
  parentState,
  parseGroupKind,
} from '../../../src/engine/inventory/applyset.js';

describe('ApplySet', () => {
  test('id follows KEP-3659: base64url(sha256(name.namespace.Kind.group)) with applyset- and -v1', () => {
    // Computed independently: printf 'spread.web.default.Secret.' | sha256sum | xxd -r -p | base64 | tr '+/' '-_' | tr -d '='
    const set = applySetFor('web', 'default');
    expect(set.parentName).toBe('spread.web');
    expect(set.id).toBe('applyset-oUsnqFPRMm5ini80_OFut8xhdR9771EdYMG3jgurjhU-v1');
    expect(set.id).toBe(applySetFor('web', 'default').id);
    expect(set.id).not.toBe(applySetFor('web', 'other').id);
  });

  test('children get the part-of label, managed-by and their source; the input object is not changed', () => {
    const set = applySetFor('web', 'default');
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: { a: 'b' } } };
    const labelled = labelForApplySet({ object, source: { file: 'x.yaml', line: 3 } }, set);
    expect(labelled.metadata.labels).toEqual({
      a: 'b',
      [APPLYSET.partOf]: set.id,
      'app.kubernetes.io/managed-by': 'spread',
    });
    expect(labelled.metadata.annotations?.['spread.rsprd.com/source']).toBe('x.yaml');
    expect(object.metadata.labels).toEqual({ a: 'b' });
  });

  test("a declared app.kubernetes.io/managed-by stays (a chart's Helm), as kubectl apply stores it", () => {
    const set = applySetFor('web', 'default');
    const object = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', labels: { 'app.kubernetes.io/managed-by': 'Helm' } },
    };
    const labelled = labelForApplySet({ object, source: { file: 'x.yaml', line: 3 } }, set);
    expect(labelled.metadata.labels).toEqual({
      'app.kubernetes.io/managed-by': 'Helm',
      [APPLYSET.partOf]: set.id,
    });
  });

  test('the parent records the origin it is given, and none without', () => {
    const origin = { repository: 'github.com/acme/shop', path: 'deploy/k8s' };
    const parent = parentObject(applySetFor('web', 'default', origin), [], []);
    expect(parent.metadata.annotations?.['spread.rsprd.com/repository']).toBe('github.com/acme/shop');
    expect(parent.metadata.annotations?.['spread.rsprd.com/path']).toBe('deploy/k8s');
    expect(parentState(parent, applySetFor('web', 'default')).origin).toEqual(origin);
    const without = parentObject(applySetFor('web', 'default'), [], []);
    expect(Object.keys(without.metadata.annotations ?? {}).filter((k) => /repository|path/.test(k))).toEqual(
      [],
    );
  });

  test('parent lists sorted unique group-kinds and the other namespaces', () => {
    const set = applySetFor('web', 'default');
    const parent = parentObject(set, ['Service', 'Deployment.apps', 'Service'], ['default', 'b', 'a', '']);
    expect(parent.metadata.labels?.[APPLYSET.id]).toBe(set.id);
    expect(parent.metadata.annotations?.[APPLYSET.containsGroupKinds]).toBe('Deployment.apps,Service');
    expect(parent.metadata.annotations?.[APPLYSET.additionalNamespaces]).toBe('a,b');
    expect(parent.metadata.annotations?.[APPLYSET.tooling]).toMatch(/^spread\/v\d+\.\d+\.\d+/);
  });

  test.each([
    ['Deployment.apps', { group: 'apps', kind: 'Deployment' }],
    ['Service', { group: '', kind: 'Service' }],
    ['Widget.example.com', { group: 'example.com', kind: 'Widget' }],
  ])('parseGroupKind(%s)', (text, gk) => {
    expect(parseGroupKind(text)).toEqual(gk);
  });
});

describe('parentHolds: whether applying the parent would change nothing', () => {
  const set = applySetFor('web', 'default');
  const desired = parentObject(
    set,
    ['ConfigMap', 'Deployment.apps'],
    ['default'],
    ['AAAAAAAAAAAAAAAAAAAAAA'],
  );
  // As the server returns it: the same values, plus what others and the server add.
  const live = () => {
    const copy = structuredClone(desired);
    copy.metadata.uid = 'u1';
    copy.metadata.labels = { ...copy.metadata.labels, team: 'web' };
    copy.metadata.annotations = { ...copy.metadata.annotations, 'spread.rsprd.com/revision': '3' };
    return copy;
  };

  test('the same values, with other labels and annotations beside them: held', () => {
    expect(parentHolds(live(), desired)).toBe(true);
  });

  test('no parent yet: not held', () => {
    expect(parentHolds(undefined, desired)).toBe(false);
  });

  test('another group-kind, namespace, spread version, fingerprint, label value or type: not held', () => {
    const changed = [
      parentObject(set, ['ConfigMap'], ['default'], ['AAAAAAAAAAAAAAAAAAAAAA']),
      parentObject(set, ['ConfigMap', 'Deployment.apps'], ['default', 'other'], ['AAAAAAAAAAAAAAAAAAAAAA']),
      parentObject(set, ['ConfigMap', 'Deployment.apps'], ['default'], []),
    ];
    for (const d of changed) expect(parentHolds(live(), d)).toBe(false);
    const olderSpread = live();
    olderSpread.metadata.annotations![APPLYSET.tooling] = 'spread/v0.0.1';
    expect(parentHolds(olderSpread, desired)).toBe(false);
    const relabelled = live();
    relabelled.metadata.labels![APPLYSET.id] = 'applyset-other-v1';
    expect(parentHolds(relabelled, desired)).toBe(false);
    const noData = live();
    delete noData.data;
    expect(parentHolds(noData, desired)).toBe(false);
    const opaque = live();
    opaque.type = 'Opaque';
    expect(parentHolds(opaque, desired)).toBe(false);
  });
});
