// The Action's Docker layer cache, end to end: the bundled Action (dist/index.js) builds with the real
// Docker engine, pushes to the real registry and deploys to the local cluster, while @actions/cache
// talks to a local stand-in for the GitHub Actions cache service (actions-cache-server.ts). Between runs
// the test removes the built images from the engine and empties RUNNER_TEMP, as a fresh hosted runner
// would have neither, so any layer reused must have come through the cache service.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseDockerHost } from '../../src/image/docker.js';
import { layerCacheName } from '../../src/image/layer-cache.js';
import { runActionStep, type StepResult } from './action-runner.js';
import { type ActionsCacheServer, startActionsCacheServer } from './actions-cache-server.js';
import { kubeconfigContent, kubectl, ROOT, uniqueName, writeDir } from './helpers.js';

const ENTRY = process.env.SPREAD_ACTION_ENTRY ?? path.join(ROOT, 'dist/index.js');
const ns = uniqueName('itg-layers');
const registry = `${process.env.SPREAD_REGISTRY}/${ns}`;
const docker = new Docker(parseDockerHost(process.env.DOCKER_HOST!));

const workspace = writeDir('ws', {
  'app/web.ctr': ['name: web', 'image: "&web"', 'command: [/bin/busybox, sleep, "3600"]', ''].join('\n'),
  'app/.dockerignore': '*.ctr\n',
  'app/Dockerfile': [
    `FROM ${process.env.SPREAD_BASE_IMAGE}`,
    'COPY a.txt /a.txt',
    'RUN ["/bin/busybox", "sh", "-c", "echo built > /built.txt"]',
    'COPY b.txt /b.txt',
    '',
  ].join('\n'),
  'app/a.txt': 'the layers before the change\n',
  'app/b.txt': 'version 1\n',
});
const temp = path.join(path.dirname(workspace), 'runner-temp');

let cache: ActionsCacheServer;

/** Removes this run's images (and their cache-only names) from the engine. */
async function removeImages(): Promise<void> {
  for (const image of await docker.listImages())
    for (const tag of image.RepoTags ?? [])
      if (tag.startsWith(`${registry}/`) || tag === layerCacheName(`${registry}/web`))
        await docker.getImage(tag).remove({ force: true });
}

/** A step on a fresh runner: no image of this run in the engine, an empty RUNNER_TEMP. */
async function freshRunnerStep(
  options: { inputs?: Record<string, string>; repositoryPrivate?: boolean } = {},
): Promise<StepResult & { images: { built: boolean; digest: string }[] }> {
  await removeImages();
  rmSync(temp, { recursive: true, force: true });
  mkdirSync(temp);
  const r = await runActionStep({
    entry: ENTRY,
    workspace,
    temp,
    inputs: {
      path: 'app',
      kubeconfig: kubeconfigContent(),
      context: 'spread-local',
      namespace: ns,
      registry,
      wait: 'false',
      timeout: '2m',
      ...options.inputs,
    },
    // layer-cache is auto: on in private repositories only.
    event: {
      name: 'push',
      refName: 'main',
      payload: { repository: { private: options.repositoryPrivate ?? true } },
    },
    env: {
      ...cache.env,
      // github.com: @actions/cache uses the v2 service there (a GHES URL would select v1).
      GITHUB_SERVER_URL: 'https://github.com',
      DOCKER_HOST: process.env.DOCKER_HOST,
      DOCKER_CONFIG: process.env.DOCKER_CONFIG,
    },
  });
  expect(r.code, r.log).toBe(0);
  // The signed URLs' signatures reach the log only after `::add-mask::` told the runner to hide them.
  for (const sig of new Set(r.log.match(/s3cr3t-\d+/g) ?? [])) {
    expect(r.log.split('\n').find((l) => l.includes(sig))).toBe(`::add-mask::${sig}`);
  }
  return { ...r, images: JSON.parse(r.outputs.images ?? '[]') };
}

/** The build steps the log shows as taken from the cache, by their Dockerfile instruction. */
function cachedSteps(log: string): string[] {
  const lines = log.split('\n');
  return lines.flatMap((line, i) =>
    lines[i + 1]?.trim() === 'using cache' ? [line.replace(/^.*Step \d+\/\d+ : /, '').trim()] : [],
  );
}

