// Builds dist/ with esbuild from six entry points, ES modules all (dist/package.json):
//   dist/index.js         — the GitHub Action (src/bin/action.ts; action.yml: runs: node24, main: dist/index.js)
//   dist/cli/index.js     — the `spread` CLI (src/bin/cli.ts; package.json bin), after a shell prologue
//   dist/spread.js        — the bundle both load once they have checked the Node version (src/entry.ts)
//   dist/gitlab/report.js — the GitLab component's report step (src/bin/gitlab-report.ts; templates/deploy.yml)
//   dist/gitlab/drift.js  — the GitLab component's drift step (src/bin/gitlab-drift.ts; templates/deploy.yml)
//   dist/gitlab/fleet.js  — the GitLab component's mode fleet-report (src/bin/gitlab-fleet.ts; templates/deploy.yml)
//   dist/gitlab/fleet-plan.js — the GitLab component's mode fleet-plan (src/bin/gitlab-fleet-plan.ts; templates/deploy.yml)
// and chunks (`chunk-<hash>.js`) of what src/ imports lazily (the Action's front end) or what the entry points share. Run through `npm run build`, which typechecks first.
// What the entry points do (Node guard, compile cache, the Action's child Node) is code in src/bin/;
// this file is configuration: entry points, two module stubs, the CLI's prologue, the size budget.
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const dist = path.join(root, 'dist');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const versionFile = path.join(root, 'src/version.ts');
writeFileSync(
  versionFile,
  readFileSync(versionFile, 'utf8').replace(/version = '[^']*'/, `version = '${pkg.version}'`),
);

// Issue #8's budget: dist/ at most 4 MB (10^6 bytes, as bench/bench.mjs reports it). A dependency
// upgrade that brings back what the stubs keep out fails here, not in a benchmark later.
const BUNDLE_BUDGET = 4_000_000;

// To the OS the CLI is a shell script whose second line execs Node with --max-semi-space-size
// (SEMI_SPACE_OPTION in src/bin/child.ts): only a command line sets it, and BusyBox's env (Alpine
// images) has no `-S` for `#!/usr/bin/env -S node …`. To Node the line is a string and a comment, and
// Node skips the `#!` line, so `node dist/cli/index.js` runs it too (without the option).
const CHILD_SOURCE = readFileSync(path.join(root, 'src/bin/child.ts'), 'utf8');
const SEMI_SPACE_OPTION = /SEMI_SPACE_OPTION = '([^']+)'/.exec(CHILD_SOURCE)?.[1];
if (!SEMI_SPACE_OPTION) throw new Error('build: src/bin/child.ts no longer declares SEMI_SPACE_OPTION');
// And glibc's malloc option (MALLOC_ENV in src/bin/child.ts), unless the user set it.
const MALLOC_ENV = /MALLOC_ENV = \{ name: '([A-Z_]+)', value: '(\d+)' \}/.exec(CHILD_SOURCE);
if (!MALLOC_ENV) throw new Error('build: src/bin/child.ts no longer declares MALLOC_ENV');
const [, MALLOC_NAME, MALLOC_VALUE] = MALLOC_ENV;
const CLI_PROLOGUE = `#!/bin/sh\n':' //; ${MALLOC_NAME}="\${${MALLOC_NAME}:-${MALLOC_VALUE}}" exec node ${SEMI_SPACE_OPTION} "$0" "$@"\n`;

// CommonJS dependencies bundled into an ES module still require() Node built-ins and read
// __dirname/__filename at load time; ES modules have none of them.
// Every such require goes through one function, __spreadRequire (see `runtimeRequire`), which is what
// package.itg.test.ts looks for to check that the bundle loads nothing but Node built-ins.
const CJS_GLOBALS = [
  "import { createRequire as __spreadCreateRequire } from 'node:module';",
  "import { fileURLToPath as __spreadFileURLToPath } from 'node:url';",
  "import { dirname as __spreadDirname } from 'node:path';",
  'const __spreadRequire = __spreadCreateRequire(import.meta.url);',
  'const __filename = __spreadFileURLToPath(import.meta.url);',
  'const __dirname = __spreadDirname(__filename);',
].join('\n');

