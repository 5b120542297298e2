import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { cacheFlags, parseBuildCache } from '../../../src/image/build-cache.js';
import { buildxArgs, metadataDigest, parsePlatforms, secretPieces } from '../../../src/image/buildx.js';
import { BuildError, failureDetail } from '../../../src/image/buildx-output.js';
import { buildxCommand, findBuildxPlugin, standaloneEnv } from '../../../src/image/buildx-plugin.js';

const base = {
  tags: ['localhost:5000/team-a/web:1'],
  dockerfile: 'Dockerfile',
  cacheFor: 'localhost:5000/team-a/web',
  output: 'push' as const,
};

describe('buildxArgs', () => {
  test.each([
    [
      'the least: plain progress, metadata file, attestations off, push, context on stdin',
      base,
      undefined,
      [
        'buildx',
        'build',
        '--progress=plain',
        '--metadata-file',
        '/m.json',
        '--tag',
        'localhost:5000/team-a/web:1',
        '--file',
        'Dockerfile',
        '--provenance=false',
        '--sbom=false',
        '--push',
        '-',
      ],
    ],
    [
      'everything',
      {
        ...base,
        output: 'load' as const,
        buildArgs: { A: '1' },
        target: 'prod',
        labels: { l: 'v' },
        network: 'none',
        platforms: ['linux/amd64', 'linux/arm64'],
        attestations: true,
        secrets: [{ id: 'npm', value: 's3cr3t' }],
        cache: { type: 'registry' as const },
      },
      'spread',
      [
        'buildx',
        'build',
        '--progress=plain',
        '--metadata-file',
        '/m.json',
        '--builder',
        'spread',
        '--tag',
        'localhost:5000/team-a/web:1',
        '--file',
        'Dockerfile',
        '--build-arg',
        'A=1',
        '--target',
        'prod',
        '--label',
        'l=v',
        '--network',
        'none',
        '--platform',
        'linux/amd64,linux/arm64',
        '--provenance=mode=min',
        '--sbom=true',
        '--secret',
        'id=npm,env=SPREAD_BUILD_SECRET_0',
        '--cache-from',
        'type=registry,ref=localhost:5000/team-a/web:buildcache',
        '--cache-to',
        'type=registry,ref=localhost:5000/team-a/web:buildcache,mode=max',
        '--load',
        '-',
      ],
    ],
  ])('%s', (_, build, builder, args) => {
    expect(buildxArgs(build, '/m.json', builder)).toEqual(args);
  });

  test('a directory build: the Dockerfile copy beside the metadata file, the directory last', () => {
    const args = buildxArgs(
      { ...base, directory: { dir: '/src/web', ignorePatterns: ['Dockerfile'] } },
      '/tmp/b/m.json',
    );
    expect(args.slice(args.indexOf('--file'), args.indexOf('--file') + 2)).toEqual([
      '--file',
      '/tmp/b/Dockerfile',
    ]);
    expect(args.at(-1)).toBe('/src/web');
    expect(args).not.toContain('-');
  });

  test('a secret value is never on the command line', () => {
    const args = buildxArgs({ ...base, secrets: [{ id: 'npm', value: 's3cr3t' }] }, '/m.json');
    expect(args.join(' ')).not.toContain('s3cr3t');
  });
});

describe('cache backends', () => {
  test.each([
    [
      'gha',
      { type: 'gha' as const },
      ['--cache-from', 'type=gha,scope=r/web', '--cache-to', 'type=gha,scope=r/web,mode=max'],
    ],
    [
      'registry with a ref',
      { type: 'registry' as const, ref: 'r/cache:web' },
      [
        '--cache-from',
        'type=registry,ref=r/cache:web',
        '--cache-to',
        'type=registry,ref=r/cache:web,mode=max',
      ],
    ],
  ])('%s', (_, cache, flags) => {
    expect(cacheFlags(cache, 'r/web')).toEqual(flags);
  });

  test('local: one directory per image below the one given', () => {
    const [, from, , to] = cacheFlags({ type: 'local', dir: '/c' }, 'r/web');
    const [, other] = cacheFlags({ type: 'local', dir: '/c' }, 'r/api');
    expect(from).toMatch(/^type=local,src=\/c\/[0-9a-f]{16}$/);
    expect(to).toBe(`type=local,dest=${from!.slice('type=local,src='.length)},mode=max`);
    expect(other).not.toBe(from);
  });

  test('no cache: no flags', () => expect(cacheFlags(undefined, 'r/web')).toEqual([]));

  test.each([
    ['gha', { type: 'gha' }],
    ['registry', { type: 'registry' }],
    ['registry=ghcr.io/o/cache:web', { type: 'registry', ref: 'ghcr.io/o/cache:web' }],
    ['local=.cache', { type: 'local', dir: '/w/.cache' }],
    ['false', undefined],
    ['', undefined],
  ])('parseBuildCache(%j)', (value, cache) => {
    expect(parseBuildCache(value, '/w')).toEqual(cache);
  });

  test('parseBuildCache refuses other forms', () => {
    expect(() => parseBuildCache('s3')).toThrow(
      /expected gha, registry, registry=<image ref>, local=<directory> or false/,
    );
    expect(() => parseBuildCache('local=')).toThrow(/expected/);
  });
});

