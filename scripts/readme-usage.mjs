// Generates the README's Action usage block from action.yml (action.yml is the documentation):
// every input with its description and default, between the markers below.
//   node scripts/readme-usage.mjs          rewrite README.md
//   node scripts/readme-usage.mjs --check  fail when README.md is out of date
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const action = parse(readFileSync(path.join(root, 'action.yml'), 'utf8'));
const start = '<!-- action-usage:start (generated from action.yml by scripts/readme-usage.mjs) -->';
const end = '<!-- action-usage:end -->';

const lines = ['```yaml', '- uses: redspread/spread-action@v1', '  with:'];
for (const [name, input] of Object.entries(action.inputs)) {
  const words = String(input.description).replace(/\s+/g, ' ').trim().split(' ');
  let line = '    #';
  for (const w of words) {
    if (line.length + w.length + 1 > 100) {
      lines.push(line);
      line = '    #';
    }
    line += ` ${w}`;
  }
  lines.push(line);
  lines.push(`    ${name}: ${JSON.stringify(String(input.default ?? ''))}`);
  lines.push('');
}
lines.pop();
lines.push('```', '', '| Output | Description |', '| --- | --- |');
for (const [name, output] of Object.entries(action.outputs ?? {})) {
  lines.push(
    `| \`${name}\` | ${String(output.description).replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|')} |`,
  );
}
const block = `${start}\n${lines.join('\n')}\n${end}`;

const readmePath = path.join(root, 'README.md');
const readme = readFileSync(readmePath, 'utf8');
const i = readme.indexOf(start);
const j = readme.indexOf(end);
if (i < 0 || j < 0) throw new Error('README.md lacks the action-usage markers');
const next = readme.slice(0, i) + block + readme.slice(j + end.length);
if (process.argv.includes('--check')) {
  if (next !== readme) {
    console.error('README.md usage block is out of date: run node scripts/readme-usage.mjs');
    process.exit(1);
  }
  console.log('README.md usage block is current');
} else {
  writeFileSync(readmePath, next);
}
