import { describe, expect, test } from 'vitest';
import { fromJson, toJson } from '../../../src/base/json.js';
import { decodeText } from '../../../src/decode/decode.js';

/**
 * What kubectl 1.34.4 sends for a plain scalar `FORM` as a value (`v: FORM`) and as a mapping key
 * (`v: {FORM: x}`): the JSON text printed by `kubectl annotate --local -f FILE -o json x-`
 * (client-side decoding only, sigs.k8s.io/yaml), or 'error' when kubectl refuses the file.
 * Recorded from kubectl; test/integration/differential.itg.test.ts checks the same forms live.
 */
const KUBECTL: readonly (readonly [form: string, value: string, key: string])[] = [
  ['0400', '256', '"256"'],
  ['0755', '493', '"493"'],
  ['9007199254740993', '9007199254740993', '"9007199254740993"'],
  ['9223372036854775807', '9223372036854775807', '"9223372036854775807"'],
  ['-9223372036854775808', '-9223372036854775808', '"-9223372036854775808"'],
  ['-9223372036854775809', '-9223372036854776000', '"-9.223372e+18"'],
  ['18446744073709551615', '18446744073709552000', 'error'],
  ['18446744073709551616', '18446744073709552000', '"1.8446744e+19"'],
  ['yes', 'true', '"true"'],
  ['Yes', 'true', '"true"'],
  ['YES', 'true', '"true"'],
  ['on', 'true', '"true"'],
  ['On', 'true', '"true"'],
  ['ON', 'true', '"true"'],
  ['y', 'true', '"true"'],
  ['Y', 'true', '"true"'],
  ['n', 'false', '"false"'],
  ['N', 'false', '"false"'],
  ['off', 'false', '"false"'],
  ['Off', 'false', '"false"'],
  ['OFF', 'false', '"false"'],
  ['no', 'false', '"false"'],
  ['true', 'true', '"true"'],
  ['True', 'true', '"true"'],
  ['TRUE', 'true', '"true"'],
  ['False', 'false', '"false"'],
  ['0x1F', '31', '"31"'],
  ['0X1F', '31', '"31"'],
  ['-0x1F', '-31', '"-31"'],
  ['0o17', '15', '"15"'],
  ['0O17', '15', '"15"'],
  ['0b101', '5', '"5"'],
  ['0B101', '5', '"5"'],
  ['-0b101', '-5', '"-5"'],
  ['1_000', '1000', '"1000"'],
  ['0x_1F', '31', '"31"'],
  ['1:20', '"1:20"', '"1:20"'],
  ['1:20.5', '"1:20.5"', '"1:20.5"'],
  ['.inf', 'error', '".inf"'],
  ['-.inf', 'error', '"-.inf"'],
  ['+.inf', 'error', '".inf"'],
  ['.Inf', 'error', '".inf"'],
  ['.nan', 'error', '".nan"'],
  ['.NaN', 'error', '".nan"'],
  ['~', 'null', 'error'],
  ['null', 'null', 'error'],
  ['Null', 'null', 'error'],
  ['NULL', 'null', 'error'],
  ['1e3', '1000', '"1000"'],
  ['1E3', '1000', '"1000"'],
  ['1.5E-7', '1.5e-07', '"1.5e-07"'],
  ['1e21', '1e+21', '"1e+21"'],
  ['1e6', '1000000', '"1e+06"'],
  ['1234567.0', '1234567', '"1.234567e+06"'],
  ['+1e3', '1000', '"1000"'],
  ['1.e3', '1000', '"1000"'],
  ['2001-12-14t21:59:43.10-05:00', '"2001-12-14t21:59:43.10-05:00"', '"2001-12-14t21:59:43.10-05:00"'],
  ['2001-12-14', '"2001-12-14"', '"2001-12-14"'],
  ['2001-12-14 21:59:43.10', '"2001-12-14 21:59:43.10"', '"2001-12-14 21:59:43.10"'],
  ['e5', '"e5"', '"e5"'],
  ['.', '"."', '"."'],
  ['.5', '0.5', '"0.5"'],
  ['-.5', '-0.5', '"-0.5"'],
  ['.5e3', '500', '"500"'],
  ['08', '8', '"8"'],
  ['0128', '128', '"128"'],
  ['0123', '83', '"83"'],
  ['-0123', '-83', '"-83"'],
  // kubectl's key is "-0": the one form spread reads otherwise (a JS Map key cannot be -0).
  ['-0.0', '0', '"0"'],
  ['0xFFFFFFFFFFFFFFFFFF', '"0xFFFFFFFFFFFFFFFFFF"', '"0xFFFFFFFFFFFFFFFFFF"'],
  ['1e400', '"1e400"', '"1e400"'],
  ['+12', '12', '"12"'],
  ['-_1', '-1', '"-1"'],
  ['1.0', '1', '"1"'],
  ['3.14159265358979323846', '3.141592653589793', '"3.1415927"'],
  ['0.1', '0.1', '"0.1"'],
  ['123456789.0', '123456789', '"1.2345679e+08"'],
  ['1_0.5', '10.5', '"10.5"'],
  ['0_7', '7', '"7"'],
  ['0', '0', '"0"'],
  ['00', '0', '"0"'],
  ['-0', '0', '"0"'],
  ['!!binary aGVsbG8=', '"hello"', '"hello"'],
  ['!!str 12', '"12"', '"12"'],
  ['!!int "12"', '12', '"12"'],
  ['!!float 1', '1', '"1"'],
  ['1.5', '1.5', '"1.5"'],
  ['12e', '"12e"', '"12e"'],
  ['0x', '"0x"', '"0x"'],
  ['=', '"="', '"="'],
  ['0.00001', '1e-05', '"1e-05"'],
  ['0.0001', '0.0001', '"0.0001"'],
  ['123456', '123456', '"123456"'],
  ['-1e6', '-1000000', '"-1e+06"'],
  ['1e-7', '1e-07', '"1e-07"'],
  ['0b', '"0b"', '"0b"'],
  ['0o8', '"0o8"', '"0o8"'],
  ['0_x1', '1', '"1"'],
  ['+_1', '1', '"1"'],
  ['1__2', '12', '"12"'],
  ['2e+3', '2000', '"2000"'],
  ['2e-3', '0.002', '"0.002"'],
  ['._5', '"._5"', '"._5"'],
  ['1e1_0', '10000000000', '"1e+10"'],
  ['0.5e', '"0.5e"', '"0.5e"'],
  ['1e', '"1e"', '"1e"'],
  ['07.5', '7.5', '"7.5"'],
];

function decoded(text: string): { value?: unknown; errors: string[] } {
  const result = decodeText('t.yaml', text);
  const errors = result.issues.filter((i) => i.severity === 'error').map((i) => i.message);
  return { value: (result.values[0]?.value as { v?: unknown } | undefined)?.v, errors };
}

describe('scalars are read as kubectl reads them', () => {
  test.each(KUBECTL)('%s', (form, value, key) => {
    const asValue = decoded(`v: ${form}\n`);
    if (value === 'error') expect(asValue.errors).not.toEqual([]);
    else {
      expect(asValue.errors).toEqual([]);
      // Both sides through the same writer: kubectl prints 1.5e-07 where JSON.stringify writes 1.5e-7.
      expect(toJson(asValue.value)).toBe(toJson(fromJson(value)));
    }
    const asKey = decoded(`v:\n  ${form}: x\n`);
    if (key === 'error') expect(asKey.errors).not.toEqual([]);
    else {
      expect(asKey.errors).toEqual([]);
      expect(Object.keys(asKey.value as object)).toEqual([JSON.parse(key)]);
    }
  });
});
