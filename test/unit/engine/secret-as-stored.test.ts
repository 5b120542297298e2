import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import { KubeApiError } from '../../../src/cluster/client.js';
import { objectError } from '../../../src/engine/apply/errors.js';
import { secretAsStored, secretShapeProblem } from '../../../src/engine/apply/secret.js';

const secret = (fields: Record<string, unknown>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 's', namespace: 'ns' },
  type: 'Opaque',
  ...fields,
});

describe('secretAsStored', () => {
  test('moves stringData into data as base64 of the UTF-8 bytes', () => {
    const out = secretAsStored(secret({ stringData: { password: 'p1', note: 'grüße ✓', empty: '' } }));
    expect(out).toEqual(
      secret({
        data: {
          password: 'cDE=',
          note: Buffer.from('grüße ✓', 'utf8').toString('base64'),
          empty: '',
        },
      }),
    );
    expect(out).not.toHaveProperty('stringData');
  });

  test('keeps data keys, and a stringData key wins over the same data key (the API server rule)', () => {
    const out = secretAsStored(secret({ data: { a: 'YQ==', b: 'b2xk' }, stringData: { b: 'new' } }));
    expect(out.data).toEqual({ a: 'YQ==', b: 'bmV3' });
  });

  test('an empty or null stringData leaves data as it is', () => {
    expect(secretAsStored(secret({ stringData: {} }))).toEqual(secret({ data: {} }));
    expect(secretAsStored(secret({ data: { a: 'YQ==' }, stringData: null }))).toEqual(
      secret({ data: { a: 'YQ==' } }),
    );
  });

  test('a null value is the empty string (what the API server stores for it)', () => {
    expect(secretAsStored(secret({ stringData: { a: null, b: '' } })).data).toEqual({ a: '', b: '' });
  });

  test.each<[string, unknown]>([
    ['a string', 'hunter2'],
    ['a sequence', ['alpha', 'beta']],
    ['a mapping value', { obj: { a: 'b' } }],
    ['a sequence value', { list: ['x', 'y'] }],
    ['a number value', { n: 5 }],
  ])('leaves a stringData that is %s as it is, for the server to reject', (_, stringData) => {
    const input = secret({ stringData });
    expect(secretAsStored(input)).toBe(input);
  });

  test('does not change its argument', () => {
    const input = secret({ data: { a: 'YQ==' }, stringData: { b: 'x' } });
    const copy = structuredClone(input);
    secretAsStored(input);
    expect(input).toEqual(copy);
  });

  test.each<[string, KubeObject]>([
    ['a Secret without stringData', secret({ data: { a: 'YQ==' } })],
    ['a ConfigMap', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, stringData: { a: 'x' } }],
    [
      'a custom kind named Secret',
      { apiVersion: 'example.com/v1', kind: 'Secret', metadata: { name: 'c' }, stringData: { a: 'x' } },
    ],
  ])('returns %s as it is (the same object)', (_, object) => {
    expect(secretAsStored(object)).toBe(object);
  });
});

describe('secretShapeProblem', () => {
  test.each<[string, Record<string, unknown>, string]>([
    [
      'stringData a string',
      { stringData: 'SCALARSECRET' },
      'stringData must map keys to strings, found a string',
    ],
    [
      'stringData a sequence',
      { stringData: ['LISTSECRET'] },
      'stringData must map keys to strings, found a sequence',
    ],
    [
      'a stringData value a mapping',
      { stringData: { k: { n: 'NESTED' } } },
      'stringData k must be a string, found a mapping',
    ],
    ['a data value a sequence', { data: { k: ['x'] } }, 'data k must be a string, found a sequence'],
    ['a data value a number', { data: { k: 5 } }, 'data k must be a string, found a number'],
  ])('names %s without the value', (_, fields, message) => {
    const problem = secretShapeProblem(secret(fields));
    expect(problem).toBe(`${message} (value not shown)`);
    expect(problem).not.toMatch(/SECRET|NESTED/);
  });

  test('is undefined for maps of strings and nulls, and for other kinds', () => {
    expect(
      secretShapeProblem(secret({ data: { a: 'YQ==' }, stringData: { b: 'x', c: null } })),
    ).toBeUndefined();
    expect(secretShapeProblem(secret({ data: null }))).toBeUndefined();
    expect(
      secretShapeProblem({
        apiVersion: 'example.com/v1',
        kind: 'Secret',
        metadata: { name: 'c' },
        stringData: 'x',
      }),
    ).toBeUndefined();
  });
});

describe('objectError', () => {
  const status = (message: string) =>
    new KubeApiError(500, 'PATCH /x', { kind: 'Status', message, code: 500 }, '');

  test("hides a Secret's values (as sent, and data base64-decoded) that the server's message quotes", () => {
    const s = secret({
      data: { a: Buffer.from('DECODEDSECRET').toString('base64') },
      stringData: { b: 'RAWSECRET' },
    });
    const message = objectError(
      s,
      status(`bad: RAWSECRET and DECODEDSECRET and ${Buffer.from('DECODEDSECRET').toString('base64')}`),
    );
    expect(message).toBe('bad: <redacted> and <redacted> and <redacted>');
  });

  test('leaves other kinds, and values under 3 characters, as they are', () => {
    expect(objectError(secret({ stringData: { a: 'ab' } }), status('ab cd'))).toBe('ab cd');
    const cm: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { a: 'VALUE' },
    };
    expect(objectError(cm, status('VALUE'))).toBe('VALUE');
  });
});
