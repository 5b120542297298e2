// Drift from a status report: who changed each field (managedFields as the API server records kubectl
// scale, kubectl edit, an HPA and kubectl rollout restart), and what the built-in and project rules leave out.
import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import { managersOf, ownersOf, pathSteps } from '../../../src/cluster/managers.js';
import { driftOf, pointerCovers, RESTARTED_AT } from '../../../src/core/drift-rules.js';
import {
  type ObjectStatus,
  objectKey,
  type StatusReport,
  statesOfPlan,
} from '../../../src/core/status-report.js';
import type { PlannedObject } from '../../../src/engine/shared/planned.js';
import type { DriftIgnoreRule } from '../../../src/project/drift.js';

// managedFields as kube-apiserver 1.34 recorded them after `kubectl scale`, an HPA's scale and
// `kubectl rollout restart` on a Deployment applied by spread (seen on the local cluster).
const deployment: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'shop',
    managedFields: [
      {
        manager: 'spread',
        operation: 'Apply',
        time: '2026-12-07T07:24:53Z',
        fieldsV1: {
          'f:spec': {
            'f:selector': {},
            'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {} } } } },
          },
        },
      },
      {
        manager: 'kubectl',
        operation: 'Update',
        subresource: 'scale',
        fieldsV1: { 'f:spec': { 'f:replicas': {} } },
      },
      {
        manager: 'kube-controller-manager',
        operation: 'Update',
        subresource: 'status',
        time: '2026-12-07T07:25:26Z',
        fieldsV1: { 'f:status': { 'f:replicas': {} } },
      },
      {
        manager: 'kubectl-rollout',
        operation: 'Update',
        time: '2026-12-07T07:25:26Z',
        fieldsV1: {
          'f:spec': {
            'f:template': {
              'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/restartedAt': {} } },
            },
          },
        },
      },
    ],
  },
};

const configMap: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: 'cfg',
    namespace: 'shop',
    managedFields: [
      {
        manager: 'kubectl-edit',
        operation: 'Update',
        time: '2026-12-07T07:24:54Z',
        fieldsV1: { 'f:data': { 'f:a': {} } },
      },
    ],
  },
};

describe('managersOf', () => {
  test('every manager but spread’s Apply and status, with fields in the notation of a change', () => {
    expect(managersOf(deployment, 'spread')).toEqual([
      { manager: 'kubectl', operation: 'Update', subresource: 'scale', fields: ['spec.replicas'] },
      {
        manager: 'kubectl-rollout',
        operation: 'Update',
        time: '2026-12-07T07:25:26Z',
        fields: ['spec.template.metadata.annotations["kubectl.kubernetes.io/restartedAt"]'],
      },
    ]);
  });

  test('a change is owned by the manager whose field it is', () => {
    const m = [{ manager: 'x', fields: ['spec.template.spec.containers[name=c].image'] }];
    const live = { spec: { template: { spec: { containers: [{ name: 'c', image: 'i' }] } } } };
    expect(ownersOf('spec.template.spec.containers[0].image', m, live).owners).toHaveLength(1);
    expect(ownersOf('spec.template.spec.containers[0].name', m, live).owners).toHaveLength(0);
    expect(pathSteps('a["b.c"][2].d', true)).toEqual(['a', 'b.c', '2', 'd']);
  });

  // managedFields as server-side apply keeps them: each item by its key (k:), value (v:) or index (i:).
  const live = {
    spec: {
      containers: [
        { name: 'a', image: 'x' },
        { name: 'b', image: 'y' },
      ],
    },
    metadata: { finalizers: ['one', 'two'] },
    data: { list: [[1], [2]] },
  };
  const managers = [
    { manager: 'owns-a', fields: ['spec.containers[name=a].image'] },
    { manager: 'owns-b', fields: ['spec.containers[name=b].image'] },
    { manager: 'owns-two', fields: ['metadata.finalizers[="two"]'] },
    { manager: 'owns-index-1', fields: ['data.list[1]'] },
    { manager: 'owns-list', fields: ['spec.volumes'] },
  ];
  test.each([
    ['spec.containers[1].image', live, ['owns-b'], undefined],
    ['spec.containers[0].image', live, ['owns-a'], undefined],
    ['metadata.finalizers[1]', live, ['owns-two'], undefined],
    ['metadata.finalizers[0]', live, [], undefined],
    ['data.list[1]', live, ['owns-index-1'], undefined],
    ['spec.volumes[0].name', { spec: { volumes: [{ name: 'v' }] } }, ['owns-list'], 'spec.volumes'],
    // Without the live object the item's key is unknown: the list's owners, and said so.
    ['spec.volumes[0].name', undefined, ['owns-list'], 'spec.volumes'],
  ])('%s: owned by %o (list %s)', (path, obj, owners, list) => {
    const found = ownersOf(path, managers, obj);
    expect(found.owners.map((m) => m.manager)).toEqual(owners);
    expect(found.list).toBe(list);
  });
});

