import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import { isWaited, rolloutState } from '../../../src/engine/status/registry.js';

const obj = (apiVersion: string, kind: string, spec: object, status: object, generation = 1): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name: 'x', generation },
  spec,
  status,
});

describe('rolloutState', () => {
  test.each([
    [
      'Deployment not observed',
      obj('apps/v1', 'Deployment', { replicas: 2 }, { observedGeneration: 1 }, 2),
      false,
      false,
      /observe/,
    ],
    [
      'Deployment updating',
      obj(
        'apps/v1',
        'Deployment',
        { replicas: 2 },
        { observedGeneration: 1, updatedReplicas: 1, replicas: 2 },
      ),
      false,
      false,
      /1\/2 replicas updated/,
    ],
    [
      'Deployment old replicas',
      obj(
        'apps/v1',
        'Deployment',
        { replicas: 2 },
        { observedGeneration: 1, updatedReplicas: 2, replicas: 3, availableReplicas: 2 },
      ),
      false,
      false,
      /old replicas/,
    ],
    [
      'Deployment ready',
      obj(
        'apps/v1',
        'Deployment',
        { replicas: 2 },
        { observedGeneration: 1, updatedReplicas: 2, replicas: 2, availableReplicas: 2 },
      ),
      true,
      false,
      /2\/2 replicas available/,
    ],
    [
      'Deployment deadline',
      obj(
        'apps/v1',
        'Deployment',
        { replicas: 2 },
        {
          observedGeneration: 1,
          conditions: [{ type: 'Progressing', reason: 'ProgressDeadlineExceeded', message: 'took too long' }],
        },
      ),
      false,
      true,
      /deadline/,
    ],
    [
      'Deployment whose pods cannot be created (a missing ServiceAccount)',
      obj(
        'apps/v1',
        'Deployment',
        { replicas: 2 },
        {
          observedGeneration: 1,
          replicas: 0,
          conditions: [
            {
              type: 'ReplicaFailure',
              status: 'True',
              reason: 'FailedCreate',
              message:
                'pods "web-1" is forbidden: error looking up service account ns/nope: serviceaccount "nope" not found',
            },
          ],
        },
      ),
      false,
      true,
      /^pods cannot be created: FailedCreate pods "web-1" is forbidden: error looking up service account/,
    ],
    [
      'RC whose pods cannot be created (a quota)',
      obj(
        'v1',
        'ReplicationController',
        { replicas: 2 },
        {
          observedGeneration: 1,
          conditions: [
            { type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'exceeded quota: q' },
          ],
        },
      ),
      false,
      true,
      /exceeded quota/,
    ],
    [
      'RC pending',
      obj(
        'v1',
        'ReplicationController',
        { replicas: 2 },
        { observedGeneration: 1, readyReplicas: 1, fullyLabeledReplicas: 2 },
      ),
      false,
      false,
      /1\/2/,
    ],
    [
      'RC ready',
      obj(
        'v1',
        'ReplicationController',
        { replicas: 2 },
        { observedGeneration: 1, readyReplicas: 2, fullyLabeledReplicas: 2, availableReplicas: 2 },
      ),
      true,
      false,
      /2\/2/,
    ],
    [
      'StatefulSet revision',
      obj(
        'apps/v1',
        'StatefulSet',
        { replicas: 1 },
        { observedGeneration: 1, readyReplicas: 1, currentRevision: 'a', updateRevision: 'b' },
      ),
      false,
      false,
      /updated/,
    ],
    [
      'StatefulSet OnDelete ready',
      obj(
        'apps/v1',
        'StatefulSet',
        { replicas: 1, updateStrategy: { type: 'OnDelete' } },
        { observedGeneration: 1, readyReplicas: 1, currentRevision: 'a', updateRevision: 'b' },
      ),
      true,
      false,
      /1\/1/,
    ],
    [
      'DaemonSet ready',
      obj(
        'apps/v1',
        'DaemonSet',
        {},
        { observedGeneration: 1, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 3 },
      ),
      true,
      false,
      /3\/3/,
    ],
    [
      'Job complete',
      obj('batch/v1', 'Job', {}, { conditions: [{ type: 'Complete', status: 'True' }] }),
      true,
      false,
      /complete/,
    ],
    [
      'Job failed',
      obj(
        'batch/v1',
        'Job',
        {},
        { conditions: [{ type: 'Failed', status: 'True', message: 'BackoffLimitExceeded' }] },
      ),
      false,
      true,
      /Backoff/,
    ],
    [
      'Pod ready',
      obj('v1', 'Pod', {}, { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] }),
      true,
      false,
      /ready/,
    ],
    ['Pod pending', obj('v1', 'Pod', {}, { phase: 'Pending' }), false, false, /Pending/],
    ['Pod failed', obj('v1', 'Pod', {}, { phase: 'Failed', reason: 'Evicted' }), false, true, /Evicted/],
    ['ConfigMap', obj('v1', 'ConfigMap', {}, {}), true, false, /applied/],
  ])('%s', (_name, o, done, failed, message) => {
    const s = rolloutState(o);
    expect(s.done).toBe(done);
    expect(s.failed).toBe(failed);
    expect(s.message).toMatch(message);
  });

  test('isWaited covers workloads only', () => {
    expect(isWaited(obj('apps/v1', 'Deployment', {}, {}))).toBe(true);
    expect(isWaited(obj('v1', 'Service', {}, {}))).toBe(false);
    expect(isWaited(obj('example.com/v1', 'Deployment', {}, {}))).toBe(false);
  });
});
