import { describe, expect, test } from 'vitest';
import {
  notServedMessage,
  parseServerVersion,
  REMOVED_APIS,
  removedApi,
} from '../../../src/cluster/api-removals.js';

describe('parseServerVersion', () => {
  test.each([
    [
      { major: '1', minor: '30', gitVersion: 'v1.30.14' },
      { gitVersion: 'v1.30.14', major: 1, minor: 30 },
    ],
    // Managed offerings (EKS, GKE) report the minor with a `+`.
    [
      { major: '1', minor: '34+', gitVersion: 'v1.34.4-eks-1234' },
      { gitVersion: 'v1.34.4-eks-1234', major: 1, minor: 34 },
    ],
    [
      { major: '', minor: '', gitVersion: 'v1.37.2' },
      { gitVersion: 'v1.37.2', major: 1, minor: 37 },
    ],
    [
      { major: '1', minor: '32' },
      { gitVersion: 'v1.32', major: 1, minor: 32 },
    ],
  ])('%j', (body, expected) => {
    expect(parseServerVersion(body)).toEqual(expected);
  });

  test.each([[undefined], ['v1.30.14'], [{}], [{ major: 'x', minor: 'y', gitVersion: 'dev' }]])(
    'no version in %j',
    (body) => {
      expect(parseServerVersion(body)).toBeUndefined();
    },
  );
});

const v = (gitVersion: string) => parseServerVersion({ gitVersion })!;

describe('notServedMessage', () => {
  test.each([
    [
      'policy/v1beta1',
      'PodSecurityPolicy',
      v('v1.30.14'),
      'policy/v1beta1 PodSecurityPolicy was removed in Kubernetes v1.25 (deprecated in v1.21); the cluster runs v1.30.14: no replacement: PodSecurityPolicy is gone; use Pod Security Admission (pod-security.kubernetes.io labels on the Namespace)',
    ],
    [
      'flowcontrol.apiserver.k8s.io/v1beta3',
      'FlowSchema',
      v('v1.37.2'),
      'flowcontrol.apiserver.k8s.io/v1beta3 FlowSchema was removed in Kubernetes v1.32 (deprecated in v1.29); the cluster runs v1.37.2: use flowcontrol.apiserver.k8s.io/v1 FlowSchema',
    ],
    [
      'extensions/v1beta1',
      'Ingress',
      undefined,
      'extensions/v1beta1 Ingress was removed in Kubernetes v1.22 (deprecated in v1.14): use networking.k8s.io/v1 Ingress',
    ],
    // Not served before its removal: turned off by the cluster's operator, not removed.
    [
      'flowcontrol.apiserver.k8s.io/v1beta3',
      'FlowSchema',
      v('v1.30.14'),
      'the server (Kubernetes v1.30.14) does not serve FlowSchema in flowcontrol.apiserver.k8s.io/v1beta3',
    ],
    [
      'example.com/v9',
      'Widget',
      v('v1.34.4'),
      'the server (Kubernetes v1.34.4) does not serve Widget in example.com/v9',
    ],
    ['example.com/v9', 'Widget', undefined, 'the server does not serve Widget in example.com/v9'],
  ])('%s %s on %j', (apiVersion, kind, server, expected) => {
    expect(notServedMessage({ apiVersion, kind }, server)).toBe(expected);
  });
});

describe('REMOVED_APIS', () => {
  test('each API once, deprecated before it was removed, with a replacement', () => {
    const keys = REMOVED_APIS.map((r) => `${r.apiVersion} ${r.kind}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const r of REMOVED_APIS) {
      expect(r.deprecatedIn, `${r.apiVersion} ${r.kind}`).toBeLessThan(r.removedIn);
      expect(r.replacement).not.toBe('');
    }
  });

  test('the APIs the versions of the compatibility table removed', () => {
    expect(removedApi({ apiVersion: 'batch/v1beta1', kind: 'CronJob' })?.removedIn).toBe(25);
    expect(
      removedApi({ apiVersion: 'autoscaling/v2beta2', kind: 'HorizontalPodAutoscaler' })?.removedIn,
    ).toBe(26);
    expect(removedApi({ apiVersion: 'batch/v1', kind: 'CronJob' })).toBeUndefined();
    expect(removedApi({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' })).toBeUndefined();
  });
});
