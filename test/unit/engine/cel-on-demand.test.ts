// CEL (@bufbuild/cel, src/project/health-cel.ts) is loaded by the first health rule compiled, not by
// loading the status readers: a deploy with no rule to compile never runs its module's top level
// (peak RSS and CPU time of every deploy; bench/RESULTS.md, issue 40's before and after).
// A file of its own: each test file loads the modules afresh.
import { expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import { rolloutState } from '../../../src/engine/status/registry.js';
import { readHealthRules } from '../../../src/project/health.js';
import { celLoaded } from '../../../src/project/health-cel.js';

const object = (apiVersion: string, kind: string, status?: object): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name: 'x', namespace: 'web', generation: 1 },
  spec: {},
  ...(status ? { status } : {}),
});

test('the kinds without a rule and a project file without health load no CEL; a Rollout loads it', () => {
  expect(readHealthRules(undefined).rules.size).toBe(0);
  expect(rolloutState(object('apps/v1', 'Deployment')).status).toBe('InProgress');
  expect(rolloutState(object('v1', 'ConfigMap')).status).toBe('Current');
  expect(rolloutState(object('example.com/v1', 'Widget', { conditions: [] })).status).toBeDefined();
  expect(celLoaded()).toBe(false);
  // Argo Rollouts' Rollout has a shipped rule: its first reading compiles it.
  expect(rolloutState(object('argoproj.io/v1alpha1', 'Rollout', { phase: 'Healthy' })).status).toBe(
    'InProgress',
  );
  expect(celLoaded()).toBe(true);
});
