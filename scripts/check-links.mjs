// Checks the relative links of README.md and docs/*.md (in npm run check-readme): each must name a
// file or folder of the checkout and, with a #fragment, a heading of that Markdown file (GitHub's
// anchors: lower case, punctuation dropped, spaces to hyphens, -1, -2… for repeats). External links
// (https:, mailto:) are not fetched. Exits 1 naming each broken link by file and line.
//   node scripts/check-links.mjs [ROOT]   ROOT: the checkout (default: this script's)
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(process.argv[2] ?? path.dirname(path.dirname(new URL(import.meta.url).pathname)));
const files = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** GitHub's anchor of a heading's text (github-slugger): inline code and links reduced to their text. */
function slug(heading) {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown file's headings (outside code fences), repeats numbered as GitHub does. */
function anchors(file) {
  const seen = new Map();
  const out = new Set();
  let fence = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const heading = !fence && /^#{1,6} +(.*?) *#* *$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

const cache = new Map();
const problems = [];
for (const file of files) {
  let fence = false;
  readFileSync(path.join(root, file), 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (/^\s*(```|~~~)/.test(line)) fence = !fence;
      if (fence) return;
      // Inline code may show link syntax as text: leave it out.
      const text = line.replace(/`[^`]*`/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        if (/^[a-z][a-z+.-]*:/i.test(target)) continue;
        const [ref, fragment] = target.split('#');
        const full = ref
          ? path.resolve(path.dirname(path.join(root, file)), decodeURI(ref))
          : path.join(root, file);
        const where = `${file}:${i + 1}: ${target}`;
        if (!existsSync(full)) {
          problems.push(`${where}: no such file`);
          continue;
        }
        if (fragment === undefined) continue;
        if (statSync(full).isDirectory() || !full.endsWith('.md')) {
          problems.push(`${where}: a #fragment on a file that is not Markdown`);
          continue;
        }
        if (!cache.has(full)) cache.set(full, anchors(full));
        if (!cache.get(full).has(fragment))
          problems.push(`${where}: no heading #${fragment} in ${path.relative(root, full)}`);
      }
    });
}
if (problems.length > 0) {
  for (const p of problems) console.error(p);
  console.error(`${problems.length} broken link(s)`);
  process.exit(1);
}
console.log(`the relative links of ${files.length} files resolve`);
