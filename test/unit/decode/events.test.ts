import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import { crdBundle } from '../../../bench/large-inputs.mjs';
import { IssueList } from '../../../src/base/source.js';
import { composeText, type DecodedValue, decodeText, type ValuePath } from '../../../src/decode/decode.js';
import { readPlainDocuments } from '../../../src/decode/events.js';
import { checkStringFields } from '../../../src/decode/traps.js';

/** Every path below `value`, mappings and sequences alike. */
function paths(value: unknown, prefix: ValuePath = []): ValuePath[] {
  const out: ValuePath[] = [prefix];
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      out.push(...paths(item, [...prefix, i]));
    });
  } else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...prefix, k]));
  return out;
}

/** The fast path's reading of `text` against the yaml library's: values, lines, and every path's line. */
function expectSameReading(file: string, text: string): 'fast' | 'general' {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const composed = composeText(file, body);
  const fast = readPlainDocuments(body);
  if (composed.issues.length > 0) {
    // Whatever the yaml library reports (errors or warnings) it must be the one to report.
    expect(fast, `${file}: the fast path read what the yaml library reports`).toBeUndefined();
    return 'general';
  }
  if (!fast) return 'general';
  expect(fast.map((d) => d.value)).toEqual(composed.values.map((v) => v.value));
  expect(fast.map((d) => d.line)).toEqual(composed.values.map((v) => v.source.line));
  const decoded = decodeText(file, text).values;
  decoded.forEach((value, k) => {
    const twin = composed.values[k] as DecodedValue;
    for (const path of paths(value.value))
      expect([path, value.lineAt(path)]).toEqual([path, twin.lineAt(path)]);
  });
  return 'fast';
}

const PLAIN: readonly (readonly [string, string])[] = [
  [
    'a Deployment',
    'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels: {app: web}\nspec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx:1\n        args: ["-c", \'x\']\n',
  ],
  [
    'YAML 1.1 scalars',
    'a: yes\nb: off\nc: ~\nd:\ne: 0x1F\nf: 0400\ng: 1_000\nh: 1e3\ni: .5\nj: 2001-12-14\nk: 1:20\nl: 9223372036854775807\nm: 18446744073709551615\nn: 08\no: -.5\np: +12\nq: 0b101\nr: 0o17\ns: 1e400\nt: e5\nu: .\nv: 0x\nw: Y\nx: NO\ny: True\nz: Null\n',
  ],
  [
    'every YAML 1.1 word',
    'a: [y, Y, yes, Yes, YES, n, N, no, No, NO, true, True, TRUE, false, False, FALSE, on, On, ON, off, Off, OFF, null, Null, NULL, nULL, yES, oN]\n',
  ],
  [
    'keys that are not strings',
    '1: a\ntrue: b\n1e6: c\n0x10: d\n3.14159265358979: e\n-0.0: f\noff: g\n1:20: h\n',
  ],
  [
    'block scalars',
    'a: |-\n  one\n  two\nb: >\n  folded\n  text\n\n   more indented\n  back\nc: |+\n  kept\n\nd: |2\n    indented\ne: >-\n  x\nf: | # a comment\n  after\ng: |\n\n  leading blank line\nh: "x"\n',
  ],
  [
    'quoted and multi-line scalars',
    'a: "tab\\tnew\\nline \\u00e9 \\x41 \\" \\\\ \\/"\nb: \'it\'\'s\'\nc: plain\n  continued\n\n  paragraph\nd: "folded\n  quoted"\ne: "\n  starts on the next line"\nf: \'\'\ng: ""\nh: a # comment\ni: a#b\nj: "yes"\nk: \'0755\'\n',
  ],
  [
    'nested sequences, empty items and empty collections',
    'a:\n- - 1\n  - 2\n-\n- {}\n- []\n- [a, [b, {c: d}], {e: [f]}]\n',
  ],
  ['a __proto__ key', '__proto__: {polluted: true}\nb: 1\n'],
  ['a scalar document', '"just text"\n'],
  ['a sequence document', '- 1\n- two\n'],
  [
    'several documents, empty ones, comments and ends',
    '# head\n---\na: 1\n...\n---\n# only a comment\n---\n---\nb: 2\n--- ~\n--- c\n',
  ],
  ['CRLF line ends', 'a: 1\r\nb:\r\n  c: |\r\n    x\r\n    y\r\n---\r\nd: 2\r\n'],
  ['explicit keys and flow mappings in sequences', '? a\n: 1\nb: [c: d, {e: f}]\n'],
  [
    'JSON',
    '{\n\t"apiVersion": "v1",\n\t"kind": "ConfigMap",\n\t"data": {"a": "1", "b": [1, 2.5, true, null, "x"]}\n}\n',
  ],
  ['unicode', 'name: "é ü 日本"\nplain: ünïcödé\n'],
  [
    'empty sequence items: first, after a comment, before a document end',
    'a:\n  - # empty\n  -\n  - b\nc:\n- - \n  - d\n-\n---\nlist:\n-\n---\ne: [f]\n',
  ],
  ['an empty sequence item after a block scalar and a blank line', '- |\n  a\n\n-\n---\n- >\n  b\n\n- # c\n'],
  ['empty values after ":" on their own line', '? a\n:\nb: # c\n\nc: {d: , e: }\n'],
  ['deep nesting', `${Array.from({ length: 60 }, (_, i) => `${' '.repeat(i * 2)}k${i}:`).join('\n')} leaf\n`],
];

