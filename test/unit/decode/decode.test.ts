import { describe, expect, test } from 'vitest';
import { IssueList } from '../../../src/base/source.js';
import {
  type DecodedValue,
  decodeBytes,
  decodeText,
  describeValue,
  flattenLists,
  textOf,
  type ValuePath,
} from '../../../src/decode/decode.js';

const enc = (s: string) => new TextEncoder().encode(s);

describe('decodeText', () => {
  test('multi-document YAML gives one value per non-empty document with its start line', () => {
    const text = '# head\n---\na: 1\n---\n# only a comment\n---\n---\nb: 2\n';
    const { values, issues } = decodeText('x.yaml', text);
    expect(issues).toEqual([]);
    expect(values.map((v) => [v.value, v.source])).toEqual([
      [{ a: 1 }, { file: 'x.yaml', line: 3 }],
      [{ b: 2 }, { file: 'x.yaml', line: 8 }],
    ]);
  });

  test('CRLF line ends and a BOM are accepted; lines still count', () => {
    const { values, issues } = decodeText('x.yaml', '\uFEFFa: 1\r\n---\r\nb:\r\n  c: 2\r\n');
    expect(issues).toEqual([]);
    expect(values.map((v) => v.value)).toEqual([{ a: 1 }, { b: { c: 2 } }]);
    expect(values[1]?.lineAt(['b', 'c'])).toBe(4);
  });

  test('a syntax error is reported at its line and no document of the file is returned', () => {
    const { values, issues } = decodeText('bad.yaml', 'a: 1\n---\nb: [1, 2\nc: 3\n');
    expect(values).toEqual([]);
    expect(issues[0]).toMatchObject({ severity: 'error', source: { file: 'bad.yaml' } });
    expect(issues[0]?.source.line).toBeGreaterThanOrEqual(3);
    expect(issues[0]?.message).toMatch(/^YAML: /);
  });

  test('duplicate keys are an error at the second key', () => {
    const { issues } = decodeText('d.yaml', 'a: 1\nb:\n  c: 1\n  c: 2\n');
    expect(issues).toMatchObject([
      {
        source: { file: 'd.yaml', line: 4 },
        message:
          'YAML: key c is written twice in one mapping (lines 3 and 4); kubectl would keep the last silently, spread refuses both: remove one',
      },
    ]);
  });

  test('anchors, aliases and << merge keys resolve; lineAt follows merges to the anchor', () => {
    const text = 'base: &b\n  x: 1\n  w: 2\nderived:\n  <<: *b\n  w: 3\n';
    const { values } = decodeText('m.yaml', text);
    const v = values[0];
    expect(v?.value).toEqual({ base: { x: 1, w: 2 }, derived: { x: 1, w: 3 } });
    expect(v?.lineAt(['derived', 'w'])).toBe(6);
    expect(v?.lineAt(['derived', 'x'])).toBe(2);
  });

  test('lineAt of a missing path is the line of its deepest existing ancestor', () => {
    // A block mapping starts at its first key, the line after its parent's key.
    const { values } = decodeText('p.yaml', 'spec:\n  template:\n    metadata: {}\n');
    expect(values[0]?.lineAt(['spec', 'template', 'spec', 'containers', 0])).toBe(3);
    expect(values[0]?.lineAt(['status'])).toBe(1);
    expect(values[0]?.lineAt(['spec', 'template', 'metadata'])).toBe(3);
  });

  test('JSON is decoded as YAML, tabs included', () => {
    const { values, issues } = decodeText('o.json', '{\n\t"a": [1, {"b": "c"}]\n}\n');
    expect(issues).toEqual([]);
    expect(values[0]?.value).toEqual({ a: [1, { b: 'c' }] });
    expect(values[0]?.lineAt(['a', 1, 'b'])).toBe(2);
  });
});

