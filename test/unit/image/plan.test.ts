import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { CONTEXT_DIGEST_LABEL } from '../../../src/base/labels.js';
import { silentLogger } from '../../../src/base/logger.js';
import { optionRef, phraseOptions } from '../../../src/base/option-ref.js';
import { formatIssue, InputError } from '../../../src/base/source.js';
import { readDeployment } from '../../../src/core/read.js';
import { flagSpelling } from '../../../src/frontend/settings.js';
import { readContext } from '../../../src/image/context.js';
import { parseRegistry, planBuilds } from '../../../src/image/plan.js';
import { prepareImages } from '../../../src/image/prepare.js';
import { DirectoryInput } from '../../../src/input/directory.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/images');

/** Writes a tree of files (path → content) into a fresh directory. */
function tree(files: Record<string, string>): string {
  const root = path.join(mkdtempSync(path.join(tmpdir(), 'spread-plan-')), 'app');
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), content);
  }
  return root;
}

const app = (dir: string) => new DirectoryInput(dir).entity();

describe('planBuilds', () => {
  test('two & images, one used twice from the same context: two builds', async () => {
    const plan = planBuilds(await app(path.join(FIXTURES, 'two')), {
      registry: 'localhost:5000/team-a',
      requireRegistry: true,
    });
    expect(plan.issues).toEqual([]);
    expect(
      plan.builds.map((b) => ({
        marks: b.marks,
        repo: `${b.repository.domain}/${b.repository.path}`,
        tag: b.tag,
        context: b.contextDir,
        at: `${b.declaredIn.file}:${b.declaredIn.line}`,
        containers: b.containers.length,
      })),
    ).toEqual([
      {
        marks: ['&web'],
        repo: 'localhost:5000/team-a/web',
        tag: undefined,
        context: 'web',
        at: 'web/debug.ctr:2',
        containers: 2,
      },
      {
        marks: ['&worker:v1'],
        repo: 'localhost:5000/team-a/worker',
        tag: 'v1',
        context: 'worker',
        at: 'worker/worker.ctr:2',
        containers: 1,
      },
    ]);
  });

  test('the same &name from two directories is an error naming both files', async () => {
    const plan = planBuilds(await app(path.join(FIXTURES, 'same-name')), {
      registry: 'r.io',
      requireRegistry: true,
    });
    expect(plan.builds).toHaveLength(1);
    expect(plan.issues.map(formatIssue)).toEqual([
      expect.stringMatching(
        /^b\/app\.ctr:2: Container app .*: image r\.io\/app is built from two directories: b\/ here and a\/ \(a\/app\.ctr:2\)/,
      ),
    ]);
  });

  test.each<[string, Record<string, string>, string | undefined, RegExp]>([
    [
      'invalid name',
      { 'a.ctr': 'image: "&Web"\n' },
      'r.io',
      /a\.ctr:1: .*invalid image name "Web": the repository name must be lowercase/,
    ],
    ['digest', { 'a.ctr': `image: "&web@sha256:${'a'.repeat(64)}"\n` }, 'r.io', /names a digest/],
    ['no registry', { 'a.ctr': 'image: "&web"\n' }, undefined, /no registry is set to push it to/],
    [
      'two tags',
      { 'a.ctr': 'image: "&web:1"\n', 'b.ctr': 'image: "&web:2"\n' },
      'r.io',
      /b\.ctr:1: .*written with tag 2 here and tag 1 at a\.ctr:1/,
    ],
  ])('%s → error', async (_name, files, registry, message) => {
    const plan = planBuilds(await app(tree(files)), { registry, requireRegistry: true });
    expect(plan.issues.filter((i) => i.severity === 'error').map(formatIssue)).toEqual([
      expect.stringMatching(message),
    ]);
  });

  test('a mark naming its own registry needs no registry option; referenced images are not built', async () => {
    const plan = planBuilds(
      await app(tree({ 'a.ctr': 'image: "&localhost:5000/x/web:1"\n', 'b.ctr': 'image: nginx:1.27\n' })),
      { requireRegistry: true },
    );
    expect(plan.issues).toEqual([]);
    expect(plan.builds.map((b) => [b.repository, b.tag])).toEqual([
      [{ domain: 'localhost:5000', path: 'x/web' }, '1'],
    ]);
  });

  test('an invalid referenced image is an error (its pods would fail with InvalidImageName)', async () => {
    const plan = planBuilds(await app(tree({ 'a.ctr': 'image: Nginx\n' })), { requireRegistry: true });
    expect(plan.builds).toEqual([]);
    expect(plan.issues.map((i) => [i.severity, i.message])).toEqual([
      ['error', expect.stringContaining('must be lowercase')],
    ]);
  });

  test.each([
    ['localhost:5000', 'localhost:5000'],
    ['localhost:5000/team-a/', 'localhost:5000/team-a'],
    ['https://ghcr.io/org', 'ghcr.io/org'],
    ['docker.io/user', 'docker.io/user'],
  ])('parseRegistry(%s) = %s', (input, out) => {
    expect(parseRegistry(input)).toBe(out);
  });

  test.each(['', 'r.io/x:tag', 'r.io/a b'])('parseRegistry(%j) throws', (input) => {
    expect(() => parseRegistry(input)).toThrow(/is not a registry host/);
  });

  test('an upper-case registry path: it must be lower case, and github.repository_owner is named', () => {
    expect(() => parseRegistry('ghcr.io/MyOrg')).toThrow(
      'registry "ghcr.io/MyOrg": the path below the host must be lower case, as every image repository\'s (ghcr.io/myorg); in a workflow, github.repository_owner keeps the owner\'s capitals: lower-case it first',
    );
    expect(() => parseRegistry('localhost:5000/Team')).toThrow(
      /must be lower case, as every image repository's \(localhost:5000\/team\)/,
    );
  });

  test('no registry: the option to set (as each front end spells it), SPREAD_REGISTRY, or a registry in the mark', async () => {
    const plan = planBuilds(await app(tree({ 'a.ctr': 'image: "&web"\n' })), { requireRegistry: true });
    const message = plan.issues[0]!.message;
    expect(message).toContain(`set ${optionRef('registry')} (the CLI also reads SPREAD_REGISTRY)`);
    expect(phraseOptions(message, flagSpelling)).toContain(
      'set --registry (the CLI also reads SPREAD_REGISTRY)',
    );
    expect(message).toContain('"&ghcr.io/acme/web"');
  });
});

