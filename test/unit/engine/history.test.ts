import { gzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import { HISTORY, revisionSecretName } from '../../../src/base/labels.js';
import { applySetFor } from '../../../src/engine/inventory/applyset.js';
import {
  decodeObjects,
  encodeObjectSet,
  encodeObjects,
  imagesOf,
  lastGoodRevision,
  parseRevisionSecret,
  recordRevision,
  revisionSecret,
  revisionsToDelete,
} from '../../../src/engine/inventory/history.js';
import { objectSetDigest } from '../../../src/engine/inventory/revision-check.js';
import { FakeKube } from './fake-kube.js';

const deployment: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'prod' },
  spec: {
    template: {
      spec: {
        initContainers: [{ name: 'init', image: 'busybox:1.36' }],
        containers: [{ name: 'web', image: 'registry.example/web@sha256:abc' }],
      },
    },
  },
};
const cron: KubeObject = {
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name: 'c' },
  spec: {
    jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] } } } },
  },
};

describe('revisions', () => {
  test('objects round-trip through gzip+base64 and compress', () => {
    const many = Array.from({ length: 50 }, () => deployment);
    const text = encodeObjects(many);
    expect(decodeObjects(text)).toEqual(many);
    expect(text.length).toBeLessThan(JSON.stringify(many).length / 5);
    expect(() => decodeObjects(gzipSync('{}').toString('base64'))).toThrow(/no object list/);
  });

  test('a set of several MiB is stored as gzip members that read back as one array', () => {
    const big = Array.from({ length: 6 }, (_, i) => ({
      ...deployment,
      metadata: { name: `d${i}` },
      data: { text: `${i} ${'x'.repeat(700_000)}` },
    }));
    const bytes = Buffer.from(encodeObjects(big), 'base64');
    // Each member starts with the gzip magic bytes and its deflate method.
    const members = bytes.reduce(
      (n, b, i) => n + (b === 0x1f && bytes[i + 1] === 0x8b && bytes[i + 2] === 8 ? 1 : 0),
      0,
    );
    expect(members).toBeGreaterThanOrEqual(4);
    expect(decodeObjects(bytes.toString('base64'))).toEqual(big);
    // One member, as spread stored it before, reads the same.
    expect(decodeObjects(gzipSync(JSON.stringify(big)).toString('base64'))).toEqual(big);
  });

  test('imagesOf finds every container image once, with digests', () => {
    expect(imagesOf([deployment, cron])).toEqual([
      { image: 'busybox:1.36' },
      { image: 'registry.example/web@sha256:abc', digest: 'sha256:abc' },
    ]);
  });

  test('imagesOf reads the pod template of a PodTemplate and of a custom workload', () => {
    const podTemplate: KubeObject = {
      apiVersion: 'v1',
      kind: 'PodTemplate',
      metadata: { name: 't' },
      template: { spec: { containers: [{ name: 't', image: 'nginx:1.27' }] } },
    };
    const rollout: KubeObject = {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'r' },
      spec: { template: { spec: { containers: [{ name: 'r', image: 'redis:7' }] } } },
    };
    expect(imagesOf([podTemplate, rollout])).toEqual([{ image: 'nginx:1.27' }, { image: 'redis:7' }]);
  });

  test('the revision Secret and back', () => {
    const set = applySetFor('web', 'prod');
    const secret = revisionSecret(set, 7, {
      objects: [deployment],
      commit: 'abc123',
      runUrl: 'https://ci/run/9',
      time: new Date('2025-01-01T00:00:00Z'),
    });
    expect(secret.metadata.name).toBe('spread.web.v7');
    expect(secret.type).toBe(HISTORY.type);
    expect(secret.metadata.labels).toMatchObject({
      [HISTORY.applySet]: set.id,
      'spread.rsprd.com/deployment': 'web',
      [HISTORY.revision]: '7',
    });
    expect(secret.metadata.labels?.['applyset.kubernetes.io/part-of']).toBeUndefined();
    const back = parseRevisionSecret(secret, true);
    expect(back).toMatchObject({
      deployment: 'web',
      namespace: 'prod',
      revision: 7,
      time: '2025-01-01T00:00:00.000Z',
      commit: 'abc123',
      runUrl: 'https://ci/run/9',
      objectCount: 1,
      status: 'deployed',
      secretName: revisionSecretName('web', 7),
    });
    expect(back.objects).toEqual([deployment]);
    expect(back.images.map((i) => i.image)).toEqual(['busybox:1.36', 'registry.example/web@sha256:abc']);
  });

  test('an object set encoded ahead makes the same revision Secret as the objects themselves', () => {
    const set = applySetFor('web', 'prod');
    const time = new Date('2025-01-01T00:00:00Z');
    const encoded = encodeObjectSet([deployment]);
    expect(encoded.count).toBe(1);
    expect(encoded.images.map((i) => i.image)).toEqual(['busybox:1.36', 'registry.example/web@sha256:abc']);
    const ahead = revisionSecret(set, 3, { objects: encoded, time });
    expect(ahead).toEqual(revisionSecret(set, 3, { objects: [deployment], time }));
    expect(parseRevisionSecret(ahead, true).objects).toEqual([deployment]);
  });

  test.each([
    [[1, 2, 3], 10, undefined, []],
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], 10, 12, [1, 2]],
    [[5, 4, 3, 2, 1], 2, undefined, [1, 2, 3]],
    [[1, 2, 3, 4], 2, 1, [2, 3]],
    [[1, 2], 0, 2, [1]],
  ])('retention of %j keeping %i (current %s) deletes %j', (revisions, keep, current, doomed) => {
    expect(revisionsToDelete(revisions, keep, current)).toEqual(doomed);
  });

  test('a failed revision is recorded as failed; one recorded before statuses existed reads as deployed', () => {
    const set = applySetFor('web', 'prod');
    const failed = revisionSecret(set, 3, { objects: [deployment], status: 'failed' });
    expect(failed.metadata.annotations?.[HISTORY.status]).toBe('failed');
    expect(parseRevisionSecret(failed).status).toBe('failed');
    const old = revisionSecret(set, 2, { objects: [deployment] });
    delete old.metadata.annotations?.[HISTORY.status];
    expect(parseRevisionSecret(old).status).toBe('deployed');
  });

  test.each([
    ['the newest good one below', [1, 2, 3], [], 4, 3],
    ['failed ones skipped', [1, 2, 3], [2, 3], 4, 1],
    ['only failed ones', [1, 2], [1, 2], 3, undefined],
    ['none below', [5], [], 5, undefined],
  ])('lastGoodRevision: %s', (_, numbers, failed, below, expected) => {
    const revisions = numbers.map((revision) => ({
      revision,
      status: failed.includes(revision) ? ('failed' as const) : ('deployed' as const),
    }));
    expect(lastGoodRevision(revisions, below)).toBe(expected);
  });

  test('retention keeps the last good revision however many failed ones follow it', () => {
    const all = Array.from({ length: 12 }, (_, i) => i + 1);
    expect(revisionsToDelete(all, 10, 12, 1)).toEqual([2, 3]);
    expect(revisionsToDelete(all, 1, 12, 12)).toEqual(all.slice(0, 11));
    expect(revisionsToDelete([1, 2, 3], 1, 3, 1)).toEqual([2]);
  });
});

