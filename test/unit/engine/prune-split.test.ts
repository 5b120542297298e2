import { describe, expect, test } from 'vitest';
import type { KubeObject, SourcedObject } from '../../../src/base/kube-object.js';
import type { KubeClient } from '../../../src/cluster/client.js';
import type { PruneCandidate } from '../../../src/engine/inventory/applyset.js';
import { splitPrune } from '../../../src/engine/inventory/prune.js';
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
