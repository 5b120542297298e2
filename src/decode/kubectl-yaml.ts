// YAML scalars resolved as kubectl resolves them (sigs.k8s.io/yaml: YAML 1.1 booleans, Go's integers,
// int64 exact), so that a file sends the API server the same JSON through spread as through kubectl.
import { type ScalarTag, Schema, type Tags } from 'yaml';

/**
 * How kubectl reads YAML, so that spread sends the API server the same JSON. kubectl decodes files
 * with sigs.k8s.io/yaml: go-yaml v2 resolves the scalars (YAML 1.1 rules, with Go's number syntax),
 * then the value is converted to JSON (`YAMLToJSON`) and read back as unstructured JSON (integers as
 * int64, else float64). Each rule below was checked against kubectl 1.34 (`kubectl annotate --local
 * -o json`, which prints what it would send):
 *
 * - booleans `y Y yes Yes YES true True TRUE on On ON` and their `n`/`no`/`false`/`off` forms;
 *   null `~ null Null NULL` and the empty value;
 * - integers with Go's base prefixes and `_` anywhere after the first character: `0400` → 256 (a leading
 *   0 is octal), `0o17` and `0O17` → 15, `0x1F` and `0X1F` → 31, `0b101` → 5, `1_000` → 1000; exact
 *   in the int64 range (`9223372036854775807`); past it, a decimal integer becomes a float64
 *   (`18446744073709551615` → 18446744073709552000); `08` and `0128` are floats (8, 128);
 * - floats: `1e3` → 1000, `.5`, `1.`, `-.5`; `.inf`, `-.inf` and `.nan` cannot be JSON, so kubectl
 *   fails on them as values; a float past float64 (`1e400`) stays a string;
 * - strings: sexagesimal `1:20` and timestamps `2001-12-14` (go-yaml v2 gives interface{} targets the
 *   text of a timestamp), `e5`, `.`, `0x`;
 * - `!!binary` is its decoded bytes as text;
 * - mapping keys become JSON keys: integers in decimal, booleans `true`/`false`, floats formatted as
 *   float32 (`1e6` → `1e+06`, `3.14159265358979` → `3.1415927`); null and uint64 keys are errors.
 *   One exception: the key `-0.0` gives `0` (a JS Map key cannot be -0), kubectl `-0`.
 *
 * The `yaml` library does the parsing (YAML 1.1 mode, `intAsBigInt`); only its number tags are
 * replaced, since its YAML 1.1 ones read `1:20` as 80, `0o17` as a string and `2001-12-14` as a date.
 */

/** Matches an integer as Go's `strconv.ParseInt(s, 0, 64)` reads it once `_` are removed. */
const GO_INT =
  /^(?:[-+]_*)?(?:0_*[xX][_0-9a-fA-F]*[0-9a-fA-F][_0-9a-fA-F]*|0_*[bB][_01]*[01][_01]*|0_*[oO][_0-7]*[0-7][_0-7]*|0[_0-7]*|[1-9][_0-9]*)$/;

/**
 * Matches a float as go-yaml v2 reads it: after a leading `.`, what Go's `strconv.ParseFloat` takes
 * (no `_`); otherwise its `yamlStyleFloat` pattern once `_` are removed.
 */
const GO_FLOAT =
  /^(?:\.[0-9]+(?:[eE][-+]?[0-9]+)?|(?:[-+]_*(?:\.[_0-9]*[0-9][_0-9]*|[0-9][_0-9]*(?:\.[_0-9]*)?)|[0-9][_0-9]*(?:\.[_0-9]*)?)(?:[eE]_*[-+]?_*[_0-9]*[0-9][_0-9]*)?)$/;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** Go's base-0 integer syntax: `0x`/`0o`/`0b` prefixes, or a leading `0` for octal. */
function goBigInt(digits: string): bigint {
  const negative = digits.startsWith('-');
  const body = digits.replace(/^[-+]/, '');
  let n: bigint;
  if (/^0[xXoObB]/.test(body)) n = BigInt(`0${body[1]!.toLowerCase()}${body.slice(2)}`);
  else if (body.length > 1 && body.startsWith('0')) n = BigInt(`0o${body.slice(1)}`);
  else n = BigInt(body);
  return negative ? -n : n;
}

const goInt: ScalarTag = {
  identify: (value) => typeof value === 'bigint',
  default: true,
  tag: 'tag:yaml.org,2002:int',
  test: GO_INT,
  resolve(source) {
    const digits = source.replace(/_/g, '');
    const n = goBigInt(digits);
    // int64 first, then uint64 without a sign (kept as BigInt: as a key, kubectl refuses it).
    if (n >= INT64_MIN && n <= INT64_MAX) return n;
    if (n <= UINT64_MAX && !/^[-+]/.test(digits)) return n;
    // Past both, go-yaml tries the float pattern (decimal digits only), else keeps the text.
    return /^[-+]?[0-9]+$/.test(digits) ? Number(digits) : source;
  },
};

const goFloat: ScalarTag = {
  identify: (value) => typeof value === 'number',
  default: true,
  tag: 'tag:yaml.org,2002:float',
  test: GO_FLOAT,
  resolve(source) {
    const n = Number.parseFloat(source.replace(/_/g, ''));
    // strconv.ParseFloat fails with ErrRange past float64, and go-yaml then keeps the text.
    return Number.isFinite(n) ? n : source;
  },
};

