// The drift section of spread.yaml: Argo CD's ignoreDifferences shape, every problem at its line.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseDriftSection } from '../../../src/project/drift.js';
import { readProjectFile } from '../../../src/project/file.js';

function section(text: string) {
  const dir = mkdtempSync(join(tmpdir(), 'spread-drift-'));
  writeFileSync(join(dir, 'spread.yaml'), text);
  const read = readProjectFile(dir);
  expect(read.issues).toEqual([]);
  return parseDriftSection(read.project?.sections.drift);
}

describe('parseDriftSection', () => {
  test('no section: no rules', () => {
    expect(parseDriftSection(undefined)).toEqual({ rules: { ignoreDifferences: [] }, issues: [] });
  });

  test('rules with their lines', () => {
    const read = section(
      [
        'drift:',
        '  ignoreDifferences:',
        '    - group: apps',
        '      kind: Deployment',
        '      name: web',
        '      jsonPointers: [/spec/replicas]',
        '    - group: ""',
        '      kind: ConfigMap',
        '      managedFieldsManagers: [vault-agent]',
      ].join('\n'),
    );
    expect(read.issues).toEqual([]);
    expect(read.rules?.ignoreDifferences).toEqual([
      {
        group: 'apps',
        kind: 'Deployment',
        name: 'web',
        jsonPointers: ['/spec/replicas'],
        managedFieldsManagers: [],
        source: 'spread.yaml:3',
      },
      {
        group: '',
        kind: 'ConfigMap',
        jsonPointers: [],
        managedFieldsManagers: ['vault-agent'],
        source: 'spread.yaml:7',
      },
    ]);
  });

  test('every problem at its line, and no rules', () => {
    const read = section(
      [
        'drift:',
        '  ignoreDifferences:',
        '    - kind: Deployment',
        '      jsonPointers:',
        '        - spec/replicas',
        '        - /spec/template/metadata/annotations/a~2b',
        '        - /metadata/annotations/a~1b~0c',
        '        - /data/x~',
        '    - group: apps',
        '      kind: Deployment',
        '      jqPathExpressions: [.spec.replicas]',
        '    - group: apps',
        '      kind: Deployment',
        '  other: 1',
      ].join('\n'),
    );
    expect(read.rules).toBeUndefined();
    expect(read.issues.map((i) => `${i.source.line}: ${i.message}`)).toEqual([
      '14: drift: unknown key "other"; the section holds ignoreDifferences',
      '3: drift.ignoreDifferences[0]: Deployment is not in the core group but in apps (an omitted group is the core group, as in Argo CD): write group: apps',
      '5: drift.ignoreDifferences[0].jsonPointers: "spec/replicas" is not a JSON pointer (it starts with /)',
      '6: drift.ignoreDifferences[0].jsonPointers: "/spec/template/metadata/annotations/a~2b" is not a JSON pointer: ~2 is no escape (RFC 6901: ~0 is ~ and ~1 is / in a key; a ~ itself is written ~0)',
      '8: drift.ignoreDifferences[0].jsonPointers: "/data/x~" is not a JSON pointer: a ~ at its end is no escape (RFC 6901: ~0 is ~ and ~1 is / in a key; a ~ itself is written ~0)',
      '11: drift.ignoreDifferences[1]: jqPathExpressions are not taken; name the fields with jsonPointers',
      '13: drift.ignoreDifferences[2]: give jsonPointers or managedFieldsManagers (what is not drift)',
    ]);
  });

  test('an omitted group is the core group, as in Argo CD', () => {
    // Argo CD's ResourceIgnoreDifferences has `group,omitempty`, matched as a glob: "" matches "" only.
    const read = section(
      ['drift:', '  ignoreDifferences:', '    - kind: ConfigMap', '      jsonPointers: [/data/a]'].join('\n'),
    );
    expect(read.issues).toEqual([]);
    expect(read.rules?.ignoreDifferences).toEqual([
      {
        group: '',
        kind: 'ConfigMap',
        jsonPointers: ['/data/a'],
        managedFieldsManagers: [],
        source: 'spread.yaml:3',
      },
    ]);
  });

  test('a kind that names no object is an error at its line naming the kind meant', () => {
    const read = section(
      [
        'drift:',
        '  ignoreDifferences:',
        '    - group: apps',
        '      kind: deployment',
        '      jsonPointers: [/spec/replicas]',
        '    - kind: Deployment',
        '      jsonPointers: [/spec/replicas]',
        '    - group: ""',
        '      kind: configmap',
        '      jsonPointers: [/data]',
        '    - group: example.com',
        '      kind: widget',
        '      jsonPointers: [/spec]',
        '    - group: "*"',
        '      kind: Deployment',
        '      jsonPointers: [/spec/replicas]',
        '    - group: example.com',
        '      kind: Deployment',
        '      jsonPointers: [/spec/replicas]',
      ].join('\n'),
    );
    expect(read.rules).toBeUndefined();
    expect(read.issues.map((i) => `${i.source.line}: ${i.message}`)).toEqual([
      '4: drift.ignoreDifferences[0]: kinds are case-sensitive: "deployment" names no object; the built-in kind is Deployment: write kind: Deployment',
      '6: drift.ignoreDifferences[1]: Deployment is not in the core group but in apps (an omitted group is the core group, as in Argo CD): write group: apps',
      '9: drift.ignoreDifferences[2]: kinds are case-sensitive: "configmap" names no object; the built-in kind is ConfigMap: write kind: ConfigMap',
      '12: drift.ignoreDifferences[3]: kinds are case-sensitive and start upper-case: "widget" names no object: write kind: Widget',
    ]);
  });
});