/** Valid YAML the fast path leaves to the yaml library, and YAML it must refuse to read. */
const GENERAL: readonly (readonly [string, string])[] = [
  ['an anchor and an alias', 'a: &x [1]\nb: *x\n'],
  ['an anchored empty scalar (the image marker)', 'image: &web\n'],
  ['a merge key', 'base: &b {x: 1}\nm:\n  <<: *b\n  y: 2\n'],
  ['a tag', 'a: !!binary aGVsbG8=\nb: !!str 1\n'],
  ['a directive', '%YAML 1.1\n---\na: 1\n'],
  ['a duplicate key', 'a: 1\na: 2\n'],
  ['two keys giving one JSON key', '1: a\n"1": b\n'],
  ['.inf and .nan', 'a: .inf\nb: .nan\n'],
  ['a null key', '~: a\n'],
  ['a collection as a key', '? [a]\n: 1\n'],
  ['a uint64 key', '18446744073709551615: a\n'],
  ['a syntax error', 'a: [1, 2\nb: 3\n'],
  ['tabs as indentation', 'a:\n\tb: 1\n'],
  ['a long implicit key', `${'k'.repeat(1100)}: v\n`],
  ['a short implicit key far from its ":"', `k${' '.repeat(1100)}: v\n`],
  ['a quoted key in a flow sequence far from its ":"', `["k"${'\t'.repeat(1100)}: v]\n`],
  ['a mapping after a scalar', 'a: b\n  c: d\n'],
  ['a plain scalar with ": " in flow', '[a: b: c]\n'],
  ['keys without a ":" (no value node)', '? a\n? b\nc: 1\n'],
  ['a flow key without a ":"', 'x: {a, b: c}\n'],
  ['an unknown directive (a warning)', '%FOO bar\n---\na: 1\n'],
  ['a byte-order mark past the start', '---\n\ufeff---\na: 1\n'],
  ['CR line ends without LF', 'a: 1\rb: |\r  x\r'],
  ['an escaped line break before a blank line', 'a: "one\\\n\n  two"\n'],
  ['a blank line with a tab in a block scalar', 'a: |\n  x\n\t\n'],
  ['a blank line with a tab in a plain scalar', 'a: b\n\t  \n  c\n'],
  ['a scalar document indented by a tab', '---\n\tc\n'],
  ['a null document indented by a tab', 'a: 1\n---\n\t~\n'],
  ['content after a document end marker', '--- a\n...\n... x\n'],
  ['a quoted "<<" key', '"<<":\n\n  a\n'],
];

describe('readPlainDocuments (js-yaml events) against the yaml library', () => {
  test.each(PLAIN)('reads plain YAML as the yaml library does: %s', (name, text) => {
    expect(expectSameReading(`${name}.yaml`, text)).toBe('fast');
  });

  test.each(GENERAL)('leaves it to the yaml library: %s', (name, text) => {
    expect(expectSameReading(`${name}.yaml`, text)).toBe('general');
    expect(readPlainDocuments(text)).toBeUndefined();
  });

  test('reads every YAML and JSON fixture of the repository as the yaml library does', () => {
    const root = join(import.meta.dirname, '../../..');
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.(ya?ml|json)$/.test(name)) files.push(path);
      }
    };
    for (const dir of ['test/fixtures', 'examples']) walk(join(root, dir));
    expect(files.length).toBeGreaterThan(50);
    const ways = files.map((f) => expectSameReading(relative(root, f), readFileSync(f, 'utf8')));
    // Most fixtures are plain: the comparison above must have covered the fast path.
    expect(ways.filter((w) => w === 'fast').length).toBeGreaterThan(files.length / 2);
  });

  test('reads a generated CRD bundle (deep schemas, long descriptions) as the yaml library does', () => {
    expect(expectSameReading('crds.yaml', crdBundle({ bytes: 300_000 }))).toBe('fast');
  });
});

describe('values read by the fast path', () => {
  test('compose their nodes on demand, for the YAML trap checks and List items', () => {
    const text =
      'kind: ConfigMap\nmetadata:\n  name: c\n  labels:\n    ok: "yes"\ndata:\n  a: "1"\n  b: yes\n';
    expect(readPlainDocuments(text)).toBeDefined();
    const issues = new IssueList();
    const [value] = decodeText('c.yaml', text).values;
    checkStringFields(value as DecodedValue, 'object', issues);
    expect(issues.issues.map((i) => [i.source.line, i.message])).toEqual([
      [8, 'data b yes is read by kubectl as a boolean (true), where the API wants a string; quote it: "yes"'],
    ]);
  });
});
