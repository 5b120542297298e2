import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import { TEMPLATE_HASH } from '../../../src/base/labels.js';
import { currentPods, isWaited, rolloutState } from '../../../src/engine/status/registry.js';
import { describeServiceExposure } from '../../../src/engine/status/service.js';
import { templateHash } from '../../../src/engine/wait/rc-roll.js';

const obj = (
  apiVersion: string,
  kind: string,
  spec: object,
  status: object,
  meta: object = {},
): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name: 'x', generation: 1, uid: 'owner', ...meta },
  spec,
  status,
});
const pod = (name: string, ready: boolean, meta: object = {}, spec: object = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ownerReferences: [{ uid: 'owner' }], ...meta },
  spec,
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});

describe('rolloutState of the kinds beyond workloads', () => {
  test.each([
    [
      'PVC bound',
      obj('v1', 'PersistentVolumeClaim', { storageClassName: 'fast' }, { phase: 'Bound' }),
      {},
      true,
      false,
      /bound/,
    ],
    [
      'PVC pending',
      obj('v1', 'PersistentVolumeClaim', { storageClassName: 'fast' }, { phase: 'Pending' }),
      {},
      false,
      false,
      /not bound/,
    ],
    [
      'PVC WaitForFirstConsumer',
      obj('v1', 'PersistentVolumeClaim', { storageClassName: 'local' }, { phase: 'Pending' }),
      { volumeBindingMode: 'WaitForFirstConsumer' },
      true,
      false,
      /first consumer/,
    ],
    [
      'PVC class missing',
      obj('v1', 'PersistentVolumeClaim', { storageClassName: 'nope' }, { phase: 'Pending' }),
      { storageClassMissing: true },
      false,
      true,
      /does not exist/,
    ],
    [
      'PVC lost',
      obj('v1', 'PersistentVolumeClaim', { storageClassName: 'fast' }, { phase: 'Lost' }),
      {},
      false,
      true,
      /lost/,
    ],
    [
      'CRD established',
      obj(
        'apiextensions.k8s.io/v1',
        'CustomResourceDefinition',
        {},
        { conditions: [{ type: 'Established', status: 'True' }] },
      ),
      {},
      true,
      false,
      /established/,
    ],
    [
      'CRD names rejected',
      obj(
        'apiextensions.k8s.io/v1',
        'CustomResourceDefinition',
        {},
        {
          conditions: [{ type: 'NamesAccepted', status: 'False', message: 'plural taken' }],
        },
      ),
      {},
      false,
      true,
      /plural taken/,
    ],
    [
      'LB without ingress',
      obj('v1', 'Service', { type: 'LoadBalancer' }, {}),
      {},
      false,
      false,
      /load balancer address/,
    ],
    [
      'LB with ingress',
      obj('v1', 'Service', { type: 'LoadBalancer' }, { loadBalancer: { ingress: [{ ip: '203.0.113.7' }] } }),
      {},
      true,
      false,
      /203\.0\.113\.7/,
    ],
    ['Job suspended', obj('batch/v1', 'Job', { suspend: true }, {}), {}, true, false, /suspended/],
    [
      'StatefulSet partition reached',
      obj(
        'apps/v1',
        'StatefulSet',
        { replicas: 3, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } },
        {
          observedGeneration: 1,
          readyReplicas: 3,
          updatedReplicas: 1,
          currentRevision: 'a',
          updateRevision: 'b',
        },
      ),
      {},
      true,
      false,
      /partition 2/,
    ],
    [
      'StatefulSet partition pending',
      obj(
        'apps/v1',
        'StatefulSet',
        { replicas: 3, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } } },
        {
          observedGeneration: 1,
          readyReplicas: 3,
          updatedReplicas: 1,
          currentRevision: 'a',
          updateRevision: 'b',
        },
      ),
      {},
      false,
      false,
      /1\/2 replicas updated/,
    ],
    [
      'DaemonSet OnDelete ignores updated',
      obj(
        'apps/v1',
        'DaemonSet',
        { updateStrategy: { type: 'OnDelete' } },
        {
          observedGeneration: 1,
          desiredNumberScheduled: 2,
          updatedNumberScheduled: 0,
          numberAvailable: 2,
        },
      ),
      {},
      true,
      false,
      /2\/2/,
    ],
  ])('%s', (_name, o, context, done, failed, message) => {
    const s = rolloutState(o, context);
    expect([s.done, s.failed]).toEqual([done, failed]);
    expect(s.message).toMatch(message);
  });
});