describe('compact values', () => {
  // Every path below the value (and some that do not exist), with the line the node tree gives.
  function linesByNodes(v: DecodedValue, paths: ValuePath[]): [ValuePath, number, number][] {
    return paths.map((path) => {
      let line = v.source.line;
      for (let n = path.length; n >= 0; n--) {
        const node = v.nodeAt(path.slice(0, n));
        const at = node ? v.lineOfNode(node) : 0;
        if (at > 0) {
          line = at;
          break;
        }
      }
      return [path, line, v.lineAt(path)];
    });
  }

  test('give the lines the YAML nodes give: aliases, << merges (own keys first), sequences, missing paths', () => {
    const text = [
      'base: &b',
      '  x: 1',
      '  w: [a, b]',
      'other: &o',
      '  z: {deep: true}',
      '  x: 9',
      'derived:',
      '  <<: [*b, *o]',
      '  w: 3',
      'list:',
      '  - *b',
      '  - name: c',
      '    image: &web',
      'alias: *o',
      'empty:',
      '',
    ].join('\n');
    const v = decodeText('c.yaml', text).values[0];
    if (!v) throw new Error('no value');
    const paths: ValuePath[] = [
      [],
      ['base', 'x'],
      ['base', 'w', 1],
      ['base', 'w', 5],
      ['derived', 'x'],
      ['derived', 'w'],
      ['derived', 'z', 'deep'],
      ['derived', '<<'],
      ['list', 0, 'w', 0],
      ['list', 1, 'image'],
      ['list', 'name'],
      ['list', 2],
      ['alias', 'z', 'deep', 'more'],
      ['empty'],
      ['empty', 'x'],
      ['missing', 'deeper'],
    ];
    const compact = v.compact();
    const byNodes = linesByNodes(v, paths);
    for (const [path, line, located] of byNodes) {
      expect([path, located]).toEqual([path, line]);
      expect([path, compact.lineAt(path)]).toEqual([path, line]);
      expect([path, compact.at(path)?.source.line]).toEqual([path, v.at(path)?.source.line]);
    }
    expect(compact.at(['derived'])?.value).toEqual({ x: 1, w: 3, z: { deep: true } });
    expect(compact.at(['list', 0])?.lineAt(['w', 1])).toBe(3);
    expect(compact.anchorAt(['list', 1, 'image'])).toBe('web');
    expect(compact.anchorAt(['base'])).toBeUndefined();
    expect(compact.anchorAt(['nothing'])).toBeUndefined();
    expect(compact).not.toHaveProperty('node');
  });
});

describe('textOf / decodeBytes encodings', () => {
  test.each([
    ['UTF-16LE with a BOM and an odd length', new Uint8Array([0xff, 0xfe, 0x61, 0, 0x3a]), /UTF-16LE/],
    ['UTF-16 without BOM', new Uint8Array([0, 0x61, 0, 0x3a, 0, 0x20, 0, 0x31]), /UTF-16/],
    [
      'binary with a NUL',
      new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0, 0x41, 0x42, 0x43, 0x44, 0x45]),
      /not a text file/,
    ],
    ['latin-1', new Uint8Array([0x61, 0x3a, 0x20, 0xe9]), /not UTF-8/],
  ])('%s is rejected naming the file', (_, bytes, message) => {
    expect(textOf(bytes)).toEqual({ error: expect.stringMatching(message) });
    const { values, issues } = decodeBytes('dir/f.yaml', bytes);
    expect(values).toEqual([]);
    expect(issues).toMatchObject([{ severity: 'error', source: { file: 'dir/f.yaml', line: 0 } }]);
    expect(issues[0]?.message).toContain('dir/f.yaml');
  });

  test('UTF-8 with BOM decodes', () => {
    expect(decodeBytes('f.yaml', enc('\uFEFFa: é\n')).values[0]?.value).toEqual({ a: 'é' });
  });

  test('UTF-16 with a BOM decodes, little- and big-endian, as kubectl decodes it', () => {
    const text = 'a: é\n---\nb: 0400\n';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const be = Buffer.from(le);
    for (let i = 0; i < be.length; i += 2) [be[i], be[i + 1]] = [le[i + 1]!, le[i]!];
    for (const bytes of [le, be]) {
      const { values, issues } = decodeBytes('f.yaml', bytes);
      expect(issues).toEqual([]);
      expect(values.map((v) => [v.value, v.source.line])).toEqual([
        [{ a: 'é' }, 1],
        [{ b: 256 }, 3],
      ]);
    }
  });
});

describe('flattenLists', () => {
  test('List items become values with their own lines; nested Lists flatten too', () => {
    const text = [
      'kind: List',
      'items:',
      '  - kind: A',
      '    metadata: {name: a}',
      '  - kind: List',
      '    items:',
      '      - kind: B',
      '---',
      'kind: C',
      '',
    ].join('\n');
    const issues = new IssueList();
    const out = flattenLists(decodeText('l.yaml', text).values, issues);
    expect(issues.issues).toEqual([]);
    expect(out.map((v) => [(v.value as { kind: string }).kind, v.source.line])).toEqual([
      ['A', 3],
      ['B', 7],
      ['C', 9],
    ]);
    // Positions inside an item stay relative to the item.
    expect(out[0]?.lineAt(['metadata', 'name'])).toBe(4);
  });

  test('a scalar document is reported by its type and length, never its text (it may be a token)', () => {
    const issues = new IssueList();
    const token = 'ghp_ThisIsMyGitHubTokenABCDEF123456';
    const text = `${token}\nsecond line of a private key\n`;
    expect(flattenLists(decodeText('s.yaml', text).values, issues)).toEqual([]);
    expect(issues.issues.map((i) => i.message)).toEqual([
      `expected a Kubernetes object (a mapping), found a string of ${token.length + 29} characters (a file that is not YAML objects?)`,
    ]);
  });

  test('describeValue quotes numbers and short one-line strings only', () => {
    expect(describeValue(5)).toBe('a number (5)');
    expect(describeValue('yes')).toBe('a string ("yes")');
    expect(describeValue('x'.repeat(41))).toBe('a string of 41 characters');
    expect(describeValue('a\nb')).toBe('a string of 3 characters');
    expect(describeValue(null)).toBe('nothing (null)');
  });
});

