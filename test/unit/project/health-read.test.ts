import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { silentLogger } from '../../../src/base/logger.js';
import { formatIssue, InputError } from '../../../src/base/source.js';
import { readDeployment } from '../../../src/core/read.js';
import { resolveEnvironment } from '../../../src/frontend/environment.js';

/** Writes a tree of files (path → content) into a fresh directory. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'spread-health-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const CONFIG_MAP = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n';

describe('readDeployment reads the health rules of spread.yaml', () => {
  test('compiled, by GroupKind', async () => {
    const dir = tree({
      'spread.yaml': "health:\n  Widget.example.com:\n    current: status.phase == 'Ready'\n",
      'a.yaml': CONFIG_MAP,
    });
    const read = await readDeployment(dir, { namespace: 'default', logger: silentLogger });
    expect([...read.health.keys()]).toEqual(['Widget.example.com']);
    expect(read.objects.map((o) => o.object.kind)).toEqual(['ConfigMap']);
  });

  test("a rule that does not compile is an input error at spread.yaml:line, with the directory's own", async () => {
    const dir = tree({
      'spread.yaml': "health:\n  Widget.example.com:\n    current: status.phase = 'Ready'\n",
      'a.yaml': `${CONFIG_MAP}  namespace: [\n`,
    });
    const error = await readDeployment(dir, { namespace: 'default', logger: silentLogger }).catch((e) => e);
    expect(error).toBeInstanceOf(InputError);
    const lines = (error as InputError).issues.map(formatIssue);
    expect(lines[0]).toMatch(/^spread\.yaml:3: health rule Widget\.example\.com: current: syntax error/);
    expect(lines.slice(1).join('\n')).toMatch(/^a\.yaml:/m);
  });

  test('a rule that does not compile fails the read of a valid directory too', async () => {
    const dir = tree({
      'spread.yaml': 'health:\n  Widget.example.com:\n    current: nosuch()\n',
      'a.yaml': CONFIG_MAP,
    });
    await expect(readDeployment(dir, { namespace: 'default', logger: silentLogger })).rejects.toThrow(
      /spread\.yaml:3: health rule Widget\.example\.com: current: column 1: unknown function nosuch\(\)/,
    );
  });

  test("an environment's path: reads its folder, and the rules of the deployment's spread.yaml", async () => {
    const dir = tree({
      'spread.yaml':
        "environments:\n  staging:\n    path: staging\nhealth:\n  Widget.example.com:\n    current: status.phase == 'Ready'\n",
    });
    mkdirSync(join(dir, 'staging'));
    writeFileSync(join(dir, 'staging', 'a.yaml'), CONFIG_MAP);
    const target = resolveEnvironment(dir, 'staging', {});
    expect(target.path).toBe(join(dir, 'staging'));
    const read = await readDeployment(target.path, {
      namespace: 'default',
      projectDir: target.projectDir,
      logger: silentLogger,
    });
    expect([...read.health.keys()]).toEqual(['Widget.example.com']);
    expect(read.objects.map((o) => o.object.kind)).toEqual(['ConfigMap']);
  });
});
