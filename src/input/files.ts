// The file-system reads the directory walk shares (src/input/directory.ts, plain.ts, objects-dir.ts):
// entries in a locale-independent order, symbolic links followed for files only, broken links
// found, and files decoded with their issues.
import type { Dirent } from 'node:fs';
import { readFileSync, statSync } from 'node:fs';
import type { IssueList } from '../base/source.js';
import { type DecodedValue, decodeBytes } from '../decode/decode.js';

/** Extensions of configuration files. `.ctr` files hold YAML or JSON whatever their extension. */
export const CONFIG_FILE = /\.(ya?ml|json)$/;

/** `name` inside the folder `rel` (relative to the input root, `.` for the root). */
export function child(rel: string, name: string): string {
  return rel === '.' ? name : `${rel}/${name}`;
}

/** Sorts by UTF-16 code units, independent of locale, so every machine reads in the same order. */
export function byName(a: Dirent, b: Dirent): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Whether an entry is a file, or a symbolic link to one. */
export function isFile(abs: string, entry: Dirent): boolean {
  if (entry.isFile()) return true;
  // Symlinked files are followed; symlinked directories are not, so a link cycle cannot hang the read.
  if (entry.isSymbolicLink()) return statOrUndefined(abs)?.isFile() ?? false;
  return false;
}

/** Whether an entry is a directory, or a symbolic link to one. */
export function isDirectory(abs: string, entry: Dirent): boolean {
  if (entry.isDirectory()) return true;
  return entry.isSymbolicLink() && (statOrUndefined(abs)?.isDirectory() ?? false);
}

/**
 * Whether an entry is a symbolic link whose target is missing (or a loop). A configuration file
 * behind such a link (a submodule not checked out, a moved file) must not silently vanish from the
 * input: the objects it held would be pruned.
 */
export function isBrokenLink(abs: string, entry: Dirent): boolean {
  return entry.isSymbolicLink() && statOrUndefined(abs) === undefined;
}

/** A file's documents; none when it cannot be read or decoded (the errors are in `issues`). */
export function readDecoded(abs: string, rel: string, issues: IssueList): DecodedValue[] {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(abs);
  } catch (e) {
    issues.error({ file: rel, line: 0 }, `cannot read file: ${(e as Error).message}`);
    return [];
  }
  const result = decodeBytes(rel, bytes);
  issues.add(result.issues);
  return result.issues.some((i) => i.severity === 'error') ? [] : result.values;
}

/** The file's stat, following links; undefined when it does not exist. */
export function statOrUndefined(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
