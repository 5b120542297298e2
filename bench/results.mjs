// bench/RESULTS.md is one file with a section per benchmark ("## Input" from bench/input.mjs,
// "## Deploy" from bench/bench.mjs); each script rewrites its own section and keeps the others.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Replaces the section that starts with `heading` (e.g. `## Deploy`) in `file` with `section`, up to
 * the next `## ` heading; appends it when the file has no such section, and creates the file when
 * there is none.
 */
export function replaceSection(file, heading, section) {
  const old = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n\n';
  const start = old.indexOf(`${heading}\n`);
  let next = start < 0 ? -1 : old.indexOf('\n## ', start + 1);
  if (next >= 0) next += 1;
  const updated =
    start < 0
      ? `${old.trimEnd()}\n\n${section}`
      : `${old.slice(0, start)}${section}${next >= 0 ? `\n${old.slice(next)}` : ''}`;
  writeFileSync(file, updated.endsWith('\n') ? updated : `${updated}\n`);
  console.log(`wrote the ${heading.replace(/^#+ /, '')} section of ${path.relative(process.cwd(), file)}`);
}