const resolveFrom = createRequire(path.join(root, 'package.json'));
const packageDir = (name) => path.dirname(resolveFrom.resolve(`${name}/package.json`));
const clientNode = path.join(packageDir('@kubernetes/client-node'), 'dist');

/** The source of a module whose functions and classes throw when used: what spread never calls. */
function absentModule(functions, classes) {
  return [
    "const absent = () => { throw new Error('not bundled: spread does not use KubeConfig.makeApiClient or applySecurityAuthentication'); };",
    ...functions.map((f) => `export function ${f}() { absent(); }`),
    ...classes.map((c) => `export class ${c} { constructor() { absent(); } }`),
    '',
  ].join('\n');
}

/**
 * Modules replaced while bundling (issue #8: without them dist/spread.js is 7 MB and loads a third
 * slower). Each: the specifier, the file that imports it, and what it is replaced with (a file, or
 * the source of a module resolved beside the importer).
 */
const STUBS = [
  // spread needs only KubeConfig (src/cluster/kubeconfig.ts; every other import of the package is a
  // type). The package index re-exports every generated API client and model (dist/gen/, 80 % of the
  // bundled source): take the module that defines KubeConfig instead.
  { specifier: '@kubernetes/client-node', importer: 'src/', file: path.join(clientNode, 'config.js') },
  // config.js imports the generated index for two names only makeApiClient uses, and undici for
  // createDispatcher, which only applySecurityAuthentication calls: the generated clients' path,
  // which spread does not take (its client uses applyToHTTPSOptions' https.Agent). Stubs that throw
  // if called: the generated configuration brought undici in too, 730 KB of the chunk every command
  // loads, about 20 MB and 150 ms of each start (bench/RESULTS.md, "Large inputs, deployed").
  {
    specifier: './gen/index.js',
    importer: path.join(clientNode, 'config.js'),
    contents: absentModule(['createConfiguration'], ['ServerConfiguration']),
  },
  {
    specifier: 'undici',
    importer: path.join(clientNode, 'config.js'),
    contents: absentModule([], ['Agent', 'ProxyAgent']),
  },
];

/** Files that must not be in the bundle: each brings back what a stub keeps out. */
const BANNED = [
  path.join(clientNode, 'index.js'),
  path.join(clientNode, 'gen/index.js'),
  path.join(clientNode, 'gen/apis/'),
  `${path.sep}@grpc${path.sep}`,
  `${path.sep}protobufjs${path.sep}`,
];

/** The esbuild plugin that applies {@link STUBS}; a stub that matches nothing fails the build. */
const stubs = {
  name: 'spread-stubs',
  setup(b) {
    const used = new Set();
    STUBS.forEach((stub, index) => {
      const filter = new RegExp(`^${stub.specifier.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`);
      b.onResolve({ filter }, (args) => {
        const from = path.relative(root, args.importer);
        const match = stub.importer.endsWith('/')
          ? from.startsWith(stub.importer)
          : args.importer === stub.importer;
        if (!match) return undefined;
        used.add(index);
        if (stub.file) return { path: stub.file };
        return {
          path: `${path.relative(root, stub.importer)}#${stub.specifier}`,
          namespace: 'spread-stub',
          pluginData: index,
        };
      });
    });
    b.onLoad({ filter: /.*/, namespace: 'spread-stub' }, (args) => ({
      contents: STUBS[args.pluginData].contents,
      resolveDir: path.dirname(STUBS[args.pluginData].importer),
      loader: 'js',
    }));
    b.onEnd((result) => {
      if (result.errors.length > 0) return;
      const unused = STUBS.filter((_, i) => !used.has(i)).map((s) => `${s.specifier} from ${s.importer}`);
      if (unused.length > 0)
        throw new Error(`build: these stubs matched no import (a dependency changed?): ${unused.join(', ')}`);
    });
  },
};

