import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import type { AppliedObject } from '../../../src/engine/apply/applied.js';
import { judge, track } from '../../../src/engine/wait/tracked.js';

// A Deployment at revision 2, rolling: one pod of the new ReplicaSet starting, one of the old
// revision crash-looping (what a deploy of a fix for a crash loop looks like).
const deployment: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'app',
    uid: 'd1',
    generation: 2,
    annotations: { 'deployment.kubernetes.io/revision': '2' },
  },
  spec: { replicas: 1, selector: { matchLabels: { app: 'web' } } },
  status: { observedGeneration: 2, replicas: 2, updatedReplicas: 1, availableReplicas: 0 },
};
const replicaSet = (uid: string, revision: string, hash: string): KubeObject => ({
  apiVersion: 'meta.k8s.io/v1',
  kind: 'PartialObjectMetadata',
  metadata: {
    name: `web-${hash}`,
    namespace: 'app',
    uid,
    labels: { app: 'web', 'pod-template-hash': hash },
    annotations: { 'deployment.kubernetes.io/revision': revision },
    ownerReferences: [
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'd1', controller: true },
    ],
  },
});
const pod = (name: string, rs: string, hash: string, waiting?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    namespace: 'app',
    uid: name,
    labels: { app: 'web', 'pod-template-hash': hash },
    ownerReferences: [
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `web-${hash}`, uid: rs, controller: true },
    ],
  },
  status: {
    phase: waiting ? 'Running' : 'Pending',
    containerStatuses: [
      { name: 'web', ready: false, state: waiting ? { waiting: { reason: waiting } } : {} },
    ],
  },
});
const applied = {
  object: deployment,
  source: { file: 'web/deployment.yaml', line: 1 },
  resource: { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments', namespaced: true },
  action: 'configured',
  live: deployment,
} as AppliedObject;
const options = { now: 1_000, start: 0, pullSeen: new Map<string, Set<string>>() };
const pods = [pod('web-old-1', 'rs-old', 'old', 'CrashLoopBackOff'), pod('web-new-1', 'rs-new', 'new')];

describe("judge: a Deployment's pods against its ReplicaSets", () => {
  test('while its ReplicaSets are being listed, no pod is diagnosed', () => {
    const t = { ...track(applied), live: deployment, pods, replicaSetsPending: true };
    judge(t, options);
    expect(t.problems).toEqual([]);
    expect(t.result).toBeUndefined();
  });

  test('once they are known, an old revision pod crash-looping is not its problem', () => {
    const t = {
      ...track(applied),
      live: deployment,
      pods,
      replicaSets: [replicaSet('rs-old', '1', 'old'), replicaSet('rs-new', '2', 'new')],
    };
    judge(t, options);
    expect(t.problems).toEqual([]);
    expect(t.state.done).toBe(false);
  });

  test('a pod of the current revision crash-looping is', () => {
    const t = {
      ...track(applied),
      live: deployment,
      pods: [pod('web-new-1', 'rs-new', 'new', 'CrashLoopBackOff')],
      replicaSets: [replicaSet('rs-old', '1', 'old'), replicaSet('rs-new', '2', 'new')],
    };
    judge(t, options);
    expect(t.problems.map((p) => `${p.pod} ${p.reason} ${p.fatal}`)).toEqual([
      'web-new-1 CrashLoopBackOff true',
    ]);
  });
});

describe("judge: a ReplicationController waits for its pods' list", () => {
  // Its status is complete, but counts the pods of every template: the old one's ready pod too.
  const rc: KubeObject = {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: { name: 'web', namespace: 'app', uid: 'rc1', generation: 2 },
    spec: { replicas: 1, selector: { app: 'web' }, template: { metadata: { labels: { app: 'web' } } } },
    status: {
      observedGeneration: 2,
      replicas: 1,
      fullyLabeledReplicas: 1,
      readyReplicas: 1,
      availableReplicas: 1,
    },
  };
  const rcApplied = {
    ...applied,
    object: rc,
    live: rc,
    resource: {
      group: '',
      version: 'v1',
      kind: 'ReplicationController',
      resource: 'replicationcontrollers',
      namespaced: true,
    },
  } as AppliedObject;

  test('while they are being listed, it is not judged', () => {
    const t = { ...track(rcApplied), live: rc, podsPending: true };
    expect(judge(t, options)).toBeUndefined();
    expect(t.result).toBeUndefined();
    expect(t.state.message).toBe('waiting');
  });

  test('once the list was refused (no pods known), it is judged by its status alone', () => {
    const t = { ...track(rcApplied), live: rc, podsPending: false };
    judge(t, options);
    expect(t.state.done).toBe(true);
    expect(t.result?.ready).toBe(true);
  });
});
