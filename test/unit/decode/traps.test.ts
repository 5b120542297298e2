import { describe, expect, test } from 'vitest';
import { IssueList } from '../../../src/base/source.js';
import { decodeText } from '../../../src/decode/decode.js';
import { checkStringFields, resolvesToNonString } from '../../../src/decode/traps.js';

function trapsOf(text: string, role: 'object' | 'container' = 'container'): string[] {
  const issues = new IssueList();
  const value = decodeText('t.yaml', text).values[0];
  if (!value) throw new Error('no value');
  checkStringFields(value, role, issues);
  return issues.issues.map((i) => `${i.source.line}: ${i.message}`);
}

describe('YAML traps in string fields', () => {
  test.each([
    ['yes', 'a boolean (true)'],
    ['on', 'a boolean (true)'],
    ['n', 'a boolean (false)'],
    ['true', 'a boolean (true)'],
    ['0755', 'a number (493)'],
    ['1e3', 'a number (1000)'],
    ['0x1F', 'a number (31)'],
    ['0o17', 'a number (15)'],
    ['9007199254740993', 'a number (9007199254740993)'],
    ['12345678901234567890', 'a number (12345678901234567890)'],
  ])('env value %s is reported with the quoting fix', (plain, reading) => {
    const [msg, ...rest] = trapsOf(`image: x\nenv:\n  - name: FOO\n    value: ${plain}\n`);
    expect(rest).toEqual([]);
    expect(msg).toContain(`4: env FOO value ${plain} `);
    expect(msg).toContain(`read by kubectl as ${reading}, where the API wants a string`);
    expect(msg).toContain(`quote it: "${plain}"`);
  });

  // kubectl sends these as they are and the API server takes them: null is stored as "", and
  // sexagesimal numbers and dates are strings for kubectl (go-yaml v2).
  test.each(['~', 'null', '1:30', '2001-12-14', '0xFFFFFFFFFFFFFFFFFF', '1e400'])(
    'env value %s is what kubectl sends, not a trap',
    (plain) => {
      expect(trapsOf(`image: x\nenv:\n  - name: FOO\n    value: ${plain}\n`)).toEqual([]);
    },
  );

  test.each(['"yes"', "'0755'", 'hello', 'v1.2.3', '8080/tcp', '', '-x', '1.2.3.4'])(
    '%s is left alone',
    (text) => {
      expect(trapsOf(`image: x\nenv:\n  - name: FOO\n    value: ${text}\n`)).toEqual([]);
    },
  );

  test('numeric fields of the API are not checked', () => {
    expect(trapsOf('image: x\nports:\n  - containerPort: 80\nresources:\n  limits: {cpu: 1}\n')).toEqual([]);
  });

  test('object fields by kind: labels, annotations, ConfigMap data, Secret stringData, pod template', () => {
    const text = [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata:',
      '  name: d',
      '  labels: {enabled: true}',
      'spec:',
      '  selector: {matchLabels: {v: 1}}',
      '  template:',
      '    metadata: {annotations: {a: off}}',
      '    spec:',
      '      containers:',
      '        - name: c',
      '          image: x',
      '          args: [--flag, yes]',
      '      initContainers:',
      '        - name: i',
      '          image: x',
      '          command: [0777]',
      '',
    ].join('\n');
    expect(trapsOf(text, 'object').map((m) => m.replace(/ (was|is) read.*/, ''))).toEqual([
      '5: label enabled true',
      '7: selector v 1',
      '9: annotation a off',
      '14: args[1] yes',
      '18: command[0] 0777',
    ]);
    expect(trapsOf('kind: ConfigMap\ndata: {a: yes}\n', 'object')).toHaveLength(1);
    expect(trapsOf('kind: Secret\nstringData: {a: 1e3}\n', 'object')).toHaveLength(1);
    expect(trapsOf('kind: Service\nspec: {selector: {a: yes}}\n', 'object')).toEqual([]);
  });
});

describe('resolvesToNonString', () => {
  test.each([
    ['yes', true],
    ['No', true],
    ['0755', true],
    ['1e3', true],
    ['null', true],
    ['', true],
    ['y', true],
    ['0o17', true],
    ['1:20', true],
    ['hello', false],
    ['1.2.3', false],
    ['web', false],
  ])('%s → %s', (text, expected) => {
    expect(resolvesToNonString(text)).toBe(expected);
  });
});

describe('Secret values in trap messages', () => {
  test('are never printed, only the key and what YAML made of it', () => {
    const text =
      'apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData:\n  pin: 0755123\n  token: 98765432109876543210\n';
    const messages = trapsOf(text, 'object');
    expect(messages).toEqual([
      '5: stringData pin (value not shown) is read by kubectl as a number; put the value in double quotes',
      '6: stringData token (value not shown) is read by kubectl as a number; put the value in double quotes',
    ]);
    for (const m of messages)
      expect(m).not.toMatch(/0755123|755123|252499|98765432109876543210|9876543210987654/);
  });
});

describe('traps under keys kubectl renames', () => {
  test('a label written under the key y is named by its JSON key "true"', () => {
    expect(trapsOf('kind: ConfigMap\nmetadata:\n  labels:\n    y: yes\n', 'object')).toEqual([
      '4: label true yes is read by kubectl as a boolean (true), where the API wants a string; quote it: "yes"',
    ]);
  });
});
