import { describe, expect, test } from 'vitest';
import type { ManagedFieldsEntry } from '../../../src/base/kube-object.js';
import { foreignFields, formatFieldPath, takenOverManagers } from '../../../src/engine/plan/takeover.js';
import {
  isTakenOver,
  mergeFieldSets,
  upgradeManagedFields,
} from '../../../src/engine/shared/managed-fields.js';

const csa = {
  manager: 'kubectl-client-side-apply',
  operation: 'Update' as const,
  apiVersion: 'apps/v1',
  time: '2026-01-01T00:00:00Z',
  fieldsType: 'FieldsV1',
  fieldsV1: {
    'f:spec': {
      'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"old"}': { '.': {}, 'f:image': {} } } } },
    },
  },
};

describe('upgradeManagedFields (csaupgrade)', () => {
  test('nothing to do without a client-side manager', () => {
    expect(
      upgradeManagedFields([{ manager: 'spread', operation: 'Apply', fieldsV1: {} }], 'spread', 'apps/v1'),
    ).toBeUndefined();
    expect(upgradeManagedFields(undefined, 'spread', 'apps/v1')).toBeUndefined();
  });

  test('moves kubectl-client-side-apply fields into a new spread Apply entry', () => {
    const controller = {
      manager: 'kube-controller-manager',
      operation: 'Update' as const,
      subresource: 'status',
      fieldsV1: { 'f:status': {} },
    };
    const out = upgradeManagedFields([csa, controller], 'spread', 'apps/v1')!;
    expect(out.map((e) => e.manager)).toEqual(['kube-controller-manager', 'spread']);
    expect(out[1]).toMatchObject({ operation: 'Apply', apiVersion: 'apps/v1', fieldsV1: csa.fieldsV1 });
  });

  test('merges into an existing spread Apply entry', () => {
    const ours = {
      manager: 'spread',
      operation: 'Apply' as const,
      fieldsV1: { 'f:metadata': { 'f:labels': { 'f:a': {} } } },
    };
    const out = upgradeManagedFields([ours, csa], 'spread', 'apps/v1')!;
    expect(out).toHaveLength(1);
    expect(out[0]!.fieldsV1).toEqual({ ...ours.fieldsV1, ...csa.fieldsV1 });
  });

  test('a subresource entry of kubectl is left alone', () => {
    expect(upgradeManagedFields([{ ...csa, subresource: 'scale' }], 'spread', 'apps/v1')).toBeUndefined();
  });
});

describe('mergeFieldSets', () => {
  test('is a deep union', () => {
    expect(mergeFieldSets({ 'f:a': { 'f:b': {} }, 'f:c': {} }, { 'f:a': { 'f:d': {} }, 'f:e': {} })).toEqual({
      'f:a': { 'f:b': {}, 'f:d': {} },
      'f:c': {},
      'f:e': {},
    });
  });
});

