import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import { deploymentOf } from '../../../src/deployment/deployment.js';
import { dropServerFields, exportedWarning } from '../../../src/deployment/server-fields.js';
import { Application } from '../../../src/entity/entity.js';

/** A Deployment as `kubectl get deployment web -o yaml` prints it (shortened). */
function exported(): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'prod',
      uid: '0b7b6e7e-5d2c-4a55-9d5e-3f1a2b3c4d5e',
      resourceVersion: '1234',
      generation: 3,
      creationTimestamp: '2026-01-01T00:00:00Z',
      selfLink: '/apis/apps/v1/namespaces/prod/deployments/web',
      managedFields: [{ manager: 'kubectl', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: {} }],
      labels: { app: 'web' },
      annotations: { 'deployment.kubernetes.io/revision': '3' },
    },
    spec: { replicas: 2 },
    status: { replicas: 2, readyReplicas: 2 },
  };
}

describe('dropServerFields', () => {
  test('drops what the server populates, and status where the kind has a status subresource', () => {
    const o = exported();
    expect(dropServerFields(o, true)).toEqual([
      'uid',
      'resourceVersion',
      'creationTimestamp',
      'generation',
      'managedFields',
      'selfLink',
      'status',
    ]);
    expect(o).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'web',
        namespace: 'prod',
        labels: { app: 'web' },
        annotations: { 'deployment.kubernetes.io/revision': '3' },
      },
      spec: { replicas: 2 },
    });
  });

  test('keeps status where the kind has none as a subresource (it is data there)', () => {
    const o = exported();
    expect(dropServerFields(o, false)).not.toContain('status');
    expect(o.status).toEqual({ replicas: 2, readyReplicas: 2 });
  });

  test('what kubectl create --dry-run -o yaml writes (creationTimestamp: null, status: {}) goes without a name', () => {
    const o: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', creationTimestamp: null } as KubeObject['metadata'],
      status: {},
    };
    expect(dropServerFields(o, true)).toEqual([]);
    expect(o).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } });
  });
});

describe('exportedWarning', () => {
  test('one warning naming every file with its fields, files sorted', () => {
    const w = exportedWarning([
      { source: { file: '.k2e/b.yaml', line: 1 }, fields: ['uid', 'status'] },
      { source: { file: '.k2e/a.yaml', line: 4 }, fields: ['managedFields'] },
      { source: { file: '.k2e/b.yaml', line: 9 }, fields: ['resourceVersion'] },
    ]);
    expect(w).toEqual({
      source: { file: '.k2e/a.yaml', line: 4 },
      message:
        'server-populated fields dropped, as the API server sets them itself (manifests exported with kubectl get -o yaml?): .k2e/a.yaml (managedFields), .k2e/b.yaml (uid, resourceVersion, status)',
    });
    expect(exportedWarning([])).toBeUndefined();
  });
});

describe('deploymentOf: exported manifests', () => {
  test('objects of several files lose their server fields, with one warning for all; status by the built-in table without discovery', () => {
    const app = new Application('app', { file: '.', line: 0 });
    const cm: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', uid: 'u', resourceVersion: '7' },
      data: { a: 'b' },
    };
    app.objects.push(
      { object: exported(), source: { file: '.k2e/deploy.yaml', line: 1 } },
      { object: cm, source: { file: '.k2e/cm.yaml', line: 1 } },
    );
    const d = deploymentOf(app, { namespace: 'prod' });
    const objects = d.objects().map((o) => o.object);
    expect(objects.map((o) => Object.keys(o.metadata).sort())).toEqual([
      ['name', 'namespace'],
      ['annotations', 'labels', 'name', 'namespace'],
    ]);
    expect(objects[1]!.status).toBeUndefined();
    expect(d.warnings.map((w) => `${w.source.file}: ${w.message}`)).toEqual([
      '.k2e/cm.yaml: server-populated fields dropped, as the API server sets them itself (manifests exported with kubectl get -o yaml?): .k2e/cm.yaml (uid, resourceVersion), .k2e/deploy.yaml (uid, resourceVersion, creationTimestamp, generation, managedFields, selfLink, status)',
    ]);
  });

  test('discovery decides first: a custom resource kind with a status subresource loses its status', () => {
    const app = new Application('app', { file: '.', line: 0 });
    const cr: KubeObject = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      status: { phase: 'Ready' },
    };
    app.objects.push({ object: cr, source: { file: '.k2e/w.yaml', line: 1 } });
    const withStatus = deploymentOf(app, { namespace: 'n', hasStatusSubresource: () => true });
    expect(withStatus.objects()[0]!.object.status).toBeUndefined();
    const without = deploymentOf(app, { namespace: 'n', hasStatusSubresource: () => false });
    expect(without.objects()[0]!.object.status).toEqual({ phase: 'Ready' });
  });
});