describe('buildx output', () => {
  test('the last ERROR line is the failure', () => {
    expect(
      failureDetail(
        [
          '#5 [2/2] RUN false',
          'ERROR: process "/bin/sh -c false" did not complete successfully: exit code: 1',
        ],
        'FROM x\n',
      ),
    ).toBe('process "/bin/sh -c false" did not complete successfully: exit code: 1');
  });

  test('a push the registry refused: its words, and docker login as the next step', () => {
    const detail = failureDetail(
      [
        '#9 pushing layers',
        'ERROR: failed to push localhost:5000/a/web:1: denied: requested access to the resource is denied',
      ],
      'FROM x\n',
    );
    expect(detail).toBe(
      "failed to push localhost:5000/a/web:1: denied: requested access to the resource is denied; the registry refused the credentials buildx sent (the Docker config's, DOCKER_CONFIG or ~/.docker): log in to that registry with `docker login HOST` (docker/login-action in a workflow) as an account that may pull and push there",
    );
  });

  test('a # syntax= frontend that cannot be pulled is named', () => {
    const detail = failureDetail(
      [
        '#1 resolve image config for docker-image://docker.io/docker/dockerfile:1',
        'ERROR: failed to solve: docker/dockerfile:1: failed to resolve source metadata for docker.io/docker/dockerfile:1: dial tcp: lookup registry-1.docker.io: no such host',
      ],
      '# syntax=docker/dockerfile:1\nFROM scratch\n',
    );
    expect(detail).toMatch(
      /^the Dockerfile's "# syntax=docker\/dockerfile:1" line needs the frontend image docker\/dockerfile:1 from its registry, which could not be reached/,
    );
    expect(detail).toMatch(/drop the line/);
  });

  test.each([
    [
      'ERROR: failed to solve: localhost:5000/nope/dockerfile:1: failed to resolve source metadata for localhost:5000/nope/dockerfile:1: localhost:5000/nope/dockerfile:1: not found',
      ', which its registry does not hold',
    ],
    [
      'ERROR: failed to solve: r.example/df:1: failed to resolve source metadata for r.example/df:1: unexpected status from HEAD request to https://r.example/v2/df/manifests/1: 401 Unauthorized',
      ', which its registry refused (log in to it, or check the credentials)',
    ],
    [
      'ERROR: failed to solve: r.example/df:1: failed to resolve source metadata for r.example/df:1: dial tcp 10.0.0.1:443: connect: connection refused',
      ' from its registry, which could not be reached',
    ],
  ])('a # syntax= frontend that cannot be pulled: why is said (%#)', (error, why) => {
    const syntax = error.includes('nope') ? 'localhost:5000/nope/dockerfile:1' : 'r.example/df:1';
    const detail = failureDetail([error], `# syntax=${syntax}\nFROM scratch\n`);
    expect(detail).toBe(
      `the Dockerfile's "# syntax=${syntax}" line needs the frontend image ${syntax}${why} (${error.slice('ERROR: '.length)}); drop the line to use the builder's own Dockerfile frontend, or mirror the image and name the mirror`,
    );
  });

  test('a FROM image missing from the registry of a # syntax= frontend is not taken for the frontend', () => {
    const error =
      'ERROR: failed to solve: localhost:5000/team/missing:1: failed to resolve source metadata for localhost:5000/team/missing:1: localhost:5000/team/missing:1: not found';
    expect(
      failureDetail(
        [error],
        '# syntax=localhost:5000/tools/dockerfile:1\nFROM localhost:5000/team/missing:1\n',
      ),
    ).toBe(error.slice('ERROR: '.length));
  });

  test('a BuildError names the image, where it comes from, the step and the output', () => {
    const error = new BuildError(
      'localhost:5000/a/api:1',
      'dockerfile parse error on line 2: unknown instruction: COPPY',
      undefined,
      ['#1 [internal] load build definition from Dockerfile', 'ERROR: failed to solve'],
      'api/Dockerfile, marked at api/api.ctr:2',
    );
    // The output was logged line by line as buildx printed it: the message does not repeat it.
    expect(error.message).toBe(
      "building localhost:5000/a/api:1 (api/Dockerfile, marked at api/api.ctr:2) failed: dockerfile parse error on line 2: unknown instruction: COPPY (buildx's output is in the log above)",
    );
    expect(error.output).toEqual([
      '#1 [internal] load build definition from Dockerfile',
      'ERROR: failed to solve',
    ]);
    expect(new BuildError('x:1', 'd', '[2/2] RUN make', []).message).toBe(
      'building x:1 failed at [2/2] RUN make: d',
    );
  });

  test('metadataDigest reads containerimage.digest', () => {
    expect(metadataDigest('{"containerimage.digest":"sha256:ab","image.name":"x"}')).toBe('sha256:ab');
    expect(metadataDigest('{}')).toBeUndefined();
  });

  test.each([
    ['linux/amd64,linux/arm64', ['linux/amd64', 'linux/arm64']],
    ['linux/arm/v7\n', ['linux/arm/v7']],
  ])('parsePlatforms(%j)', (text, platforms) => expect(parsePlatforms(text)).toEqual(platforms));
});

