import { describe, expect, test } from 'vitest';
import type { KubeObject, SourcedObject } from '../../../src/base/kube-object.js';
import { KubeApiError, type KubeRequest } from '../../../src/cluster/client.js';
import { applyObjects } from '../../../src/engine/apply/applier.js';
import { ApplyError } from '../../../src/engine/apply/errors.js';
import { declares, undeclaredFields } from '../../../src/engine/apply/schema-lag.js';
import { planObjects } from '../../../src/engine/plan/planner.js';
import type { ApplyOptions } from '../../../src/engine/shared/options.js';
import { FakeKube, fakeDiscovery, RESOURCES } from './fake-kube.js';

// A CRD gains a field and a custom resource uses it, in one deploy. The API server's custom resource
// handler takes the new schema some time after the CRD is written (and Established, which it already
// was): until then server-side apply answers 500 "field not declared in schema" (seen on v1.30.14).

const options: ApplyOptions = { fieldManager: 'spread', forceConflicts: false, concurrency: 4 };
const sourced = (object: KubeObject): SourcedObject => ({ object, source: { file: 'x.yaml', line: 1 } });
const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com';
const WIDGET_PATH = '/apis/example.com/v1/namespaces/app/widgets/wf';

const crd = (...fields: string[]): KubeObject => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', kind: 'Widget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: Object.fromEntries(['size', ...fields].map((f) => [f, { type: 'string' }])),
              },
            },
          },
        },
      },
    ],
  },
});
const widget = (spec: object): KubeObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'wf', namespace: 'app' },
  spec,
});

const oldSchemaAnswer = (field: string) =>
  new KubeApiError(
    500,
    `PATCH ${WIDGET_PATH}`,
    {
      kind: 'Status',
      code: 500,
      message: `failed to create typed patch object (app/wf; example.com/v1, Kind=Widget): .spec.${field}: field not declared in schema`,
    },
    '',
  );

/** The cluster holds the CRD (Established) without `shade`, and the Widget without it. */
function cluster(): FakeKube {
  const kube = new FakeKube();
  kube.objects.set(CRD_PATH, {
    ...crd(),
    metadata: { name: 'widgets.example.com', uid: 'u', resourceVersion: '1' },
    status: { conditions: [{ type: 'Established', status: 'True' }] },
  });
  kube.objects.set(WIDGET_PATH, { ...widget({ size: '1' }), metadata: { ...widget({}).metadata, uid: 'w' } });
  return kube;
}

const discovery = () =>
  fakeDiscovery([
    ...RESOURCES,
    { group: 'example.com', version: 'v1', kind: 'Widget', resource: 'widgets', namespaced: true },
  ]);
const byKind = (o: SourcedObject) => (o.object.kind === 'CustomResourceDefinition' ? 0 : 1);

async function deploy(kube: FakeKube, objects: KubeObject[]) {
  const plan = await planObjects(kube, discovery(), objects.map(sourced), options);
  kube.log.length = 0;
  return applyObjects(kube, discovery(), plan, byKind, options);
}

describe('a custom resource applied while the server still holds its CRD’s old schema', () => {
  test('the refusal of a field the new schema declares is retried until the server takes it', async () => {
    const kube = cluster();
    let stale = 3;
    kube.refuse = (req: KubeRequest) =>
      req.path === WIDGET_PATH && req.method === 'PATCH' && stale-- > 0
        ? oldSchemaAnswer('shade')
        : undefined;
    const applied = await deploy(kube, [crd('shade'), widget({ size: '1', shade: 'dark' })]);
    expect(applied.map((a) => `${a.object.kind} ${a.action}`)).toEqual([
      'CustomResourceDefinition configured',
      'Widget configured',
    ]);
    expect(kube.log.filter((l) => l.startsWith('PATCH dry /apis/example.com'))).toHaveLength(4);
    expect(kube.objects.get(WIDGET_PATH)?.spec).toEqual({ size: '1', shade: 'dark' });
  });

  test('a field the new schema does not declare either fails at once', async () => {
    const kube = cluster();
    kube.refuse = (req: KubeRequest) =>
      req.path === WIDGET_PATH && req.method === 'PATCH' ? oldSchemaAnswer('shine') : undefined;
    const started = Date.now();
    const error = await deploy(kube, [crd('shade'), widget({ size: '1', shine: 'yes' })]).catch((e) => e);
    expect(error).toBeInstanceOf(ApplyError);
    expect((error as ApplyError).message).toMatch(/\.spec\.shine: field not declared in schema/);
    expect(kube.log.filter((l) => l.startsWith('PATCH dry /apis/example.com'))).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('reading the refusal and the schema', () => {
  test.each([
    [
      'failed to create typed patch object (a/b; g/v1, Kind=W): .spec.x: field not declared in schema',
      ['.spec.x'],
    ],
    [
      'failed to create typed patch object (a/b; g/v1, Kind=W): errors:\n  .spec.x: field not declared in schema\n  .spec.ports[name="a.b"].y: field not declared in schema',
      ['.spec.x', '.spec.ports[name="a.b"].y'],
    ],
    [
      'failed to create typed patch object (a/b; g/v1, Kind=W): errors:\n  .spec.x: field not declared in schema\n  .spec.size: expected numeric, got string',
      undefined,
    ],
    [
      'failed to create typed patch object (a/b; g/v1, Kind=W): .spec.size: expected numeric, got string',
      undefined,
    ],
  ])('%s', (message, paths) => {
    expect(undeclaredFields(new KubeApiError(500, 'PATCH x', { message }, ''))).toEqual(paths);
  });

  const schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          ports: { type: 'array', items: { type: 'object', properties: { y: { type: 'string' } } } },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
          raw: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
    },
  };
  test.each([
    ['.spec.ports[name="a.b"].y', true],
    ['.spec.ports[0].z', false],
    ['.spec.labels.anything', true],
    ['.spec.raw.deep.down', true],
    ['.spec.other', false],
    ['.metadata.labels', true],
  ])('declares %s: %s', (path, expected) => {
    expect(declares(schema, path)).toBe(expected);
  });
});
