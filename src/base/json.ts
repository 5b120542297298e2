/**
 * JSON for Kubernetes objects with integers exact in the whole int64 range, as the API server and
 * kubectl keep them (Go int64): an integer past 2^53 is a BigInt in memory (the input stage makes it
 * one, see decode/kubectl-yaml.ts), written with every digit through `JSON.rawJSON`, and read back as
 * a BigInt through the source text `JSON.parse` gives a reviver (both ECMAScript, in Node ≥ 21).
 * Everything else is plain `JSON.stringify`/`JSON.parse`.
 */

declare global {
  interface JSON {
    /** ES2025 `JSON.rawJSON` (Node ≥ 21): a value `JSON.stringify` writes as the given JSON text. */
    rawJSON(text: string): unknown;
  }
}

/** A `JSON.stringify` replacer that writes a BigInt as its digits. */
function bigintReplacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? JSON.rawJSON(value.toString()) : value;
}

/**
 * `JSON.stringify(value)` that writes BigInts as JSON integers with every digit, where
 * `JSON.stringify` throws. The plain call is tried first: most objects hold no BigInt.
 *
 * @param replacer applied before BigInts are written (e.g. to sort keys).
 */
export function toJson(value: unknown, replacer?: (key: string, value: unknown) => unknown): string {
  try {
    return replacer ? JSON.stringify(value, replacer) : JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof TypeError) || !/BigInt/i.test(error.message)) throw error;
    return JSON.stringify(
      value,
      replacer ? (key, v) => bigintReplacer(key, replacer.call(undefined, key, v)) : bigintReplacer,
    );
  }
}

/** A run of at least 16 digits: the only text that can hold an integer past 2^53. */
const LONG_DIGITS = /\d{16}/;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * `JSON.parse(text)` that reads an integer past 2^53 within int64 as a BigInt (the value the input
 * stage gives it; past int64 it is a float64 for Go too). Text without a run of 16 digits is parsed
 * as is (the reviver costs time on large answers).
 */
export function fromJson(text: string): unknown {
  if (!LONG_DIGITS.test(text)) return JSON.parse(text);
  return JSON.parse(text, (_key, value: unknown, context?: { source?: string }) => {
    if (typeof value !== 'number' || Number.isSafeInteger(value)) return value;
    const source = context?.source;
    if (source === undefined || !/^-?\d+$/.test(source)) return value;
    const n = BigInt(source);
    return n >= INT64_MIN && n <= INT64_MAX ? n : value;
  });
}

/** {@link toJson} with object keys sorted, so that equal values give equal text whatever their key order. */
export function stableJson(v: unknown): string {
  return toJson(v, (_k, value) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : value,
  );
}