describe('the buildx plugin, run without the docker CLI', () => {
  const plugin = (dir: string, mode = 0o755) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'docker-buildx'), '#!/bin/sh\n', { mode });
    return path.join(dir, 'docker-buildx');
  };

  test('is found where the docker CLI looks: cliPluginsExtraDirs first, then DOCKER_CONFIG/cli-plugins', () => {
    const config = mkdtempSync(path.join(tmpdir(), 'spread-plugins-'));
    const extra = path.join(config, 'extra');
    const own = plugin(path.join(config, 'cli-plugins'));
    expect(findBuildxPlugin({ DOCKER_CONFIG: config })).toBe(own);
    const fromExtra = plugin(extra);
    writeFileSync(path.join(config, 'config.json'), JSON.stringify({ cliPluginsExtraDirs: [extra] }));
    expect(findBuildxPlugin({ DOCKER_CONFIG: config })).toBe(fromExtra);
  });

  test('HOME/.docker when DOCKER_CONFIG is unset or empty; a first file that is not executable decides (no direct run)', () => {
    const home = mkdtempSync(path.join(tmpdir(), 'spread-home-'));
    const own = plugin(path.join(home, '.docker/cli-plugins'));
    expect(findBuildxPlugin({ HOME: home })).toBe(own);
    expect(findBuildxPlugin({ HOME: home, DOCKER_CONFIG: '' })).toBe(own);
    chmodSync(own, 0o644);
    expect(findBuildxPlugin({ HOME: home })).toBeUndefined();
    expect(buildxCommand(undefined, { HOME: home }, ['buildx', 'build', '-'])).toEqual({
      command: 'docker',
      args: ['buildx', 'build', '-'],
    });
  });

  test("the plugin runs without the docker CLI's plugin variables, which would make it parse `build` as a plugin call", () => {
    expect(
      standaloneEnv({
        PATH: '/bin',
        DOCKER_CLI_PLUGIN_ORIGINAL_CLI_COMMAND: 'docker',
        DOCKER_CLI_PLUGIN_SOCKET: '@x',
      }),
    ).toEqual({ PATH: '/bin' });
  });

  test('buildx commands run the plugin as `docker-buildx ARGS`; others, and an explicit docker CLI, keep the CLI', () => {
    const config = mkdtempSync(path.join(tmpdir(), 'spread-plugins-'));
    const own = plugin(path.join(config, 'cli-plugins'));
    const env = { DOCKER_CONFIG: config };
    expect(buildxCommand(undefined, env, ['buildx', 'build', '-'])).toEqual({
      command: own,
      args: ['build', '-'],
    });
    expect(buildxCommand(undefined, env, ['image', 'inspect', 'x'])).toEqual({
      command: 'docker',
      args: ['image', 'inspect', 'x'],
    });
    expect(buildxCommand('/opt/docker', env, ['buildx', 'build', '-'])).toEqual({
      command: '/opt/docker',
      args: ['buildx', 'build', '-'],
    });
  });
});

describe('secret values hidden in the output', () => {
  test('each line of a value, without its line ending and spaces; empty lines are no pieces', () => {
    expect(
      secretPieces([
        { id: 'pem', value: '-----BEGIN-----\r\n  abc123 \n\n-----END-----\n' },
        { id: 'tok', value: 'tok3n\n' },
        { id: 'none', value: '' },
      ]),
    ).toEqual(['-----BEGIN-----', 'abc123', '-----END-----', 'tok3n']);
  });
});
