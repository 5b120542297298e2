import { describe, expect, test } from 'vitest';
import { mergeFieldSets, upgradeManagedFields } from '../../../src/cluster/takeover.js';

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
