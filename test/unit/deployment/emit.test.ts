import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { crdBundle } from '../../../bench/large-inputs.mjs';
import { decodeText } from '../../../src/decode/decode.js';
import { KUBECTL_YAML } from '../../../src/decode/kubectl-yaml.js';
import { emitObject } from '../../../src/deployment/emit.js';
import type { KubeObject } from '../../../src/deployment/index.js';
import { renderWithLibrary } from '../../../src/deployment/render.js';

/** emitObject's document against the yaml library's, which it must equal byte for byte. */
function expectSameAsLibrary(object: Record<string, unknown>): string {
  const emitted = emitObject(object);
  expect(emitted, 'emitObject left a plain-data object to the library').toBeDefined();
  expect(emitted).toBe(renderWithLibrary(object as KubeObject));
  return emitted as string;
}

const STRINGS = [
  '',
  ' ',
  'plain',
  'two words',
  'trailing space ',
  ' leading space',
  '\ttab',
  'a\tb',
  'key: value',
  'key:value',
  'ends with colon:',
  'a # comment',
  'a#b',
  '#start',
  '- dash',
  '-',
  '?',
  '? q',
  '---',
  '--- x',
  '...',
  '%YAML',
  '@at',
  '`tick',
  '&anchor',
  '*alias',
  '!tag',
  '|pipe',
  '>gt',
  "'single'",
  '"double"',
  "it's",
  'say "hi"',
  `both ' and "`,
  '[flow]',
  '{flow}',
  'a, b',
  'yes',
  'No',
  'on',
  'OFF',
  'y',
  'N',
  'true',
  'False',
  'null',
  'Null',
  'NuLL',
  '~',
  '0',
  '0755',
  '0o17',
  '0x1F',
  '1_000',
  '1e3',
  '1.5',
  '.5',
  '-.inf',
  '.nan',
  '1:20',
  '2001-12-14',
  '<<',
  '=',
  'v1',
  'apps/v1',
  'nginx:1.27',
  'https://example.com/a?b=c#d',
  'line\nbreak',
  'line\nbreak\n',
  'kept\n\n',
  '\nleading newline',
  '  indented\nfirst line',
  'first\n  indented second',
  'trailing spaces  \nnext',
  'tab\tinside\nlines',
  'bell\u0007',
  'del\u007f',
  'nel\u0085next',
  'bom\ufeffinside',
  'line\u2028separator',
  'para\u2029separator',
  'é accents ü',
  '日本語',
  'emoji 🚀',
  'lone \ud800 surrogate',
  '---\ndocument marker on the second line',
  'a\n---\nb',
  'x'.repeat(2000),
  `${'word '.repeat(40)}end`,
  `multi\n${'long line '.repeat(30)}\nend`,
];

describe('emitObject', () => {
  test.each(STRINGS.map((s) => [JSON.stringify(s).slice(0, 60), s]))(
    'the string %s as a value, a key, a sequence item and a nested value',
    (_name, s) => {
      expectSameAsLibrary({ value: s });
      if (s.length <= 1000) expectSameAsLibrary({ [s]: 'v', other: 1 });
      expectSameAsLibrary({ list: [s, s] });
      expectSameAsLibrary({ a: { b: [{ c: s, d: [s] }] } });
    },
  );

  test.each([
    ['integers', { a: 0, b: -1, c: 42, d: Number.MAX_SAFE_INTEGER, e: -0 }],
    ['floats', { a: 1.5, b: 1e21, c: 1e-7, d: -2.5e-300 }],
    ['non-finite numbers', { a: Number.NaN, b: Number.POSITIVE_INFINITY, c: Number.NEGATIVE_INFINITY }],
    ['bigints', { a: 9223372036854775807n, b: -9223372036854775808n }],
    ['booleans and null', { a: true, b: false, c: null }],
    ['a map of only nulls', { a: null, b: null }],
    ['empty collections', { a: {}, b: [], c: [{}, []], d: { e: {} } }],
    ['nested sequences', { a: [[1, 2], [[3]], [], [{ b: [4] }]] }],
    ['sequences of maps', { a: [{ b: 1, c: { d: [2] } }, { e: 'x\ny' }] }],
    ['undefined values are left out', { a: undefined, b: 1, c: { d: undefined } }],
    ['numeric keys (insertion order as JavaScript keeps it)', { b: 1, 2: 'two', 1: 'one', a: 3 }],
    ['a null-prototype object', Object.assign(Object.create(null), { a: 1 })],
    ['an empty document', {}],
  ])('%s', (_name, object) => {
    expectSameAsLibrary(object as Record<string, unknown>);
  });

  test.each([
    [
      'an object twice (the library writes an alias)',
      (() => {
        const labels = { app: 'web' };
        return { a: labels, b: labels };
      })(),
    ],
    ['a Date', { a: new Date(0) }],
    ['a Map', { a: new Map([['k', 'v']]) }],
    ['a Uint8Array', { a: new Uint8Array([1]) }],
    ['an undefined sequence item', { a: [1, undefined] }],
    ['a sequence hole', { a: new Array(3).fill(1, 0, 1) }],
    ['a key of over 1024 characters', { ['k'.repeat(1100)]: 1 }],
  ])('%s is left to the library', (_name, object) => {
    expect(emitObject(object as Record<string, unknown>)).toBeUndefined();
  });

  test('what it writes reads back as the same object in YAML 1.1 (kubectl) and 1.2', () => {
    const object = Object.fromEntries(STRINGS.map((s, i) => [`k${i}`, s]));
    const text = expectSameAsLibrary({ ...object, list: STRINGS });
    expect(parse(text, { version: '1.2' })).toEqual({ ...object, list: STRINGS });
    expect(parse(text, KUBECTL_YAML)).toEqual({ ...object, list: STRINGS });
  });
});

