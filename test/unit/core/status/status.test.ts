import { describe, expect, test } from 'vitest';
import { silentLogger } from '../../../../src/base/logger.js';
import { formatStatusText } from '../../../../src/cli/status-text.js';
import {
  type ClusterState,
  objectKey,
  type StatusReport,
  statesOfPlan,
  status,
  statusExitCode,
  statusOf,
} from '../../../../src/core/status.js';
import { deploymentOf, type SourcedObject } from '../../../../src/deployment/index.js';
import type { PlannedObject } from '../../../../src/engine/shared/planned.js';
import { DirectoryInput } from '../../../../src/input/index.js';
import { healthRule } from '../../../../src/project/health.js';

const read = async (dir: string) => {
  const application = await new DirectoryInput(dir).entity();
  return { application, deployment: deploymentOf(application, { namespace: 'ns' }) };
};

const obj = (kind: string, name: string, file: string, line = 1): SourcedObject => ({
  object: { apiVersion: 'v1', kind, metadata: { name, namespace: 'ns' } },
  source: { file, line },
});

describe('statesOfPlan: plan action → state', () => {
  const change = { op: 'change' as const, path: 'spec.ports[0].port', before: '80', after: '8080' };
  test.each([
    ['create', {}, { state: 'missing' }],
    [
      'create',
      { deferred: 'its Namespace x is created by this deploy' },
      { state: 'missing', message: 'its Namespace x is created by this deploy' },
    ],
    ['unchanged', {}, { state: 'in sync' }],
    [
      'unchanged',
      { foreign: [{ manager: 'helm', fields: ['data.b'] }] },
      {
        state: 'differs',
        message:
          'helm owns data.b, which the directory does not declare: a deploy leaves it; adopting takes it over and removes it (⟦adopt⟧), or declare it in the directory',
      },
    ],
    ['update', { changes: [change] }, { state: 'differs', changes: [change] }],
    [
      'replace',
      { deferred: 'immutable fields change: spec.selector' },
      { state: 'differs', message: 'immutable fields change: spec.selector' },
    ],
  ] as const)('%s %o → %o', (action, extra, expected) => {
    const o = obj('Service', 'web', '.k2e/svc.yaml');
    const planned = { ...o, resource: undefined, action, ...extra } as PlannedObject;
    expect(statesOfPlan([planned]).get(objectKey(o))).toEqual(expected);
  });

  test("an existing object whose GroupKind has a health rule has its health by the rule (spread.yaml's, or shipped)", () => {
    const db: SourcedObject = {
      object: {
        apiVersion: 'example.com/v1',
        kind: 'Database',
        metadata: { name: 'db', namespace: 'ns', generation: 1 },
      },
      source: { file: '.k2e/db.yaml', line: 1 },
    };
    const rollout: SourcedObject = {
      object: {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Rollout',
        metadata: { name: 'web', namespace: 'ns', generation: 2 },
      },
      source: { file: '.k2e/web.yaml', line: 1 },
    };
    const planned = (o: SourcedObject, status: object): PlannedObject =>
      ({ ...o, resource: undefined, action: 'unchanged', live: { ...o.object, status } }) as PlannedObject;
    const health = new Map([
      [
        'Database.example.com',
        healthRule(
          'Database.example.com',
          { current: "status.phase == 'Ready'", failed: "status.phase == 'Failed'" },
          { file: 'spread.yaml', line: 3 },
        ),
      ],
    ]);
    const states = statesOfPlan(
      [planned(db, { phase: 'Failed' }), planned(rollout, { observedGeneration: '2', phase: 'Healthy' })],
      [],
      health,
    );
    expect(states.get(objectKey(db))).toEqual({
      state: 'in sync',
      health: {
        status: 'Failed',
        message:
          "failed by its health rule of Database.example.com (spread.yaml:3): failed: status.phase == 'Failed'",
      },
    });
    expect(states.get(objectKey(rollout))?.health).toEqual({
      status: 'Current',
      message: 'current by its health rule of Rollout.argoproj.io (shipped with spread)',
    });
    // Without a rule (none given, none shipped), no health: the state against the directory only.
    expect(statesOfPlan([planned(db, { phase: 'Failed' })]).get(objectKey(db))).toEqual({ state: 'in sync' });
  });

  test('a failure is rejected with the server message', () => {
    const o = obj('ConfigMap', 'bad', '.k2e/cm.yaml', 4);
    expect(statesOfPlan([], [{ object: o, message: 'spec: unknown field' }]).get(objectKey(o))).toEqual({
      state: 'rejected',
      message: 'spec: unknown field',
    });
  });

  test('the key ties a labelled copy to the object of the tree: GroupKind, name and source', () => {
    const o = obj('Service', 'web', '.k2e/svc.yaml', 3);
    const labelled = {
      ...o,
      object: { ...o.object, metadata: { ...o.object.metadata, labels: { a: 'b' } } },
    };
    expect(objectKey(labelled)).toBe(objectKey(o));
    expect(objectKey(o)).toBe('Service|web|.k2e/svc.yaml:3');
  });
});

