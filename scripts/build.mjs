// Builds dist/: compiles src/ with tsc into build/, bundles src/entry.ts with ncc (minified) into
// dist/spread.js, and writes the two entry points that import it:
//   dist/index.js      — the GitHub Action (action.yml runs: node24, main: dist/index.js)
//   dist/cli/index.js  — the `spread` CLI (package.json bin)
// One shared bundle instead of two keeps dist/ half the size. Both are ESM (dist/package.json).
// Run through `npm run build`, which typechecks first.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { minify } from 'terser';

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
vendorKubeConfig();
vendorDockerode();
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
// Modules spread loads only when needed (dockerode for builds and pushes, @actions/cache for the
// layer cache: `await import(…)` in src/) are chunks of their own, `<id>.index.js`, which the bundle
// imports from its own directory. ncc minifies the main file only, so the chunks go through terser.
for (const chunk of readdirSync(path.join(root, 'build/ncc')).filter((f) => /^\d+\.index\.js$/.test(f))) {
  const source = readFileSync(path.join(root, 'build/ncc', chunk), 'utf8');
  const { code } = await minify(source, { module: true, ecma: 2023, compress: true, mangle: true });
  if (!code) throw new Error(`build: terser returned nothing for ${chunk}`);
  // The chunks are ES modules too, and ssh2 (dockerode's) reads __dirname when it loads.
  writeFileSync(path.join(dist, chunk), cjsGlobals + code);
}
// The bundle needs Node 24 (undici in @kubernetes/client-node fails to load on older releases), so
// each entry point checks the version before importing it.
// Errors that nothing catches (a failure while loading the bundle, an exception in a callback, an
// unhandled rejection) are printed by `describeFatal`: the name, the message (at most 20 lines) and at
// most 20 `at` frames, each line cut to 300 characters. Node's own printing starts with the source line of the throw, which in
// the bundle is one minified line of 400,000 characters; a SyntaxError's stack holds that line too.
// Node prints no source line once an uncaughtException listener exists, and exits with 1 as here.
const guard = `const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(\`spread needs Node.js 24 or newer; this is \${process.version} (\${process.execPath}). Put Node 24 first on PATH; in a checkout of spread, after npm ci, that is node_modules/.bin.\\n\`);
  process.exit(1);
}
const describeFatal = (error) => {
  const clip = (s) => (s.length > 300 ? \`\${s.slice(0, 299)}…\` : s);
  const head = error instanceof Error ? \`\${error.name}: \${error.message}\` : String(error);
  const frames = String(error?.stack ?? '').split('\\n').filter((l) => /^\\s+at /.test(l)).slice(0, 20);
  return [...head.split('\\n').slice(0, 20), ...frames].map(clip).join('\\n');
};
process.on('uncaughtException', (error) => {
  process.stderr.write(\`spread: internal error: \${describeFatal(error)}\\n\`);
  process.exit(1);
});
`;
// Node's compile cache (module.enableCompileCache, as tsc uses it): a later run on the same machine
// (a self-hosted runner, a developer's shell) skips compiling the bundle, about 50 ms. It lives in
// <OS temp directory>/node-compile-cache, which is made here without `recursive`: Node's own
// recursive mkdir never returns for a temp directory under /proc (Node 24.22), and one that does not
// exist should not be created. Any failure leaves the cache off; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
const load = (file, name) => `if (!process.env.NODE_DISABLE_COMPILE_CACHE) {
  try {
    const dir = (await import('node:path')).join((await import('node:os')).tmpdir(), 'node-compile-cache');
    try {
      (await import('node:fs')).mkdirSync(dir);
    } catch (error) {
      if (error?.code !== 'EEXIST') throw error;
    }
    (await import('node:module')).default.enableCompileCache?.(dir);
  } catch {}
}
let ${name};
try {
  ({ ${name} } = await import('${file}'));
} catch (error) {
  process.stderr.write(\`spread failed to load: \${describeFatal(error)}\\n\`);
  process.exit(1);
}
`;
// V8 grows the young generation to 64 MB semi-spaces (128 MB resident) on a machine with a large heap
// limit once enough data survives scavenges, which a deploy of thousands of objects always does; with
// 16 MB (Node's default before the limit became heap-dependent) the 5,000-object deploys peak at
// 220–270 MB instead of 320–360 MB, at the same speed (bench/RESULTS.md). Only a command line can set
// it: v8.setFlagsFromString once Node runs changes nothing (tried: `spread render` of 5,000 objects
// stayed at 274 MB). `#!/usr/bin/env -S node …` would, but BusyBox's env (Alpine images) has no -S, so
// the CLI starts as a shell script whose second line execs Node with the option; to Node that line is
// a string and a comment, and Node skips the `#!` line, so `node dist/cli/index.js` runs it too
// (without the option). The GitLab component passes the option.
const CLI_NODE_OPTIONS = '--max-semi-space-size=16';
// The Action: the runner starts `node dist/index.js`, so dist/index.js runs itself again in a child
// Node with the option (about 30 ms more start-up) and ends with the child's exit code:
// - The child is in a process group of its own (detached), so a Ctrl-C sent to the whole group
//   reaches it once, by the parent's forwarding: a second SIGINT or SIGTERM would end it without
//   releasing its Lease (src/frontend/interrupts.ts). SIGHUP (which some runners send on cancel) is
//   forwarded as SIGTERM.
// - An IPC channel joins the two; it closes when the parent dies, even by SIGKILL, and the child then
//   stops as on SIGTERM (abort, release the Lease, exit 143) instead of deploying on, orphaned.
// - A child ended by a signal gets an `::error::` line saying so (it could not say why itself).
// - No child when the user set the option (or NODE_OPTIONS does), or debugs (--inspect: the child
//   would take the same port), or when it cannot be started: the Action runs in this process.
// - Writes to a closed stdout or stderr (the runner gone) are dropped in both processes, so neither
//   dies of EPIPE: the child must live on to stop and release its Lease (as src/frontend/interrupts.ts
//   does for the loaded bundle).
const reexec = `for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
if (process.env.SPREAD_ACTION_CHILD && process.channel) {
  delete process.env.SPREAD_ACTION_CHILD;
  process.channel.unref();
  process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
} else if (
  ![...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\\s+/)].some(
    (o) => o.startsWith('${CLI_NODE_OPTIONS.split('=')[0]}') || o.startsWith('--inspect'),
  )
) {
  const code = await (async () => {
    try {
      const { spawn } = await import('node:child_process');
      const { fileURLToPath } = await import('node:url');
      const { constants } = await import('node:os');
      const args = [...process.execArgv, '${CLI_NODE_OPTIONS}', fileURLToPath(import.meta.url)];
      const child = spawn(process.execPath, args, {
        stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
        detached: true,
        env: { ...process.env, SPREAD_ACTION_CHILD: '1' },
      });
      child.on('error', () => {});
      if (child.pid === undefined) return undefined;
      process.on('SIGINT', () => child.kill('SIGINT'));
      process.on('SIGTERM', () => child.kill('SIGTERM'));
      process.on('SIGHUP', () => child.kill('SIGTERM'));
      return await new Promise((resolve) =>
        child.on('exit', (status, signal) => {
          if (signal) process.stdout.write(\`::error::spread (Node, pid \${child.pid}) was ended by \${signal}\\n\`);
          resolve(status ?? 128 + (constants.signals[signal] ?? 9));
        }),
      );
    } catch {
      return undefined;
    }
  })();
  if (code !== undefined) process.exit(code);
}
`;
writeFileSync(
  path.join(dist, 'index.js'),
  // exit() once the step's work is done: a request left behind (a cache service that never answered)
  // must not keep the step running until the job's timeout.
  `${guard}${reexec}${load('./spread.js', 'runAction')}\nawait runAction();\nprocess.exit();\n`,
);
writeFileSync(
  path.join(dist, 'cli/index.js'),
  `#!/bin/sh\n':' //; exec node ${CLI_NODE_OPTIONS} "$0" "$@"\n${guard}${load('../spread.js', 'runCli')}\nprocess.exitCode = await runCli(process.argv);\n`,
);
chmodSync(path.join(dist, 'cli/index.js'), 0o755);