describe('ReplicationController readiness from its pods', () => {
  const template = {
    metadata: { annotations: { [TEMPLATE_HASH]: 'h2' } },
    spec: { containers: [{ name: 'a', image: 'i:2' }] },
  };
  const rc = obj(
    'v1',
    'ReplicationController',
    { replicas: 2, template },
    { observedGeneration: 1, readyReplicas: 2, fullyLabeledReplicas: 2, availableReplicas: 2 },
  );
  const cur = (n: string, ready = true) => pod(n, ready, { annotations: { [TEMPLATE_HASH]: 'h2' } });
  const old = (n: string) => pod(n, true, { annotations: { [TEMPLATE_HASH]: 'h1' } });

  test.each([
    ['all current and ready', [cur('a'), cur('b')], true, /2\/2/],
    [
      'one old pod left, though the RC counts 2 ready',
      [cur('a'), old('b')],
      false,
      /1\/2 pods of the current template/,
    ],
    ['old pod beside two current ones', [cur('a'), cur('b'), old('c')], false, /older template remain/],
    ['current pod not ready', [cur('a'), cur('b', false)], false, /1\/2/],
    [
      'another owner’s pod is ignored',
      [cur('a'), cur('b'), { ...old('c'), metadata: { name: 'c', ownerReferences: [{ uid: 'other' }] } }],
      true,
      /2\/2/,
    ],
  ])('%s', (_name, pods, done, message) => {
    const s = rolloutState(rc, { pods });
    expect(s.done).toBe(done);
    expect(s.message).toMatch(message);
  });

  test('with minReadySeconds, Ready pods are not enough: the controller must count them available', () => {
    // The controller reports readyReplicas at once and availableReplicas only minReadySeconds later
    // (kstatus reads a ReplicaSet the same way); status leaves availableReplicas out while it is 0.
    const slow = (status: object) =>
      obj('v1', 'ReplicationController', { replicas: 2, minReadySeconds: 30, template }, status);
    const counted = { observedGeneration: 1, readyReplicas: 2, fullyLabeledReplicas: 2 };
    for (const context of [{ pods: [cur('a'), cur('b')] }, {}]) {
      const waiting = rolloutState(slow(counted), context);
      expect(waiting.done).toBe(false);
      expect(waiting.message).toBe('0/2 replicas available (minReadySeconds: 30)');
      expect(rolloutState(slow({ ...counted, availableReplicas: 1 }), context).message).toMatch(/^1\/2/);
      expect(rolloutState(slow({ ...counted, availableReplicas: 2 }), context).done).toBe(true);
    }
  });

  test('without the hash annotation, pods are compared by container names and images', () => {
    const plain = obj(
      'v1',
      'ReplicationController',
      { replicas: 1, template: { spec: { containers: [{ name: 'a', image: 'i:2' }] } } },
      {},
    );
    const pods = [
      pod('p1', true, {}, { containers: [{ name: 'a', image: 'i:1' }] }),
      pod('p2', true, {}, { containers: [{ name: 'a', image: 'i:2' }] }),
    ];
    expect(currentPods(plain, pods).map((p) => p.metadata.name)).toEqual(['p2']);
  });

  test('templateHash ignores its own annotation and key order', () => {
    const a = { metadata: { labels: { x: '1', y: '2' } }, spec: { containers: [{ name: 'a', image: 'i' }] } };
    const b = {
      spec: { containers: [{ image: 'i', name: 'a' }] },
      metadata: { labels: { y: '2', x: '1' }, annotations: { [TEMPLATE_HASH]: 'old' } },
    };
    expect(templateHash(b)).toBe(templateHash({ ...a, metadata: { ...a.metadata, annotations: {} } }));
    expect(templateHash(a)).toMatch(/^[0-9a-f]{16}$/);
    expect(templateHash({ ...a, spec: { containers: [{ name: 'a', image: 'j' }] } })).not.toBe(
      templateHash(a),
    );
  });
});

