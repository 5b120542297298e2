import { describe, expect, test } from 'vitest';
import { TEMPLATE_HASH, templateHash, withTemplateHash } from '../../../src/cluster/rc.js';
import type { KubeObject } from '../../../src/deployment/kube-object.js';

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
