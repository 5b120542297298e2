import { expect, test } from 'vitest';
import { formatObject, formatObjectRef, type KubeObject } from '../../../src/base/kube-object.js';
import { revisionSecretName, spreadObjectName } from '../../../src/base/labels.js';

test.each([
  [{ kind: 'Deployment', name: 'web' }, {}, 'deployment/web'],
  [{ kind: 'Deployment', name: 'web', namespace: 'prod' }, {}, 'deployment/web -n prod'],
  [
    { kind: 'Deployment', name: 'web', namespace: 'prod', apiVersion: 'apps/v1' },
    { group: true },
    'deployment.apps/web',
  ],
  [{ kind: 'Service', name: 'web', apiVersion: 'v1' }, { group: true }, 'service/web'],
])('formatObjectRef(%o, %o) is %s', (ref, options, text) => {
  expect(formatObjectRef(ref, options)).toBe(text);
});

const object = (metadata: KubeObject['metadata'], apiVersion = 'apps/v1'): KubeObject => ({
  apiVersion,
  kind: 'Deployment',
  metadata,
});

test.each([
  [object({ name: 'web', namespace: 'prod' }), 'Deployment.apps prod/web'],
  [object({ name: 'web' }), 'Deployment.apps web'],
  [object({ generateName: 'smoke-' }, 'batch/v1'), 'Deployment.batch smoke-*'],
  [object({ name: 'ns' }, 'v1'), 'Deployment ns'],
])('formatObject names %o as %s', (o, text) => {
  expect(formatObject(o)).toBe(text);
});

test('a deployment’s own objects are named spread.<deployment>, revisions .v<N>', () => {
  expect(spreadObjectName('web')).toBe('spread.web');
  expect(revisionSecretName('web', 3)).toBe('spread.web.v3');
});
