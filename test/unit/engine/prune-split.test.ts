import { describe, expect, test } from 'vitest';
import type { KubeObject, SourcedObject } from '../../../src/base/kube-object.js';
import type { KubeClient } from '../../../src/cluster/client.js';
import type { PruneCandidate } from '../../../src/engine/inventory/applyset.js';
import { keptWhy, objectKey, splitPrune } from '../../../src/engine/inventory/prune.js';
import { FakeKube } from './fake-kube.js';

const crd = (plural: string, kind: string): PruneCandidate => ({
  object: {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.monitoring.example.com` },
    spec: {
      group: 'monitoring.example.com',
      names: { kind, plural },
      versions: [{ name: 'v1', served: true, storage: true }],
    },
  },
  path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${plural}.monitoring.example.com`,
});
const monitor = (name: string, line: number): SourcedObject => ({
  object: {
    apiVersion: 'monitoring.example.com/v1',
    kind: 'ServiceMonitor',
    metadata: { name, namespace: 'mon' },
  } as KubeObject,
  source: { file: '.k2e/monitors.yaml', line },
});

describe('splitPrune and CRDs', () => {
  test('--prune-crds never deletes a CRD whose custom resources the directory still declares', async () => {
    const kube = new FakeKube();
    const needed = crd('servicemonitors', 'ServiceMonitor');
    const unused = crd('podmonitors', 'PodMonitor');
    const plan = [monitor('a', 1), monitor('b', 9)];
    const decision = await splitPrune(kube as unknown as KubeClient, [needed, unused], plan, {
      pruneCrds: true,
    });
    expect(decision.pruned).toEqual([unused]);
    expect(decision.kept).toEqual([
      {
        candidate: needed,
        reason:
          "the directory still declares 2 of its custom resources (ServiceMonitor.monitoring.example.com mon/a (.k2e/monitors.yaml:1), ServiceMonitor.monitoring.example.com mon/b (.k2e/monitors.yaml:9)), which deleting it would delete: add the CRD's file back, or remove them too",
      },
    ]);
    // Without --prune-crds the reason is the same: it is the one that matters.
    const plain = await splitPrune(kube as unknown as KubeClient, [needed], plan);
    expect(plain.kept[0]?.reason).toMatch(/^the directory still declares 2 of its custom resources/);
  });
});

describe('splitPrune and hooks this deploy does not run', () => {
  const hook: PruneCandidate = {
    object: {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'pw', namespace: 'app', annotations: { 'helm.sh/hook': 'pre-install' } },
    },
    path: '/api/v1/namespaces/app/secrets/pw',
  };
  const gone: PruneCandidate = {
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'gone', namespace: 'app' } },
    path: '/api/v1/namespaces/app/configmaps/gone',
  };

  test('the log says a hook not run is kept as one, not as an object the directory dropped', async () => {
    const kube = new FakeKube() as unknown as KubeClient;
    const why = 'a Helm hook of pre-install only, and this deploy is an upgrade: not run';
    const decision = await splitPrune(kube, [hook], [], { notRun: new Map([[objectKey(hook.object), why]]) });
    expect(decision.kept.map(keptWhy)).toEqual([
      `a hook this deploy does not run (${why}; Helm deletes no hook it does not run)`,
    ]);
    const rollback = await splitPrune(kube, [hook], [], {
      keepHooks: 'a Helm hook, and a rollback runs none',
    });
    expect(rollback.kept.map(keptWhy)).toEqual([
      'a hook this deploy does not run (a Helm hook, and a rollback runs none; Helm deletes no hook it does not run)',
    ]);
  });

  test('any other kept object: the directory dropped it, but why', () => {
    expect(keptWhy({ candidate: gone, reason: 'objects of this deployment are still in it' })).toBe(
      'the directory dropped it, but objects of this deployment are still in it',
    );
  });
});
