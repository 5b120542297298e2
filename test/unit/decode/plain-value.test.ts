import { describe, expect, test } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { decodeText } from '../../../src/decode/decode.js';
import { jsonValue, KUBECTL_YAML } from '../../../src/decode/kubectl-yaml.js';
import { plainValueOf } from '../../../src/decode/plain-value.js';

const parse = (text: string) => parseAllDocuments(text, { ...KUBECTL_YAML, uniqueKeys: true });

/** What the general path (the library's toJS, then jsonValue) makes of each document. */
const general = (text: string) =>
  parse(text).map((doc) => jsonValue(doc.toJS({ maxAliasCount: 1000, mapAsMap: true })));

describe('plainValueOf', () => {
  const same = [
    [
      'a Deployment',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels: {app: web}\nspec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx:1\n        args: ["-c", \'x\']\n',
    ],
    [
      'YAML 1.1 scalars',
      'a: yes\nb: off\nc: ~\nd:\ne: 0x1F\nf: 0400\ng: 1_000\nh: 1e3\ni: .5\nj: 2001-12-14\nk: 1:20\nl: 9223372036854775807\nm: 18446744073709551615\n',
    ],
    ['keys that are not strings', '1: a\ntrue: b\n1e6: c\n0x10: d\n'],
    [
      'block scalars and multi-line plain text',
      'a: |-\n  one\n  two\nb: >\n  folded\n  text\nc: plain\n  continued\n',
    ],
    ['nested sequences, empty items and empty collections', 'a:\n- - 1\n  - 2\n-\n- {}\n- []\n'],
    ['binary', 'a: !!binary aGVsbG8=\n'],
    ['an anchor without an alias', 'a: &x 1\nb: 2\n'],
    ['a __proto__ key', '__proto__: {polluted: true}\nb: 1\n'],
    ['a -0.0 key', '-0.0: a\n'],
    ['a scalar document', '"just text"\n'],
    ['a sequence document', '- 1\n- two\n'],
  ] as const;

  test.each(same)('gives what the general path gives: %s', (_name, text) => {
    const docs = parse(text);
    const plain = docs.map((doc) => plainValueOf(doc.contents));
    expect(plain.every((p) => p !== undefined)).toBe(true);
    expect(plain.map((p) => p?.value)).toEqual(general(text));
  });

  test('a __proto__ key is a key, never the prototype', () => {
    const value = plainValueOf(parse('__proto__: {polluted: true}\n')[0]?.contents)?.value as object;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__']);
  });

  const general_ = [
    ['an alias', 'a: &x {b: 1}\nc: *x\n'],
    ['a merge key', 'base: &b {x: 1}\nd:\n  <<: *b\n  y: 2\n'],
    ['.inf', 'a: .inf\n'],
    ['.nan in a sequence', 'a: [1, .nan]\n'],
    ['a null key', '? \n: 1\n'],
    ['a collection key', '? [a, b]\n: 1\n'],
    ['a key past int64', '18446744073709551615: a\n'],
    ['two keys giving one JSON key', '1: a\n"1": b\n'],
  ] as const;

  test.each(general_)('leaves the document to the general path: %s', (_name, text) => {
    expect(plainValueOf(parse(text)[0]?.contents)).toBeUndefined();
  });

  test('decodeText gives the same values and errors either way', () => {
    const text = 'a: 1\n---\nb: &x [1]\nc: *x\n---\nd: .inf\n';
    const { values, issues } = decodeText('x.yaml', text);
    expect(values).toEqual([]);
    expect(issues).toEqual([
      expect.objectContaining({ severity: 'error', source: { file: 'x.yaml', line: 6 } }),
    ]);
    const ok = decodeText('x.yaml', 'a: 1\n---\nb: &x [1]\nc: *x\n');
    expect(ok.values.map((v) => v.value)).toEqual([{ a: 1 }, { b: [1], c: [1] }]);
  });
});
