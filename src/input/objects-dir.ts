// The objects folder of the spread convention (`.k2e/`, `.kube/`, `rs/`): any objects, multi-document
// YAML or JSON, `kind: List` flattened, read in file-name order and not recursively (a folder inside
// it is a warning, since its objects would otherwise vanish and be pruned).
import type { Dirent } from 'node:fs';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { IssueList, Trace } from '../base/source.js';
import { flattenLists } from '../decode/decode.js';
import { checkStringFields } from '../decode/traps.js';
import type { ObjectValue } from '../entity/build.js';
import { byName, CONFIG_FILE, child, isBrokenLink, isDirectory, isFile, readDecoded } from './files.js';

/** Reads an objects folder (`.k2e/`, `.kube/`, `rs/`): its files in file-name order, not recursively. */
export function readObjectDir(
  abs: string,
  rel: string,
  objectDir: string,
  objects: ObjectValue[],
  issues: IssueList,
  trace: Trace | undefined,
): void {
  const dirAbs = join(abs, objectDir);
  const dirRel = child(rel, objectDir);
  let files: Dirent[];
  try {
    files = readdirSync(dirAbs, { withFileTypes: true }).sort(byName);
  } catch (e) {
    issues.error({ file: dirRel, line: 0 }, `cannot read directory: ${(e as Error).message}`);
    return;
  }
  const configFiles: string[] = [];
  for (const f of files) {
    if (CONFIG_FILE.test(f.name) && isBrokenLink(join(dirAbs, f.name), f)) {
      issues.error(
        { file: child(dirRel, f.name), line: 0 },
        'is a symbolic link whose target does not exist',
      );
      continue;
    }
    if (CONFIG_FILE.test(f.name) && isFile(join(dirAbs, f.name), f)) configFiles.push(f.name);
    else if (isDirectory(join(dirAbs, f.name), f))
      // Moving a file one level down would otherwise drop its objects (and prune them) silently.
      issues.warning(
        { file: child(dirRel, f.name), line: 0 },
        `is a directory inside ${objectDir}/, whose subdirectories are not read: its objects are not deployed (move them into ${dirRel}/ itself)`,
      );
    else if (CONFIG_FILE.test(f.name.toLowerCase()))
      issues.warning(
        { file: child(dirRel, f.name), line: 0 },
        'is not read: only files ending in lowercase .yaml, .yml or .json are',
      );
    else trace?.(`${child(dirRel, f.name)}: ignored (not a .yaml, .yml or .json file)`);
  }
  const values = configFiles.map((f) => readDecoded(join(dirAbs, f), child(dirRel, f), issues));
  const flat = flattenLists(values.flat(), issues);
  if (trace) {
    configFiles.forEach((f, i) => {
      const file = child(dirRel, f);
      const n = flat.filter((v) => v.source.file === file).length;
      const docs = values[i]?.length ?? 0;
      trace(
        `${file}: ${n} object${n === 1 ? '' : 's'}${n !== docs ? ` (from ${docs} documents, Lists flattened)` : ''}`,
      );
    });
  }
  for (const value of flat) {
    checkStringFields(value, 'object', issues);
    // The value and source only: the file's YAML document can be collected now.
    objects.push({ value: value.value, source: value.source });
  }
}
