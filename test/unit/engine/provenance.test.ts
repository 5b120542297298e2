import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import { applySetFor } from '../../../src/engine/inventory/applyset.js';
import {
  parseRevisionSecret,
  readRevision,
  recordRollback,
  revisionSecret,
} from '../../../src/engine/inventory/history.js';
import {
  markedImages,
  PROVENANCE,
  parseProvenance,
  provenanceAnnotations,
} from '../../../src/engine/inventory/provenance.js';
import { FakeKube } from './fake-kube.js';

const digest = `sha256:${'ab'.repeat(32)}`;
const web = `localhost:5000/team/web:ctx-0123456789ab@${digest}`;
const deployment: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'prod' },
  spec: { template: { spec: { containers: [{ name: 'web', image: web }] } } },
};
const set = applySetFor('web', 'prod');

describe('revision provenance', () => {
  test('environment, promoted-from and the markers round-trip through the revision Secret', () => {
    const secret = revisionSecret(set, 3, {
      objects: [deployment],
      commit: 'c0ffee',
      environment: 'production',
      promotedFrom: { environment: 'staging', revision: 7, deployment: 'web', namespace: 'shop-staging' },
      marks: [{ mark: '&web', reference: web, digest }],
    });
    expect(secret.metadata.annotations).toMatchObject({
      [PROVENANCE.environment]: 'production',
      [PROVENANCE.promotedFrom]: JSON.stringify({
        environment: 'staging',
        revision: 7,
        deployment: 'web',
        namespace: 'shop-staging',
      }),
    });
    expect(parseRevisionSecret(secret)).toMatchObject({
      commit: 'c0ffee',
      environment: 'production',
      promotedFrom: { environment: 'staging', revision: 7, deployment: 'web', namespace: 'shop-staging' },
      marks: [{ mark: '&web', reference: web, digest }],
    });
  });

  test('a revision recorded before provenance existed reads without it', () => {
    const secret = revisionSecret(set, 1, { objects: [deployment], commit: 'c0ffee' });
    for (const key of Object.values(PROVENANCE)) expect(secret.metadata.annotations?.[key]).toBeUndefined();
    const read = parseRevisionSecret(secret);
    expect(read).not.toHaveProperty('environment');
    expect(read).not.toHaveProperty('promotedFrom');
    expect(read).not.toHaveProperty('marks');
    expect(read.commit).toBe('c0ffee');
  });

  test.each([
    ['not JSON', { [PROVENANCE.promotedFrom]: '{', [PROVENANCE.marks]: 'x' }],
    [
      'the wrong shapes',
      { [PROVENANCE.promotedFrom]: '{"revision":"3"}', [PROVENANCE.marks]: '[{"mark":1}]' },
    ],
  ])('an annotation edited by hand into %s is left out, not an error', (_, annotations) => {
    expect(parseProvenance({ ...annotations, [PROVENANCE.environment]: 'staging' })).toEqual({
      environment: 'staging',
    });
  });

  test('markedImages: one per marker, sorted, digest from the report or the reference', () => {
    expect(
      markedImages([
        { marks: ['&worker', '&api:v1'], reference: `localhost:5000/worker:v1@${digest}` },
        { marks: ['&web'], reference: 'localhost:5000/web:ctx-1', digest: undefined },
      ]),
    ).toEqual([
      { mark: '&api:v1', reference: `localhost:5000/worker:v1@${digest}`, digest },
      { mark: '&web', reference: 'localhost:5000/web:ctx-1' },
      { mark: '&worker', reference: `localhost:5000/worker:v1@${digest}`, digest },
    ]);
  });

  test('no provenance, no annotations', () => {
    expect(provenanceAnnotations({ marks: [] })).toEqual({});
  });

  test('a rollback records the provenance of the revision it applies again', async () => {
    const kube = new FakeKube();
    kube.put(
      revisionSecret(set, 1, {
        objects: [deployment],
        commit: 'c0ffee',
        environment: 'production',
        promotedFrom: { environment: 'staging', revision: 7 },
        marks: [{ mark: '&web', reference: web, digest }],
      }),
    );
    const stored = await readRevision(kube as never, set, 1);
    const back = await recordRollback(kube as never, set, stored!, 1);
    expect(back).toMatchObject({
      revision: 2,
      description: 'rollback to 1',
      commit: 'c0ffee',
      environment: 'production',
      promotedFrom: { environment: 'staging', revision: 7 },
      marks: [{ mark: '&web', reference: web, digest }],
    });
  });
});