describe('statusOf without a cluster', () => {
  test('the entity tree of examples/mattermost: sources, the object of each entity, attached objects, images', async () => {
    const { application, deployment } = await read('examples/mattermost');
    const report = statusOf(application, deployment, { namespace: 'ns' });
    expect(report).toEqual({
      deployment: 'mattermost',
      namespace: 'ns',
      root: {
        type: 'Application',
        name: 'mattermost',
        source: '.',
        objects: [],
        children: [
          {
            type: 'ReplicationController',
            name: 'mattermost',
            source: 'rc.yml:3',
            object: {
              apiVersion: 'v1',
              kind: 'ReplicationController',
              namespace: 'ns',
              name: 'mattermost',
              source: 'rc.yml:3',
            },
            objects: [
              {
                apiVersion: 'v1',
                kind: 'Secret',
                namespace: 'ns',
                name: 'mattermost-db',
                source: '.k2e/secret.yaml:2',
              },
              {
                apiVersion: 'v1',
                kind: 'Service',
                namespace: 'ns',
                name: 'mattermost',
                source: '.k2e/service.yaml:1',
              },
            ],
            children: [
              {
                type: 'Pod',
                name: 'mattermost',
                source: 'rc.yml:12',
                template: true,
                objects: [],
                children: [
                  {
                    type: 'Container',
                    name: 'app',
                    source: 'app.ctr:2',
                    objects: [],
                    children: [
                      {
                        type: 'Image',
                        name: 'mattermost/mattermost-team-edition:9.11',
                        source: 'app.ctr:3',
                        image: { reference: 'mattermost/mattermost-team-edition:9.11' },
                        objects: [],
                        children: [],
                      },
                    ],
                  },
                  expect.objectContaining({ type: 'Container', name: 'db', source: 'db.ctr:2' }),
                ],
              },
            ],
          },
        ],
      },
      counts: { objects: 3, compared: false, missing: 0, inSync: 0, differs: 0, rejected: 0 },
      warnings: [],
    } satisfies StatusReport);
  });

  test('init containers and & builds are marked', async () => {
    const { application, deployment } = await read('test/fixtures/good/init-containers');
    const report = statusOf(application, deployment, { namespace: 'ns' });
    const pod = report.root.children[0]?.children[0];
    expect(pod?.children.map((c) => [c.name, c.init ?? false, c.children[0]?.image])).toEqual([
      ['migrate', true, { reference: '&migrate', build: { context: '.' } }],
      ['wait-db', true, { reference: 'busybox:1.36' }],
      ['app', false, { reference: '&shop:dev', build: { context: '.' } }],
    ]);
    expect(formatStatusText(report)).toBe(
      [
        'Application init-containers  (namespace ns, not compared with a cluster)',
        '└─ Deployment shop  deployment.yaml:3',
        '   ├─ Pod template  deployment.yaml:7',
        '   │  ├─ init Container migrate  deployment.yaml:9',
        '   │  │  └─ Image &migrate  deployment.yaml:10  (build from ./)',
        '   │  ├─ init Container wait-db  deployment.yaml:12',
        '   │  │  └─ Image busybox:1.36  deployment.yaml:13',
        '   │  └─ Container app  app.ctr:1',
        '   │     └─ Image &shop:dev  app.ctr:1  (build from ./)',
        '   └─ Service shop  .k2e/svc.yaml:1',
        '2 objects (give --context to compare them with a cluster)',
        '',
      ].join('\n'),
    );
  });

  test('objects attached at the top and several entities (nested layout)', async () => {
    const { application, deployment } = await read('test/fixtures/good/nested');
    const report = statusOf(application, deployment, { namespace: 'ns' });
    expect(report.root.objects.map((o) => `${o.kind} ${o.name} ${o.source}`)).toEqual([
      'Namespace nested .k2e/ns.yaml:1',
    ]);
    expect(report.root.children.map((c) => `${c.type} ${c.name} ${c.source}`)).toEqual([
      'DaemonSet agent agent/daemonset.yaml:1',
      'StatefulSet db backend/statefulset.yaml:1',
      'Deployment frontend frontend/deployment.yaml:1',
    ]);
    expect(report.counts.objects).toBe(deployment.size);
  });

  test('status() reads the directory without a cluster; the namespace defaults to default', async () => {
    const report = await status({ path: 'examples/mattermost', logger: silentLogger });
    expect(report.namespace).toBe('default');
    expect(report.context).toBeUndefined();
    expect(report.notInDirectory).toBeUndefined();
    expect(report.root.children[0]?.object?.namespace).toBe('default');
  });
});

