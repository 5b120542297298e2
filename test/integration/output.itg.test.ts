import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ApplyError } from '../../src/engine/apply/errors.js';
import { deploy } from '../../src/frontend/deploy.js';
import { localDeploy, uniqueName, writeDir } from './helpers.js';

// How failures read on the real cluster: the API server's own causes, grouped when identical.

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

describe('identical causes are grouped', () => {
  test('30 objects in a namespace that does not exist: one entry "30 objects: …" naming 5 of them', async () => {
    const missing = uniqueName('itg-nowhere');
    const configMaps = Array.from(
      { length: 30 },
      (_, i) =>
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${String(i).padStart(2, '0')}\n  namespace: ${missing}\n`,
    ).join('---\n');
    const root = writeDir('grouped', {
      '.k2e/cms.yaml': configMaps,
      '.k2e/bad.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Bad_Name\n',
    });
    roots.push(path.dirname(root));
    // No -n: the objects name their own namespace (a plan, so nothing is written anywhere).
    const { namespace: _, ...options } = localDeploy(root, '', { mode: 'plan' });
    const error = await deploy(options).catch((e) => e);
    expect(error).toBeInstanceOf(ApplyError);
    expect(error.failures).toHaveLength(31);
    const lines = (error.message as string).split('\n');
    expect(lines[0]).toBe('the plan failed for 31 object(s); nothing was written:');
    const cause = lines.findIndex((l) => l.startsWith('  30 objects: '));
    expect(lines[cause]).toBe(`  30 objects: namespaces "${missing}" not found`);
    expect(lines[cause + 1]).toBe(
      `      ${[0, 1, 2, 3, 4].map((i) => `ConfigMap ${missing}/cm-0${i} (.k2e/cms.yaml:${1 + i * 6})`).join(', ')}, … and 25 more`,
    );
    expect(lines.filter((l) => l.includes('Bad_Name'))).toHaveLength(1);
    expect(lines).toHaveLength(4);
  });
});
