import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { kustomizeAhead } from '../../../src/input/ahead.js';

/**
 * The kustomize build started before the read asks for it, with a stand-in kustomize (a Node script)
 * that logs each build's wrapper folder and, with HOLD, waits for that file to appear before it answers.
 */
const temp = mkdtempSync(path.join(tmpdir(), 'spread-ahead-unit-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const bin = path.join(temp, 'bin');
mkdirSync(bin);
writeFileSync(
  path.join(bin, 'kustomize'),
  `#!${process.execPath}
const fs = require('fs'); const args = process.argv.slice(2);
if (args[0] === 'version') { console.log('v5.8.2'); process.exit(0); }
fs.appendFileSync(process.env.LOG, args[1] + '\\n');
const answer = () => console.log('apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: a}');
const hold = () => (!process.env.HOLD || fs.existsSync(process.env.HOLD) ? answer() : setTimeout(hold, 20));
hold();
`,
);
chmodSync(path.join(bin, 'kustomize'), 0o755);

const overlay = path.join(temp, 'overlay');
mkdirSync(overlay);
writeFileSync(path.join(overlay, 'kustomization.yaml'), 'resources: []\n');

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 250 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
}

test('a kustomization folder is built at once, and that build is what the read gets for it', async () => {
  const log = path.join(temp, 'first.log');
  const ahead = kustomizeAhead(overlay, { env: { PATH: bin, LOG: log } });
  // Built before anything asked.
  await until(() => existsSync(log));
  expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(1);
  const result = await ahead.kustomize({ kind: 'kustomize', abs: overlay, dir: '.', root: overlay });
  expect(result.tool).toBe('kustomize v5.8.2');
  expect(result.objects.map((o) => o.value)).toEqual([
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } },
  ]);
  await ahead.close();
  // Not built twice; a second read of the folder builds it again.
  expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(1);
  await ahead.kustomize({ kind: 'kustomize', abs: overlay, dir: '.', root: overlay });
  expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(2);
});

test('a folder that is no kustomization starts nothing; its subfolders render when asked', async () => {
  const log = path.join(temp, 'plain.log');
  const ahead = kustomizeAhead(temp, { env: { PATH: bin, LOG: log } });
  await new Promise((r) => setTimeout(r, 300));
  expect(existsSync(log)).toBe(false);
  const result = await ahead.kustomize({ kind: 'kustomize', abs: overlay, dir: 'overlay', root: temp });
  expect(result.objects).toHaveLength(1);
  expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(1);
});

test('close() ends a build the read never asked for and removes its wrapper', async () => {
  const log = path.join(temp, 'closed.log');
  const ahead = kustomizeAhead(overlay, {
    env: { PATH: bin, LOG: log, HOLD: path.join(temp, 'never') },
  });
  await until(() => existsSync(log));
  const wrapper = readFileSync(log, 'utf8').trim();
  expect(existsSync(wrapper)).toBe(true);
  const started = Date.now();
  await ahead.close();
  expect(Date.now() - started).toBeLessThan(4000);
  expect(existsSync(wrapper)).toBe(false);
});