describe('statusOf with cluster states', () => {
  test('states, changes and counts; an object the plan did not answer for is missing', async () => {
    const { application, deployment } = await read('examples/mattermost');
    const [secret, service, rc] = deployment.objects();
    const states = new Map<string, ClusterState>([
      [objectKey(rc!), { state: 'in sync' }],
      [
        objectKey(service!),
        {
          state: 'differs',
          changes: [{ op: 'change', path: 'spec.ports[0].port', before: '80', after: '8080' }],
        },
      ],
    ]);
    expect(secret?.object.kind).toBe('Secret');
    const report = statusOf(application, deployment, {
      namespace: 'ns',
      context: 'spread-local',
      states,
      notInDirectory: [obj('ConfigMap', 'old', '.k2e/old.yaml', 2)],
    });
    expect(report.counts).toEqual({
      objects: 3,
      compared: true,
      missing: 1,
      inSync: 1,
      differs: 1,
      rejected: 0,
    });
    expect(report.notInDirectory).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'old', source: '.k2e/old.yaml:2' },
    ]);
    expect(formatStatusText(report)).toBe(
      [
        'Application mattermost  (namespace ns, context spread-local)',
        '└─ ReplicationController mattermost  rc.yml:3  in sync',
        '   ├─ Pod template  rc.yml:12',
        '   │  ├─ Container app  app.ctr:2',
        '   │  │  └─ Image mattermost/mattermost-team-edition:9.11  app.ctr:3',
        '   │  └─ Container db  db.ctr:2',
        '   │     └─ Image postgres:16  db.ctr:3',
        '   ├─ Secret mattermost-db  .k2e/secret.yaml:2  missing',
        '   └─ Service mattermost  .k2e/service.yaml:1  differs (1 field)',
        '          ~ spec.ports[0].port: 80 → 8080',
        'In the cluster but not in the directory (deploy prunes them):',
        '  ConfigMap old  .k2e/old.yaml:2',
        '3 objects: 1 in sync, 1 differ, 1 missing',
        '',
      ].join('\n'),
    );
    // The JSON shape is the report itself: plain data, no class instances.
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
  });
});

describe('status text of an object in sync for a reason', () => {
  test('the reason is shown (a Job that deleted itself once finished)', async () => {
    const { application, deployment } = await read('examples/mattermost');
    const rc = deployment.objects()[2]!;
    const message = 'finished and removed by its ttlSecondsAfterFinished (0) after revision 3 ran it';
    const report = statusOf(application, deployment, {
      namespace: 'ns',
      context: 'spread-local',
      states: new Map<string, ClusterState>([[objectKey(rc), { state: 'in sync', message }]]),
    });
    expect(formatStatusText(report)).toContain(
      `└─ ReplicationController mattermost  rc.yml:3  in sync (${message})`,
    );
  });
});

describe('statusExitCode: 0 in sync, 2 differs, 1 error (as diff and kapp diff --exit-status)', () => {
  const counts = { objects: 3, compared: true, missing: 0, inSync: 3, differs: 0, rejected: 0 };
  const obj = { apiVersion: 'v1', kind: 'ConfigMap', name: 'old', source: 'a.yaml:1' };
  test.each<[string, Parameters<typeof statusExitCode>[0], number]>([
    ['no cluster asked', { counts: { ...counts, compared: false, inSync: 0 } }, 0],
    ['all in sync', { counts, notInDirectory: [] }, 0],
    ['one missing', { counts: { ...counts, inSync: 2, missing: 1 }, notInDirectory: [] }, 2],
    ['one differs', { counts: { ...counts, inSync: 2, differs: 1 }, notInDirectory: [] }, 2],
    ['in sync, but a deploy would prune one', { counts, notInDirectory: [obj] }, 2],
    [
      'one rejected and one differs: the error wins',
      { counts: { ...counts, inSync: 1, differs: 1, rejected: 1 } },
      1,
    ],
  ])('%s', (_, report, code) => {
    expect(statusExitCode(report)).toBe(code);
  });
});
