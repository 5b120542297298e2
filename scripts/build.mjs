// Builds dist/: compiles src/ with tsc into build/, bundles src/entry.ts with ncc (minified) into
// dist/spread.js, and writes the two entry points that import it:
//   dist/index.js      — the GitHub Action (action.yml runs: node24, main: dist/index.js)
//   dist/cli/index.js  — the `spread` CLI (package.json bin)
// One shared bundle instead of two keeps dist/ half the size. Both are ESM (dist/package.json).
// Run through `npm run build`, which typechecks first.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const versionFile = path.join(root, 'src/version.ts');
const versionSource = readFileSync(versionFile, 'utf8').replace(
  /version = '[^']*'/,
  `version = '${pkg.version}'`,
);
writeFileSync(versionFile, versionSource);

const bin = (name) => path.join(root, 'node_modules/.bin', name);
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });
const dist = path.join(root, 'dist');

rmSync(path.join(root, 'build'), { recursive: true, force: true });
rmSync(dist, { recursive: true, force: true });
run(bin('tsc'), ['-p', 'tsconfig.build.json']);
run(bin('ncc'), [
  'build',
  'build/entry.js',
  '-o',
  'build/ncc',
  '--minify',
  '--no-source-map-register',
  '--quiet',
  '--target',
  'es2023',
]);
mkdirSync(path.join(dist, 'cli'), { recursive: true });
renameSync(path.join(root, 'build/ncc/index.js'), path.join(dist, 'spread.js'));
writeFileSync(path.join(dist, 'package.json'), '{\n  "type": "module"\n}\n');
writeFileSync(
  path.join(dist, 'index.js'),
  "import { runAction } from './spread.js';\n\nawait runAction();\n",
);
writeFileSync(
  path.join(dist, 'cli/index.js'),
  "#!/usr/bin/env node\nimport { runCli } from '../spread.js';\n\nprocess.exitCode = await runCli(process.argv);\n",
);
chmodSync(path.join(dist, 'cli/index.js'), 0o755);
