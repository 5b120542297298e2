// The files that spell spread's settings, generated from and checked against the settings table
// (src/base/settings.ts, joined with the front ends' texts in src/frontend/settings.ts):
//   action.yml           inputs: names, defaults, descriptions (generated)
//   templates/deploy.yml spec:inputs (generated); the job's variables and the script's flag mapping (checked)
//   the CLI              each command's flags and their help (commander options built from the table; checked)
//   docs/github-action.md the Action usage block (generated)
//   docs/gitlab.md       the GitLab component's list of inputs (checked)
//   node scripts/settings.mjs          rewrite the generated parts
//   node scripts/settings.mjs --check  fail naming each setting and file that differs (npm run lint)
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { build } from 'esbuild';
import { parse, parseAllDocuments, stringify } from 'yaml';

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const check = process.argv.includes('--check');
const { SETTINGS, program, settingsOf } = await loadSources();
const problems = [];
const problem = (file, key, text) => problems.push(`${file}: setting ${key}: ${text}`);
const flat = (text) =>
  String(text ?? '')
    .replace(/\s+/g, ' ')
    .trim();

/** The table and the CLI program, bundled from src/ (TypeScript) into a module to import. */
async function loadSources() {
  const out = path.join(root, `node_modules/.cache/spread/settings-${process.pid}.mjs`);
  mkdirSync(path.dirname(out), { recursive: true });
  await build({
    stdin: {
      contents:
        "export { SETTINGS, settingsOf } from './src/frontend/settings.ts';\nexport { program } from './src/cli/main.ts';\n",
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile: out,
    logLevel: 'error',
  });
  try {
    return await import(out);
  } finally {
    rmSync(out, { force: true });
  }
}

/** `text` as a YAML folded block (`>-`) at `indent`, lines of at most 100 characters. */
function folded(text, indent) {
  const lines = [];
  let line = '';
  for (const word of flat(text).split(' ')) {
    if (line && indent.length + line.length + 1 + word.length > 100) {
      lines.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(indent + line);
  return `>-\n${lines.join('\n')}`;
}

/** Replaces the text between `start` and `end` in `file`, or checks it, naming `what` when it differs. */
function generated(file, start, end, block, what) {
  const full = path.join(root, file);
  const text = readFileSync(full, 'utf8');
  const i = text.indexOf(start);
  const j = text.indexOf(end, i + start.length);
  if (i < 0 || j < 0)
    throw new Error(`${file}: cannot find ${JSON.stringify(start)} … ${JSON.stringify(end)}`);
  const next = text.slice(0, i + start.length) + block + text.slice(j);
  if (next === text) return;
  if (!check) return writeFileSync(full, next);
  // The first line that differs names the setting (its key or text is on it).
  const have = text.slice(i + start.length, j).split('\n');
  const want = block.split('\n');
  const n = want.findIndex((line, k) => line !== have[k]);
  const at = n < 0 ? have.length : n;
  const line = text.slice(0, i + start.length).split('\n').length + at;
  problems.push(
    `${file}:${line}: ${what} is not what the settings table gives (the table has ${JSON.stringify((want[at] ?? '').trim())}, the file ${JSON.stringify((have[at] ?? '').trim())}): run npm run readme`,
  );
}

// ---- action.yml ----------------------------------------------------------------------------------
const actionRows = SETTINGS.filter((s) => s.action);
const quote = (s) => `'${s.replace(/'/g, "''")}'`;
const actionInputs = actionRows
  .map(
    (s) =>
      `  ${s.key}:\n    description: ${folded(s.description, '      ')}\n    required: false\n    default: ${quote(s.action.default)}\n`,
  )
  .join('');
const action = parse(readFileSync(path.join(root, 'action.yml'), 'utf8'));
for (const s of actionRows) {
  const input = action.inputs?.[s.key];
  if (!input) problem('action.yml', s.key, 'missing input');
  else {
    if (String(input.default ?? '') !== s.action.default)
      problem(
        'action.yml',
        s.key,
        `default ${JSON.stringify(input.default)}, the table's ${JSON.stringify(s.action.default)}`,
      );
    if (flat(input.description) !== flat(s.description))
      problem('action.yml', s.key, 'its description differs from the table');
  }
}
for (const key of Object.keys(action.inputs ?? {}))
  if (!actionRows.some((s) => s.key === key)) problem('action.yml', key, 'an input the table does not have');
generated('action.yml', '\ninputs:\n', '\noutputs:\n', actionInputs, 'the inputs');

// ---- templates/deploy.yml ------------------------------------------------------------------------
const TEMPLATE = 'templates/deploy.yml';
const gitlabRows = SETTINGS.filter((s) => s.gitlab);
const scalar = (v) => stringify(v, { collectionStyle: 'flow', flowCollectionPadding: false }).trim();
const specInputs = gitlabRows
  .map((s) => {
    const g = s.gitlab;
    const lines = [
      `    ${s.key}:`,
      `      description: ${folded(g.description ?? s.description, '        ')}`,
    ];
    lines.push(`      type: ${g.type}`);
    if (g.options) lines.push(`      options: ${scalar(g.options)}`);
    lines.push(`      default: ${g.default === '' ? "''" : scalar(g.default)}`);
    return `${lines.join('\n')}\n`;
  })
  .join('');
const templateText = readFileSync(path.join(root, TEMPLATE), 'utf8');
const [specDoc] = parseAllDocuments(templateText).map((d) => d.toJS());
const spec = specDoc?.spec?.inputs ?? {};
const body = templateText.slice(templateText.indexOf('\n---\n'));
const script = body.slice(body.indexOf('\n  script:'));
const reportStep = ['report.ts', 'markdown.ts', 'drift.ts', 'fleet.ts', 'fleet-plan.ts', 'fleet-pipeline.ts']
  .map((f) => readFileSync(path.join(root, 'src/gitlab', f), 'utf8'))
  .join('\n');
for (const s of gitlabRows) {
  const g = s.gitlab;
  const input = spec[s.key];
  if (!input) problem(TEMPLATE, s.key, 'missing in spec:inputs');
  else {
    if (input.type !== g.type) problem(TEMPLATE, s.key, `type ${input.type}, the table's ${g.type}`);
    if (!isDeepStrictEqual(input.default, g.default))
      problem(
        TEMPLATE,
        s.key,
        `default ${JSON.stringify(input.default)}, the table's ${JSON.stringify(g.default)}`,
      );
    if (!isDeepStrictEqual(input.options, g.options))
      problem(TEMPLATE, s.key, 'its options differ from the table');
    if (flat(input.description) !== flat(g.description ?? s.description))
      problem(TEMPLATE, s.key, 'its description differs from the table');
  }
  if (g.job && !body.includes(`$[[ inputs.${s.key} ]]`)) problem(TEMPLATE, s.key, 'the job does not use it');
  if (g.variable) {
    if (!body.includes(`${g.variable}: $[[ inputs.${s.key} ]]`))
      problem(TEMPLATE, s.key, `no job variable ${g.variable}: $[[ inputs.${s.key} ]]`);
    // The job's script reads it, or the report step after it (src/gitlab/, from its environment).
    if (!script.includes(`$${g.variable}`) && !reportStep.includes(`env.${g.variable}`))
      problem(TEMPLATE, s.key, `neither the script nor src/gitlab/ reads ${g.variable}`);
  }
  // The flag mapping: the script passes the setting's CLI flag.
  if (s.cli && !g.argument && !new RegExp(`${longFlag(s.cli)}(?![\\w-])`).test(script))
    problem(TEMPLATE, s.key, `the script never passes ${longFlag(s.cli)}`);
}
for (const key of Object.keys(spec))
  if (!gitlabRows.some((s) => s.key === key)) problem(TEMPLATE, key, 'an input the table does not have');
for (const [, variable] of body.matchAll(/^ {4}(SPREAD_\w+): \$\[\[ inputs\.[\w-]+ \]\]$/gm))
  if (!gitlabRows.some((s) => s.gitlab.variable === variable))
    problem(TEMPLATE, variable, 'a job variable of an input the table does not pass');
generated(TEMPLATE, '\nspec:\n  inputs:\n', '---\n', specInputs, 'spec:inputs');

/** The long flag of a CLI flag: `--namespace` of `-n, --namespace <namespace>` (as src/base/settings.ts). */
function longFlag(cli) {
  return /--[\w-]+/.exec(cli.flags)[0];
}

// ---- the CLI help --------------------------------------------------------------------------------
for (const cmd of program().commands) {
  const rows = settingsOf(cmd.name()).filter(
    (s) => s.cli && (s.cli.commands ?? s.modes).includes(cmd.name()),
  );
  const help = cmd.helpInformation();
  const file = `spread ${cmd.name()} --help`;
  for (const s of rows) {
    const option = cmd.options.find((o) => o.long === longFlag(s.cli));
    const text = s.cli.helpIn?.[cmd.name()] ?? s.cli.help ?? s.description;
    if (!option) problem(file, s.key, `no ${longFlag(s.cli)}`);
    else if (option.description !== text) problem(file, s.key, `${option.long} says "${option.description}"`);
    if (!help.includes(longFlag(s.cli))) problem(file, s.key, `the help does not show ${longFlag(s.cli)}`);
  }
  for (const option of cmd.options)
    if (!rows.some((s) => longFlag(s.cli) === option.long))
      problem(file, option.long, 'a flag the table does not have for this command');
}

// ---- the docs ------------------------------------------------------------------------------------
// The usage blocks live with the docs of their front end (README.md only links to them).
const ACTION_DOC = 'docs/github-action.md';
const GITLAB_DOC = 'docs/gitlab.md';
const usage = ['```yaml', '- uses: redspread/spread-action@v1', '  with:'];
for (const s of actionRows) {
  let line = '    #';
  for (const word of flat(s.description).split(' ')) {
    if (line.length + word.length + 1 > 100) {
      usage.push(line);
      line = '    #';
    }
    line += ` ${word}`;
  }
  usage.push(line, `    ${s.key}: ${JSON.stringify(s.action.default)}`, '');
}
usage.pop();
usage.push('```', '', '| Output | Description |', '| --- | --- |');
for (const [name, output] of Object.entries(action.outputs ?? {}))
  usage.push(`| \`${name}\` | ${flat(output.description).replace(/\|/g, '\\|')} |`);
generated(
  ACTION_DOC,
  '<!-- action-usage:start (generated from the settings table by scripts/settings.mjs) -->\n',
  '\n<!-- action-usage:end -->',
  usage.join('\n'),
  'the Action usage block',
);
const gitlabDoc = readFileSync(path.join(root, GITLAB_DOC), 'utf8');
const listed = /^Inputs \(`templates\/deploy\.yml` documents each\):[\s\S]*?\n\n/m.exec(gitlabDoc)?.[0] ?? '';
if (!listed)
  problems.push(`${GITLAB_DOC}: no paragraph 'Inputs (\`templates/deploy.yml\` documents each): …'`);
for (const s of gitlabRows)
  if (listed && !listed.includes(`\`${s.key}\``))
    problem(GITLAB_DOC, s.key, "missing in the GitLab component's list of inputs");

if (problems.length > 0) {
  for (const p of problems) console.error(p);
  console.error(`${problems.length} difference(s) from the settings table (src/base/settings.ts)`);
  process.exit(1);
}
console.log(
  check
    ? `action.yml, templates/deploy.yml, the CLI, ${ACTION_DOC} and ${GITLAB_DOC} match the settings table`
    : 'generated',
);
