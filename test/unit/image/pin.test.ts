import { describe, expect, test } from 'vitest';
import type { KubeObject, SourcedObject } from '../../../src/base/kube-object.js';
import { pinImages, rewriteImages } from '../../../src/image/pin.js';

const PINNED = `localhost:5000/team-a/web:abc@sha256:${'1'.repeat(64)}`;
const images = new Map([
  ['&web', PINNED],
  ['&web:v2', 'localhost:5000/team-a/web:v2@sha256:2'],
]);

const spec = () => ({
  initContainers: [{ name: 'init', image: '&web' }],
  containers: [
    { name: 'a', image: '&web' },
    { name: 'b', image: 'nginx:1.27' },
    { name: 'c', image: '&web:v2' },
    { name: 'd', image: '&other' },
  ],
  ephemeralContainers: [{ name: 'e', image: '&web' }],
});

const expected = () => ({
  initContainers: [{ name: 'init', image: PINNED }],
  containers: [
    { name: 'a', image: PINNED },
    { name: 'b', image: 'nginx:1.27' },
    { name: 'c', image: 'localhost:5000/team-a/web:v2@sha256:2' },
    { name: 'd', image: '&other' },
  ],
  ephemeralContainers: [{ name: 'e', image: PINNED }],
});

const meta = { name: 'x' };
const template = (s: unknown) => ({ metadata: { labels: { app: 'x' } }, spec: s });

describe('rewriteImages: every pod spec of every workload kind', () => {
  test.each<[string, (s: unknown) => KubeObject, (o: KubeObject) => unknown]>([
    ['Pod', (s) => ({ apiVersion: 'v1', kind: 'Pod', metadata: meta, spec: s }), (o) => o.spec],
    [
      'PodTemplate',
      (s) => ({ apiVersion: 'v1', kind: 'PodTemplate', metadata: meta, template: template(s) }),
      (o) => (o.template as { spec: unknown }).spec,
    ],
    ...(['ReplicationController', 'ReplicaSet', 'Deployment', 'StatefulSet', 'DaemonSet', 'Job'].map(
      (kind) => [
        kind,
        (s: unknown) => ({
          apiVersion: 'apps/v1',
          kind,
          metadata: meta,
          spec: { replicas: 1, template: template(s) },
        }),
        (o: KubeObject) => (o.spec as { template: { spec: unknown } }).template.spec,
      ],
    ) as [string, (s: unknown) => KubeObject, (o: KubeObject) => unknown][]),
    [
      'CronJob',
      (s) => ({
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        metadata: meta,
        spec: { schedule: '* * * * *', jobTemplate: { spec: { template: template(s) } } },
      }),
      (o) =>
        (o.spec as { jobTemplate: { spec: { template: { spec: unknown } } } }).jobTemplate.spec.template.spec,
    ],
  ])('%s', (_kind, make, specOf) => {
    const input = make(spec());
    const before = structuredClone(input);
    const out = rewriteImages(input, images);
    expect(specOf(out)).toEqual(expected());
    expect(input).toEqual(before);
    expect(out).not.toBe(input);
  });

  test('other kinds, objects without marked images and odd shapes come back as they are', () => {
    const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta, data: { image: '&web' } };
    expect(rewriteImages(cm, images)).toBe(cm);
    const plain: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: meta,
      spec: { containers: [{ image: 'nginx' }] },
    };
    expect(rewriteImages(plain, images)).toBe(plain);
    const odd: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: meta,
      spec: { containers: 'no', initContainers: [null, 3] },
    };
    expect(rewriteImages(odd, images)).toBe(odd);
    const noSpec: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta };
    expect(rewriteImages(noSpec, images)).toBe(noSpec);
    const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: meta, spec: spec() };
    expect(rewriteImages(pod, new Map())).toBe(pod);
  });
});

test('pinImages returns a new array, copies what changes and keeps sources', () => {
  const source = { file: 'web/web.ctr', line: 1 };
  const objects: SourcedObject[] = [
    { object: { apiVersion: 'v1', kind: 'Pod', metadata: meta, spec: spec() }, source },
    { object: { apiVersion: 'v1', kind: 'Service', metadata: meta }, source },
  ];
  const before = structuredClone(objects);
  const out = pinImages(objects, images);
  expect(out).not.toBe(objects);
  expect(out[0]!.source).toEqual(source);
  expect(out[0]!.object.spec).toEqual(expected());
  expect(out[1]!.object).toBe(objects[1]!.object);
  expect(objects).toEqual(before);
});
