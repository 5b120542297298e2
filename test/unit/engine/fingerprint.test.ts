import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import { applySetFor, parentObject, parentState } from '../../../src/engine/inventory/applyset.js';
import {
  decodeFingerprints,
  encodeFingerprints,
  fingerprintsDigest,
  objectFingerprint,
  sameOwnFields,
} from '../../../src/engine/plan/fingerprint.js';

const applied: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'shop', labels: { app: 'shop' } },
  data: { mode: 'fast' },
};
const entry = {
  manager: 'spread',
  operation: 'Apply',
  apiVersion: 'v1',
  time: '2026-11-30T10:00:00Z',
  fieldsV1: { 'f:data': { 'f:mode': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } },
};
const live = (changes: { uid?: string; managedFields?: unknown[] } = {}): KubeObject => ({
  ...applied,
  metadata: {
    ...applied.metadata,
    uid: changes.uid ?? '3f0c1f9e-0000-4000-8000-000000000001',
    resourceVersion: '42',
    managedFields: changes.managedFields ?? [entry],
  },
});

describe('objectFingerprint', () => {
  const base = objectFingerprint(applied, live(), 'spread')!;

  test('a 22-character base64url digest, the same for the same state', () => {
    expect(base).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(objectFingerprint(structuredClone(applied), live(), 'spread')).toBe(base);
  });

  test('key order does not matter', () => {
    const reordered: KubeObject = {
      data: { mode: 'fast' },
      metadata: applied.metadata,
      kind: 'ConfigMap',
      apiVersion: 'v1',
    };
    expect(objectFingerprint(reordered, live(), 'spread')).toBe(base);
  });

  test('other managers and the resourceVersion do not count (status, controllers)', () => {
    const other = {
      manager: 'kube-controller-manager',
      operation: 'Update',
      time: '2026-11-30T11:00:00Z',
      fieldsV1: {},
    };
    const status = { ...entry, subresource: 'status', fieldsV1: { 'f:status': {} } };
    expect(objectFingerprint(applied, live({ managedFields: [entry, other, status] }), 'spread')).toBe(base);
  });

  test.each<[string, KubeObject, KubeObject]>([
    ['another configuration', { ...applied, data: { mode: 'slow' } }, live()],
    [
      'the object created again (another uid)',
      applied,
      live({ uid: '3f0c1f9e-0000-4000-8000-000000000002' }),
    ],
    [
      'a field taken by another manager',
      applied,
      live({ managedFields: [{ ...entry, fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {} } } } }] }),
    ],
    [
      'spread applied a change since (a new time)',
      applied,
      live({ managedFields: [{ ...entry, time: '2026-11-30T10:00:01Z' }] }),
    ],
    ['another API version of the entry', applied, live({ managedFields: [{ ...entry, apiVersion: 'v2' }] })],
  ])('differs for %s', (_, a, l) => {
    expect(objectFingerprint(a, l, 'spread')).not.toBe(base);
  });

  test('differs when the generation moved (a spec change that managedFields may not show: /scale of a CR)', () => {
    const l = live();
    expect(
      objectFingerprint(applied, { ...l, metadata: { ...l.metadata, generation: 2 } }, 'spread'),
    ).not.toBe(objectFingerprint(applied, { ...l, metadata: { ...l.metadata, generation: 3 } }, 'spread'));
  });

  test.each<[string, KubeObject]>([
    ['no entry of the field manager', live({ managedFields: [{ ...entry, manager: 'kubectl' }] })],
    ['only an Update entry of it', live({ managedFields: [{ ...entry, operation: 'Update' }] })],
    ['no uid', { ...live(), metadata: { ...live().metadata, uid: undefined } }],
  ])('is undefined with %s', (_, l) => {
    expect(objectFingerprint(applied, l, 'spread')).toBeUndefined();
  });

  test('is undefined for a Secret written with stringData (stored as data, which others can change)', () => {
    const secret: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      stringData: { k: 'v' },
    };
    expect(objectFingerprint(secret, { ...live(), kind: 'Secret' }, 'spread')).toBeUndefined();
    const withData: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data: { k: 'dg==' },
    };
    expect(objectFingerprint(withData, { ...live(), kind: 'Secret' }, 'spread')).toBeDefined();
    // A custom kind named Secret is not a core/v1 Secret: its stringData is an ordinary field.
    const custom: KubeObject = { ...secret, apiVersion: 'example.com/v1' };
    expect(
      objectFingerprint(custom, { ...live(), ...custom, metadata: live().metadata }, 'spread'),
    ).toBeDefined();
  });
});

describe('sameOwnFields', () => {
  test.each<[string, unknown[], boolean]>([
    ['the same entry at another time', [{ ...entry, time: '2026-12-01T00:00:00Z' }], true],
    [
      'other managers differ only',
      [entry, { manager: 'kubectl', operation: 'Update', fieldsV1: { 'f:x': {} } }],
      true,
    ],
    [
      'spread would own one more field',
      [{ ...entry, fieldsV1: { ...entry.fieldsV1, 'f:binaryData': {} } }],
      false,
    ],
    ['spread owns nothing there', [], false],
  ])('%s: %s', (_, managedFields, same) => {
    expect(sameOwnFields(live(), live({ managedFields }), 'spread')).toBe(same);
  });
});

describe('fingerprints in the ApplySet parent', () => {
  const set = applySetFor('shop', 'shop');
  const prints = ['bbbbbbbbbbbbbbbbbbbbbb', 'aaaaaaaaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbbbbbbbb'];

  test('encode and decode: sorted, unique, round trip', () => {
    const data = encodeFingerprints(prints);
    expect(Buffer.from(data, 'base64').toString()).toBe('aaaaaaaaaaaaaaaaaaaaaa\nbbbbbbbbbbbbbbbbbbbbbb');
    expect([...decodeFingerprints(data)]).toEqual(['aaaaaaaaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbbbbbbbb']);
  });

  test('decoding ignores what is not a fingerprint, and absence is the empty set', () => {
    expect(decodeFingerprints(Buffer.from('short\naaaaaaaaaaaaaaaaaaaaaa\n').toString('base64')).size).toBe(
      1,
    );
    expect(decodeFingerprints(undefined).size).toBe(0);
  });

  test('the parent always holds data.fingerprints (empty without any), and parentState reads them back', () => {
    expect(parentObject(set, ['ConfigMap'], ['shop']).data).toEqual({ fingerprints: '' });
    expect(parentState(parentObject(set, ['ConfigMap'], ['shop'], []), set).fingerprints.size).toBe(0);
    const parent = parentObject(set, ['ConfigMap'], ['shop'], prints);
    expect(parentState(parent, set).fingerprints).toEqual(new Set(prints));
  });
});

describe('fingerprintsDigest', () => {
  test('one digest per set, whatever the order and repeats; none for the empty set', () => {
    const a = 'AAAAAAAAAAAAAAAAAAAAAA';
    const b = 'BBBBBBBBBBBBBBBBBBBBBB';
    expect(fingerprintsDigest([a, b])).toBe(fingerprintsDigest([b, a, b]));
    expect(fingerprintsDigest([a, b])).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(fingerprintsDigest([a])).not.toBe(fingerprintsDigest([a, b]));
    expect(fingerprintsDigest([])).toBeUndefined();
  });
});
