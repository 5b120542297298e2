// A copy of what scripts/settings.mjs reads and writes (node_modules linked), with one file edited:
// the settings tests change the table or a generated file there and watch the check or the front ends.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect } from 'vitest';

export const ROOT = path.resolve(import.meta.dirname, '../../..');
const COPIED = ['action.yml', 'README.md', 'docs', 'package.json', 'scripts', 'src', 'templates'];
const copies: string[] = [];
afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

/** Copies the checkout's settings files into a new folder and applies `edit` to `file` there (it must change it). */
export function checkoutCopyWith(prefix: string, file: string, edit: (text: string) => string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  copies.push(dir);
  for (const f of COPIED)
    if (existsSync(path.join(ROOT, f))) cpSync(path.join(ROOT, f), path.join(dir, f), { recursive: true });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  const target = path.join(dir, file);
  const before = readFileSync(target, 'utf8');
  const after = edit(before);
  expect(after).not.toBe(before);
  writeFileSync(target, after);
  return dir;
}
