import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { readProjectFile } from '../../../src/project/file.js';

function dirWith(text?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'spread-project-'));
  if (text !== undefined) writeFileSync(join(dir, 'spread.yaml'), text);
  return dir;
}

describe('readProjectFile', () => {
  test('a directory without spread.yaml has no project file and no issue', () => {
    expect(readProjectFile(dirWith())).toEqual({ issues: [] });
  });

  test('each known section is kept with its line', () => {
    const read = readProjectFile(
      dirWith('$schema: ./schema.json\nhealth:\n  a: 1\nenvironments:\n  staging: {}\n'),
    );
    expect(read.issues).toEqual([]);
    expect(Object.keys(read.project?.sections ?? {})).toEqual(['health', 'environments']);
    expect(read.project?.sections.environments?.source).toEqual({ file: 'spread.yaml', line: 5 });
  });

  test('unknown sections are errors at their lines, all of them', () => {
    const read = readProjectFile(dirWith('envs: {}\nhealth: {}\nprofiles: []\n'));
    expect(read.project).toBeUndefined();
    expect(read.issues.map((i) => [i.source.line, i.message])).toEqual([
      [1, 'unknown section "envs": the project file holds environments, health, drift'],
      [3, 'unknown section "profiles": the project file holds environments, health, drift'],
    ]);
  });

  test('a file that does not parse or is not a mapping is an error', () => {
    expect(readProjectFile(dirWith('environments: [\n')).issues[0]?.source.file).toBe('spread.yaml');
    expect(readProjectFile(dirWith('- a\n')).issues[0]?.message).toMatch(/not a mapping/);
    expect(readProjectFile(dirWith('health: {}\n---\ndrift: {}\n')).issues[0]?.message).toMatch(
      /more than one YAML document/,
    );
  });
});