describe('objectSetDigest', () => {
  const service: KubeObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: 'prod' },
    spec: { ports: [{ port: 80 }] },
  };

  test('the same objects in another order, with keys in another order, have the same digest', () => {
    const reordered: KubeObject = {
      spec: { ports: [{ port: 80 }] },
      metadata: { namespace: 'prod', name: 'web' },
      kind: 'Service',
      apiVersion: 'v1',
    };
    expect(objectSetDigest([deployment, service])).toBe(objectSetDigest([reordered, deployment]));
    expect(objectSetDigest([deployment, service])).toMatch(/^[0-9a-f]{64}$/);
  });

  test('a changed value, a missing object or an object twice changes the digest', () => {
    const base = objectSetDigest([deployment, service]);
    const changed: KubeObject = { ...service, spec: { ports: [{ port: 81 }] } };
    expect(objectSetDigest([deployment, changed])).not.toBe(base);
    expect(objectSetDigest([deployment])).not.toBe(base);
    expect(objectSetDigest([deployment, service, service])).not.toBe(base);
    // The array order inside an object is part of its value.
    const ports: KubeObject = { ...service, spec: { ports: [{ port: 80 }, { port: 443 }] } };
    const swapped: KubeObject = { ...service, spec: { ports: [{ port: 443 }, { port: 80 }] } };
    expect(objectSetDigest([ports])).not.toBe(objectSetDigest([swapped]));
  });
});

describe('recordRevision', () => {
  const set = applySetFor('web', 'prod');
  const parentPath = `/api/v1/namespaces/prod/secrets/${set.parentName}`;

  test('reads the stored revisions and the current one, then creates the next and points the parent at it', async () => {
    const kube = new FakeKube();
    kube.put(revisionSecret(set, 2, { objects: [deployment] }));
    const r = await recordRevision(kube as never, set, { objects: [deployment] });
    expect(r.revision).toBe(3);
    expect(kube.log.slice(0, 2).sort()).toEqual(['GET /api/v1/namespaces/prod/secrets', `GET ${parentPath}`]);
    expect(kube.log.slice(2)).toEqual(['POST /api/v1/namespaces/prod/secrets', `PATCH ${parentPath}`]);
  });

  test('with what the deploy read before (prior), it reads nothing and numbers from that', async () => {
    const kube = new FakeKube();
    const stored = parseRevisionSecret(revisionSecret(set, 2, { objects: [deployment] }));
    const r = await recordRevision(
      kube as never,
      set,
      { objects: [deployment] },
      { prior: { existing: [stored], current: 4 } },
    );
    expect(r.revision).toBe(5);
    expect(kube.log).toEqual(['POST /api/v1/namespaces/prod/secrets', `PATCH ${parentPath}`]);
  });
});
