// The image stage against the real Docker engine and registry of .cluster/env: builds FROM scratch
// (no base image can be pulled here) with Debian's static busybox copied into a temporary copy of each
// fixture under test/fixtures/images/, pushes to that registry (SPREAD_REGISTRY) under a repository
// namespace unique to this run, and checks what the registry then holds through its HTTP API.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CONTEXT_DIGEST_LABEL } from '../../src/base/labels.js';
import type { Logger } from '../../src/base/logger.js';
import { silentLogger } from '../../src/base/logger.js';
import { InputError } from '../../src/base/source.js';
import { readDeployment } from '../../src/core/read.js';
import { BuildError } from '../../src/image/buildx-output.js';
import { type ImageOptions, prepareImages } from '../../src/image/prepare.js';
import { missingHarness, needs } from './harness.js';
import { copyDir, ROOT, runNode, uniqueName } from './helpers.js';

const FIXTURES = path.join(ROOT, 'test/fixtures/images');
const BUSYBOX = '/bin/busybox';
const ACCEPT =
  'application/vnd.docker.distribution.manifest.v2+json, application/vnd.oci.image.manifest.v1+json';

let registryHost: string;
let namespace: string;
let user: string;
let password: string;
let dockerHost: string;
let dockerConfig: string;

/** A temporary copy of a fixture, with busybox beside every Dockerfile. */
function fixture(name: string): string {
  const dir = copyDir(path.join(FIXTURES, name));
  const walk = (d: string) => {
    if (existsSync(path.join(d, 'Dockerfile'))) copyFileSync(BUSYBOX, path.join(d, 'busybox'));
    for (const e of readdirSync(d)) if (statSync(path.join(d, e)).isDirectory()) walk(path.join(d, e));
  };
  walk(dir);
  return dir;
}

/** A logger that keeps every line, to check steps are logged and no secret is. */
function recorder(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => lines.push(m),
    warn: (m) => lines.push(`warn: ${m}`),
    error: (m) => lines.push(`error: ${m}`),
    debug: (m) => lines.push(`debug: ${m}`),
    group: async (name, fn) => {
      lines.push(`group: ${name}`);
      return fn();
    },
  };
}

async function prepare(dir: string, options: Partial<ImageOptions> = {}, logger: Logger = recorder()) {
  const read = await readDeployment(dir, { namespace: 'default', logger: silentLogger });
  return prepareImages(
    read.application,
    read.objects,
    {
      root: dir,
      registry: `${registryHost}/${namespace}`,
      docker: dockerHost,
      dockerConfigDir: dockerConfig,
      networkMode: 'none',
      ...options,
    },
    logger,
  );
}

const basic = () => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** What the registry holds for a repository path and tag, read with its HTTP API. */
async function inRegistry(
  repository: string,
  tag: string,
): Promise<{ digest: string; labels: Record<string, string> } | undefined> {
  const res = await fetch(`http://${registryHost}/v2/${repository}/manifests/${tag}`, {
    headers: { accept: ACCEPT, authorization: basic() },
  });
  if (res.status === 404) return undefined;
  expect(res.status).toBe(200);
  const manifest = (await res.json()) as { config: { digest: string } };
  const config = await fetch(`http://${registryHost}/v2/${repository}/blobs/${manifest.config.digest}`, {
    headers: { authorization: basic() },
  });
  const body = (await config.json()) as { config: { Labels: Record<string, string> } };
  return { digest: res.headers.get('docker-content-digest')!, labels: body.config.Labels };
}

/** The tags the registry holds for a repository path (none when it has no such repository). */
async function tagsOf(repository: string): Promise<string[]> {
  const res = await fetch(`http://${registryHost}/v2/${repository}/tags/list`, {
    headers: { authorization: basic() },
  });
  if (res.status === 404) return [];
  expect(res.status).toBe(200);
  return ((await res.json()) as { tags: string[] | null }).tags ?? [];
}

/** A Docker config directory holding `config`, and the buildx plugin of the cluster's one. */
function dockerConfigDir(config: unknown): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'spread-dockercfg-'));
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
  symlinkSync(path.join(dockerConfig, 'cli-plugins'), path.join(dir, 'cli-plugins'));
  return dir;
}

/** Builds and pushes a context directory with `docker buildx build` (the cluster's builder), as a user would. */
function buildxPush(dir: string, tag: string): void {
  execFileSync('docker', ['buildx', 'build', '--quiet', '--provenance=false', '--push', '--tag', tag, dir], {
    env: process.env,
    stdio: 'ignore',
  });
}