// Issue #8's budget: dist/ at most 4 MB (10^6 bytes, as bench/bench.mjs reports it). A dependency
// upgrade that brings back what the vendoring below keeps out fails here, not in a benchmark later.
const BUNDLE_BUDGET = 4_000_000;
const distBytes = jsFiles(dist).reduce((sum, f) => sum + readFileSync(f).length, 0);
if (distBytes > BUNDLE_BUDGET)
  throw new Error(
    `build: dist/ is ${distBytes.toLocaleString('en-US')} bytes, over the ${BUNDLE_BUDGET.toLocaleString('en-US')}-byte budget (bench/RESULTS.md)`,
  );

// ---- KubeConfig without client-node's generated API clients (issue #8) -------------------------------
// spread needs only KubeConfig from @kubernetes/client-node (src/cluster/kubeconfig.ts; everything else
// imports its type only). The package index re-exports every generated API client and model (dist/gen/,
// 80 % of the bundled source), and so does gen/index.js, which client-node's own dist/config.js imports
// for just createConfiguration and ServerConfiguration (used by makeApiClient, which spread does not
// call). Bundled as is, dist/spread.js is 7 MB and takes a third longer to load. ncc has no alias
// option, so after tsc, build/vendor/client-node/ gets a copy of dist/config.js that imports those two
// names from the modules that define them, and the compiled build/ imports KubeConfig from that copy
// (src/ keeps importing '@kubernetes/client-node', for the types and for vitest). dist/oidc_auth.js is
// copied too: it imports ./config.js, which would otherwise bring back the original and gen/index.js.
// The copies reach the rest of client-node by relative paths into node_modules, never absolute ones,
// since check-dist compares dist/ built in another directory.
// Every rewrite checks that it found what it expects, and the modules the copies reach are checked to
// include no API client: a client-node upgrade that changes these files fails the build here instead of
// quietly bringing back the big bundle.

