import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import { locatedFailures } from '../../../src/core/errors.js';
import { ApplyError } from '../../../src/engine/apply/errors.js';
import { withFieldSources } from '../../../src/engine/apply/field-source.js';

const SERVICES = `apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Service
    metadata: {name: a}
    spec:
      ports: [{port: 80}]
  - apiVersion: v1
    kind: Service
    metadata:
      name: b
    spec:
      ports: [{port: 80}]
      selectr: {app: b}
`;

function root(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'spread-field-source-'));
  mkdirSync(path.join(dir, '.k2e'));
  writeFileSync(path.join(dir, '.k2e/svc.yaml'), SERVICES);
  return dir;
}

const service = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace: 'shop' },
  spec: { ports: [{ port: 80 }], ...extra },
});

test('a failure naming a field is placed at the field, in the message and as one located failure', () => {
  const error = new ApplyError('plan', [
    {
      object: { object: service('b', { selectr: { app: 'b' } }), source: { file: '.k2e/svc.yaml', line: 9 } },
      message:
        'failed to create typed patch object (shop/b; /v1, Kind=Service): .spec.selectr: field not declared in schema',
    },
    {
      object: { object: service('a'), source: { file: '.k2e/svc.yaml', line: 4 } },
      message: 'namespaces "shop" not found',
    },
  ]);
  const located = withFieldSources(error, root()) as ApplyError;
  expect(located).toBeInstanceOf(ApplyError);
  expect(located.phase).toBe('plan');
  expect(located.message).toContain('Service shop/b (.k2e/svc.yaml:15): failed to create typed patch object');
  expect(located.message).toContain('Service shop/a (.k2e/svc.yaml:4): namespaces "shop" not found');
  expect(locatedFailures(located).map((f) => `${f.file}:${f.line}`)).toEqual([
    '.k2e/svc.yaml:15',
    '.k2e/svc.yaml:4',
  ]);
});

test('an object its file no longer holds at that line keeps its own line', () => {
  const error = new ApplyError('plan', [
    {
      object: { object: service('b'), source: { file: '.k2e/svc.yaml', line: 10 } },
      message: 'unknown field "spec.selectr"',
    },
    {
      object: { object: service('c'), source: { file: '.k2e/gone.yaml', line: 1 } },
      message: 'unknown field "spec.selectr"',
    },
  ]);
  expect(withFieldSources(error, root())).toBe(error);
});

describe('a field of a container a *.ctr file declares is placed in that file', () => {
  const CTR = 'name: web\nimage: nginx:1.27\nports:\n  - containerPort: 99999\n';
  const sent: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop' },
    spec: {
      template: {
        spec: { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 99999 }] }] },
      },
    },
  };
  const message =
    'Deployment.apps "web" is invalid: spec.template.spec.containers[0].ports[0].containerPort: Invalid value: 99999: must be between 1 and 65535, inclusive';

  test.each([
    ['a controller file beside it', { file: 'app/deployment.yaml', line: 1 }, 'app/web.ctr:4'],
    ['a default Deployment of its folder', { file: 'app', line: 0 }, 'app/web.ctr:4'],
  ])('%s', (_, source, expected) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'spread-field-source-ctr-'));
    mkdirSync(path.join(dir, 'app'));
    writeFileSync(path.join(dir, 'app/web.ctr'), CTR);
    writeFileSync(path.join(dir, 'app/other.ctr'), 'name: other\nimage: nginx:1.27\n');
    writeFileSync(
      path.join(dir, 'app/deployment.yaml'),
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n',
    );
    const error = new ApplyError('plan', [{ object: { object: sent, source }, message }]);
    const located = withFieldSources(error, dir) as ApplyError;
    expect(locatedFailures(located).map((f) => `${f.file}:${f.line}`)).toEqual([expected]);
  });
});

test('a field an overlay patch sets is placed in the patch file; a field no patch holds stays in the base', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'spread-field-source-'));
  mkdirSync(path.join(dir, 'base'));
  mkdirSync(path.join(dir, 'prod'));
  writeFileSync(
    path.join(dir, 'base/deployment.yaml'),
    'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  paused: false\n',
  );
  writeFileSync(
    path.join(dir, 'prod/replicas.yaml'),
    'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: -3\n',
  );
  const object: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'prod-web', namespace: 'shop' },
    spec: { replicas: -3, paused: 'no' },
  };
  const source = {
    file: 'base/deployment.yaml',
    line: 1,
    patches: [{ file: 'prod/replicas.yaml', line: 1 }],
  };
  const error = new ApplyError('plan', [
    {
      object: { object, source },
      message: 'Deployment.apps "prod-web" is invalid: spec.replicas: Invalid value: -3',
    },
    {
      object: { object, source },
      message: 'Deployment.apps "prod-web" is invalid: spec.paused: Invalid value',
    },
  ]);
  const located = withFieldSources(error, dir) as ApplyError;
  expect(locatedFailures(located).map((f) => `${f.file}:${f.line}`)).toEqual([
    'prod/replicas.yaml:6',
    'base/deployment.yaml:7',
  ]);
});