/** The `yaml` library's tags that kubectl's reader does not have, or reads otherwise. */
const REPLACED = new Set(['tag:yaml.org,2002:int', 'tag:yaml.org,2002:float', 'tag:yaml.org,2002:timestamp']);
const DROPPED = new Set(['tag:yaml.org,2002:omap', 'tag:yaml.org,2002:pairs', 'tag:yaml.org,2002:set']);

/**
 * The `customTags` of the `yaml` library's YAML 1.1 schema that read scalars as kubectl does: its
 * own null, boolean, `.inf`/`.nan`, `!!binary` and merge tags, and go-yaml v2's integers and floats.
 */
export function kubectlTags(tags: Tags): Tags {
  const kept = tags.filter((t) => {
    const tag = typeof t === 'string' ? t : t.tag;
    if (DROPPED.has(tag)) return false;
    if (!REPLACED.has(tag)) return true;
    // `.inf` and `.nan` are the library's float tag with this exact test.
    return typeof t !== 'string' && 'test' in t && t.test?.test('.nan') === true;
  });
  return [...kept, goInt, goFloat];
}

/**
 * The `yaml` library's options that read YAML as kubectl does: YAML 1.1, {@link kubectlTags}, merge
 * keys, integers as BigInt (made numbers again by {@link jsonValue} where exact). The schema is built
 * once: a `customTags` function would build it again for every parse.
 */
export const KUBECTL_YAML = {
  version: '1.1',
  schema: new Schema({ schema: 'yaml-1.1', customTags: kubectlTags, merge: true }),
  intAsBigInt: true,
  merge: true,
} as const;

/** Why a mapping key cannot be a JSON key for kubectl; undefined when it can. */
export function keyProblem(key: unknown): string | undefined {
  if (key === null || key === undefined) return 'a null mapping key (~, null or nothing) has no JSON form';
  if (typeof key === 'bigint' && (key < INT64_MIN || key > INT64_MAX))
    return 'a mapping key past the int64 range has no JSON form';
  if (typeof key === 'object' && !(key instanceof Uint8Array))
    return 'a mapping or sequence as a mapping key has no JSON form';
  return undefined;
}

/**
 * The JSON key kubectl makes of a YAML mapping key: a string as is, an integer in decimal, a boolean
 * as `true`/`false`, a float as Go's `strconv.FormatFloat(f, 'g', -1, 32)` with `.inf`/`-.inf`/`.nan`.
 * Keys {@link keyProblem} refuses are given as `String(key)`.
 */
export function jsonKey(key: unknown): string {
  if (typeof key === 'string') return key;
  if (typeof key === 'number') return goFloat32(key);
  if (key instanceof Uint8Array) return new TextDecoder().decode(key);
  return String(key);
}

/** Go's `strconv.FormatFloat(f, 'g', -1, 32)`: the shortest float32 digits, `%e` from 1e6 and below 1e-4. */
function goFloat32(f: number): string {
  if (Number.isNaN(f)) return '.nan';
  if (f === Number.POSITIVE_INFINITY) return '.inf';
  if (f === Number.NEGATIVE_INFINITY) return '-.inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const single = Math.fround(f);
  let shortest = single.toPrecision(9);
  for (let p = 1; p <= 9; p++) {
    const text = single.toPrecision(p);
    if (Math.fround(Number(text)) === single) {
      shortest = text;
      break;
    }
  }
  const [mantissa = '0', exp = '0'] = Number(shortest).toExponential().split('e');
  const exponent = Number(exp);
  const digits = mantissa.replace(/^-/, '').replace('.', '');
  const sign = single < 0 ? '-' : '';
  // With the shortest precision, Go's 'g' picks %e when the exponent is < -4 or >= 6.
  if (exponent < -4 || exponent >= 6) {
    const e = Math.abs(exponent);
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : '';
    return `${sign}${digits[0]}${fraction}e${exponent < 0 ? '-' : '+'}${e < 10 ? `0${e}` : e}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
  const fraction = digits.slice(exponent + 1);
  return `${sign}${whole}${fraction ? `.${fraction}` : ''}`;
}

const SAFE_MIN = BigInt(Number.MIN_SAFE_INTEGER);
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The JSON-ready value kubectl sends for a value the `yaml` library built with `mapAsMap` and
 * `intAsBigInt`: mappings become objects keyed by {@link jsonKey}; integers become numbers when
 * exact as doubles, stay BigInt past 2^53 within int64, and become float64 past int64 (kubectl reads
 * its JSON back as int64 or float64); `!!binary` bytes become their text. Shared (aliased) parts stay
 * shared. Keys {@link keyProblem} refuses must be reported before.
 */
export function jsonValue(value: unknown, memo: Map<object, unknown> = new Map()): unknown {
  if (typeof value === 'bigint') {
    if (value >= SAFE_MIN && value <= SAFE_MAX) return Number(value);
    return value >= INT64_MIN && value <= INT64_MAX ? value : Number(value);
  }
  if (typeof value !== 'object' || value === null) return value;
  const known = memo.get(value);
  if (known !== undefined) return known;
  if (value instanceof Uint8Array) return new TextDecoder().decode(value);
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    memo.set(value, out);
    value.forEach((item, i) => {
      out[i] = jsonValue(item, memo);
    });
    return out;
  }
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    memo.set(value, out);
    for (const [k, v] of value) {
      // A plain assignment of `__proto__` would set the prototype instead of a key.
      Object.defineProperty(out, jsonKey(k), {
        value: jsonValue(v, memo),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}
