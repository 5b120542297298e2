import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import { isCustomResource } from '../../../src/engine/status/custom-resource.js';
import { isWaited, rolloutState } from '../../../src/engine/status/registry.js';

const cr = (status: object | undefined, generation = 2): KubeObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'default', generation },
  spec: { size: 1 },
  ...(status ? { status } : {}),
});
const cond = (type: string, status: string, reason?: string, message?: string) => ({
  type,
  status,
  ...(reason ? { reason } : {}),
  ...(message ? { message } : {}),
});

describe('custom resources: kstatus-shaped status from Ready/Reconciling/Stalled', () => {
  test.each([
    ['no status: Current once applied', cr(undefined), 'Current', /applied/],
    [
      'observedGeneration behind',
      cr({ observedGeneration: 1, conditions: [cond('Ready', 'True')] }),
      'InProgress',
      /observe/,
    ],
    ['Ready True', cr({ observedGeneration: 2, conditions: [cond('Ready', 'True')] }), 'Current', /ready/],
    [
      'Ready False, with reason and message',
      cr({ conditions: [cond('Ready', 'False', 'Provisioning', 'creating the volume')] }),
      'InProgress',
      /not ready: Provisioning: creating the volume/,
    ],
    ['Ready Unknown', cr({ conditions: [cond('Ready', 'Unknown')] }), 'InProgress', /not ready/],
    [
      'Reconciling True wins over Ready True',
      cr({ conditions: [cond('Ready', 'True'), cond('Reconciling', 'True', 'Progressing')] }),
      'InProgress',
      /reconciling: Progressing/,
    ],
    [
      'Stalled True fails, whatever else it says',
      cr({
        conditions: [cond('Reconciling', 'True'), cond('Stalled', 'True', 'InvalidSpec', 'size must be odd')],
      }),
      'Failed',
      /stalled: InvalidSpec: size must be odd/,
    ],
    [
      'Stalled False and no Ready: Current',
      cr({ conditions: [cond('Stalled', 'False')] }),
      'Current',
      /applied/,
    ],
    ['other conditions only: Current', cr({ conditions: [cond('Synced', 'False')] }), 'Current', /applied/],
  ])('%s', (_name, o, status, message) => {
    const s = rolloutState(o);
    expect(s.status).toBe(status);
    expect([s.done, s.failed]).toEqual([status === 'Current', status === 'Failed']);
    expect(s.message).toMatch(message);
  });

  test('a custom resource is waited on when its status has something to read', () => {
    expect(isWaited(cr(undefined))).toBe(false);
    expect(isWaited(cr({}))).toBe(false);
    expect(isWaited(cr({ conditions: [cond('Synced', 'True')] }))).toBe(false);
    expect(isWaited(cr({ observedGeneration: 1 }))).toBe(true);
    expect(isWaited(cr({ conditions: [cond('Ready', 'False')] }))).toBe(true);
    expect(isWaited(cr({ conditions: [cond('Stalled', 'False')] }))).toBe(true);
  });

  test('built-in API groups are not custom resources; any other group is', () => {
    const of = (apiVersion: string, kind: string): KubeObject => ({
      apiVersion,
      kind,
      metadata: { name: 'x' },
    });
    expect(isCustomResource(of('v1', 'ConfigMap'))).toBe(false);
    expect(isCustomResource(of('networking.k8s.io/v1', 'Ingress'))).toBe(false);
    expect(isCustomResource(of('autoscaling/v2', 'HorizontalPodAutoscaler'))).toBe(false);
    expect(isCustomResource(of('example.com/v1', 'Widget'))).toBe(true);
    expect(isCustomResource(of('source.toolkit.fluxcd.io/v1', 'GitRepository'))).toBe(true);
  });

  test('a built-in kind with conditions but no reader stays ready once applied', () => {
    const hpa: KubeObject = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'h' },
      status: { conditions: [cond('Ready', 'False')] },
    };
    expect(rolloutState(hpa).status).toBe('Current');
    expect(isWaited(hpa)).toBe(false);
  });
});
