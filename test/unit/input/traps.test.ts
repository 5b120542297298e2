import { describe, expect, test } from 'vitest';
import { decodeText } from '../../../src/input/decode.js';
import { IssueList } from '../../../src/input/source.js';
import { checkStringFields, resolvesToNonString } from '../../../src/input/traps.js';

function trapsOf(text: string, role: 'object' | 'container' = 'container'): string[] {
  const issues = new IssueList();
  const value = decodeText('t.yaml', text).values[0];
  if (!value) throw new Error('no value');
  checkStringFields(value, role, issues);
  return issues.issues.map((i) => `${i.source.line}: ${i.message}`);
}

describe('YAML traps in string fields', () => {
  test.each([
    ['yes', 'read as a boolean (true) by YAML 1.1'],
    ['on', 'read as a boolean (true) by YAML 1.1'],
    ['n', 'read as a boolean (false) by YAML 1.1'],
    ['true', 'was read as a boolean (true)'],
    ['0755', 'was read as a number (755)'],
    ['1e3', 'was read as a number (1000)'],
    ['0x1F', 'was read as a number (31)'],
    ['.inf', 'was read as a number (Infinity)'],
    ['~', 'was read as null'],
    ['1:30', 'read as a number (90) by YAML 1.1'],
    ['12345678901234567890', 'loses precision'],
  ])('env value %s is reported with the quoting fix', (plain, reading) => {
    const [msg, ...rest] = trapsOf(`image: x\nenv:\n  - name: FOO\n    value: ${plain}\n`);
    expect(rest).toEqual([]);
    expect(msg).toContain(`4: env FOO value ${plain} `);
    expect(msg).toContain(reading);
    expect(msg).toContain(`quote it: "${plain}"`);
  });

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
      '5: stringData pin (value not shown) was read as a number; put the value in double quotes',
      '6: stringData token (value not shown) was read as a number that loses precision; put the value in double quotes',
    ]);
    for (const m of messages) expect(m).not.toMatch(/0755123|755123|98765432109876543210|9876543210987654/);
  });
});
