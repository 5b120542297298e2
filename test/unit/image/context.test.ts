import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { describe, expect, test } from 'vitest';
import { ContextError, dockerignoreMatcher, packContext, readContext } from '../../../src/image/context.js';

const FIXTURE = path.resolve(import.meta.dirname, '../../fixtures/images/hello');

function copy(): string {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'spread-ctx-')), 'hello');
  cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}

describe('readContext', () => {
  test('sends what .dockerignore keeps, depth first in name order', async () => {
    const ctx = await readContext(copy());
    expect(ctx.entries.map((e) => `${e.type[0]} ${e.path}`)).toEqual([
      'f .dockerignore',
      'f Dockerfile',
      'f hello.txt',
      'f keep.tmp',
    ]);
    expect(ctx.dockerfile).toBe('Dockerfile');
    expect(ctx.digest).toMatch(/^sha256:[a-f0-9]{64}$/);
    expect(ctx.escapingLinks).toEqual([]);
  });

  test('the digest is stable, ignores excluded files and mtimes, and changes with content, modes and options', async () => {
    const dir = copy();
    const first = (await readContext(dir)).digest;
    expect((await readContext(dir)).digest).toBe(first);
    writeFileSync(path.join(dir, 'README.md'), 'changed, but excluded');
    writeFileSync(path.join(dir, 'scratch', 'new.txt'), 'excluded directory');
    execFileSync('touch', ['-d', '2001-01-01', path.join(dir, 'hello.txt')]);
    expect((await readContext(dir)).digest).toBe(first);
    expect((await readContext(dir, { buildArgs: { A: '1' } })).digest).not.toBe(first);
    expect((await readContext(dir, { target: 'prod' })).digest).not.toBe(first);
    chmodSync(path.join(dir, 'hello.txt'), 0o755);
    const moded = (await readContext(dir)).digest;
    expect(moded).not.toBe(first);
    writeFileSync(path.join(dir, 'hello.txt'), 'other content');
    expect((await readContext(dir)).digest).not.toBe(moded);
  });

  test('a .dockerignore excluding the Dockerfile and itself: both listed as left out of the context, and the digest changes', async () => {
    const dir = copy();
    const plain = await readContext(dir);
    expect(plain.excludedBuildFiles).toEqual([]);
    writeFileSync(path.join(dir, '.dockerignore'), 'Dockerfile\n.dockerignore\n');
    const ctx = await readContext(dir);
    expect(ctx.excludedBuildFiles).toEqual(['Dockerfile', '.dockerignore']);
    // Still entries: they define the build, so a change to either changes the digest.
    expect(ctx.entries.map((e) => e.path)).toEqual(expect.arrayContaining(['Dockerfile', '.dockerignore']));
    expect(ctx.ignorePatterns.slice(-2)).toEqual(['Dockerfile', '.dockerignore']);
    writeFileSync(path.join(dir, '.dockerignore'), '*.md\n!Dockerfile\n');
    expect((await readContext(dir)).excludedBuildFiles).toEqual([]);
  });

  test('build args are digested in name order', async () => {
    const dir = copy();
    const a = await readContext(dir, { buildArgs: { A: '1', B: '2' } });
    const b = await readContext(dir, { buildArgs: { B: '2', A: '1' } });
    expect(a.digest).toBe(b.digest);
  });

  test('the Dockerfile and .dockerignore are sent even when excluded', async () => {
    const dir = copy();
    writeFileSync(path.join(dir, '.dockerignore'), '*\n');
    const ctx = await readContext(dir);
    expect(ctx.entries.map((e) => e.path)).toEqual(['.dockerignore', 'Dockerfile']);
  });

  test('an exception pattern brings back a file below an excluded directory', async () => {
    const dir = copy();
    mkdirSync(path.join(dir, 'docs', 'deep'), { recursive: true });
    writeFileSync(path.join(dir, 'docs', 'a.md'), 'a');
    writeFileSync(path.join(dir, 'docs', 'deep', 'keep.md'), 'k');
    writeFileSync(path.join(dir, '.dockerignore'), 'docs\n!docs/deep/keep.md\n');
    const paths = (await readContext(dir)).entries.map((e) => e.path);
    expect(paths).toContain('docs/deep/keep.md');
    expect(paths).not.toContain('docs/a.md');
  });

  test('symbolic links are sent as links, never followed; those leaving the context are listed', async () => {
    const dir = copy();
    symlinkSync('/etc/passwd', path.join(dir, 'passwd'));
    symlinkSync('../../outside', path.join(dir, 'up'));
    symlinkSync('hello.txt', path.join(dir, 'inside'));
    const ctx = await readContext(dir);
    const links = ctx.entries.filter((e) => e.type === 'symlink');
    expect(links.map((l) => [l.path, l.linkname])).toEqual([
      ['inside', 'hello.txt'],
      ['passwd', '/etc/passwd'],
      ['up', '../../outside'],
    ]);
    expect(ctx.escapingLinks).toEqual(['passwd', 'up']);
  });

  test("spread's own files are left out at any depth, so changing them keeps the digest", async () => {
    const dir = copy();
    const before = await readContext(dir);
    for (const f of [
      '.k2e/svc.yaml',
      'rs/svc.yaml',
      'sub/.kube/x.yaml',
      'api.ctr',
      'rc.yaml',
      'sub/web.rc.yml',
      'pod.json',
      'deployment.yaml',
      'x.cronjob.yaml',
    ]) {
      mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      writeFileSync(path.join(dir, f), 'kind: Service\n');
    }
    writeFileSync(path.join(dir, 'rc.yaml.txt'), 'not spread config\n');
    const after = await readContext(dir);
    expect(after.entries.map((e) => e.path)).toEqual(
      [...before.entries.map((e) => e.path), 'rc.yaml.txt', 'sub'].sort(),
    );
    writeFileSync(path.join(dir, '.k2e/svc.yaml'), 'kind: ConfigMap\n');
    expect((await readContext(dir)).digest).toBe(after.digest);
  });

  test('a ! line in .dockerignore brings spread files back', async () => {
    const dir = copy();
    mkdirSync(path.join(dir, '.k2e'));
    writeFileSync(path.join(dir, '.k2e/svc.yaml'), 'kind: Service\n');
    writeFileSync(path.join(dir, '.dockerignore'), '!.k2e\n!*.ctr\n');
    const paths = (await readContext(dir)).entries.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['.k2e', '.k2e/svc.yaml', 'web.ctr']));
  });

  test('platforms and attestations are part of the digest', async () => {
    const dir = copy();
    const plain = (await readContext(dir)).digest;
    const two = (await readContext(dir, { platforms: ['linux/amd64', 'linux/arm64'] })).digest;
    const attested = (await readContext(dir, { attestations: true })).digest;
    expect(new Set([plain, two, attested]).size).toBe(3);
  });

  test('no Dockerfile → ContextError naming it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'spread-ctx-'));
    await expect(readContext(dir)).rejects.toThrow(ContextError);
    await expect(readContext(dir)).rejects.toThrow(/no Dockerfile in the build context/);
    await expect(readContext(path.join(dir, 'absent'))).rejects.toThrow(/is not a directory/);
  });
});