/** Writes build/vendor/client-node/ and points build/'s imports of KubeConfig at it. */
function vendorKubeConfig() {
  // The files of client-node's dist/ that are copied to build/vendor/client-node/, under the same names.
  const VENDORED = ['config.js', 'oidc_auth.js'];
  // A static import or re-export in single quotes, as client-node's own files write them: head, specifier.
  const IMPORT = /^((?:import|export)\b[^;'"]*?\bfrom\s*|import\s*)'([^']+)'/gm;
  // Any import, re-export or dynamic import, in either quotes: quote, specifier.
  const ANY_IMPORT =
    /(?:^|[\s;{}])(?:(?:import|export)\b[^;'"]*?\bfrom\s*|import\s*\(?\s*)(['"])([^'"]+)\1/gm;
  const pkgDir = path.join(root, 'node_modules/@kubernetes/client-node');
  const pkgDist = path.join(pkgDir, 'dist');
  const vendorDir = path.join(root, 'build/vendor/client-node');
  const version = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).version;
  const fail = (message) => {
    throw new Error(`build: vendoring KubeConfig of @kubernetes/client-node ${version}: ${message}`);
  };
  const relative = (from, to) => {
    const r = path.relative(from, to).split(path.sep).join('/');
    return r.startsWith('.') ? r : `./${r}`;
  };
  const exportsName = (source, name) =>
    new RegExp(`^export (?:class|function|const|let) ${name}\\b`, 'm').test(source);
  const narrow = {
    createConfiguration: './gen/configuration.js',
    ServerConfiguration: './gen/servers.js',
  };
  for (const [name, file] of Object.entries(narrow)) {
    if (!exportsName(readFileSync(path.join(pkgDist, file), 'utf8'), name))
      fail(`dist/${file.slice(2)} no longer exports ${name}`);
  }
  const genIndex =
    /^import \{\s*createConfiguration,\s*ServerConfiguration,?\s*\} from '\.\/gen\/index\.js';$/m;
  const modules = `${relative(vendorDir, path.join(root, 'node_modules'))}/`;

  mkdirSync(vendorDir, { recursive: true });
  const sources = {};
  for (const file of VENDORED) {
    let source = readFileSync(path.join(pkgDist, file), 'utf8');
    if (/\bimport\s*\(|\brequire\s*\(/.test(source)) fail(`dist/${file} has a dynamic import or require`);
    if (file === 'config.js') {
      if (!genIndex.test(source))
        fail(
          "dist/config.js has no `import { createConfiguration, ServerConfiguration } from './gen/index.js'`",
        );
      source = source.replace(genIndex, () =>
        Object.entries(narrow)
          .map(([name, from]) => `import { ${name} } from '${from}';`)
          .join('\n'),
      );
    }
    source = source.replace(IMPORT, (_match, head, spec) => {
      if (spec.startsWith('node:')) return `${head}'${spec}'`;
      if (spec.startsWith('.')) {
        const target = path.join(pkgDist, path.dirname(file), spec);
        if (VENDORED.includes(path.relative(pkgDist, target))) return `${head}'${spec}'`;
        return `${head}'${relative(vendorDir, target)}'`;
      }
      // A bare name resolves from build/vendor/ to the top-level node_modules, which may hold another
      // version than client-node's own (undici: client-node has 8.x nested, @actions/* hoist 6.x).
      const name = spec
        .split('/')
        .slice(0, spec.startsWith('@') ? 2 : 1)
        .join('/');
      const own = findPackage(pkgDist, name);
      if (!own) fail(`cannot find ${name}, which dist/${file} imports`);
      if (own === findPackage(vendorDir, name)) return `${head}'${spec}'`;
      const manifest = JSON.parse(readFileSync(path.join(own, 'package.json'), 'utf8'));
      if (spec !== name || manifest.exports !== undefined)
        fail(`${spec} (client-node's own copy) has an exports map or a subpath: resolve it here`);
      const main = path.join(own, manifest.main ?? 'index.js');
      if (!existsSync(main)) fail(`${spec}'s main file ${main} does not exist`);
      return `${head}'${relative(vendorDir, main)}'`;
    });
    for (const [, spec] of source.matchAll(/['"](\.\.?\/[^'"]*)['"]/g)) {
      if (!spec.startsWith(modules) && !VENDORED.some((v) => spec === `./${v}`))
        fail(`dist/${file} refers to ${spec} in a way this build does not rewrite`);
    }
    source = source.replace(/^\/\/# sourceMappingURL=.*\n?/m, '');
    sources[file] = source;
    writeFileSync(
      path.join(vendorDir, file),
      `// Generated by scripts/build.mjs (vendorKubeConfig) from @kubernetes/client-node ${version} dist/${file}.\n${source}`,
    );
  }

  // What the copies reach, by relative imports, must not include the package index, the generated
  // index or API clients, or the original config.js (any of them brings the API clients back).
  const banned = (f) =>
    ['index.js', 'gen/index.js', ...VENDORED].includes(path.relative(pkgDist, f)) ||
    path.relative(pkgDist, f).startsWith(`gen${path.sep}apis${path.sep}`);
  const queue = VENDORED.map((f) => [path.join(vendorDir, f), undefined]);
  const reached = new Set();
  while (queue.length > 0) {
    const [file, from] = queue.pop();
    if (reached.has(file)) continue;
    reached.add(file);
    if (banned(file)) fail(`${path.relative(root, from)} imports ${path.relative(root, file)}`);
    for (const [, , spec] of readFileSync(file, 'utf8').matchAll(ANY_IMPORT)) {
      if (spec.startsWith('@kubernetes/client-node')) fail(`${path.relative(root, file)} imports ${spec}`);
      const target = path.join(path.dirname(file), spec);
      if (spec.startsWith('.') && target.endsWith('.js')) queue.push([target, file]);
    }
  }

  // The compiled sources: every runtime import of the package must be KubeConfig (or another export
  // of config.js); type-only imports are gone after tsc (verbatimModuleSyntax).
  const config = path.join(vendorDir, 'config.js');
  let rewritten = 0;
  for (const file of jsFiles(path.join(root, 'build'))) {
    if (file.startsWith(vendorDir + path.sep)) continue;
    const js = readFileSync(file, 'utf8');
    if (!js.includes('@kubernetes/client-node')) continue;
    const out = js.replace(/^import \{([^}]*)\} from '@kubernetes\/client-node';$/gm, (_match, names) => {
      for (const name of names.split(',').map((n) => n.trim().split(/\s+as\s+/)[0])) {
        if (name && !exportsName(sources['config.js'], name))
          fail(`${path.relative(root, file)} imports ${name}, which dist/config.js does not export`);
      }
      rewritten++;
      return `import {${names}} from '${relative(path.dirname(file), config)}';`;
    });
    for (const [, , spec] of out.matchAll(ANY_IMPORT)) {
      if (spec.startsWith('@kubernetes/client-node'))
        fail(`${path.relative(root, file)} imports ${spec} in a form this build cannot redirect`);
    }
    writeFileSync(file, out);
  }
  if (rewritten === 0) fail("no file in build/ imports from '@kubernetes/client-node' any more");
}

// ---- dockerode without its BuildKit session (issue #8) ------------------------------------------------
// dockerode's lib/docker.js requires ./session at load time, which loads @grpc/grpc-js,
// @grpc/proto-loader and protobufjs (about 1 MB of the bundle) for `buildImage` with `version: '2'`
// (a BuildKit session), and ./buildkit (protobufjs again) in followProgress. spread builds with the classic builder and never asks for one. So, as for
// KubeConfig above, build/vendor/dockerode/docker.cjs is a copy of lib/docker.js whose session is a
// function that throws, whose other requires point into node_modules/dockerode/lib by relative paths,
// and build/image/docker.js imports Docker from it. Every rewrite checks what it finds.

/** Writes build/vendor/dockerode/docker.cjs and points build/'s import of dockerode at it. */
function vendorDockerode() {
  const pkgDir = path.join(root, 'node_modules/dockerode');
  const version = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).version;
  const fail = (message) => {
    throw new Error(`build: vendoring dockerode ${version} without BuildKit sessions: ${message}`);
  };
  const vendorDir = path.join(root, 'build/vendor/dockerode');
  const lib = path.join(pkgDir, 'lib');
  let source = readFileSync(path.join(lib, 'docker.js'), 'utf8');
  const session = /^(\s*)withSession = require\('\.\/session'\),$/m;
  if (!session.test(source)) fail("lib/docker.js no longer has `withSession = require('./session'),`");
  source = source.replace(
    session,
    (_m, indent) =>
      `${indent}withSession = function () { throw new Error("dockerode BuildKit sessions are not in spread's bundle (spread builds with the classic builder)"); },`,
  );
  // followProgress decodes BuildKit's protobuf status messages (./buildkit → protobufjs); spread reads
  // the classic builder's JSON stream itself and never calls it.
  const buildkit = /^(\s*)var buildkit = require\('\.\/buildkit'\);$/m;
  if (!buildkit.test(source)) fail("lib/docker.js no longer has `var buildkit = require('./buildkit');`");
  source = source.replace(
    buildkit,
    (_m, indent) =>
      `${indent}throw new Error("dockerode's followProgress (BuildKit) is not in spread's bundle");`,
  );
  source = source.replace(/require\('(\.\/[^']+)'\)/g, (_m, spec) => {
    const target = path.join(lib, spec.endsWith('.js') ? spec : `${spec}.js`);
    if (!existsSync(target)) fail(`lib/docker.js requires ${spec}, which does not exist`);
    const r = path.relative(vendorDir, target).split(path.sep).join('/');
    return `require('${r}')`;
  });
  for (const [, spec] of source.matchAll(/require\('([^'.][^']*)'\)/g)) {
    if (['events', 'util'].includes(spec)) continue;
    if (findPackage(vendorDir, spec) !== findPackage(pkgDir, spec))
      fail(`${spec} resolves to another copy from build/vendor than from dockerode`);
  }
  if (/require\(\s*['"](\.\/(session|buildkit)|@grpc\/|protobufjs)/.test(source))
    fail('the session is still required');
  mkdirSync(vendorDir, { recursive: true });
  writeFileSync(
    path.join(vendorDir, 'docker.cjs'),
    `// Generated by scripts/build.mjs (vendorDockerode) from dockerode ${version} lib/docker.js.\n${source}`,
  );
  let rewritten = 0;
  for (const file of jsFiles(path.join(root, 'build'))) {
    if (file.startsWith(path.join(root, 'build/vendor') + path.sep)) continue;
    const js = readFileSync(file, 'utf8');
    if (!/from 'dockerode'|require\('dockerode'\)|import\('dockerode'\)/.test(js)) continue;
    const r = path.relative(path.dirname(file), path.join(vendorDir, 'docker.cjs')).split(path.sep).join('/');
    const target = r.startsWith('.') ? r : `./${r}`;
    // `import Docker from 'dockerode'`, or the lazy `await import('dockerode')` of src/image/docker.ts.
    const out = js
      .replace(/^import Docker from 'dockerode';$/m, () => {
        rewritten++;
        return `import Docker from '${target}';`;
      })
      .replace(/import\('dockerode'\)/g, () => {
        rewritten++;
        return `import('${target}')`;
      });
    if (/from 'dockerode'|require\('dockerode'\)|import\('dockerode'\)/.test(out))
      fail(`${path.relative(root, file)} imports dockerode in a form this build cannot redirect`);
    writeFileSync(file, out);
  }
  if (rewritten === 0) fail("no file in build/ imports Docker from 'dockerode' any more");
}

/** The directory of package `name` that Node would find from `dir` (its node_modules, then upwards). */
function findPackage(dir, name) {
  for (let d = dir; ; d = path.dirname(d)) {
    const candidate = path.join(d, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (path.dirname(d) === d) return undefined;
  }
}

/** Every .js file under `dir`. */
function jsFiles(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.js'))
    .map((e) => path.join(e.parentPath, e.name));
}