/**
 * Built-ins imported through `require` even where the source says `import`: Node's ESM view of a
 * built-in reads every export once, and node:http's WebSocket, CloseEvent and MessageEvent getters load
 * undici, about 25 ms of every start (bench/RESULTS.md, "Images"). Required, an export is read where
 * it is used.
 */
const REQUIRED_BUILTINS = new Set(['http']);

/**
 * The esbuild plugin that sends `require()` of a Node built-in, or of a compiled addon (`*.node`), and
 * any import of {@link REQUIRED_BUILTINS}, to __spreadRequire (CJS_GLOBALS) at run time. No bundled
 * dependency loads a compiled addon today (the last, dockerode's ssh2, left with the Engine API
 * builds); one that did would get a require that throws at run time instead of a build that differs
 * from machine to machine (.npmrc: ignore-scripts, so addons are never built).
 */
const runtimeRequire = {
  name: 'spread-runtime-require',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) =>
      (args.kind === 'require-call' && (isBuiltin(args.path) || args.path.endsWith('.node'))) ||
      (isBuiltin(args.path) && REQUIRED_BUILTINS.has(args.path.replace(/^node:/, '')))
        ? { path: args.path, namespace: 'spread-require' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'spread-require' }, (args) => ({
      contents: `module.exports = __spreadRequire(${JSON.stringify(args.path)});\n`,
      loader: 'js',
    }));
  },
};

rmSync(dist, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: {
    index: 'src/bin/action.ts',
    'cli/index': 'src/bin/cli.ts',
    spread: 'src/entry.ts',
    'gitlab/report': 'src/bin/gitlab-report.ts',
    'gitlab/drift': 'src/bin/gitlab-drift.ts',
    'gitlab/fleet': 'src/bin/gitlab-fleet.ts',
    'gitlab/fleet-plan': 'src/bin/gitlab-fleet-plan.ts',
  },
  outdir: dist,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  minify: true,
  legalComments: 'none',
  banner: { js: CJS_GLOBALS },
  plugins: [stubs, runtimeRequire],
  metafile: true,
  write: false,
  logLevel: 'warning',
});

const banned = Object.keys(result.metafile.inputs).filter((input) =>
  BANNED.some((b) => path.resolve(root, input).includes(b)),
);
if (banned.length > 0)
  throw new Error(`build: the bundle holds what the stubs keep out: ${banned.join(', ')}`);

const imported = result.outputFiles.filter((f) =>
  [...REQUIRED_BUILTINS].some((m) => new RegExp(`from\\s*["'](?:node:)?${m}["']`).test(f.text)),
);
if (imported.length > 0)
  throw new Error(
    `build: ${imported.map((f) => path.relative(root, f.path)).join(', ')} import ${[...REQUIRED_BUILTINS].join(', ')} as ES modules (see REQUIRED_BUILTINS)`,
  );

mkdirSync(path.join(dist, 'cli'), { recursive: true });
for (const file of result.outputFiles) {
  const cli = file.path === path.join(dist, 'cli/index.js');
  mkdirSync(path.dirname(file.path), { recursive: true });
  writeFileSync(file.path, cli ? CLI_PROLOGUE + file.text : file.text);
  if (cli) chmodSync(file.path, 0o755);
}
writeFileSync(path.join(dist, 'package.json'), '{\n  "type": "module"\n}\n');

const distBytes = result.outputFiles.reduce((sum, f) => sum + f.contents.length, 0);
if (distBytes > BUNDLE_BUDGET)
  throw new Error(
    `build: dist/ is ${distBytes.toLocaleString('en-US')} bytes, over the ${BUNDLE_BUDGET.toLocaleString('en-US')}-byte budget (bench/RESULTS.md)`,
  );
