import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { defineDelete, defineHistory, defineList, defineRollback } from '../../src/cli/manage.js';
import { deploy } from '../../src/core/deploy.js';
import { silentLogger } from '../../src/core/logger.js';
import { kubeconfigPath, kubectl, uniqueName } from './helpers.js';

const ns = uniqueName('itg-mcli');
const ctx = ['--context', 'spread-local'];

/** The four commands as the lead wires them into src/cli/main.ts, run in-process. */
async function cli(...args: string[]): Promise<string> {
  const root = new Command('spread').exitOverride();
  defineHistory(root.command('history'));
  defineRollback(root.command('rollback'));
  defineList(root.command('list'));
  defineDelete(root.command('delete'));
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    await root.parseAsync(['node', 'spread', ...args]);
  } finally {
    spy.mockRestore();
    err.mockRestore();
  }
  return out;
}

describe('spread history / rollback / list / delete (CLI definitions)', () => {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'spread-mcli-')), 'cfg');
  beforeAll(async () => {
    await kubectl([...ctx, 'create', 'namespace', ns]);
    mkdirSync(path.join(dir, '.k2e'), { recursive: true });
    for (const value of ['a', 'b']) {
      writeFileSync(
        path.join(dir, '.k2e', 'cm.yaml'),
        `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {v: ${value}}\n`,
      );
      await deploy({
        path: dir,
        kubeconfig: { paths: [kubeconfigPath()] },
        context: 'spread-local',
        namespace: ns,
        mode: 'deploy',
        wait: true,
        timeoutMs: 60_000,
        forceConflicts: false,
        prune: true,
        concurrency: 4,
        commit: `commit-${value}`,
        logger: silentLogger,
      });
    }
  });
  afterAll(async () => {
    await kubectl([...ctx, 'delete', 'namespace', ns, '--wait=false'], { allowFail: true });
  });

  test('history (text and json), rollback, list, delete', async () => {
    const text = await cli('history', 'cfg', 'spread-local', '-n', ns);
    expect(text).toMatch(/REVISION\s+TIME\s+COMMIT/);
    expect(text).toMatch(/^2\*\s+\S+\s+commit-b\s+1 /m);
    const json = JSON.parse(await cli('history', 'cfg', 'spread-local', '-n', ns, '-o', 'json'));
    expect(json.current).toBe(2);

    const rolled = await cli('rollback', 'cfg', '1', 'spread-local', '-n', ns);
    expect(rolled).toMatch(/Rolled back to revision 1 \(now revision 3\)/);
    expect((await kubectl([...ctx, '-n', ns, 'get', 'cm', 'cfg', '-o', 'jsonpath={.data.v}'])).stdout).toBe(
      'a',
    );

    const listed = await cli('list', 'spread-local', '-n', ns);
    expect(listed).toMatch(new RegExp(`${ns}\\s+cfg\\s+3\\s+\\d+s\\s+1\\s+ready`));

    const deleted = await cli('delete', 'cfg', 'spread-local', '-n', ns, '-o', 'json');
    expect(JSON.parse(deleted)).toMatchObject({
      deployment: 'cfg',
      revisions: 3,
      objects: [{ kind: 'ConfigMap', name: 'cfg' }],
    });
    expect(await cli('list', 'spread-local', '-n', ns)).toBe('No spread deployments found.\n');
  });
});