describe('isTakenOver: which managers spread takes over', () => {
  const entry = (manager: string, operation: 'Apply' | 'Update', subresource?: string) => ({
    manager,
    operation,
    ...(subresource ? { subresource } : {}),
  });
  test.each([
    // [manager, operation, subresource, without --adopt, with --adopt]
    ['kubectl-client-side-apply', 'Update', undefined, true, true],
    ['before-first-apply', 'Update', undefined, true, true],
    ['kubectl', 'Apply', undefined, false, true],
    ['kubectl', 'Update', undefined, false, true],
    ['kubectl-create', 'Update', undefined, false, true],
    ['kubectl-edit', 'Update', undefined, false, true],
    ['kubectl-label', 'Update', undefined, false, true],
    ['spread', 'Update', undefined, false, true],
    // Helm 3's client-side writes and Helm 4's server-side apply, both named helm.
    ['helm', 'Update', undefined, false, true],
    ['helm', 'Apply', undefined, false, true],
    ['helm-controller', 'Apply', undefined, false, false],
    ['spread', 'Apply', undefined, false, false],
    ['kube-controller-manager', 'Update', undefined, false, false],
    ['operator', 'Apply', undefined, false, false],
    ['helm', 'Update', undefined, false, true],
    ['Terraform', 'Apply', undefined, false, true],
    ['Go-http-client', 'Update', undefined, false, true],
    ['manager', 'Update', undefined, false, false],
    ['cert-manager-cainjector', 'Update', undefined, false, false],
    ['kube-scheduler', 'Update', undefined, false, false],
    ['kubectl', 'Update', 'status', false, false],
    ['kubectl-client-side-apply', 'Update', 'scale', false, false],
  ] as const)(
    '%s %s (subresource %s): %s, adopting %s',
    (manager, operation, subresource, plain, adopting) => {
      expect(isTakenOver(entry(manager, operation, subresource), 'spread', false)).toBe(plain);
      expect(isTakenOver(entry(manager, operation, subresource), 'spread', true)).toBe(adopting);
    },
  );

  test('adopting merges kubectl (server-side apply) and kubectl-create into spread, keeps the controller', () => {
    const ssa = { manager: 'kubectl', operation: 'Apply' as const, fieldsV1: { 'f:data': { 'f:a': {} } } };
    const create = {
      manager: 'kubectl-create',
      operation: 'Update' as const,
      fieldsV1: { 'f:data': { 'f:b': {} } },
    };
    const other = { manager: 'operator', operation: 'Apply' as const, fieldsV1: { 'f:data': { 'f:c': {} } } };
    expect(upgradeManagedFields([ssa, create, other], 'spread', 'v1')).toBeUndefined();
    const out = upgradeManagedFields([ssa, create, other], 'spread', 'v1', true)!;
    expect(out.map((e) => `${e.manager} ${e.operation}`)).toEqual(['operator Apply', 'spread Apply']);
    expect(out[1]!.fieldsV1).toEqual({ 'f:data': { 'f:a': {}, 'f:b': {} } });
    expect(takenOverManagers([ssa, create, other], 'spread', true)).toEqual(['kubectl', 'kubectl-create']);
  });
});

describe('foreignFields: what other managers set that the directory does not declare', () => {
  const entry = (manager: string, fieldsV1: object, extra: Partial<ManagedFieldsEntry> = {}) =>
    ({ manager, operation: 'Update', fieldsV1, ...extra }) as ManagedFieldsEntry;
  const object = (...managedFields: ManagedFieldsEntry[]) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', managedFields },
  });
  const spread = entry(
    'spread',
    { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } },
    {
      operation: 'Apply',
    },
  );

  test('a deploy tool’s fields the directory does not declare; shared and controllers’ fields are not', () => {
    const helm = entry('helm', {
      'f:data': { '.': {}, 'f:a': {}, 'f:b': {} },
      'f:metadata': { 'f:labels': { 'f:app': {}, 'f:team': {} } },
    });
    const kcm = entry('kube-controller-manager', {
      'f:metadata': { 'f:annotations': { 'f:deployment.kubernetes.io/revision': {} } },
    });
    const scale = entry('kubectl', { 'f:spec': { 'f:replicas': {} } }, { subresource: 'scale' });
    expect(foreignFields(object(spread, helm, kcm, scale), 'spread', false)).toEqual([
      { manager: 'helm', fields: ['data.b', 'metadata.labels.team'] },
    ]);
    // Adopting takes helm over: its fields are the deploy's to remove, not left.
    expect(foreignFields(object(spread, helm, kcm), 'spread', true)).toEqual([]);
    expect(foreignFields(object(spread, kcm, scale), 'spread', false)).toEqual([]);
  });

  test('field paths read as the API does', () => {
    expect(formatFieldPath(['f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}', 'f:nodePort'])).toBe(
      'spec.ports[port=80,protocol=TCP].nodePort',
    );
    expect(formatFieldPath(['f:metadata', 'f:finalizers', 'v:"x"'])).toBe('metadata.finalizers[="x"]');
  });
});
