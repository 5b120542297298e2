import { describe, expect, test } from 'vitest';
import { formatIssue, InputError } from '../../../src/base/source.js';
import {
  applyGroup,
  applyRank,
  Deployment,
  type KubeObject,
  REDACTED,
  redactSecret,
  render,
  type SourcedObject,
} from '../../../src/deployment/index.js';

let line = 0;
function obj(apiVersion: string, kind: string, name: string, extra: Partial<KubeObject> = {}): SourcedObject {
  line++;
  const { metadata, ...rest } = extra;
  return {
    object: { apiVersion, kind, metadata: { name, ...metadata }, ...rest },
    source: { file: 'o.yaml', line },
  };
}

describe('Deployment.fromObjects', () => {
  test("a bad annotation an overlay set is reported at the overlay's line, naming the object's file", () => {
    const cm: SourcedObject = {
      object: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'c1',
          annotations: {
            'spread.rsprd.com/phase': 'before',
            'spread.rsprd.com/wave': 'x1',
            'spread.rsprd.com/prune': 'yes',
          },
        },
      },
      source: {
        file: 'base/cm.yaml',
        line: 1,
        annotations: {
          'spread.rsprd.com/wave': { file: 'kustomization.yaml', line: 3 },
          'spread.rsprd.com/prune': { file: 'overlay/kustomization.yaml', line: 0 },
        },
      },
    };
    let error: unknown;
    try {
      Deployment.fromObjects([cm], { namespace: 'n' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).issues.map(formatIssue)).toEqual([
      'base/cm.yaml:1: ConfigMap c1: annotation spread.rsprd.com/phase: "before" is not a phase; use pre, main or post',
      'kustomization.yaml:3: ConfigMap c1 (base/cm.yaml:1): annotation spread.rsprd.com/wave: "x1" is not an integer (a wave is a whole number, e.g. "-1", "0", "5")',
      expect.stringMatching(
        /^overlay\/kustomization\.yaml: ConfigMap c1 \(base\/cm\.yaml:1, set by the overlay\): annotation spread\.rsprd\.com\/prune: "yes" is not "keep"/,
      ),
    ]);
  });

  test('namespaces only namespaced objects; an explicit namespace is kept', () => {
    const d = Deployment.fromObjects(
      [
        obj('v1', 'ConfigMap', 'a'),
        obj('v1', 'ConfigMap', 'b', { metadata: { name: 'b', namespace: 'other' } }),
        obj('rbac.authorization.k8s.io/v1', 'ClusterRole', 'r'),
        obj('v1', 'Namespace', 'other'),
      ],
      { namespace: 'team' },
    );
    expect(d.get({ group: '', kind: 'ConfigMap' }, 'team', 'a')?.object.metadata).toEqual({
      name: 'a',
      namespace: 'team',
    });
    expect(d.get({ group: '', kind: 'ConfigMap' }, 'other', 'b')).toBeDefined();
    expect(
      d.get({ group: 'rbac.authorization.k8s.io', kind: 'ClusterRole' }, '', 'r')?.object.metadata,
    ).toEqual({
      name: 'r',
    });
    expect(d.size).toBe(4);
  });

  test('isNamespaced from discovery wins; a CRD of the set decides its custom resources', () => {
    const crd = obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'widgets.example.com', {
      spec: { group: 'example.com', scope: 'Cluster', names: { kind: 'Widget' } },
    });
    const widget = obj('example.com/v1', 'Widget', 'w');
    const gadget = obj('example.com/v1', 'Gadget', 'g');
    const d = Deployment.fromObjects([crd, widget, gadget], {
      namespace: 'n',
      isNamespaced: (gk) => (gk.kind === 'Gadget' ? false : undefined),
    });
    expect(d.get({ group: 'example.com', kind: 'Widget' }, '', 'w')).toBeDefined();
    expect(d.get({ group: 'example.com', kind: 'Gadget' }, '', 'g')).toBeDefined();
    expect(d.isNamespaced({ group: 'example.com', kind: 'Widget' })).toBe(false);
  });

  test('a namespace on a cluster-scoped object is dropped with a warning', () => {
    const d = Deployment.fromObjects(
      [obj('v1', 'Namespace', 'x', { metadata: { name: 'x', namespace: 'y' } })],
      {
        namespace: 'n',
      },
    );
    expect(d.objects()[0]?.object.metadata).toEqual({ name: 'x' });
    expect(d.warnings[0]?.message).toMatch(/cluster-scoped/);
  });

  test('an enforced namespace: objects naming another one are errors, all at once; cluster-scoped ones are not', () => {
    const objects = [
      obj('v1', 'ConfigMap', 'same', { metadata: { name: 'same', namespace: 'n' } }),
      obj('v1', 'ConfigMap', 'other', { metadata: { name: 'other', namespace: 'o' } }),
      obj('apps/v1', 'Deployment', 'web', { metadata: { name: 'web', namespace: 'p' } }),
      obj('v1', 'Namespace', 'x', { metadata: { name: 'x', namespace: 'q' } }),
    ];
    expect(Deployment.fromObjects(objects, { namespace: 'n' }).objects()).toHaveLength(4);
    let error: unknown;
    try {
      Deployment.fromObjects(objects, { namespace: 'n', enforceNamespace: true });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InputError);
    const errors = (error as InputError).issues.filter((i) => i.severity === 'error');
    expect(errors.map((i) => `${i.source.line}: ${i.message}`)).toEqual([
      `${objects[1]!.source.line}: ConfigMap other: its namespace o does not match the namespace n given explicitly; drop its metadata.namespace, or deploy to o`,
      `${objects[2]!.source.line}: Deployment.apps web: its namespace p does not match the namespace n given explicitly; drop its metadata.namespace, or deploy to p`,
    ]);
  });

  test('labels and annotations are applied to every object, overwriting', () => {
    const d = Deployment.fromObjects(
      [obj('v1', 'ConfigMap', 'a', { metadata: { name: 'a', labels: { keep: '1', over: 'old' } } })],
      {
        namespace: 'n',
        labels: { over: 'new', 'app.kubernetes.io/managed-by': 'spread' },
        annotations: { a: 'b' },
      },
    );
    expect(d.objects()[0]?.object.metadata).toEqual({
      name: 'a',
      namespace: 'n',
      labels: { keep: '1', over: 'new', 'app.kubernetes.io/managed-by': 'spread' },
      annotations: { a: 'b' },
    });
  });

  test('the input objects are not modified', () => {
    const item = obj('v1', 'ConfigMap', 'a');
    Deployment.fromObjects([item], { namespace: 'n', labels: { x: 'y' } });
    expect(item.object.metadata).toEqual({ name: 'a' });
  });

  test('owned objects are taken as they are, the others are copied', () => {
    const mine = obj('v1', 'ConfigMap', 'a');
    const theirs = obj('v1', 'ConfigMap', 'b');
    const d = Deployment.fromObjects([mine, theirs], { namespace: 'n' }, new Set([mine.object]));
    const gk = { group: '', kind: 'ConfigMap' };
    expect(d.get(gk, 'n', 'a')?.object.metadata).toEqual({ name: 'a', namespace: 'n' });
    expect(d.get(gk, 'n', 'a')?.object).toBe(mine.object);
    expect(d.get(gk, 'n', 'b')?.object).not.toBe(theirs.object);
    expect(theirs.object.metadata).toEqual({ name: 'b' });
  });

  test('invalid and duplicate objects are all reported together with file:line', () => {
    const a = obj('v1', 'Service', 'web');
    const b = obj('v1', 'Service', 'web');
    const bad = {
      object: { kind: 'ConfigMap', metadata: {} } as unknown as KubeObject,
      source: { file: 'x.yaml', line: 7 },
    };
    let error: unknown;
    try {
      Deployment.fromObjects([a, b, bad], { namespace: 'n' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InputError);
    const messages = (error as InputError).issues.map(
      (i) => `${i.source.file}:${i.source.line}: ${i.message}`,
    );
    expect(messages).toEqual([
      `o.yaml:${b.source.line}: Service n/web is defined twice: o.yaml:${a.source.line} and o.yaml:${b.source.line}`,
      'x.yaml:7: ConfigMap object has no apiVersion, metadata.name (or metadata.generateName)',
    ]);
  });
});