function objectStatus(o: Partial<ObjectStatus> & Pick<ObjectStatus, 'kind' | 'name'>): ObjectStatus {
  return { apiVersion: 'v1', namespace: 'shop', source: 'x.yaml:1', state: 'differs', ...o };
}

function report(objects: ObjectStatus[]): StatusReport {
  return {
    deployment: 'web',
    namespace: 'shop',
    context: 'prod',
    root: { type: 'Application', name: 'web', source: '.', objects, children: [] },
    counts: { objects: objects.length, compared: true, missing: 0, inSync: 0, differs: 0, rejected: 0 },
    warnings: [],
  } as unknown as StatusReport;
}

const scaled = objectStatus({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  name: 'web',
  source: 'deployment.yaml:1',
  changes: [{ op: 'change', path: 'spec.replicas', before: '2', after: '1' }],
  managers: managersOf(deployment, 'spread'),
  foreign: [
    {
      manager: 'kubectl-rollout',
      fields: ['spec.template.metadata.annotations.kubectl.kubernetes.io/restartedAt'],
    },
  ],
});
const edited = objectStatus({
  kind: 'ConfigMap',
  name: 'cfg',
  changes: [{ op: 'change', path: 'data.a', before: '"2"', after: '"1"' }],
  managers: managersOf(configMap, 'spread'),
});

