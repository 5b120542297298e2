import { expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import { diffObjects } from '../../../src/deployment/diff.js';

test('a change past 2^53 shows every digit on both sides', () => {
  const object = (n: bigint): KubeObject => ({
    apiVersion: 'example.com/v1',
    kind: 'Limit',
    metadata: { name: 'l' },
    spec: { maxBytes: n },
  });
  expect(diffObjects(object(9007199254740993n), object(9007199254740995n))).toEqual([
    { op: 'change', path: 'spec.maxBytes', before: '9007199254740993', after: '9007199254740995' },
  ]);
});
