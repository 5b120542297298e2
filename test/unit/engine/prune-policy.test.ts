import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import type { KubeClient } from '../../../src/cluster/client.js';
import type { PruneCandidate } from '../../../src/engine/inventory/applyset.js';
import { splitPrune } from '../../../src/engine/inventory/prune.js';
import { keptByAnnotation, misspeltKeep } from '../../../src/engine/inventory/prune-policy.js';
import { FakeKube } from './fake-kube.js';

const configMap = (name: string, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'app', ...(annotations ? { annotations } : {}) },
});
const candidate = (o: KubeObject): PruneCandidate => ({
  object: o,
  path: `/api/v1/namespaces/app/configmaps/${o.metadata.name}`,
});

describe('keptByAnnotation: spread.rsprd.com/prune: keep and its equivalents', () => {
  test.each([
    [{ 'spread.rsprd.com/prune': 'keep' }, 'annotated spread.rsprd.com/prune: keep'],
    [{ 'helm.sh/resource-policy': 'keep' }, "annotated helm.sh/resource-policy: keep (Helm's keep)"],
    [
      { 'argocd.argoproj.io/sync-options': 'ServerSideApply=true, Prune=false' },
      "annotated argocd.argoproj.io/sync-options: ServerSideApply=true, Prune=false (Argo CD's keep)",
    ],
    [{ 'argocd.argoproj.io/sync-options': 'Prune=false' }, /Argo CD's keep/],
    [{ 'kustomize.toolkit.fluxcd.io/prune': 'disabled' }, /Flux's keep/],
    [{ 'kapp.k14s.io/delete-strategy': 'orphan' }, /kapp's keep/],
    [{ 'argocd.argoproj.io/sync-options': 'Prune=true,Replace=false' }, undefined],
    [
      { 'argocd.argoproj.io/sync-options': 'Prune=confirm' },
      /Prune=confirm \(Argo CD would ask for a confirmation before pruning it; spread has no confirmation, so it keeps it/,
    ],
    [{ 'argocd.argoproj.io/sync-options': 'Delete=false' }, undefined],
    [{ 'helm.sh/resource-policy': ' Keep ' }, /Helm's keep/],
    [{ 'helm.sh/resource-policy': 'KEEP' }, /Helm's keep/],
    [{ 'helm.sh/resource-policy': 'delete' }, undefined],
    [{ 'kustomize.toolkit.fluxcd.io/prune': 'enabled' }, undefined],
    // Flux compares with strings.EqualFold (fluxcd/pkg ssa AnyInMetadata), untrimmed.
    [
      { 'kustomize.toolkit.fluxcd.io/prune': 'Disabled' },
      "annotated kustomize.toolkit.fluxcd.io/prune: Disabled (Flux's keep)",
    ],
    [{ 'kustomize.toolkit.fluxcd.io/prune': 'DISABLED' }, /Flux's keep/],
    [{ 'kustomize.toolkit.fluxcd.io/prune': ' disabled' }, undefined],
    // kapp compares exactly (pkg/kapp/clusterapply DeleteChange: strategy == "orphan").
    [{ 'kapp.k14s.io/delete-strategy': 'Orphan' }, undefined],
    [{ 'kapp.k14s.io/delete-strategy': 'default' }, undefined],
    [{}, undefined],
  ])('%j', (annotations, reason) => {
    const got = keptByAnnotation(configMap('a', annotations));
    if (reason instanceof RegExp) expect(got).toMatch(reason);
    else expect(got).toBe(reason);
  });

  const labelled = (labels: Record<string, string>): KubeObject => ({
    ...configMap('a'),
    metadata: { ...configMap('a').metadata, labels },
  });
  test.each([
    // Flux reads its key as a label too (AnyInMetadata: labels or annotations).
    [
      { 'kustomize.toolkit.fluxcd.io/prune': 'disabled' },
      "labelled kustomize.toolkit.fluxcd.io/prune: disabled (Flux's keep)",
    ],
    [{ 'kustomize.toolkit.fluxcd.io/prune': 'Disabled' }, /^labelled .*Flux's keep/],
    [{ 'kustomize.toolkit.fluxcd.io/prune': 'enabled' }, undefined],
    // The others are annotations only, as their tools read them.
    [{ 'spread.rsprd.com/prune': 'keep' }, undefined],
    [{ 'helm.sh/resource-policy': 'keep' }, undefined],
    [{ 'kapp.k14s.io/delete-strategy': 'orphan' }, undefined],
  ])('label %j', (labels, reason) => {
    const got = keptByAnnotation(labelled(labels));
    if (reason instanceof RegExp) expect(got).toMatch(reason);
    else expect(got).toBe(reason);
  });
});

describe('splitPrune keeps what its annotations keep, released from the ApplySet', () => {
  const kube = new FakeKube() as unknown as KubeClient;
  const kept = candidate(configMap('kept', { 'spread.rsprd.com/prune': 'keep' }));
  const helm = candidate(configMap('helm', { 'helm.sh/resource-policy': 'keep' }));
  const gone = candidate(configMap('gone'));

  test('kept, with the reason, and marked released; the rest pruned', async () => {
    const decision = await splitPrune(kube, [kept, helm, gone], []);
    expect(decision.pruned).toEqual([gone]);
    expect(decision.kept).toEqual([
      {
        candidate: kept,
        reason:
          'annotated spread.rsprd.com/prune: keep: left in the cluster and released from the ApplySet (its part-of label removed)',
        released: true,
      },
      {
        candidate: helm,
        reason: expect.stringMatching(/^annotated helm.sh\/resource-policy: keep \(Helm's keep\)/),
        released: true,
      },
    ]);
  });

  test('includeKept (spread delete --include-kept) deletes them too', async () => {
    const decision = await splitPrune(kube, [kept, helm, gone], [], { includeKept: true });
    expect(decision.pruned).toEqual([kept, helm, gone]);
    expect(decision.kept).toEqual([]);
  });

  test('a CRD annotated keep is kept by its annotation even with pruneCrds', async () => {
    const crd = candidate({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com', annotations: { 'helm.sh/resource-policy': 'keep' } },
      spec: { group: 'example.com', names: { kind: 'Widget', plural: 'widgets' }, versions: [] },
    });
    const decision = await splitPrune(kube, [crd], [], { pruneCrds: true });
    expect(decision.kept.map((k) => [k.released, k.reason])).toEqual([
      [true, expect.stringMatching(/^annotated helm.sh\/resource-policy: keep/)],
    ]);
  });
});

describe('a CRD is kept while a kept custom resource of it exists', () => {
  const kube = new FakeKube() as unknown as KubeClient;
  const crd = candidate({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: { group: 'example.com', names: { kind: 'Widget', plural: 'widgets' }, versions: [] },
  });
  const widget = (name: string, annotations?: Record<string, string>) =>
    candidate({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name, namespace: 'app', ...(annotations ? { annotations } : {}) },
    });

  test('even with pruneCrds, and said why', async () => {
    const kept = widget('w', { 'spread.rsprd.com/prune': 'keep' });
    const decision = await splitPrune(kube, [crd, kept, widget('v')], [], { pruneCrds: true });
    expect(decision.pruned.map((c) => c.object.metadata.name)).toEqual(['v']);
    expect(decision.kept.map((k) => [k.candidate.object.metadata.name, k.reason])).toEqual([
      [
        'widgets.example.com',
        'its custom resource Widget.example.com app/w is kept by its annotation, which deleting it would delete',
      ],
      ['w', expect.stringMatching(/^annotated spread.rsprd.com\/prune: keep/)],
    ]);
  });

  test('with includeKept both go', async () => {
    const kept = widget('w', { 'spread.rsprd.com/prune': 'keep' });
    const decision = await splitPrune(kube, [crd, kept], [], { pruneCrds: true, includeKept: true });
    expect(decision.pruned).toEqual([crd, kept]);
  });
});

describe('a live spread.rsprd.com/prune that is not keep (set with kubectl) is not pruned either', () => {
  const kube = new FakeKube() as unknown as KubeClient;
  const namespace = candidate({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'app' } });

  test.each([['Keep'], ['true'], [' keep'], ['KEEP'], ['']])(
    '%j: kept with a warning, in the set',
    async (v) => {
      const c = candidate(configMap('important', { 'spread.rsprd.com/prune': v }));
      const decision = await splitPrune(kube, [c, candidate(configMap('gone'))], []);
      expect(decision.pruned.map((x) => x.object.metadata.name)).toEqual(['gone']);
      expect(decision.kept).toEqual([
        {
          candidate: c,
          reason: `annotated spread.rsprd.com/prune: ${JSON.stringify(v)}, which is not "keep" (its only value): not pruned, since a misspelt keep may mean keep; annotate it keep to keep it, or remove the annotation to let spread delete it`,
          warning: true,
        },
      ]);
    },
  );

  test('spread delete says not deleted; keep and no annotation are not misspelt', () => {
    expect(misspeltKeep(configMap('a', { 'spread.rsprd.com/prune': 'Keep' }), 'delete')).toMatch(
      /: not deleted, since/,
    );
    expect(misspeltKeep(configMap('a', { 'spread.rsprd.com/prune': 'keep' }))).toBeUndefined();
    expect(misspeltKeep(configMap('a'))).toBeUndefined();
  });

  test('its Namespace is kept too, since deleting it would delete it', async () => {
    const c = candidate(configMap('important', { 'spread.rsprd.com/prune': 'Keep' }));
    const decision = await splitPrune(kube, [namespace, c], []);
    expect(decision.pruned).toEqual([]);
    expect(decision.kept.map((k) => k.reason)).toEqual([
      'it holds 1 object kept by its annotation (ConfigMap app/important), which deleting it would delete',
      expect.stringMatching(/^annotated spread.rsprd.com\/prune: "Keep", which is not "keep"/),
    ]);
  });

  test('includeKept (spread delete --include-kept) deletes it', async () => {
    const c = candidate(configMap('important', { 'spread.rsprd.com/prune': 'Keep' }));
    expect((await splitPrune(kube, [c], [], { includeKept: true })).pruned).toEqual([c]);
  });

  // Only spread's own annotation: the other tools keep on their exact values, as they do.
  test.each([
    [{ 'helm.sh/resource-policy': 'delete' }],
    [{ 'helm.sh/resource-policy': 'kept' }],
    [{ 'argocd.argoproj.io/sync-options': 'Prune=False' }],
    [{ 'kustomize.toolkit.fluxcd.io/prune': ' disabled' }],
    [{ 'kapp.k14s.io/delete-strategy': 'Orphan' }],
  ])("another tool's other value is pruned: %j", async (annotations) => {
    const c = candidate(configMap('a', annotations));
    const decision = await splitPrune(kube, [c], []);
    expect(decision.pruned).toEqual([c]);
    expect(decision.kept).toEqual([]);
  });
});