describe('prepareImages without Docker', () => {
  const never = { docker: 'unix:///nonexistent/docker.sock', dockerConfigDir: '/nonexistent' };

  test('no & images: the objects come back unchanged and Docker is never contacted', async () => {
    const dir = tree({ 'a.ctr': 'image: nginx:1.27\n' });
    const read = await readDeployment(dir, { namespace: 'default', logger: silentLogger });
    const out = await prepareImages(read.application, read.objects, { root: dir, ...never }, silentLogger);
    expect(out.images).toEqual([]);
    expect(out.objects.map((o) => o.object)).toEqual(read.objects.map((o) => o.object));
  });

  test('a missing Dockerfile and an unnamed registry are reported together, before Docker', async () => {
    const dir = path.join(FIXTURES, 'no-dockerfile');
    const read = await readDeployment(dir, { namespace: 'default', logger: silentLogger });
    const error = await prepareImages(
      read.application,
      read.objects,
      { root: dir, registry: 'localhost:5000', ...never },
      silentLogger,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).issues.map(formatIssue)).toEqual([
      expect.stringMatching(
        /^app\.ctr:2: Container app .*: image "&nodf" is built from the input root, which has no Dockerfile \(Dockerfile\)/,
      ),
    ]);
    const both = tree({
      'a/app.ctr': 'image: "&a"\n',
      'b/app.ctr': 'image: "&b"\n',
      'b/Dockerfile': 'FROM scratch\n',
    });
    const read2 = await readDeployment(both, { namespace: 'default', logger: silentLogger });
    const error2 = await prepareImages(
      read2.application,
      read2.objects,
      { root: both, ...never },
      silentLogger,
    ).catch((e: unknown) => e);
    expect((error2 as InputError).issues.map((i) => i.message)).toEqual([
      expect.stringContaining('no registry is set'),
      expect.stringContaining('no registry is set'),
    ]);
  });

  test('an invalid tag option is refused', async () => {
    const dir = tree({ 'a.ctr': 'image: "&a"\n', Dockerfile: 'FROM scratch\n' });
    const read = await readDeployment(dir, { namespace: 'default', logger: silentLogger });
    await expect(
      prepareImages(
        read.application,
        read.objects,
        { root: dir, registry: 'r.io', tag: 'a/b', ...never },
        silentLogger,
      ),
    ).rejects.toThrow(/tag "a\/b" is not a valid image tag/);
  });

  /** A registry on loopback answering `answer` for every request, and the requests it saw. */
  async function registry(
    answer: (url: string, res: import('node:http').ServerResponse) => void,
  ): Promise<{ host: string; requests: string[]; server: Server }> {
    const requests: string[] = [];
    const server = createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      answer(req.url ?? '', res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { host: `127.0.0.1:${(server.address() as AddressInfo).port}`, requests, server };
  }

  test('an input problem is reported before the registry is asked anything', async () => {
    // A Basic challenge and no credentials: a lookup would fail with RegistryAuthError.
    const reg = await registry((_url, res) =>
      res.writeHead(401, { 'www-authenticate': 'Basic realm="r"' }).end(),
    );
    try {
      const dir = path.join(FIXTURES, 'no-dockerfile');
      const read = await readDeployment(dir, { namespace: 'default', logger: silentLogger });
      const error = await prepareImages(
        read.application,
        read.objects,
        { root: dir, registry: reg.host, tag: 'v1', ...never },
        silentLogger,
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InputError);
      expect((error as InputError).issues.map((i) => i.message)).toEqual([
        expect.stringContaining('which has no Dockerfile'),
      ]);
      // Nothing is left under way either: a slow registry or credential helper would hold the exit.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(reg.requests).toEqual([]);
    } finally {
      reg.server.close();
    }
  });

  test('the registry is asked once per image, before the build: held from the same context, nothing is built', async () => {
    const dir = tree({ 'a.ctr': 'image: "&web"\n', Dockerfile: 'FROM scratch\nCOPY . /\n' });
    const { digest: contextDigest } = await readContext(dir);
    const manifest = `sha256:${'a'.repeat(64)}`;
    const config = `sha256:${'b'.repeat(64)}`;
    const reg = await registry((url, res) => {
      if (url === '/v2/web/manifests/v1') {
        res
          .writeHead(200, {
            'content-type': 'application/vnd.oci.image.manifest.v1+json',
            'docker-content-digest': manifest,
          })
          .end(JSON.stringify({ schemaVersion: 2, config: { digest: config } }));
      } else if (url === `/v2/web/blobs/${config}`) {
        res
          .writeHead(200)
          .end(JSON.stringify({ config: { Labels: { [CONTEXT_DIGEST_LABEL]: contextDigest } } }));
      } else res.writeHead(404).end();
    });
    try {
      const read = await readDeployment(dir, { namespace: 'default', logger: silentLogger });
      // `never`'s Docker socket does not exist: a build would fail.
      const out = await prepareImages(
        read.application,
        read.objects,
        { root: dir, registry: reg.host, tag: 'v1', ...never },
        silentLogger,
      );
      expect(out.images.map((i) => [i.reference, i.built, i.pushed])).toEqual([
        [`${reg.host}/web:v1@${manifest}`, false, false],
      ]);
      expect(reg.requests).toEqual(['GET /v2/web/manifests/v1', `GET /v2/web/blobs/${config}`]);
    } finally {
      reg.server.close();
    }
  });
});
