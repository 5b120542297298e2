// Issue 18's acceptance list: builds go through the docker CLI's buildx and the standalone buildkitd of
// .cluster/env (scripts/cluster/buildkit.sh), against the real registry, Docker engine and cluster.
// FROM images come from the local registry (SPREAD_BASE_IMAGE_REF: busybox from Debian, pushed by
// up.sh); nothing is pulled from Docker Hub. What the registry holds is read through its HTTP API.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createGunzip } from 'node:zlib';
import { extract } from 'tar-stream';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Logger } from '../../src/base/logger.js';
import { silentLogger } from '../../src/base/logger.js';
import { readDeployment } from '../../src/core/read.js';
import { deploy } from '../../src/frontend/deploy.js';
import { BuildxMissingError } from '../../src/image/buildx.js';
import { BuildError } from '../../src/image/buildx-output.js';
import { type ImageOptions, prepareImages } from '../../src/image/prepare.js';
import { type ActionsCacheServer, startActionsCacheServer } from './actions-cache-server.js';
import { missingHarness, needs } from './harness.js';
import { kubectl, localDeploy, ROOT, startUntil, uniqueName, writeDir } from './helpers.js';

let registry: string;
let namespace: string;
let base: string;
let auth: string;
const ns = uniqueName('itg-buildkit');

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

function options(dir: string, extra: Partial<ImageOptions> = {}): ImageOptions {
  return {
    root: dir,
    registry: `${registry}/${namespace}`,
    dockerConfigDir: process.env.DOCKER_CONFIG,
    ...extra,
  };
}

async function prepare(dir: string, extra: Partial<ImageOptions> = {}, logger: Logger = recorder()) {
  const read = await readDeployment(dir, { namespace: 'default', logger: silentLogger });
  return prepareImages(read.application, read.objects, options(dir, extra), logger);
}

const ACCEPT = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
].join(', ');

async function get(pathname: string): Promise<Response> {
  return fetch(`http://${registry}/v2/${pathname}`, { headers: { accept: ACCEPT, authorization: auth } });
}

interface Manifest {
  mediaType: string;
  manifests?: { digest: string; platform?: { architecture: string } }[];
  config?: { digest: string };
  layers?: { digest: string }[];
}

async function manifest(repository: string, reference: string): Promise<Manifest & { digest: string }> {
  const res = await get(`${repository}/manifests/${reference}`);
  expect(res.status).toBe(200);
  return { ...((await res.json()) as Manifest), digest: res.headers.get('docker-content-digest')! };
}

async function blob(repository: string, digest: string): Promise<Buffer> {
  const res = await get(`${repository}/blobs/${digest}`);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** Every file of every layer of an image: path → content (later layers win), and the raw layer bytes. */
async function imageFiles(repository: string, reference: string) {
  const m = await manifest(repository, reference);
  const files = new Map<string, Buffer>();
  /** Each file's permission bits, as its last layer has them. */
  const modes = new Map<string, number>();
  const raw: Buffer[] = [];
  for (const layer of m.layers ?? []) {
    const bytes = await blob(repository, layer.digest);
    raw.push(bytes);
    const ex = extract();
    ex.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c) => chunks.push(c as Buffer));
      stream.on('end', () => {
        const name = header.name.replace(/^\.?\//, '');
        files.set(name, Buffer.concat(chunks));
        if (header.mode !== undefined) modes.set(name, header.mode & 0o777);
        next();
      });
    });
    await new Promise<void>((resolve, reject) => {
      ex.on('finish', resolve);
      ex.on('error', reject);
      const gunzip = createGunzip();
      gunzip.on('error', reject);
      gunzip.pipe(ex);
      gunzip.end(bytes);
    });
    raw.push(await gunzipped(bytes));
  }
  const config = (await blob(repository, m.config!.digest)).toString('utf8');
  return { files, modes, raw, config };
}

function gunzipped(bytes: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const g = createGunzip();
    g.on('data', (c: Buffer) => chunks.push(c));
    g.on('end', () => resolve(Buffer.concat(chunks)));
    g.on('error', reject);
    g.end(bytes);
  });
}

const ctr = (image: string) => `name: web\nimage: "${image}"\nports:\n  - containerPort: 8080\n`;