describe('values as kubectl sends them', () => {
  const errors = (text: string) =>
    decodeText('k.yaml', text)
      .issues.filter((i) => i.severity === 'error')
      .map((i) => `${i.source.line}: ${i.message}`);

  test('octal modes, int64 integers and null labels', () => {
    const text = [
      'kind: Secret',
      'metadata: {name: s, labels: {legacy: null}}',
      'spec: {defaultMode: 0400, exec: 0755, maxBytes: 9007199254740993, max: 9223372036854775807}',
      '',
    ].join('\n');
    expect(decodeText('k.yaml', text).values[0]?.value).toEqual({
      kind: 'Secret',
      metadata: { name: 's', labels: { legacy: null } },
      spec: { defaultMode: 256, exec: 493, maxBytes: 9007199254740993n, max: 9223372036854775807n },
    });
  });

  test('keys become the JSON keys kubectl makes of them', () => {
    const value = decodeText('k.yaml', 'm:\n  y: 1\n  0x10: 2\n  1e6: 3\n  1:20: 5\n  off: 6\n').values[0]
      ?.value;
    expect(value).toEqual({ m: { true: 1, 16: 2, '1e+06': 3, '1:20': 5, false: 6 } });
  });

  test('what kubectl cannot convert to JSON is an error at its line', () => {
    expect(errors('a: 1\nb: .inf\n')).toEqual([
      '2: .inf is read as Infinity, which JSON cannot hold (kubectl fails on it too); quote it if it is a string',
    ]);
    expect(errors('m:\n  ~: 1\n')).toEqual([
      '2: a null mapping key (~, null or nothing) has no JSON form (kubectl fails on it too)',
    ]);
    expect(errors('m:\n  18446744073709551615: 1\n')).toEqual([
      '2: a mapping key past the int64 range has no JSON form (kubectl fails on it too)',
    ]);
  });

  test('a key written before a << merge of the same key is refused (kubectl and the YAML spec disagree)', () => {
    expect(errors('b: &b {a: 1, c: 2}\nm:\n  a: 0\n  <<: *b\n')).toEqual([
      '3: key a is written before a << merge that also sets it: kubectl (go-yaml v2) keeps the merged value, the YAML merge spec this one; write << first',
    ]);
    expect(errors('b: &b {a: 1, c: 2}\nm:\n  <<: *b\n  a: 0\n')).toEqual([]);
  });

  test('a quoted "<<" is an ordinary key (go-yaml v2 merges a plain << or !!merge only); !!merge << merges', () => {
    for (const text of ['a: 1\n"<<": {a: 2}\n', "a: 1\n'<<': {a: 2}\n"]) {
      const { values, issues } = decodeText('q.yaml', text);
      expect(issues).toEqual([]);
      expect(values[0]?.value).toEqual({ a: 1, '<<': { a: 2 } });
      expect(values[0]?.lineAt(['<<', 'a'])).toBe(2);
    }
    expect(decodeText('t.yaml', 'b: &b {x: 1}\nm:\n  !!merge <<: *b\n').values[0]?.value).toEqual({
      b: { x: 1 },
      m: { x: 1 },
    });
  });

  test('two keys with one JSON key are refused', () => {
    expect(errors('m:\n  1: a\n  "1": b\n')).toEqual(['3: key 1 is the same JSON key as the one on line 2']);
  });
});

describe('unresolved aliases: at the alias, saying why', () => {
  test.each([
    [
      'no anchor anywhere',
      'a: 1\nb:\n  c: *missing\n',
      3,
      'YAML: alias *missing names no anchor: there is no &missing in this file',
    ],
    [
      'an anchor of the previous document',
      'a: &x 1\n---\nb:\n  - 1\n  - *x\n',
      5,
      'YAML: alias *x names the anchor &x of another document of this file (line 1): anchors do not reach across ---, so repeat the anchored value in this document',
    ],
    [
      'an anchor set after its alias',
      'a: *x\nb: &x\n  c: 1\n',
      1,
      'YAML: alias *x comes before its anchor &x (line 2): set the anchor before its first alias',
    ],
  ])('%s', (_name, text, line, message) => {
    const { values, issues } = decodeText('a.yaml', text);
    expect(issues).toEqual([{ source: { file: 'a.yaml', line }, message, severity: 'error' }]);
    expect(values.some((v) => v.source.line >= line)).toBe(false);
  });
});
