import { expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import { floatingTag, objectWarnings } from '../../../src/deployment/warnings.js';

const at = (object: KubeObject, line = 1) => ({ object, source: { file: 'x.yaml', line } });
const pod = (image: string) => ({ spec: { template: { spec: { containers: [{ name: 'c', image }] } } } });

test.each<[string, string | undefined]>([
  ['nginx', 'which has no tag (so :latest)'],
  ['nginx:latest', 'which is tagged :latest'],
  ['localhost:5000/web', 'which has no tag (so :latest)'],
  ['localhost:5000/web:1.2', undefined],
  ['nginx@sha256:abc', undefined],
  ['&web', undefined],
  ['', 'which is empty'],
])('floatingTag(%j)', (image, expected) => {
  expect(floatingTag(image)).toBe(expected);
});

test('objectWarnings: selector-less Services and floating images, with their place', () => {
  const warnings = objectWarnings([
    at(
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'lost', namespace: 'a' }, spec: { ports: [] } },
      3,
    ),
    at({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'ext', namespace: 'a' },
      spec: { type: 'ExternalName' },
    }),
    at({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'manual', namespace: 'a' }, spec: {} }),
    at({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'manual', namespace: 'a' } }),
    at({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'ok', namespace: 'a' },
      spec: { selector: { app: 'x' } },
    }),
    at({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, ...pod('nginx') }, 7),
    at({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'pinned' }, ...pod('nginx:1.27') }),
    at({
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'nightly' },
      spec: { jobTemplate: pod('busybox:latest') },
    }),
  ]);
  expect(warnings.map((w) => [w.source.line, w.message.split(':')[0]])).toEqual([
    [3, 'Service lost has no selector and no Endpoints or EndpointSlice in the directory'],
    [7, 'Deployment web'],
    [1, 'CronJob nightly'],
  ]);
  expect(warnings[1]!.message).toContain('container c uses "nginx", which has no tag');
});
