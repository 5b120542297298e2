// Builds dist/: compiles src/ with tsc into build/, bundles src/entry.ts with ncc (minified) into
// dist/spread.js, and writes the two entry points that import it:
//   dist/index.js      — the GitHub Action (action.yml runs: node24, main: dist/index.js)
//   dist/cli/index.js  — the `spread` CLI (package.json bin)
// One shared bundle instead of two keeps dist/ half the size. Both are ESM (dist/package.json).
// Run through `npm run build`, which typechecks first.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
// CommonJS dependencies bundled into an ES module still read __dirname/__filename (ssh2, pulled in by
// dockerode's docker-modem, does so at load time); ES modules have neither, so define them.
const cjsGlobals = [
  "import { fileURLToPath as __spreadFileURLToPath } from 'node:url';",
  "import { dirname as __spreadDirname } from 'node:path';",
  'const __filename = __spreadFileURLToPath(import.meta.url);',
  'const __dirname = __spreadDirname(__filename);',
  '',
].join('\n');
writeFileSync(
  path.join(dist, 'spread.js'),
  cjsGlobals + readFileSync(path.join(root, 'build/ncc/index.js'), 'utf8'),
);
writeFileSync(path.join(dist, 'package.json'), '{\n  "type": "module"\n}\n');
// The bundle needs Node 24 (undici in @kubernetes/client-node fails to load on older releases), so
// each entry point checks the version before importing it; an error while loading the bundle is
// printed as a stack only, since Node would otherwise print the offending minified line, megabytes long.
const guard = `const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(\`spread needs Node.js 24 or newer; this is \${process.version}. After npm ci, use node_modules/.bin/node (see README: Prerequisites).\\n\`);
  process.exit(1);
}
`;
const load = (file, name) => `let ${name};
try {
  ({ ${name} } = await import('${file}'));
} catch (error) {
  process.stderr.write(\`spread failed to load: \${error?.stack ?? error}\\n\`);
  process.exit(1);
}
`;
writeFileSync(
  path.join(dist, 'index.js'),
  `${guard}${load('./spread.js', 'runAction')}\nawait runAction();\n`,
);
writeFileSync(
  path.join(dist, 'cli/index.js'),
  `#!/usr/bin/env node\n${guard}${load('../spread.js', 'runCli')}\nprocess.exitCode = await runCli(process.argv);\n`,
);
chmodSync(path.join(dist, 'cli/index.js'), 0o755);
