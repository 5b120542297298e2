import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import { TEMPLATE_HASH } from '../../../src/base/labels.js';
import { podToReplace, templateHash, withTemplateHash } from '../../../src/engine/wait/rc-roll.js';

const rc = (image: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ReplicationController',
  metadata: { name: 'r' },
  spec: {
    replicas: 2,
    selector: { app: 'r' },
    template: { metadata: { labels: { app: 'r' } }, spec: { containers: [{ name: 'c', image }] } },
  },
});

describe('RC template hash', () => {
  test('is stable, changes with the template, and ignores key order and itself', () => {
    const a = withTemplateHash(rc('x:1'));
    const tmpl = (o: KubeObject) =>
      (o.spec as { template: { metadata: { annotations: Record<string, string> } } }).template;
    const hash = tmpl(a).metadata.annotations[TEMPLATE_HASH]!;
    expect(hash).toMatch(/^[0-9a-f]{16}$/);
    expect(tmpl(withTemplateHash(rc('x:1'))).metadata.annotations[TEMPLATE_HASH]).toBe(hash);
    expect(tmpl(withTemplateHash(rc('x:2'))).metadata.annotations[TEMPLATE_HASH]).not.toBe(hash);
    expect(templateHash(tmpl(a))).toBe(hash);
    expect(templateHash({ spec: { b: 1, a: 2 } })).toBe(templateHash({ spec: { a: 2, b: 1 } }));
  });

  test('leaves other kinds and the input object alone', () => {
    const original = rc('x:1');
    withTemplateHash(original);
    expect(JSON.stringify(original)).not.toContain(TEMPLATE_HASH);
    const dep: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: {} };
    expect(withTemplateHash(dep)).toBe(dep);
  });
});

describe('podToReplace: the next pod of an older template to delete', () => {
  const live = (replicas: number, generation = 2, observed = 2): KubeObject => {
    const o = withTemplateHash(rc('x:2'));
    return {
      ...o,
      metadata: { ...o.metadata, uid: 'rc-uid', generation },
      spec: { ...(o.spec as object), replicas },
      status: { observedGeneration: observed },
    };
  };
  const hashOf = (o: KubeObject) =>
    (o.spec as { template: { metadata: { annotations: Record<string, string> } } }).template.metadata
      .annotations[TEMPLATE_HASH]!;
  const pod = (
    name: string,
    hash: string,
    ready: boolean,
    extra: Partial<KubeObject['metadata']> = {},
  ): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      uid: `uid-${name}`,
      annotations: { [TEMPLATE_HASH]: hash },
      ownerReferences: [{ uid: 'rc-uid' }],
      ...extra,
    },
    status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  });
  const rcNow = live(2);
  const current = hashOf(rcNow);
  const name = (p: KubeObject | undefined) => p?.metadata.name;

  test.each([
    ['every replica Ready: the first old pod by name', [pod('b', 'old', true), pod('a', 'old', true)], 'a'],
    ['one replacement still starting: none', [pod('a', 'old', true), pod('n', current, false)], undefined],
    [
      'an old pod not Ready goes at once, before Ready ones (a broken pod after a rollback)',
      [pod('a', 'old', true), pod('z', 'old', false)],
      'z',
    ],
    ['only current pods: none', [pod('n', current, true), pod('m', current, true)], undefined],
    [
      'a pod already terminating is not counted or chosen',
      [pod('a', 'old', true, { deletionTimestamp: '2026-01-01T00:00:00Z' }), pod('b', 'old', true)],
      undefined,
    ],
    ['a pod the RC does not own is left alone', [pod('a', 'old', false, { ownerReferences: [] })], undefined],
  ])('%s', (_, pods, expected) => {
    expect(name(podToReplace(rcNow, pods))).toBe(expected);
  });

  test('with minReadySeconds, a Ready old pod goes only once every replica has been Ready that long', () => {
    const slow = { ...rcNow, spec: { ...(rcNow.spec as object), minReadySeconds: 30 } };
    const now = Date.parse('2026-01-01T00:01:00Z');
    const readySince = (p: KubeObject, at: string): KubeObject => ({
      ...p,
      status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at }] },
    });
    const old = readySince(pod('a', 'old', true), '2025-12-31T00:00:00Z');
    const fresh = readySince(pod('n', current, true), '2026-01-01T00:00:50Z');
    expect(podToReplace(slow, [old, fresh], now)).toBeUndefined();
    expect(name(podToReplace(slow, [old, fresh], now + 30_000))).toBe('a');
    expect(name(podToReplace(rcNow, [old, fresh], now))).toBe('a');
  });

  test('nothing before the controller observed the new generation, nor without a template hash', () => {
    const pods = [pod('a', 'old', false), pod('b', 'old', true)];
    expect(podToReplace(live(2, 3, 2), pods)).toBeUndefined();
    expect(name(podToReplace(live(2, 3, 3), pods))).toBe('a');
    expect(podToReplace({ ...rc('x:2'), metadata: { name: 'r', uid: 'rc-uid' } }, pods)).toBeUndefined();
  });
});