beforeAll(async () => {
  // Top-level hooks run even when every test of the file is skipped (harness.ts).
  if (missingHarness('buildkit', 'registry')) return;
  registry = process.env.SPREAD_REGISTRY!;
  base = process.env.SPREAD_BASE_IMAGE_REF!;
  expect(base, 'SPREAD_BASE_IMAGE_REF (scripts/cluster/up.sh)').toBeTruthy();
  const password = readFileSync(process.env.SPREAD_REGISTRY_PASSWORD_FILE!, 'utf8').trim();
  auth = `Basic ${Buffer.from(`${process.env.SPREAD_REGISTRY_USER}:${password}`).toString('base64')}`;
  namespace = uniqueName('itg-bk');
  await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
});

afterAll(async () => {
  if (missingHarness('buildkit', 'registry')) return;
  await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
    allowFail: true,
  });
});

describe('the Dockerfile BuildKit users write', needs('buildkit', 'registry'), () => {
  const dockerfile = (greeting: string) => `FROM ${base} AS builder
ARG GREETING
RUN --mount=type=cache,target=/cache echo hi > /hello && echo run >> /cache/runs && cp /cache/runs /runs
COPY <<EOF /greeting
\${GREETING}
EOF

FROM builder AS final
COPY --chmod=755 run.sh /run.sh
COPY --link --from=builder /runs /runs
COPY late.txt /late.txt
CMD ["/run.sh"]
# ${greeting}
`;
  let dir: string;

  test('builds, pushes and deploys pinned by digest; a second deploy builds nothing', async () => {
    dir = writeDir('web', {
      'web.ctr': ctr('&web'),
      Dockerfile: dockerfile('one'),
      'run.sh': '#!/bin/sh\nexec httpd -f -p 8080\n',
      'late.txt': 'v1\n',
    });
    const images = {
      registry: `${registry}/${namespace}`,
      buildArgs: { GREETING: 'hello' },
      target: 'final',
    };
    const logger = recorder();
    // No rollout wait: kwok's pods do not run the image; what matters here is what is deployed.
    const first = await deploy(
      localDeploy(dir, ns, {
        images: { ...images, dockerConfigDir: process.env.DOCKER_CONFIG },
        logger,
        wait: false,
      }),
    );
    const image = first.images![0]!;
    expect(image).toMatchObject({ built: true, pushed: true });
    expect(image.reference).toBe(`${registry}/${namespace}/web:${image.tag}@${image.digest}`);
    // Attestations are off: one image manifest, not an index.
    expect((await manifest(`${namespace}/web`, image.tag)).mediaType).toMatch(/image\.manifest|manifest\.v2/);
    const { files, modes } = await imageFiles(`${namespace}/web`, image.digest!);
    expect(files.get('greeting')?.toString()).toBe('hello\n');
    // run.sh is written without execute bits: COPY --chmod=755 set its mode.
    expect(statSync(path.join(dir, 'run.sh')).mode & 0o111).toBe(0);
    expect(modes.get('run.sh')).toBe(0o755);
    expect(files.get('hello')?.toString()).toBe('hi\n');
    const pods = await kubectl([
      '--context',
      'spread-local',
      '-n',
      ns,
      'get',
      'deployment',
      'web',
      '-o',
      'jsonpath={.spec.template.spec.containers[0].image}',
    ]);
    expect(pods.stdout).toBe(image.reference);
    // Progress: each step of the build and the push, as it happens.
    expect(logger.lines).toContainEqual(
      expect.stringMatching(/^#\d+ \[builder \d\/\d\] RUN --mount=type=cache/),
    );
    expect(logger.lines).toContainEqual(expect.stringMatching(/^#\d+ pushing layers/));

    const again = recorder();
    const second = await deploy(
      localDeploy(dir, ns, {
        images: { ...images, dockerConfigDir: process.env.DOCKER_CONFIG },
        logger: again,
        wait: false,
      }),
    );
    expect(second.images![0]).toMatchObject({ built: false, pushed: false, digest: image.digest });
    expect(again.lines.some((l) => l.startsWith('#'))).toBe(false);
  });

  test('a cache mount survives between two builds', async () => {
    // A change before the RUN step reruns it; the cache mount keeps what the first run wrote.
    writeFileSync(
      path.join(dir, 'Dockerfile'),
      dockerfile('two').replace('ARG GREETING', 'ARG GREETING\nENV CHANGED=1'),
    );
    const out = await prepare(dir, { buildArgs: { GREETING: 'hello' }, target: 'final' });
    const { files } = await imageFiles(`${namespace}/web`, out.images[0]!.digest!);
    expect(
      files
        .get('runs')
        ?.toString()
        .split('\n')
        .filter((l) => l === 'run').length,
    ).toBeGreaterThanOrEqual(2);
  });

  test('dropping a .k2e/ file does not rebuild the image', async () => {
    const root = writeDir('k2e', {
      'web.ctr': ctr('&k2e'),
      Dockerfile: `FROM ${base}\nCOPY . /app/\n`,
      'index.html': 'hi\n',
      '.k2e/svc.yaml':
        'apiVersion: v1\nkind: Service\nmetadata:\n  name: k2e\nspec:\n  ports:\n    - port: 80\n',
      '.k2e/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: k2e\ndata: {a: b}\n',
    });
    const first = await prepare(root, { tag: 'k2e' });
    unlinkSync(path.join(root, '.k2e/cm.yaml'));
    const second = await prepare(root, { tag: 'k2e' });
    expect(first.images[0]).toMatchObject({ built: true, pushed: true });
    expect(second.images[0]).toMatchObject({ built: false, pushed: false, digest: first.images[0]!.digest });
    const { files } = await imageFiles(`${namespace}/k2e`, first.images[0]!.digest!);
    expect(files.has('app/index.html')).toBe(true);
    expect([...files.keys()].filter((f) => f.includes('.k2e') || f.endsWith('.ctr'))).toEqual([]);
  });
});

describe('.dockerignore, as docker buildx build DIR reads it', needs('buildkit', 'registry'), () => {
  test('a Dockerfile and .dockerignore the patterns exclude are not in the image: its files are those buildx puts there', async () => {
    // web.ctr is listed too: spread leaves its own files out by default, `docker buildx build DIR` would not.
    const dir = writeDir('ignored', {
      'web.ctr': ctr('&ignored'),
      Dockerfile: `FROM ${base}\nCOPY . /src\n`,
      '.dockerignore': 'Dockerfile\n.dockerignore\nweb.ctr\n*.md\n!KEEP.md\nscratch/\n',
      'app.txt': 'app\n',
      'README.md': 'excluded\n',
      'KEEP.md': 'kept by an exception\n',
      'scratch/x.txt': 'excluded directory\n',
      'sub/inner.txt': 'inner\n',
    });
    const spread = (await prepare(dir)).images[0]!;
    expect(spread).toMatchObject({ built: true, pushed: true });
    const reference = `${registry}/${namespace}/ignored-buildx:dir`;
    execFileSync(
      'docker',
      ['buildx', 'build', '--quiet', '--provenance=false', '--push', '--tag', reference, dir],
      {
        env: process.env,
        stdio: 'ignore',
      },
    );
    const listing = async (repository: string, ref: string) => {
      const { files } = await imageFiles(repository, ref);
      return [...files.entries()]
        .filter(([name]) => name.startsWith('src/'))
        .map(([name, content]) => `${name.replace(/\/$/, '')} ${content.toString('utf8')}`.trim())
        .sort();
    };
    const ours = await listing(`${namespace}/ignored`, spread.digest!);
    const theirs = await listing(`${namespace}/ignored-buildx`, 'dir');
    expect(ours).toEqual(theirs);
    // Before the fix the tar sent to buildx held the Dockerfile and .dockerignore, and so did the image.
    expect(ours.filter((f) => f.includes(' '))).toEqual([
      'src/KEEP.md kept by an exception',
      'src/app.txt app',
      'src/sub/inner.txt inner',
    ]);
  });
});

describe('build secrets', needs('buildkit', 'registry'), () => {
  test('a secret reaches a RUN step and appears in no layer, history entry or log line', async () => {
    const secret = `s3cr3t-${Math.random().toString(36).slice(2)}`;
    const dir = writeDir('secret', {
      'web.ctr': ctr('&secret'),
      // A step new to this run: BuildKit's cache keys leave secret values out, so a cached step would not run.
      Dockerfile: `FROM ${base}\nENV RUN_ID=${namespace}\nRUN --mount=type=secret,id=token sha256sum /run/secrets/token | cut -d' ' -f1 > /token.sha && cat /run/secrets/token\n`,
    });
    const logger = recorder();
    const out = await prepare(dir, { secrets: [{ id: 'token', value: secret }], tag: 's1' }, logger);
    const { files, raw, config } = await imageFiles(`${namespace}/secret`, out.images[0]!.digest!);
    expect(files.get('token.sha')?.toString().trim()).toBe(createHash('sha256').update(secret).digest('hex'));
    for (const layer of raw) expect(layer.includes(secret)).toBe(false);
    expect(config).not.toContain(secret);
    expect(JSON.parse(config).history.length).toBeGreaterThan(0);
    expect(logger.lines.join('\n')).not.toContain(secret);
    // The step printed it (`cat`): that line was dropped, not shown.
    expect(logger.lines).toContain('(a line holding a build secret, not shown)');
  });

  test('a secret of several lines, or ending in a newline, is hidden line by line', async () => {
    const id = Math.random().toString(36).slice(2);
    const lines = [`first-${id}`, `second-${id}`];
    const dir = writeDir('secret-lines', {
      'web.ctr': ctr('&secret-lines'),
      Dockerfile: `FROM ${base}\nENV RUN_ID=${namespace}\nRUN --mount=type=secret,id=pem --mount=type=secret,id=tok cat /run/secrets/pem /run/secrets/tok && echo "around-$(cat /run/secrets/tok)-it"\n`,
    });
    const logger = recorder();
    await prepare(
      dir,
      {
        secrets: [
          { id: 'pem', value: `${lines[0]}\n${lines[1]}\n` },
          { id: 'tok', value: `third-${id}\n` },
        ],
        tag: 's2',
      },
      logger,
    );
    const log = logger.lines.join('\n');
    for (const piece of [...lines, `third-${id}`]) expect(log).not.toContain(piece);
    expect(
      logger.lines.filter((l) => l === '(a line holding a build secret, not shown)').length,
    ).toBeGreaterThanOrEqual(3);
  });
});

test(
  '`spread build` interrupted by SIGTERM during a RUN step: buildx is ended, nothing is pushed, the signal is named',
  needs('buildkit', 'registry'),
  async () => {
    const dir = writeDir('interrupted-build', {
      'web.ctr': ctr('&interrupted'),
      Dockerfile: `FROM ${base}\nENV RUN_ID=${namespace}\nRUN echo started-${namespace} && sleep 60\n`,
    });
    // The RUN step has started when its own output line comes (`#6 0.052 started-…`).
    const build = await startUntil(
      [
        process.execPath,
        path.join(ROOT, 'dist/cli/index.js'),
        'build',
        dir,
        '--registry',
        `${registry}/${namespace}`,
        '--tag',
        'cut',
      ],
      /\d started-/,
      60_000,
    );
    expect(build.stderr()).toMatch(/\d started-/);
    expect(await build.stop('SIGTERM')).toBe(143);
    expect(build.stderr()).toContain('error: interrupted by SIGTERM');
    expect((await get(`${namespace}/interrupted/manifests/cut`)).status).toBe(404);
    const left = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.includes('docker-buildx') && l.includes(`${namespace}/interrupted:cut`));
    expect(left).toEqual([]);
  },
);

describe(
  'cache backends: a fresh builder takes the earlier steps from the cache',
  needs('buildkit', 'registry'),
  () => {
    // Each RUN prints a line when it runs (`#7 0.051 ran builder-stage`): a step taken from the cache
    // prints none, whether buildx shows it as CACHED or, when its layers must be fetched from the
    // backend for the next step, with their download and DONE. Steps of their own per case and run
    // (the case's name and this run's namespace), and an emptied builder before the first build, so no
    // step can come from the builder's own cache of another case or run.
    const dockerfile = (name: string) => `FROM ${base} AS builder
RUN echo ran builder-stage && echo ${name} ${namespace} > /artifact
FROM ${base}
COPY --from=builder /artifact /artifact
RUN echo ran early && echo ${name} ${namespace} > /early
COPY late.txt /late.txt
`;
    const pruneBuilder = () =>
      execFileSync('docker', ['buildx', 'prune', '--all', '--force'], { env: process.env, stdio: 'ignore' });
    let server: ActionsCacheServer;
    beforeAll(async () => {
      server = await startActionsCacheServer();
    });
    afterAll(() => server?.close());

    test.each<[string, () => Partial<ImageOptions>]>([
      [
        'gha (the Actions cache stand-in)',
        () => ({ cache: { type: 'gha' }, buildx: { env: { ...process.env, ...server.env } } }),
      ],
      ['registry', () => ({ cache: { type: 'registry' } })],
      ['local', () => ({ cache: { type: 'local', dir: path.join(dirFor('local'), '..', 'cache') } })],
    ])('%s', async (name, extra) => {
      const dir = dirFor(name.split(' ')[0]!);
      writeFileSync(path.join(dir, 'Dockerfile'), dockerfile(name.split(' ')[0]!));
      writeFileSync(path.join(dir, 'late.txt'), 'v1\n');
      pruneBuilder();
      const firstLog = recorder();
      const first = await prepare(dir, extra(), firstLog);
      expect(first.images[0]).toMatchObject({ built: true });
      pruneBuilder();
      writeFileSync(path.join(dir, 'late.txt'), 'v2\n');
      const logger = recorder();
      const second = await prepare(dir, extra(), logger);
      expect(second.images[0]).toMatchObject({ built: true, pushed: true });
      const ran = (lines: readonly string[], step: string) =>
        lines.some((l) => new RegExp(`^#\\d+ \\d+\\.\\d+ ran ${step}$`).test(l));
      // The first build ran both steps (the check can fail); the rebuild ran neither, only the late COPY.
      expect(
        ran(firstLog.lines, 'builder-stage') && ran(firstLog.lines, 'early'),
        firstLog.lines.join('\n'),
      ).toBe(true);
      const log = logger.lines.join('\n');
      expect(ran(logger.lines, 'builder-stage'), log).toBe(false);
      expect(ran(logger.lines, 'early'), log).toBe(false);
      const late = logger.lines.find((l) => /^#\d+ \[stage-1 4\/4\] COPY late\.txt/.test(l))?.split(' ')[0];
      expect(late, log).toBeDefined();
      expect(logger.lines, log).not.toContain(`${late} CACHED`);
      if (name.startsWith('gha')) expect(server.calls.length).toBeGreaterThan(0);
    });

    const dirs = new Map<string, string>();
    function dirFor(name: string): string {
      if (!dirs.has(name)) dirs.set(name, writeDir(`cache-${name}`, { 'web.ctr': ctr(`&cache-${name}`) }));
      return dirs.get(name)!;
    }
  },
);

describe('platforms, attestations, credentials, failures', needs('buildkit', 'registry'), () => {
  test('a two-platform image is pushed as a manifest list and deployed by its digest', async () => {
    // FROM scratch with a static file: nothing runs, so no emulation is needed for arm64.
    const dir = writeDir('multi', {
      'web.ctr': ctr('&multi'),
      Dockerfile: 'FROM scratch\nCOPY hello.txt /hello.txt\n',
      'hello.txt': 'hi\n',
    });
    const logger = recorder();
    const report = await deploy(
      localDeploy(dir, ns, {
        images: {
          registry: `${registry}/${namespace}`,
          platforms: ['linux/amd64', 'linux/arm64'],
          dockerConfigDir: process.env.DOCKER_CONFIG,
        },
        logger,
        wait: false,
      }),
    );
    const image = report.images![0]!;
    const list = await manifest(`${namespace}/multi`, image.tag);
    expect(list.digest).toBe(image.digest);
    expect(list.manifests!.map((m) => m.platform?.architecture).sort()).toEqual(['amd64', 'arm64']);
    const deployed = await kubectl([
      '--context',
      'spread-local',
      '-n',
      ns,
      'get',
      'deployment',
      'multi',
      '-o',
      'jsonpath={.spec.template.spec.containers[0].image}',
    ]);
    expect(deployed.stdout).toBe(`${registry}/${namespace}/multi:${image.tag}@${list.digest}`);
    // Unchanged: the label is read from the list's first image, so nothing is built again.
    const again = await prepare(dir, { platforms: ['linux/amd64', 'linux/arm64'] });
    expect(again.images[0]).toMatchObject({ built: false, digest: image.digest });
  });

  test('attestations on: provenance is attached, so the tag is an index', async () => {
    const dir = writeDir('attest', {
      'web.ctr': ctr('&attest'),
      Dockerfile: 'FROM scratch\nCOPY a /a\n',
      a: 'a\n',
    });
    const out = await prepare(dir, { attestations: 'provenance' });
    const index = await manifest(`${namespace}/attest`, out.images[0]!.tag);
    expect(index.mediaType).toBe('application/vnd.oci.image.index.v1+json');
    expect(index.digest).toBe(out.images[0]!.digest);
  });

  test('push off: a FROM image on another registry name than the push target gets its credentials', async () => {
    // 127.0.0.1:PORT is another registry name than localhost:PORT, with its own entry in config.json.
    const other = base.replace(/^localhost:/, '127.0.0.1:');
    const otherHost = other.split('/')[0]!.replace(/\./g, '\\.');
    const dir = writeDir('from-auth', {
      'web.ctr': ctr('&from-auth'),
      Dockerfile: `FROM ${other}\nRUN echo ok > /ok\n`,
    });
    const logger = recorder();
    const out = await prepare(dir, { push: false, registry: undefined, tag: namespace }, logger);
    expect(out.images[0]).toMatchObject({ built: true, pushed: false });
    expect(logger.lines).toContainEqual(
      expect.stringMatching(new RegExp(`\\[auth\\] sharing credentials for ${otherHost}`)),
    );
  });

  test('a # syntax= line whose frontend registry cannot be reached says so', async () => {
    const dir = writeDir('syntax', {
      'web.ctr': ctr('&syntax'),
      Dockerfile: '# syntax=docker/dockerfile:1\nFROM scratch\n',
    });
    const error = (await prepare(dir).catch((e: Error) => e)) as Error;
    expect(error).toBeInstanceOf(BuildError);
    expect(error.message).toContain(
      `the Dockerfile's "# syntax=docker/dockerfile:1" line needs the frontend image docker/dockerfile:1 from its registry, which could not be reached`,
    );
  });

  test('a # syntax= line whose frontend image its registry does not hold says so', async () => {
    const frontend = `${registry}/${namespace}/no-such-frontend:1`;
    const dir = writeDir('syntax-missing', {
      'web.ctr': ctr('&syntax-missing'),
      Dockerfile: `# syntax=${frontend}\nFROM scratch\n`,
    });
    const error = (await prepare(dir).catch((e: Error) => e)) as Error;
    expect(error).toBeInstanceOf(BuildError);
    expect(error.message).toContain(
      `the Dockerfile's "# syntax=${frontend}" line needs the frontend image ${frontend}, which its registry does not hold (`,
    );
  });

  test('no buildx: a clear error saying what to install', async () => {
    const dir = writeDir('nobuildx', { 'web.ctr': ctr('&nobuildx'), Dockerfile: 'FROM scratch\n' });
    const missing = (await prepare(dir, { buildx: { docker: '/nonexistent/docker' } }).catch(
      (e: Error) => e,
    )) as Error;
    expect(missing).toBeInstanceOf(BuildxMissingError);
    expect(missing.message).toMatch(/no \/nonexistent\/docker command.*docker\/setup-buildx-action/);
    const bare = writeDir('cfg', { 'config.json': '{}' });
    const log = recorder();
    const noPlugin = (await prepare(dir, { dockerConfigDir: bare, push: false, tag: 'x' }, log).catch(
      (e: Error) => e,
    )) as Error;
    expect(noPlugin).toBeInstanceOf(BuildxMissingError);
    expect(noPlugin.message).toContain('docker has no buildx plugin');
    // The docker CLI answers `buildx build` with its own help: that is not logged before the error.
    expect(log.lines.filter((l) => /docker COMMAND|Usage:|Management Commands/.test(l))).toEqual([]);
    expect(log.lines.some((l) => l.startsWith('context ./'))).toBe(true);
    rmSync(bare, { recursive: true, force: true });
  });
});