describe('current pods of a rollout', () => {
  test('Deployment: the pods of the ReplicaSet of its current revision', () => {
    const d = obj(
      'apps/v1',
      'Deployment',
      {},
      {},
      { annotations: { 'deployment.kubernetes.io/revision': '2' } },
    );
    const rs = (uid: string, rev: string, hash: string): KubeObject => ({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `x-${hash}`,
        uid,
        ownerReferences: [{ uid: 'owner' }],
        labels: { 'pod-template-hash': hash },
        annotations: { 'deployment.kubernetes.io/revision': rev },
      },
    });
    const p = (name: string, owner: string, hash: string) =>
      pod(name, false, { ownerReferences: [{ uid: owner }], labels: { 'pod-template-hash': hash } });
    const pods = [p('old', 'rs1', 'h1'), p('new', 'rs2', 'h2')];
    expect(
      currentPods(d, pods, [rs('rs1', '1', 'h1'), rs('rs2', '2', 'h2')]).map((x) => x.metadata.name),
    ).toEqual(['new']);
    expect(currentPods(d, pods, [rs('rs1', '1', 'h1')])).toEqual([]);
    expect(currentPods(d, pods).length).toBe(2);
    // A spec change (a rollback) the controller has not observed: revision 2 is no longer current.
    const unobserved = {
      ...d,
      metadata: { ...d.metadata, generation: 3 },
      status: { observedGeneration: 2 },
    };
    expect(currentPods(unobserved, pods, [rs('rs1', '1', 'h1'), rs('rs2', '2', 'h2')])).toEqual([]);
    const observed = { ...unobserved, status: { observedGeneration: 3 } };
    expect(
      currentPods(observed, pods, [rs('rs1', '1', 'h1'), rs('rs2', '2', 'h2')]).map((x) => x.metadata.name),
    ).toEqual(['new']);
  });

  test('StatefulSet by updateRevision, DaemonSet by template generation', () => {
    const sts = obj('apps/v1', 'StatefulSet', {}, { updateRevision: 'r2' });
    const pods = [
      pod('a', false, { labels: { 'controller-revision-hash': 'r1' } }),
      pod('b', false, { labels: { 'controller-revision-hash': 'r2' } }),
    ];
    expect(currentPods(sts, pods).map((p) => p.metadata.name)).toEqual(['b']);
    const ds = obj('apps/v1', 'DaemonSet', {}, {}, { generation: 3 });
    const dsPods = [
      pod('a', false, { labels: { 'pod-template-generation': '2' } }),
      pod('b', false, { labels: { 'pod-template-generation': '3' } }),
    ];
    expect(currentPods(ds, dsPods).map((p) => p.metadata.name)).toEqual(['b']);
  });
});

describe('isWaited and Service exposure', () => {
  test('LoadBalancer Services only with waitLoadBalancer; PVCs with a class', () => {
    const lb = obj('v1', 'Service', { type: 'LoadBalancer' }, {});
    expect(isWaited(lb)).toBe(false);
    expect(isWaited(lb, { waitLoadBalancer: true })).toBe(true);
    expect(isWaited(obj('v1', 'Service', {}, {}), { waitLoadBalancer: true })).toBe(false);
    expect(isWaited(obj('v1', 'PersistentVolumeClaim', { storageClassName: 'x' }, {}))).toBe(true);
    expect(isWaited(obj('v1', 'PersistentVolumeClaim', {}, {}))).toBe(false);
    expect(isWaited(obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', {}, {}))).toBe(true);
  });

  test.each([
    [
      { type: 'LoadBalancer', ports: [{ port: 80, nodePort: 31000 }] },
      {},
      'LoadBalancer (no address yet), node ports 80:31000/TCP',
    ],
    [
      { type: 'LoadBalancer', ports: [] },
      { loadBalancer: { ingress: [{ hostname: 'lb.example' }] } },
      'LoadBalancer lb.example',
    ],
    [
      { type: 'NodePort', ports: [{ port: 53, nodePort: 30053, protocol: 'UDP' }] },
      {},
      'NodePort 53:30053/UDP',
    ],
    [{ type: 'ClusterIP', ports: [{ port: 80 }] }, {}, undefined],
  ])('%j', (spec, status, text) => {
    expect(describeServiceExposure(obj('v1', 'Service', spec, status))).toBe(text);
  });
});