describe('the Action keeps the Docker layer cache in the GitHub Actions cache', () => {
  beforeAll(async () => {
    cache = await startActionsCacheServer();
    await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
  });
  afterAll(async () => {
    await cache?.close();
    await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
      allowFail: true,
    });
    await removeImages().catch(() => {});
  });

  let firstKey: string;
  let firstDigest: string;

  test('first run: nothing to restore; the built image is saved under a key of its context', async () => {
    const r = await freshRunnerStep();
    expect(r.images).toMatchObject([{ built: true, pushed: true }]);
    expect(cachedSteps(r.log)).toEqual([]);
    expect(cache.calls).toHaveLength(3);
    const [lookup, create, finalize] = cache.calls;
    expect(lookup).toMatch(
      /^GetCacheEntryDownloadURL spread-layers-v1-linux-x64-[0-9a-f]{16}-[0-9a-f]{16} → miss$/,
    );
    firstKey = lookup!.split(' ')[1]!;
    expect([create, finalize]).toEqual([
      `CreateCacheEntry ${firstKey}`,
      `FinalizeCacheEntryUpload ${firstKey}`,
    ]);
    expect(cache.entries[0]!.data!.length).toBeGreaterThan(0);
    expect(r.log).toContain(`layer cache: saved ${registry}/web:0123456789ab`);
    firstDigest = r.images[0]!.digest;
  });

  test('a changed file: the earlier entry is restored, the steps before the change come from it', async () => {
    writeFileSync(path.join(workspace, 'app/b.txt'), 'version 2\n');
    const r = await freshRunnerStep();
    expect(r.images).toMatchObject([{ built: true, pushed: true }]);
    expect(r.images[0]!.digest).not.toBe(firstDigest);
    const lookup = cache.calls[3]!;
    const secondKey = lookup.split(' ')[1]!;
    expect(secondKey).not.toBe(firstKey);
    expect(secondKey.slice(0, -16)).toBe(firstKey.slice(0, -16));
    expect(lookup).toBe(`GetCacheEntryDownloadURL ${secondKey} → ${firstKey}`);
    expect(r.log).toContain(`layer cache: restored ${firstKey} (an earlier build of these images)`);
    expect(cachedSteps(r.log)).toEqual([
      'COPY a.txt /a.txt',
      'RUN ["/bin/busybox", "sh", "-c", "echo built > /built.txt"]',
    ]);
    expect(cache.calls.slice(4)).toEqual([
      `CreateCacheEntry ${secondKey}`,
      `FinalizeCacheEntryUpload ${secondKey}`,
    ]);
    // The Deployment (named after the directory) runs the new image, pinned by digest.
    const deployment = JSON.parse(
      (await kubectl(['--context', 'spread-local', '-n', ns, 'get', 'deployment', 'app', '-o', 'json']))
        .stdout,
    );
    expect(deployment.spec.template.spec.containers[0].image).toBe(
      `${registry}/web:0123456789ab@${r.images[0]!.digest}`,
    );
  });

  test('nothing changed: the registry holds the image, so the cache is not even looked up', async () => {
    const before = cache.calls.length;
    const r = await freshRunnerStep();
    expect(r.images).toMatchObject([{ built: false, pushed: false }]);
    expect(cache.calls.length).toBe(before);
  });

  test('back to the first version: its exact entry is loaded, nothing is built, nothing saved', async () => {
    writeFileSync(path.join(workspace, 'app/b.txt'), 'version 1\n');
    const before = cache.calls.length;
    const r = await freshRunnerStep();
    expect(cache.calls.slice(before)).toEqual([`GetCacheEntryDownloadURL ${firstKey} → ${firstKey}`]);
    expect(r.images).toMatchObject([{ built: false, pushed: true, digest: firstDigest }]);
    expect(readdirSync(temp)).toContain('spread-layer-cache');
  });

  test('layer-cache false, or auto in a public repository: the cache is not used', async () => {
    const before = cache.calls.length;
    writeFileSync(path.join(workspace, 'app/b.txt'), 'version 3\n');
    const off = await freshRunnerStep({ inputs: { 'layer-cache': 'false' } });
    expect(off.images).toMatchObject([{ built: true }]);
    expect(cachedSteps(off.log)).toEqual([]);
    writeFileSync(path.join(workspace, 'app/b.txt'), 'version 4\n');
    const pub = await freshRunnerStep({ repositoryPrivate: false });
    expect(pub.images).toMatchObject([{ built: true }]);
    expect(cachedSteps(pub.log)).toEqual([]);
    expect(cache.calls.length).toBe(before);
  });
});
