import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import { type Applied, forRecord } from '../../../src/core/deploy/apply.js';
import { afterApply, DeployError } from '../../../src/core/deploy/failure.js';
import type { Run } from '../../../src/core/deploy/options.js';
import { forApply, forSettle } from '../../../src/core/deploy/trim.js';
import type { AppliedObject } from '../../../src/engine/apply/applied.js';
import type { ApplySet } from '../../../src/engine/inventory/applyset.js';
import { decodeObjects } from '../../../src/engine/inventory/history.js';
import { objectSetDigest } from '../../../src/engine/inventory/revision-check.js';
import type { PlannedObject } from '../../../src/engine/shared/planned.js';

const managedFields = [
  {
    manager: 'spread',
    operation: 'Apply',
    apiVersion: 'v1',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:spec': {} },
  },
];

function applied(apiVersion: string, kind: string, resource: string, spec: object = {}): AppliedObject {
  const object: KubeObject = {
    apiVersion,
    kind,
    metadata: { name: kind.toLowerCase(), namespace: 'app' },
    spec,
  };
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  return {
    object,
    source: { file: `${kind}.yaml`, line: 1 },
    resource: { group: group!, version: version!, kind, resource, namespaced: true },
    action: 'configured',
    live: {
      ...object,
      metadata: { ...object.metadata, uid: 'u', managedFields },
      spec: { ...spec, defaulted: true },
      status: {},
    },
  };
}

describe('forSettle: what the rollout wait and the URL read of the apply', () => {
  const deployment = applied('apps/v1', 'Deployment', 'deployments', {
    selector: { matchLabels: { a: 'b' } },
  });
  const service = applied('v1', 'Service', 'services', { ports: [{ port: 80 }] });
  const configMap = applied('v1', 'ConfigMap', 'configmaps');
  const outcome = {
    converged: { applied: [configMap, deployment, service], fingerprints: ['f'] },
    reported: [],
    revisionBefore: 3,
    unchanged: false,
    revisionCheckPending: undefined,
    revisionsPending: undefined,
  } as unknown as Applied;

  test('keeps the waited and URL objects, their live state without managedFields, and the rest of the outcome', () => {
    const settling = forSettle(outcome.converged, { wait: true });
    expect(settling.applied.map((a) => a.object.kind)).toEqual(['Deployment', 'Service']);
    for (const a of settling.applied) {
      expect(a.live.metadata.managedFields).toBeUndefined();
      expect(a.live.metadata.uid).toBe('u');
      expect(a.live.spec).toEqual({ ...(a.object.spec as object), defaulted: true });
    }
    expect(settling.fingerprints).toEqual(['f']);
  });

  test('without the wait, keeps only the objects that can give the URL', () => {
    const settling = forSettle(outcome.converged, { wait: false });
    expect(settling.applied.map((a) => a.object.kind)).toEqual(['Service']);
  });

  test('leaves the apply outcome it was given as it was (the report still has it)', () => {
    forSettle(outcome.converged, { wait: true });
    expect(outcome.converged.applied).toHaveLength(3);
    expect(deployment.live.metadata.managedFields).toEqual(managedFields);
  });
});

