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
        '      jsonPointers: [spec/replicas]',
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
      '10: drift: unknown key "other"; the section holds ignoreDifferences',
      '3: drift.ignoreDifferences[0]: group is required (`*` for any; the core group is "")',
      '4: drift.ignoreDifferences[0].jsonPointers: "spec/replicas" is not a JSON pointer (it starts with /)',
      '7: drift.ignoreDifferences[1]: jqPathExpressions are not taken; name the fields with jsonPointers',
      '9: drift.ignoreDifferences[2]: give jsonPointers or managedFieldsManagers (what is not drift)',
    ]);
  });
});