beforeAll(() => {
  // Top-level hooks run even when every test of the file is skipped (harness.ts).
  if (missingHarness('docker', 'registry')) return;
  registryHost = process.env.SPREAD_REGISTRY!;
  user = process.env.SPREAD_REGISTRY_USER!;
  password = readFileSync(process.env.SPREAD_REGISTRY_PASSWORD_FILE!, 'utf8').trim();
  dockerHost = process.env.DOCKER_HOST!;
  dockerConfig = process.env.DOCKER_CONFIG!;
  namespace = uniqueName('itg-image');
});

afterAll(async () => {
  if (missingHarness('docker', 'registry')) return;
  // Remove the local images this run tagged (all under its unique namespace). docker-modem reads
  // DOCKER_HOST as the docker CLI does.
  const docker = new Docker();
  const images = await docker.listImages();
  for (const image of images) {
    for (const tag of image.RepoTags ?? []) {
      if (tag.startsWith(`${registryHost}/${namespace}/`))
        await docker
          .getImage(tag)
          .remove({ force: true })
          .catch(() => {});
    }
  }
});

describe('build and push an & image', needs('docker', 'registry'), () => {
  let dir: string;
  let first: Awaited<ReturnType<typeof prepare>>;

  test('builds, pushes, and pins: the registry holds the reported digest with the context label', async () => {
    dir = fixture('hello');
    const logger = recorder();
    first = await prepare(dir, {}, logger);
    expect(first.images).toHaveLength(1);
    const image = first.images[0]!;
    expect(image).toMatchObject({
      name: `${registryHost}/${namespace}/hello`,
      built: true,
      pushed: true,
      context: '.',
      source: 'web.ctr:2',
      marks: ['&hello'],
    });
    expect(image.tag).toBe(`ctx-${image.contextDigest.slice(7, 19)}`);
    expect(image.digest).toMatch(/^sha256:[a-f0-9]{64}$/);
    expect(image.reference).toBe(`${registryHost}/${namespace}/hello:${image.tag}@${image.digest}`);
    const held = await inRegistry(`${namespace}/hello`, image.tag);
    expect(held?.digest).toBe(image.digest);
    expect(held?.labels[CONTEXT_DIGEST_LABEL]).toBe(image.contextDigest);
    // The Deployment runs the pinned reference.
    const deployment = first.objects.find((o) => o.object.kind === 'Deployment')!.object;
    const containers = (deployment.spec as { template: { spec: { containers: { image: string }[] } } })
      .template.spec.containers;
    expect(containers.map((c) => c.image)).toEqual([image.reference]);
    // Each step is logged inside the image's group; no secret is.
    expect(logger.lines).toContain(`group: Image ${registryHost}/${namespace}/hello:${image.tag}`);
    // buildx's plain progress: each step, then the push of the image.
    expect(logger.lines).toContainEqual(
      expect.stringMatching(/^#\d+ \[2\/2\] COPY hello\.txt \/hello\.txt$/),
    );
    expect(logger.lines).toContainEqual(expect.stringMatching(/^#\d+ pushing layers/));
    expect(logger.lines).toContainEqual(expect.stringMatching(/^#\d+ pushing manifest for /));
    expect(logger.lines.join('\n')).not.toContain(password);
  });

  test('unchanged (an excluded file changed only): not built, not pushed, same digest', async () => {
    writeFileSync(path.join(dir, 'README.md'), 'excluded by .dockerignore, so not a change');
    const again = await prepare(dir);
    expect(again.images[0]).toMatchObject({
      built: false,
      pushed: false,
      digest: first.images[0]!.digest,
      reference: first.images[0]!.reference,
    });
  });

  test('a changed file: a new context digest, tag and image digest', async () => {
    writeFileSync(path.join(dir, 'hello.txt'), 'hello again\n');
    const changed = await prepare(dir);
    const image = changed.images[0]!;
    expect(image).toMatchObject({ built: true, pushed: true });
    expect(image.contextDigest).not.toBe(first.images[0]!.contextDigest);
    expect(image.tag).not.toBe(first.images[0]!.tag);
    expect(image.digest).not.toBe(first.images[0]!.digest);
    expect((await inRegistry(`${namespace}/hello`, image.tag))?.digest).toBe(image.digest);
  });

  test('a fixed tag (the commit) is rebuilt and moved when the context changes', async () => {
    const a = await prepare(dir, { tag: 'c0ffee1' });
    expect(a.images[0]).toMatchObject({ tag: 'c0ffee1', pushed: true });
    writeFileSync(path.join(dir, 'hello.txt'), 'hello a third time\n');
    const b = await prepare(dir, { tag: 'c0ffee1' });
    expect(b.images[0]).toMatchObject({ tag: 'c0ffee1', built: true, pushed: true });
    expect(b.images[0]!.digest).not.toBe(a.images[0]!.digest);
    expect((await inRegistry(`${namespace}/hello`, 'c0ffee1'))?.digest).toBe(b.images[0]!.digest);
    const c = await prepare(dir, { tag: 'c0ffee1' });
    expect(c.images[0]).toMatchObject({ built: false, pushed: false, digest: b.images[0]!.digest });
  });

  test('build off: pinned to what the registry holds for the same context; a tag it lacks is an error', async () => {
    const current = await prepare(dir);
    const logger = recorder();
    const looked = await prepare(dir, { build: false, docker: 'unix:///nonexistent.sock' }, logger);
    expect(looked.images[0]).toMatchObject({
      built: false,
      pushed: false,
      digest: current.images[0]!.digest,
    });
    const missing = await prepare(
      dir,
      { build: false, tag: 'never-built', docker: 'unix:///nonexistent.sock' },
      logger,
    ).catch((e) => e);
    expect(missing).toBeInstanceOf(Error);
    expect(missing.message).toMatch(
      new RegExp(
        `${registryHost}/${namespace}/hello:never-built \\(marked at .*\\) is not in the registry and building is off`,
      ),
    );
  });

  test('a plan builds nothing and names the image the deploy would build', async () => {
    const logger = recorder();
    const planned = await prepare(
      dir,
      { tag: 'plan-only', plan: true, docker: 'unix:///nonexistent.sock' },
      logger,
    );
    expect(planned.images[0]).toMatchObject({
      built: false,
      pushed: false,
      wouldBuild: true,
      digest: undefined,
    });
    const known = await prepare(dir, { plan: true, docker: 'unix:///nonexistent.sock' }, logger);
    expect(known.images[0]!.wouldBuild).toBeUndefined();
    expect(known.images[0]!.digest).toMatch(/^sha256:/);
  });

  test('push off: built locally, deployed by tag without digest', async () => {
    const out = await prepare(dir, { tag: 'local-only', push: false });
    expect(out.images[0]).toMatchObject({ built: true, pushed: false, digest: undefined });
    expect(out.images[0]!.reference).toBe(`${registryHost}/${namespace}/hello:local-only`);
    expect(await inRegistry(`${namespace}/hello`, 'local-only')).toBeUndefined();
  });
});

describe('Docker config variants', needs('docker', 'registry'), () => {
  let bin: string;
  let helperLog: string;
  let savedPath: string | undefined;

  beforeAll(() => {
    // A credential helper backed by the registry's password file; it logs the server URL it is asked for.
    bin = mkdtempSync(path.join(tmpdir(), 'spread-helper-'));
    helperLog = path.join(bin, 'calls.log');
    const script = path.join(bin, 'docker-credential-spreadtest');
    writeFileSync(
      script,
      `#!/bin/sh
[ "$1" = get ] || exit 2
server=$(cat)
echo "$server" >> '${helperLog}'
if [ "$server" = '${registryHost}' ]; then
  printf '{"ServerURL":"%s","Username":"%s","Secret":"%s"}' "$server" '${user}' "$(cat '${process.env.SPREAD_REGISTRY_PASSWORD_FILE}')"
else
  echo "credentials not found in native keychain"; exit 1
fi
`,
    );
    chmodSync(script, 0o755);
    savedPath = process.env.PATH;
    process.env.PATH = `${bin}:${savedPath}`;
  });

  afterAll(() => {
    process.env.PATH = savedPath;
  });

  test.each<[string, () => unknown, boolean]>([
    [
      'auths with base64 auth',
      () => ({ auths: { [registryHost]: { auth: Buffer.from(`${user}:${password}`).toString('base64') } } }),
      false,
    ],
    [
      'auths with username and password under an http:// key',
      () => ({ auths: { [`http://${registryHost}`]: { username: user, password } } }),
      false,
    ],
    ['credHelpers', () => ({ credHelpers: { [registryHost]: 'spreadtest' } }), true],
    ['credsStore', () => ({ credsStore: 'spreadtest', auths: { [registryHost]: {} } }), true],
  ])('%s: pushes, and the registry holds the digest', async (variant, config, usesHelper) => {
    writeFileSync(helperLog, '');
    const tag = `cfg-${variant.split(' ')[0]!.toLowerCase()}-${variant.length}`;
    const logger = recorder();
    const out = await prepare(fixture('hello'), { tag, dockerConfigDir: dockerConfigDir(config()) }, logger);
    expect(out.images[0]).toMatchObject({ tag, pushed: true });
    expect((await inRegistry(`${namespace}/hello`, tag))?.digest).toBe(out.images[0]!.digest);
    if (usesHelper) expect(readFileSync(helperLog, 'utf8').split('\n')).toContain(registryHost);
    expect(logger.lines.join('\n')).not.toContain(password);
  });

  test('a wrong password: a clear error naming the registry, without the password', async () => {
    const wrong = 'not-the-password-42';
    const config = dockerConfigDir({
      auths: { [registryHost]: { auth: Buffer.from(`${user}:${wrong}`).toString('base64') } },
    });
    const logger = recorder();
    const error = await prepare(
      fixture('hello'),
      { tag: 'wrong-password', dockerConfigDir: config },
      logger,
    ).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain(`authentication to ${registryHost} failed`);
    // What the registry said, which image, which Docker config and entry, and what to do.
    expect((error as Error).message).toContain(
      `(HTTP 401: unauthorized: authentication required) for ${registryHost}/${namespace}/hello; the credentials are ${path.join(config, 'config.json')}'s auths entry for ${registryHost}: log in with \`docker login ${registryHost}\``,
    );
    expect((error as Error).message).not.toContain(wrong);
    expect(logger.lines.join('\n')).not.toContain(wrong);
  });

  test('the CLI with no credentials for the registry: exits with the error, and ends the buildx it started', async () => {
    const config = dockerConfigDir({});
    const dir = fixture('hello');
    const out = await runNode(
      'dist/cli/index.js',
      ['build', dir, '--registry', `${registryHost}/${namespace}`, '--tag', 'no-credentials'],
      { ...process.env, DOCKER_CONFIG: config },
    );
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(`authentication to ${registryHost} failed`);
    // The buildx started before the registry's answer was ended, not left waiting for its context.
    const left = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.includes('docker-buildx') && l.includes(`${namespace}/hello:no-credentials`));
    expect(left).toEqual([]);
  });

  test('the CLI with --output json: a failure is on stdout too, as deploy prints it', async () => {
    const config = dockerConfigDir({});
    const out = await runNode(
      'dist/cli/index.js',
      [
        'build',
        fixture('hello'),
        '--registry',
        `${registryHost}/${namespace}`,
        '--tag',
        'json',
        '-o',
        'json',
      ],
      { ...process.env, DOCKER_CONFIG: config },
    );
    expect(out.code).toBe(1);
    const failure = JSON.parse(out.stdout) as { error: string; failures: { message: string }[] };
    expect(failure.error).toContain(`authentication to ${registryHost} failed`);
    expect(failure.failures.map((f) => f.message)).toEqual([failure.error]);
  });
});

test(
  'examples/hello-build builds with a BASE build arg naming a local image, and deploys pinned',
  needs('docker', 'registry'),
  async () => {
    // A local busybox base image, built FROM scratch: the example's default base cannot be pulled here.
    const baseDir = mkdtempSync(path.join(tmpdir(), 'spread-base-'));
    copyFileSync(BUSYBOX, path.join(baseDir, 'busybox'));
    writeFileSync(path.join(baseDir, 'Dockerfile'), 'FROM scratch\nCOPY busybox /bin/busybox\n');
    const base = `${registryHost}/${namespace}/base:busybox`;
    buildxPush(baseDir, base);
    const logger = recorder();
    const out = await prepare(
      copyDir(path.join(ROOT, 'examples/hello-build')),
      { buildArgs: { BASE: base } },
      logger,
    );
    const image = out.images[0]!;
    expect(image).toMatchObject({
      name: `${registryHost}/${namespace}/hello-build`,
      built: true,
      pushed: true,
    });
    // busybox:1.36, the default base, cannot be pulled here: the build succeeding shows BASE was used.
    expect(logger.lines).toContainEqual(
      expect.stringMatching(new RegExp(`^#\\d+ \\[[a-z0-9 -]*1/\\d\\] FROM ${base}@sha256:`)),
    );
    expect((await inRegistry(`${namespace}/hello-build`, image.tag))?.digest).toBe(image.digest);
    const kinds = out.objects.map((o) => `${o.object.kind}/${o.object.metadata.name}`).sort();
    expect(kinds).toEqual(['Deployment/hello-build', 'Service/hello-build']);
    const deployment = out.objects.find((o) => o.object.kind === 'Deployment')!.object;
    expect(JSON.stringify(deployment)).toContain(`"image":"${image.reference}"`);
  },
);

describe('failing builds and several images', needs('docker', 'registry'), () => {
  test.each([
    ['broken-copy', '[2/2] COPY missing.txt /missing.txt', /missing\.txt/],
    [
      'broken-run',
      '[2/2] RUN ["/bin/busybox", "sh", "-c", "echo about to fail; exit 3"]',
      /about to fail[\s\S]*exit code: 3/,
    ],
  ])('%s: the error names the failing step', async (name, step, detail) => {
    const error = await prepare(fixture(name)).catch((e: Error) => e);
    expect(error).toBeInstanceOf(BuildError);
    expect((error as BuildError).step).toBe(step);
    expect((error as Error).message).toContain(`failed at ${step}`);
    expect((error as Error).message).toContain(`building ${registryHost}/${namespace}/${name}:ctx-`);
    // The Dockerfile and the marker (app.ctr's line 2: image: "&…") are named.
    expect((error as Error).message).toMatch(
      /:ctx-[0-9a-f]{12} \(Dockerfile, marked at app\.ctr:2\) failed at /,
    );
    expect((error as Error).message).toMatch(detail);
    // Nothing pushed, under any tag.
    expect(await tagsOf(`${namespace}/${name}`)).toEqual([]);
  });

  test('broken-run shows the output of the failing step', async () => {
    const error = (await prepare(fixture('broken-run')).catch((e: Error) => e)) as BuildError;
    expect(error.output).toContain('about to fail');
    expect(error.message).toContain('did not complete successfully: exit code: 3');
  });

  test('two & images build once each; the containers using one of them get the same pinned reference', async () => {
    const logger = recorder();
    const out = await prepare(fixture('two'), { tag: 'twice' }, logger);
    expect(out.images.map((i) => [i.name, i.tag, i.built, i.pushed, i.context])).toEqual([
      [`${registryHost}/${namespace}/web`, 'twice', true, true, 'web'],
      [`${registryHost}/${namespace}/worker`, 'v1', true, true, 'worker'],
    ]);
    expect(logger.lines.filter((l) => l.startsWith('group: Image'))).toHaveLength(2);
    expect(logger.lines.filter((l) => /^#\d+ \[2\/2\] COPY app\.txt \/app\.txt$/.test(l))).toHaveLength(2);
    for (const image of out.images) {
      const path = image.name.slice(registryHost.length + 1);
      expect((await inRegistry(path, image.tag))?.digest).toBe(image.digest);
    }
    const images = out.objects
      .filter((o) => o.object.kind === 'Deployment')
      .flatMap((o) =>
        (
          o.object.spec as { template: { spec: { containers: { name: string; image: string }[] } } }
        ).template.spec.containers.map((c) => `${o.object.metadata.name}/${c.name}=${c.image}`),
      );
    expect(images.sort()).toEqual(
      [
        `web/debug=${out.images[0]!.reference}`,
        `web/web=${out.images[0]!.reference}`,
        `worker/worker=${out.images[1]!.reference}`,
      ].sort(),
    );
  });

  test('the same &name from two directories: an input error naming both files, nothing built', async () => {
    const logger = recorder();
    const error = await prepare(fixture('same-name'), {}, logger).catch((e: Error) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toMatch(
      /b\/app\.ctr:2: .*built from two directories: b\/ here and a\/ \(a\/app\.ctr:2\)/,
    );
    expect(logger.lines.filter((l) => l.startsWith('Step'))).toEqual([]);
  });
});

test(
  'a TLS registry on loopback whose certificate is not trusted: the TLS error is reported, not the 400 of plain HTTP',
  needs('docker', 'harnessFiles'),
  async () => {
    const { createServer } = await import('node:https');
    const { RegistryClient } = await import('../../src/image/registry.js');
    const { clusterDir } = await import('./env.js');
    // The local API server's certificate names 127.0.0.1; its CA is not one Node trusts.
    const pki = path.join(clusterDir(), 'pki');
    const tlsServer = createServer(
      {
        cert: readFileSync(path.join(pki, 'apiserver.crt')),
        key: readFileSync(path.join(pki, 'apiserver.key')),
      },
      (_req, res) => res.writeHead(404).end(),
    );
    // As a Go server does (Debian's docker-registry with TLS): plain HTTP on the TLS port gets a 400.
    const { createServer: createTcpServer } = await import('node:net');
    const server = createTcpServer((socket) => {
      socket.once('data', (first: Buffer) => {
        socket.pause();
        socket.unshift(first);
        if (first[0] === 0x16) tlsServer.emit('connection', socket);
        else socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const host = `127.0.0.1:${(server.address() as { port: number }).port}`;
      const error = await new RegistryClient(host).manifest('a', 'b').catch((e: Error) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(new RegExp(`^cannot reach registry ${host}: .*certificate`));
    } finally {
      server.close();
    }
  },
);