/** Every .yaml, .yml and .json file below `dir`, outside node_modules and dot-folders other than .k2e. */
function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || (name.startsWith('.') && !['.k2e', '.kube'].includes(name))) continue;
    const file = join(dir, name);
    if (statSync(file).isDirectory()) out.push(...files(file));
    else if (/\.(ya?ml|json|ctr)$/.test(name)) out.push(file);
  }
  return out;
}

describe('emitObject on real inputs', () => {
  const root = join(import.meta.dirname, '../../..');
  const inputs = ['test/fixtures', 'examples', 'templates', '.github']
    .flatMap((d) => files(join(root, d)))
    .map((f) => [relative(root, f), f] as const);

  test("every mapping document of the repository's YAML and JSON files", () => {
    let compared = 0;
    for (const [name, file] of inputs) {
      let values: unknown[];
      try {
        values = decodeText(name, readFileSync(file, 'utf8')).values.map((v) => v.value);
      } catch {
        continue; // a fixture of bad input
      }
      for (const value of values) {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
        expectSameAsLibrary(value as Record<string, unknown>);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(100);
  });

  test('a generated CRD bundle (deep OpenAPI schemas, block and quoted descriptions)', () => {
    const values = decodeText('crds.yaml', crdBundle({ bytes: 400_000 })).values;
    expect(values.length).toBe(6);
    for (const { value } of values) expectSameAsLibrary(value as Record<string, unknown>);
  });
});

/** A small deterministic generator (a 32-bit LCG). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('emitObject on generated objects', () => {
  // Pieces that decide how a scalar is written: indicators, separators, line breaks and spaces at
  // either end, YAML 1.1 and 1.2 words and numbers, escapes, document markers.
  const PIECES = [
    'a',
    'Z',
    'web',
    ' ',
    '  ',
    '\t',
    '\n',
    '\n\n',
    ':',
    ': ',
    '#',
    ' #',
    '-',
    '- ',
    '?',
    '---',
    '...',
    '%',
    '@',
    '`',
    '&',
    '*',
    '!',
    '|',
    '>',
    "'",
    '"',
    '[',
    ']',
    '{',
    '}',
    ',',
    '\\',
    'yes',
    'on',
    'y',
    'null',
    '~',
    'true',
    '0',
    '07',
    '1.5',
    '0x1F',
    '1e3',
    '.inf',
    '1:2',
    '<<',
    'é',
    '\u0085',
    '\u2028',
    '\u0007',
    '\ufeff',
    'x'.repeat(50),
  ];
  const next = random(20261204);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T;
  const text = () => Array.from({ length: 1 + Math.floor(next() * 5) }, () => pick(PIECES)).join('');
  const value = (depth: number): unknown => {
    const roll = next();
    if (depth > 3 || roll < 0.5) {
      const scalar = next();
      if (scalar < 0.7) return text();
      if (scalar < 0.8) return Math.floor(next() * 2000) - 1000;
      if (scalar < 0.85) return next() * 100;
      if (scalar < 0.9) return next() < 0.5;
      return null;
    }
    const size = Math.floor(next() * 4);
    if (roll < 0.75) return Array.from({ length: size }, () => value(depth + 1));
    return Object.fromEntries(Array.from({ length: size }, () => [text(), value(depth + 1)]));
  };

  test("2,000 random documents equal the library's", () => {
    for (let i = 0; i < 2000; i++) {
      const object = Object.fromEntries(
        Array.from({ length: 1 + Math.floor(next() * 4) }, () => [text(), value(0)]),
      );
      expectSameAsLibrary(object);
    }
  });
});
