// spread.rsprd.com/prune has one value: anything else is an input error (docs/health-and-prune.md).
import { expect, test } from 'vitest';
import { pruneAnnotationError } from '../../../src/deployment/prune-annotation.js';

const configMap = (annotations?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'a', ...(annotations ? { annotations } : {}) },
});

test.each([
  [undefined, undefined],
  [{ 'spread.rsprd.com/prune': 'keep' }, undefined],
  [
    { 'spread.rsprd.com/prune': 'Keep' },
    'annotation spread.rsprd.com/prune: "Keep" is not "keep" (its only value: leave the object in the cluster when the directory drops it)',
  ],
  [
    { 'spread.rsprd.com/prune': 'true' },
    'annotation spread.rsprd.com/prune: "true" is not "keep" (its only value: leave the object in the cluster when the directory drops it)',
  ],
])('prune annotation %j: %j, since a misspelt keep would prune', (annotations, error) => {
  expect(pruneAnnotationError(configMap(annotations))).toBe(error);
});