describe('order', () => {
  const all = [
    obj('apps/v1', 'Deployment', 'd'),
    obj('v1', 'Service', 's'),
    obj('networking.k8s.io/v1', 'Ingress', 'i'),
    obj('v1', 'ConfigMap', 'b'),
    obj('v1', 'ConfigMap', 'a'),
    obj('v1', 'Secret', 'sec'),
    obj('rbac.authorization.k8s.io/v1', 'ClusterRole', 'cr'),
    obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'x.example.com', {
      spec: { group: 'example.com', scope: 'Namespaced', names: { kind: 'X' } },
    }),
    obj('v1', 'Namespace', 'ns'),
    obj('example.com/v1', 'X', 'x'),
    obj('v1', 'ReplicationController', 'rc'),
    obj('batch/v1', 'Job', 'j'),
  ];

  test('apply order: Namespaces, CRDs, cluster-scoped, config, Services, workloads, the rest', () => {
    const names = Deployment.fromObjects(all, { namespace: 'n' })
      .objects()
      .map((o) => `${o.object.kind}/${o.object.metadata.name}`);
    expect(names).toEqual([
      'Namespace/ns',
      'CustomResourceDefinition/x.example.com',
      'ClusterRole/cr',
      'ConfigMap/a',
      'ConfigMap/b',
      'Secret/sec',
      'Service/s',
      'ReplicationController/rc',
      'Deployment/d',
      'Job/j',
      'X/x',
      'Ingress/i',
    ]);
  });

  test('the order does not depend on the input order', () => {
    const forward = render(Deployment.fromObjects(all, { namespace: 'n' }));
    const backward = render(Deployment.fromObjects([...all].reverse(), { namespace: 'n' }));
    expect(backward).toBe(forward);
  });

  test('apply groups: config and Services together, workloads after them, CRDs and Namespaces first', () => {
    const group = (group: string, kind: string, namespaced = true) => applyGroup({ group, kind }, namespaced);
    expect(group('', 'Service')).toBe(group('', 'ConfigMap'));
    expect(group('', 'Service')).toBe(group('', 'ServiceAccount'));
    expect(group('apps', 'Deployment')).toBeGreaterThan(group('', 'Service'));
    expect(group('', 'Namespace', false)).toBeLessThan(
      group('apiextensions.k8s.io', 'CustomResourceDefinition', false),
    );
    expect(group('apiextensions.k8s.io', 'CustomResourceDefinition', false)).toBeLessThan(
      group('', 'Secret'),
    );
    expect(group('example.com', 'Widget')).toBeGreaterThan(group('apps', 'StatefulSet'));
  });

  test('applyRank buckets', () => {
    expect(applyRank({ group: '', kind: 'Namespace' }, false)).toBe(0);
    expect(applyRank({ group: 'storage.k8s.io', kind: 'StorageClass' }, false)).toBe(2);
    expect(applyRank({ group: 'rbac.authorization.k8s.io', kind: 'Role' }, true)).toBe(3);
    expect(applyRank({ group: 'apps', kind: 'ReplicaSet' }, true)).toBe(5);
  });

  test('ofKind and groupKinds', () => {
    const d = Deployment.fromObjects(all, { namespace: 'n' });
    expect(d.ofKind({ group: '', kind: 'ConfigMap' }).map((o) => o.object.metadata.name)).toEqual(['a', 'b']);
    expect(d.groupKinds()[0]).toEqual({ group: '', kind: 'Namespace' });
  });
});

