import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import { diffObjects } from '../../../src/deployment/diff.js';
import { formatChange } from '../../../src/report/diff.js';

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
    expect(diffObjects(live, after).map((c) => formatChange(c))).toEqual([
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
    const text = diffObjects(live, after)
      .map((c) => formatChange(c))
      .join('\n');
    expect(text).toContain('~ data.pw: <redacted> → <redacted>');
    expect(text).toContain('+ data.user: <redacted>');
    expect(text).not.toMatch(/b2xk|bmV3|dQ==/);
  });

  test("never shows a Secret's last-applied-configuration annotation (it holds the values), taken over and removed", () => {
    const lastApplied = '{"apiVersion":"v1","kind":"Secret","stringData":{"pw":"hunter2"}}';
    const live: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 's',
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied },
      },
      data: { pw: 'aHVudGVyMg==' },
    };
    const after: KubeObject = { ...live, metadata: { name: 's' } };
    const text = diffObjects(live, after)
      .map((c) => formatChange(c))
      .join('\n');
    expect(text).toBe(
      '- metadata.annotations: {"kubectl.kubernetes.io/last-applied-configuration":"<redacted>"}',
    );
    const kept = { ...after, metadata: { name: 's', annotations: { other: 'x' } } };
    expect(diffObjects(live, kept).map((c) => formatChange(c))).toEqual([
      '- metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]: <redacted>',
      '+ metadata.annotations.other: "x"',
    ]);
    // A ConfigMap's is shown: it holds nothing secret.
    const cm = diffObjects({ ...live, kind: 'ConfigMap' }, { ...after, kind: 'ConfigMap' });
    expect(cm[0]?.before).toContain('stringData');
  });

  test('quotes keys that are not identifiers', () => {
    const live: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: {} };
    const after: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { 'app.conf': 'x' },
    };
    expect(diffObjects(live, after).map((c) => formatChange(c))).toEqual(['+ data["app.conf"]: "x"']);
  });
});

describe('long and multi-line strings: a change is never hidden behind a cut', () => {
  const cm = (data: Record<string, string>): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c' },
    data,
  });

  test('a long single-line string changed near its end shows the changed region on both sides', () => {
    const prefix = 'x'.repeat(300);
    const [c] = diffObjects(cm({ url: `${prefix}-old-tail` }), cm({ url: `${prefix}-new-tail` }));
    expect(c).toMatchObject({ op: 'change', path: 'data.url' });
    expect(c!.before).not.toBe(c!.after);
    expect(c!.before).toBe(`"…${'x'.repeat(23)}-old-tail"`);
    expect(c!.after).toBe(`"…${'x'.repeat(23)}-new-tail"`);
    expect(c!.lines).toBeUndefined();
  });

  test('a change in the middle of a long string: context on both sides, ellipses at both ends', () => {
    const a = `${'a'.repeat(200)}OLD${'b'.repeat(200)}`;
    const b = `${'a'.repeat(200)}NEW${'b'.repeat(200)}`;
    const [c] = diffObjects(cm({ k: a }), cm({ k: b }));
    expect(c!.before).toBe(`"…${'a'.repeat(24)}OLD${'b'.repeat(24)}…"`);
    expect(c!.after).toBe(`"…${'a'.repeat(24)}NEW${'b'.repeat(24)}…"`);
  });

  test('a multi-line string gets a line diff with context, after any length of unchanged lines', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i}`);
    const changed = [...lines];
    changed[30] = 'line 30 changed';
    const [c] = diffObjects(
      cm({ 'app.conf': `${lines.join('\n')}\n` }),
      cm({ 'app.conf': `${changed.join('\n')}\n` }),
    );
    expect(c!.lines).toEqual([
      '@@ -28,7 +28,7 @@',
      ' line 27',
      ' line 28',
      ' line 29',
      '-line 30',
      '+line 30 changed',
      ' line 31',
      ' line 32',
      ' line 33',
    ]);
    expect(formatChange(c!, '  ').split('\n').slice(0, 3)).toEqual([
      '~ data["app.conf"]:',
      '    @@ -28,7 +28,7 @@',
      '     line 27',
    ]);
  });

  test('short strings are shown whole, as before', () => {
    expect(diffObjects(cm({ k: 'a' }), cm({ k: 'b' })).map((c) => formatChange(c))).toEqual([
      '~ data.k: "a" → "b"',
    ]);
  });

  test('a Secret value that spans lines is never line-diffed', () => {
    const s = (v: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      stringData: { pem: v },
    });
    const [c] = diffObjects(
      s('-----BEGIN-----\nAAAA\n-----END-----'),
      s('-----BEGIN-----\nBBBB\n-----END-----'),
    );
    expect(c).toEqual({ op: 'change', path: 'stringData.pem', before: '<redacted>', after: '<redacted>' });
  });
});