describe('forApply: what the apply holds of the plan', () => {
  const unchanged = (a: AppliedObject, after?: KubeObject): PlannedObject => ({
    object: a.object,
    source: a.source,
    resource: a.resource,
    action: 'unchanged',
    live: a.live,
    after: after ?? a.live,
  });

  test('an unchanged object the settle step does not read keeps only the metadata of its live state, one object when the fingerprint matched', () => {
    const p = forApply(
      { ...unchanged(applied('v1', 'ConfigMap', 'configmaps')), fingerprint: 'f' },
      { wait: true },
    );
    expect(p.live).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'configmap', namespace: 'app', uid: 'u', managedFields },
    });
    expect(p.after).toBe(p.live);
    expect(p.fingerprint).toBe('f');
  });

  test("a dry run's answer stays apart from the live state (the converge compares their managedFields)", () => {
    const a = applied('v1', 'ConfigMap', 'configmaps');
    const dryRun = { ...a.live, metadata: { ...a.live.metadata, managedFields: [] } };
    const p = forApply(unchanged(a, dryRun), { wait: true });
    expect(p.after).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: dryRun.metadata });
    expect(p.live?.metadata.managedFields).toEqual(managedFields);
  });

  test('an unchanged Deployment, Service or CRD keeps its live state whole', () => {
    for (const a of [
      applied('apps/v1', 'Deployment', 'deployments'),
      applied('v1', 'Service', 'services'),
      applied('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'customresourcedefinitions'),
    ]) {
      const p = unchanged(a);
      expect(forApply(p, { wait: true })).toBe(p);
    }
  });

  test('without the wait, an unchanged Deployment keeps only its metadata; a Service stays whole', () => {
    const deployment = unchanged(applied('apps/v1', 'Deployment', 'deployments'));
    expect(forApply(deployment, { wait: false }).live).not.toHaveProperty('spec');
    const service = unchanged(applied('v1', 'Service', 'services'));
    expect(forApply(service, { wait: false })).toBe(service);
  });

  test('a write drops its dry run and keeps its live state', () => {
    const a = applied('v1', 'ConfigMap', 'configmaps');
    const p = forApply({ ...unchanged(a), action: 'update', changes: [] }, { wait: true });
    expect(p.after).toBeUndefined();
    expect(p.live).toBe(a.live);
  });
});

describe('forRecord: what the revision records, decided before the wait', () => {
  const objects = [
    { object: applied('v1', 'ConfigMap', 'configmaps').object, source: { file: 'a.yaml', line: 1 } },
  ];
  const run = {} as Run;
  const set = {} as ApplySet;
  const unchanged = (read: Promise<unknown>) =>
    ({ unchanged: true, revisionBefore: 4, revisionCheckPending: read }) as unknown as Applied;

  test('an unchanged deploy keeps the current revision that holds the same objects', async () => {
    const current = {
      revision: 4,
      status: 'deployed',
      objectSet: objectSetDigest(objects.map((o) => o.object)),
    };
    expect(await forRecord(run, set, objects, unchanged(Promise.resolve(current)))).toEqual({
      kept: current,
    });
  });

  test.each([
    ['holds other objects', () => Promise.resolve({ revision: 4, status: 'deployed', objectSet: 'other' })],
    [
      'failed',
      () =>
        Promise.resolve({
          revision: 4,
          status: 'failed',
          objectSet: objectSetDigest(objects.map((o) => o.object)),
        }),
    ],
    ['is gone', () => Promise.resolve(undefined)],
    ['cannot be read', () => Promise.reject(new Error('503 etcd unavailable'))],
  ])('an unchanged deploy whose current revision %s records the objects anew', async (_why, read) => {
    const decided = await forRecord(run, set, objects, unchanged(read()));
    expect(decided.kept).toBeUndefined();
    expect(decodeObjects(decided.encoded!.data)).toEqual(objects.map((o) => o.object));
    expect(decided.encoded!.count).toBe(1);
  });

  test('a deploy that changed something encodes its objects without reading a revision', async () => {
    const changed = { unchanged: false, revisionBefore: 4 } as unknown as Applied;
    expect((await forRecord(run, set, objects, changed)).encoded?.count).toBe(1);
  });
});

describe('afterApply: an error thrown after the apply and the prune ended', () => {
  test('says that every object was applied and pruned, on its first line', () => {
    const error = afterApply(new Error('the deploy Lease was lost\nrenewal: 429')) as Error;
    expect(error.message).toBe(
      'the deploy Lease was lost; every object was applied and pruned before it, the deploy did not finish (deploy again to converge)\nrenewal: 429',
    );
  });
  test('leaves an error that says already what was applied, and a failed rollout with its report', () => {
    const said = new Error('interrupted while waiting for the rollout: all 2 object(s) were applied');
    expect((afterApply(said) as Error).message).toBe(said.message);
    const rollout = new DeployError(new Error('rollout failed'), {} as never);
    expect((afterApply(rollout) as Error).message).toBe('rollout failed');
  });
});