describe('merge', () => {
  test('unites sets and reports an object defined in both', () => {
    const a = Deployment.fromObjects([obj('v1', 'ConfigMap', 'a')], { namespace: 'n' });
    const b = Deployment.fromObjects([obj('v1', 'ConfigMap', 'b')], { namespace: 'n' });
    expect(Deployment.merge(a, b).size).toBe(2);
    expect(() => Deployment.merge(a, b, a)).toThrow(/ConfigMap n\/a is defined twice/);
  });
});

describe('render', () => {
  test('multi-document YAML with ambiguous strings quoted and no folding', () => {
    const long = 'x'.repeat(200);
    const d = Deployment.fromObjects(
      [
        obj('v1', 'ConfigMap', 'c', {
          data: { a: 'yes', b: '0755', c: '1e3', d: 'plain', e: long, f: 'line1\nline2\n', g: '' },
        }),
        obj('v1', 'Namespace', 'z'),
      ],
      { namespace: 'n' },
    );
    expect(render(d)).toBe(
      [
        'apiVersion: v1',
        'kind: Namespace',
        'metadata:',
        '  name: z',
        '---',
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: c',
        // `n` is false to a YAML 1.1 reader such as kubectl.
        '  namespace: "n"',
        'data:',
        '  a: "yes"',
        '  b: "0755"',
        '  c: "1e3"',
        '  d: plain',
        `  e: ${long}`,
        '  f: |',
        '    line1',
        '    line2',
        '  g: ""',
        '',
      ].join('\n'),
    );
  });

  test('an empty set renders as nothing', () => {
    expect(render(Deployment.empty())).toBe('');
  });
});

describe('Secret values in render output', () => {
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's', namespace: 'default' },
    data: { a: 'c2VrcmV0' },
    stringData: { b: 'plain-sekret' },
  };
  test('are redacted by default, keys kept', () => {
    const d = Deployment.fromObjects([{ object: secret, source: { file: 's.yaml', line: 1 } }], {
      namespace: 'default',
    });
    const out = render(d);
    expect(out).not.toContain('c2VrcmV0');
    expect(out).not.toContain('plain-sekret');
    expect(out).toContain(`a: ${REDACTED}`);
    expect(out).toContain(`b: ${REDACTED}`);
  });
  test('are shown with showSecrets', () => {
    const d = Deployment.fromObjects([{ object: secret, source: { file: 's.yaml', line: 1 } }], {
      namespace: 'default',
    });
    expect(render(d, { showSecrets: true })).toContain('plain-sekret');
  });
  test('other kinds are untouched', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } };
    expect(redactSecret(cm)).toBe(cm);
  });
});