describe('packContext', () => {
  test('the tar holds exactly the entries, in order, owner 0:0, mtime 1980-01-01, and is reproducible', async () => {
    const dir = copy();
    mkdirSync(path.join(dir, 'sub'));
    writeFileSync(path.join(dir, 'sub', 'x.txt'), 'x');
    symlinkSync('/etc/passwd', path.join(dir, 'passwd'));
    const ctx = await readContext(dir);
    const out = mkdtempSync(path.join(tmpdir(), 'spread-tar-'));
    await pipeline(packContext(ctx), createWriteStream(path.join(out, 'a.tar')));
    await pipeline(packContext(ctx), createWriteStream(path.join(out, 'b.tar')));
    const listing = execFileSync('tar', ['--numeric-owner', '--full-time', '-tvf', path.join(out, 'a.tar')], {
      encoding: 'utf8',
    })
      .trim()
      .split('\n');
    expect(listing.map((l) => l.split(/\s+/).slice(5).join(' '))).toEqual([
      '.dockerignore',
      'Dockerfile',
      'hello.txt',
      'keep.tmp',
      'passwd -> /etc/passwd',
      'sub',
      'sub/x.txt',
    ]);
    for (const line of listing) {
      expect(line).toContain(' 0/0 ');
      expect(line).toContain('1980-01-01');
    }
    execFileSync('cmp', [path.join(out, 'a.tar'), path.join(out, 'b.tar')]);
  });
});

describe('dockerignoreMatcher', () => {
  test.each([
    ['node_modules', 'node_modules/x/y.js', true],
    ['*.log', 'a.log', true],
    ['*.log', 'sub/a.log', false],
    ['**/*.log', 'sub/a.log', true],
    ['/secret', 'secret', true],
    ['# comment\n\nbuild/', 'build/out', true],
    ['*.md\n!README.md', 'README.md', false],
    ['Docs', 'docs', false],
  ])('%j excludes %s: %s', (text, file, excluded) => {
    expect(dockerignoreMatcher(text).matcher.ignores(file)).toBe(excluded);
  });
});
