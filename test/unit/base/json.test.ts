import { describe, expect, test } from 'vitest';
import { fromJson, toJson } from '../../../src/base/json.js';

describe('JSON with int64 integers exact', () => {
  test('BigInts are written with every digit; other values as JSON.stringify writes them', () => {
    const value = {
      maxBytes: 9007199254740993n,
      max: 9223372036854775807n,
      min: -9223372036854775808n,
      n: 1.5,
    };
    expect(toJson(value)).toBe(
      '{"maxBytes":9007199254740993,"max":9223372036854775807,"min":-9223372036854775808,"n":1.5}',
    );
    expect(toJson({ a: [1, 'x', null] })).toBe(JSON.stringify({ a: [1, 'x', null] }));
  });

  test('a replacer runs before BigInts are written', () => {
    const sorted = toJson({ b: 2n ** 60n, a: 1 }, (_k, v) =>
      v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort()) : v,
    );
    expect(sorted).toBe('{"a":1,"b":1152921504606846976}');
  });

  test('integers past 2^53 within int64 are read back as BigInt, past int64 as float64', () => {
    const text =
      '{"a":9007199254740993,"b":9007199254740991,"c":1e21,"d":18446744073709551615,"e":"9007199254740993"}';
    expect(fromJson(text)).toEqual({
      a: 9007199254740993n,
      b: 9007199254740991,
      c: 1e21,
      d: 18446744073709552000,
      e: '9007199254740993',
    });
    expect(toJson(fromJson('{"x":-9223372036854775808}'))).toBe('{"x":-9223372036854775808}');
  });
});
