import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import {
  diagnosePod,
  formatContainerStates,
  formatEvent,
  matchesSelector,
  recentEvents,
  selectorString,
} from '../../../src/cluster/pods.js';

const now = Date.parse('2025-01-01T00:01:00Z');
const pod = (status: object, meta: object = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-1', ...meta },
  status,
});
const waiting = (reason: string, message = '') => ({
  phase: 'Pending',
  containerStatuses: [
    {
      name: 'web',
      restartCount: 3,
      state: { waiting: { reason, message } },
      lastState: { terminated: { reason: 'Error', exitCode: 1 } },
    },
  ],
});

describe('diagnosePod', () => {
  test.each([
    [
      'running pod',
      { phase: 'Running', containerStatuses: [{ name: 'web', state: { running: {} } }] },
      {},
      undefined,
    ],
    [
      'first ErrImagePull: not yet fatal',
      waiting('ErrImagePull', 'not found'),
      { pullErrorSeen: 1 },
      { reason: 'ErrImagePull', fatal: false },
    ],
    [
      'second observation: fatal',
      waiting('ImagePullBackOff', 'Back-off'),
      { pullErrorSeen: 2 },
      { reason: 'ImagePullBackOff', fatal: true },
    ],
    [
      'InvalidImageName at once',
      waiting('InvalidImageName'),
      { pullErrorSeen: 1 },
      { reason: 'InvalidImageName', fatal: true },
    ],
    [
      'CreateContainerConfigError at once',
      waiting('CreateContainerConfigError', 'secret "x" not found'),
      {},
      { reason: 'CreateContainerConfigError', fatal: true },
    ],
    [
      'CrashLoopBackOff with the last exit',
      waiting('CrashLoopBackOff', 'back-off 40s'),
      {},
      {
        reason: 'CrashLoopBackOff',
        fatal: true,
        message: expect.stringMatching(/last exit: Error, code 1\); 3 restarts/),
      },
    ],
    ['ContainerCreating is fine', waiting('ContainerCreating'), {}, undefined],
    [
      'Unschedulable within the grace',
      {
        phase: 'Pending',
        conditions: [
          {
            type: 'PodScheduled',
            status: 'False',
            reason: 'Unschedulable',
            message: '0/3 nodes are available',
            lastTransitionTime: '2025-01-01T00:00:55Z',
          },
        ],
      },
      {},
      { reason: 'Unschedulable', fatal: false, message: 'unschedulable: 0/3 nodes are available' },
    ],
    [
      'Unschedulable past the grace',
      {
        phase: 'Pending',
        conditions: [
          {
            type: 'PodScheduled',
            status: 'False',
            reason: 'Unschedulable',
            message: '0/3 nodes',
            lastTransitionTime: '2025-01-01T00:00:30Z',
          },
        ],
      },
      {},
      { reason: 'Unschedulable', fatal: true },
    ],
    [
      'Failed phase',
      { phase: 'Failed', reason: 'Evicted', message: 'low on memory' },
      {},
      { reason: 'Evicted', fatal: true },
    ],
  ])('%s', (_name, status, extra, expected) => {
    const p = diagnosePod(pod(status), { now, ...extra });
    if (expected === undefined) expect(p).toBeUndefined();
    else expect(p).toMatchObject({ pod: 'web-1', ...expected });
  });

  test('a terminating pod has no problem', () => {
    expect(
      diagnosePod(pod(waiting('CrashLoopBackOff'), { deletionTimestamp: '2025-01-01T00:00:00Z' }), { now }),
    ).toBeUndefined();
  });
});

describe('events and states', () => {
  test('recentEvents keeps the newest, oldest first, from every timestamp style', () => {
    const events = recentEvents(
      [
        {
          type: 'Normal',
          reason: 'Scheduled',
          message: 'assigned',
          metadata: { creationTimestamp: '2025-01-01T00:00:01Z' },
        },
        {
          type: 'Warning',
          reason: 'Failed',
          message: 'pull failed',
          count: 3,
          lastTimestamp: '2025-01-01T00:00:09Z',
        },
        { type: 'Normal', reason: 'Pulling', message: 'pulling', eventTime: '2025-01-01T00:00:05.000000Z' },
      ],
      2,
    );
    expect(events.map(formatEvent)).toEqual(['Normal Pulling: pulling', 'Warning Failed (x3): pull failed']);
  });

  test('formatContainerStates', () => {
    expect(
      formatContainerStates(
        pod({
          containerStatuses: [
            { name: 'a', ready: true, state: { running: {} } },
            { name: 'b', state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off' } } },
            { name: 'c', state: { terminated: { reason: 'Error', exitCode: 2 } } },
          ],
        }),
      ),
    ).toEqual(['a: running, ready', 'b: waiting ImagePullBackOff: Back-off', 'c: terminated Error (exit 2)']);
  });

  test.each([
    [{ app: 'web' }, 'app=web'],
    [{ matchLabels: { app: 'web', tier: 'fe' } }, 'app=web,tier=fe'],
    [
      {
        matchExpressions: [
          { key: 'env', operator: 'In', values: ['a', 'b'] },
          { key: 'x', operator: 'Exists' },
          { key: 'y', operator: 'DoesNotExist' },
          { key: 'z', operator: 'NotIn', values: ['q'] },
        ],
      },
      'env in (a,b),x,!y,z notin (q)',
    ],
    [undefined, undefined],
    [{}, undefined],
  ])('selectorString(%j)', (selector, text) => {
    expect(selectorString(selector)).toBe(text);
  });

  const expressions = {
    matchExpressions: [
      { key: 'env', operator: 'In', values: ['a', 'b'] },
      { key: 'x', operator: 'Exists' },
      { key: 'y', operator: 'DoesNotExist' },
      { key: 'z', operator: 'NotIn', values: ['q'] },
    ],
  };
  test.each([
    [{ app: 'web' }, { app: 'web', pod: 'x' }, true],
    [{ app: 'web' }, { app: 'api' }, false],
    [{ app: 'web' }, undefined, false],
    [{ matchLabels: { app: 'web', tier: 'fe' } }, { app: 'web', tier: 'fe' }, true],
    [{ matchLabels: { app: 'web', tier: 'fe' } }, { app: 'web' }, false],
    [expressions, { env: 'a', x: '' }, true],
    [expressions, { env: 'b', x: '1', z: 'r' }, true],
    [expressions, { env: 'c', x: '1' }, false],
    [expressions, { x: '1' }, false],
    [expressions, { env: 'a' }, false],
    [expressions, { env: 'a', x: '1', y: '' }, false],
    [expressions, { env: 'a', x: '1', z: 'q' }, false],
    [{ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }, { a: '2' }, false],
    [{ matchLabels: {} }, { any: 'thing' }, true],
    [undefined, { app: 'web' }, false],
    // Only own properties count: a label named like an Object method is not there by default.
    [{ matchLabels: { constructor: 'x' } }, {}, false],
  ])('matchesSelector(%j, %j) = %s, as the API server selects', (selector, labels, matches) => {
    expect(matchesSelector(selector, labels)).toBe(matches);
  });
});
