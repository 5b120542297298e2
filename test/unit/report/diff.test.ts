import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/deployment/kube-object.js';
import { diffObjects, formatChange } from '../../../src/report/diff.js';

const base = (extra: Partial<KubeObject>): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', resourceVersion: '1', generation: 1, managedFields: [{ manager: 'a' }] },
  ...extra,
});

describe('diffObjects', () => {
  test('lists changed, added and removed fields in kubectl path notation', () => {
    const live = base({
      spec: { replicas: 1, template: { spec: { containers: [{ name: 'a', image: 'x:1' }] } } },
    });
    const after = base({
      metadata: { name: 'web', resourceVersion: '2', generation: 2, labels: { tier: 'web' } },
      spec: { replicas: 2, template: { spec: { containers: [{ name: 'a', image: 'x:2', ports: [] }] } } },
    });
    expect(diffObjects(live, after).map(formatChange)).toEqual([
      '+ metadata.labels: {"tier":"web"}',
      '~ spec.replicas: 1 → 2',
      '~ spec.template.spec.containers[0].image: "x:1" → "x:2"',
      '+ spec.template.spec.containers[0].ports: []',
    ]);
  });

  test('ignores metadata every write changes, and status', () => {
    const live = base({ status: { replicas: 1 } });
    const after = base({
      metadata: { name: 'web', resourceVersion: '9', generation: 3 },
      status: { replicas: 3 },
    });
    expect(diffObjects(live, after)).toEqual([]);
  });

  test('never shows Secret values', () => {
    const live: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data: { pw: 'b2xk' },
    };
    const after: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data: { pw: 'bmV3', user: 'dQ==' },
    };
    const text = diffObjects(live, after).map(formatChange).join('\n');
    expect(text).toContain('~ data.pw: <redacted> → <redacted>');
    expect(text).toContain('+ data.user: <redacted>');
    expect(text).not.toMatch(/b2xk|bmV3|dQ==/);
  });

  test('quotes keys that are not identifiers', () => {
    const live: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: {} };
    const after: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { 'app.conf': 'x' },
    };
    expect(diffObjects(live, after).map(formatChange)).toEqual(['+ data["app.conf"]: "x"']);
  });
});