describe('driftOf', () => {
  test('kubectl scale and kubectl edit: both objects, their fields and who changed them', () => {
    const d = driftOf(
      report([scaled, edited, objectStatus({ kind: 'Service', name: 's', state: 'in sync' })]),
      {
        hpaTargets: new Set(),
        rules: [],
      },
    );
    expect(d.drifted).toBe(true);
    expect(
      d.objects.map((o) => [
        o.kind,
        o.name,
        o.fields.map((f) => [f.path, f.changedBy.map((m) => m.manager)]),
      ]),
    ).toEqual([
      ['Deployment', 'web', [['spec.replicas', ['kubectl']]]],
      ['ConfigMap', 'cfg', [['data.a', ['kubectl-edit']]]],
    ]);
    expect(d.objects[1]?.fields[0]?.changedBy[0]).toEqual({
      manager: 'kubectl-edit',
      operation: 'Update',
      time: '2026-12-07T07:24:54Z',
    });
    // The rollout restart's annotation was never declared: not drift, and said why.
    expect(d.ignored.map((i) => [i.object, i.rule])).toEqual([['Deployment/web', 'restarted-at']]);
  });

  test.each([
    ['kubectl-edit', 'metadata.labels.team', true],
    ['kubectl-patch', 'data.extra', true],
    ['kubectl-label', 'metadata.labels.team', true],
    ['kubectl-annotate', 'metadata.annotations.example.com/owner', true],
    ['kubectl-set', 'spec.template.spec.containers[name=c].env[name=DEBUG].value', true],
    ['kubectl-client-side-apply', 'data.extra', true],
    ['kubectl-rollout', 'spec.template.metadata.annotations.kubectl.kubernetes.io/restartedAt', false],
    ['vault-agent-injector', 'spec.template.spec.containers[name=vault-agent].image', false],
    ['Go-http-client', 'metadata.labels.team', false],
  ])('a field %s added that the directory does not declare: drift %s', (manager, path, drift) => {
    const o = objectStatus({
      kind: 'ConfigMap',
      name: 'cfg',
      message: 'someone owns fields the directory does not declare',
      foreign: [{ manager, fields: [path], values: ['"x"'] }],
      managers: [{ manager, operation: 'Update', time: '2026-12-07T08:00:00Z', fields: [path] }],
    });
    const d = driftOf(report([o]), { hpaTargets: new Set(), rules: [] });
    expect(d.drifted).toBe(drift);
    if (drift)
      expect(d.objects[0]?.fields).toEqual([
        {
          op: 'remove',
          path,
          before: '"x"',
          changedBy: [{ manager, operation: 'Update', time: '2026-12-07T08:00:00Z' }],
        },
      ]);
    else expect(d.ignored.map((i) => i.path)).toEqual([path]);
  });

  test('replicas of an object an HPA targets are not drift', () => {
    const d = driftOf(report([scaled]), { hpaTargets: new Set(['Deployment/shop/web']), rules: [] });
    expect(d.drifted).toBe(false);
    expect(d.ignored.map((i) => [i.path, i.rule])).toContainEqual(['spec.replicas', 'hpa']);
  });

  test('a declared restartedAt annotation changed by kubectl rollout restart is not drift', () => {
    const restarted = objectStatus({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'web',
      changes: [
        {
          op: 'change',
          path: 'spec.template.metadata.annotations["kubectl.kubernetes.io/restartedAt"]',
          before: '"b"',
          after: '"a"',
        },
      ],
    });
    expect(driftOf(report([restarted]), { hpaTargets: new Set(), rules: [] }).drifted).toBe(false);
  });

  // The real diff of `kubectl rollout restart` when the template had no annotations: the whole map.
  test.each([
    ['the restartedAt annotation alone', false, { [RESTARTED_AT]: '2026-12-07T11:00:00Z' }],
    ['restartedAt and another key', true, { [RESTARTED_AT]: '2026-12-07T11:00:00Z', team: 'a' }],
  ])('a template annotations map added whole with %s: drift %s', (_, drift, map) => {
    const restarted = objectStatus({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'web',
      changes: [{ op: 'remove', path: 'spec.template.metadata.annotations', before: JSON.stringify(map) }],
    });
    const d = driftOf(report([restarted]), { hpaTargets: new Set(), rules: [] });
    expect(d.drifted).toBe(drift);
    if (!drift)
      expect(d.ignored.map((i) => [i.path, i.rule])).toEqual([
        ['spec.template.metadata.annotations["kubectl.kubernetes.io/restartedAt"]', 'restarted-at'],
      ]);
    else expect(d.objects[0]?.fields.map((f) => f.path)).toEqual(['spec.template.metadata.annotations']);
  });

  // As status reports it (Kubernetes 1.34): kubectl-rollout owns the key, the foreign field is the map.
  test('kubectl rollout restart of a template without annotations, as status reports it: not drift', () => {
    const at = '2026-12-07T11:02:51Z';
    const restarted = (map: Record<string, string>) =>
      objectStatus({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: 'web',
        message:
          'kubectl-rollout owns spec.template.metadata.annotations, which the directory does not declare',
        managers: [
          {
            manager: 'kubectl-rollout',
            operation: 'Update',
            time: at,
            fields: Object.keys(map).map((k) => `spec.template.metadata.annotations[${JSON.stringify(k)}]`),
          },
        ],
        foreign: [
          {
            manager: 'kubectl-rollout',
            fields: ['spec.template.metadata.annotations'],
            values: [JSON.stringify(map)],
          },
        ],
      });
    const d = driftOf(report([restarted({ [RESTARTED_AT]: at })]), { hpaTargets: new Set(), rules: [] });
    expect(d.drifted).toBe(false);
    expect(d.ignored.map((i) => [i.path, i.rule])).toEqual([
      ['spec.template.metadata.annotations["kubectl.kubernetes.io/restartedAt"]', 'restarted-at'],
    ]);
    const more = driftOf(report([restarted({ [RESTARTED_AT]: at, team: 'a' })]), {
      hpaTargets: new Set(),
      rules: [],
    });
    expect(more.objects[0]?.fields.map((f) => [f.path, f.changedBy[0]?.manager])).toEqual([
      ['spec.template.metadata.annotations', 'kubectl-rollout'],
    ]);
  });

  test('project rules: jsonPointers and managedFieldsManagers, only on the objects they select', () => {
    const rule = (r: Partial<DriftIgnoreRule>): DriftIgnoreRule => ({
      group: '*',
      kind: '*',
      jsonPointers: [],
      managedFieldsManagers: [],
      source: 'spread.yaml:3',
      ...r,
    });
    const by = (rules: DriftIgnoreRule[]) =>
      driftOf(report([scaled, edited]), { hpaTargets: new Set(), rules }).objects.map((o) => o.name);
    expect(by([rule({ group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/replicas'] })])).toEqual([
      'cfg',
    ]);
    expect(
      by([rule({ group: 'apps', kind: 'Deployment', name: 'other', jsonPointers: ['/spec/replicas'] })]),
    ).toEqual(['web', 'cfg']);
    expect(by([rule({ group: '', kind: 'ConfigMap', managedFieldsManagers: ['kubectl-edit'] })])).toEqual([
      'web',
    ]);
    expect(by([rule({ group: 'apps', kind: 'ConfigMap', managedFieldsManagers: ['kubectl-edit'] })])).toEqual(
      ['web', 'cfg'],
    );
  });

  test('missing and rejected objects and what a deploy would prune are drift', () => {
    const r = {
      ...report([objectStatus({ kind: 'Secret', name: 'gone', state: 'missing' })]),
      notInDirectory: [objectStatus({ kind: 'ConfigMap', name: 'old', state: undefined })],
    };
    expect(driftOf(r, { hpaTargets: new Set(), rules: [] }).objects.map((o) => [o.name, o.state])).toEqual([
      ['gone', 'missing'],
      ['old', 'not in directory'],
    ]);
  });

  test('JSON pointers: ~1 is a slash, a pointer covers what is below it', () => {
    expect(pointerCovers('/metadata/annotations/a~1b', ['metadata', 'annotations', 'a/b'])).toBe(true);
    expect(pointerCovers('/spec', ['spec', 'replicas'])).toBe(true);
    expect(pointerCovers('/spec/replicas', ['spec'])).toBe(false);
  });
});

describe('blame of a changed list item, from the plan to the drift', () => {
  test("a change of one container is blamed on that container's manager only", () => {
    const container = (name: string) => ({ [`k:{"name":"${name}"}`]: { '.': {}, 'f:image': {} } });
    const live: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'p',
        namespace: 'shop',
        managedFields: [
          {
            manager: 'kubectl-edit',
            operation: 'Update',
            fieldsV1: { 'f:spec': { 'f:containers': container('a') } },
          },
          {
            manager: 'kubectl-set',
            operation: 'Update',
            fieldsV1: { 'f:spec': { 'f:containers': container('b') } },
          },
        ],
      },
      spec: {
        containers: [
          { name: 'a', image: 'x' },
          { name: 'b', image: 'y' },
        ],
      },
    };
    const change = { op: 'change' as const, path: 'spec.containers[1].image', before: '"y"', after: '"z"' };
    const planned = {
      object: live,
      source: { file: 'p.yaml', line: 1 },
      live,
      action: 'update',
      changes: [change],
    } as unknown as PlannedObject;
    const state = statesOfPlan([planned]).get(objectKey(planned))!;
    const d = driftOf(report([objectStatus({ kind: 'Pod', name: 'p', ...state })]), {
      hpaTargets: new Set(),
      rules: [],
    });
    expect(
      d.objects[0]?.fields.map((f) => [f.path, f.changedBy.map((m) => m.manager), f.ownersOfList]),
    ).toEqual([['spec.containers[1].image', ['kubectl-set'], undefined]]);
  });
});

describe('managedFieldsManagers ignores only the fields the listed managers own (as Argo CD)', () => {
  // Two managers on one Pod: the sidecar injector owns its container, kubectl-patch a field of web's.
  const live: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'p',
      namespace: 'shop',
      managedFields: [
        {
          manager: 'vault-agent',
          operation: 'Update',
          fieldsV1: {
            'f:spec': {
              'f:containers': {
                'k:{"name":"vault"}': { '.': {}, 'f:image': {}, 'f:imagePullPolicy': {} },
              },
            },
          },
        },
        {
          manager: 'kubectl-patch',
          operation: 'Update',
          fieldsV1: { 'f:spec': { 'f:containers': { 'k:{"name":"web"}': { 'f:image': {} } } } },
        },
      ],
    },
    spec: {
      containers: [
        { name: 'web', image: 'web:2' },
        { name: 'vault', image: 'vault:1', imagePullPolicy: 'Always' },
      ],
    },
  };
  const rule: DriftIgnoreRule = {
    group: '',
    kind: 'Pod',
    jsonPointers: [],
    managedFieldsManagers: ['vault-agent'],
    source: 'spread.yaml:4',
  };
  const driftFor = (path: string) => {
    const change = { op: 'change' as const, path, before: '"a"', after: '"b"' };
    const planned = {
      object: live,
      source: { file: 'p.yaml', line: 1 },
      live,
      action: 'update',
      changes: [change],
    } as unknown as PlannedObject;
    const state = statesOfPlan([planned]).get(objectKey(planned))!;
    return driftOf(report([objectStatus({ kind: 'Pod', name: 'p', ...state })]), {
      hpaTargets: new Set(),
      rules: [rule],
    });
  };

  test.each([
    ['spec.containers[1].image', false, 'the listed manager owns it'],
    ['spec.containers[0].image', true, 'another manager changed it'],
    // Removed by hand from web: nobody owns it now; vault-agent owns the same field of another item.
    ['spec.containers[0].imagePullPolicy', true, 'nobody owns it, the listed manager owns another item'],
  ])('%s: drift %s (%s)', (path, drifted) => {
    expect(driftFor(path).drifted).toBe(drifted);
  });
});
