import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { expect, test } from 'vitest';
import { silentLogger } from '../../../src/base/logger.js';
import { BuildxMissingError, startBuildx } from '../../../src/image/buildx.js';
import { unreachableEngine } from '../../../src/image/buildx-output.js';

test('a docker CLI that exits before it takes the context (no buildx plugin): its exit decides, not the closed pipe', async () => {
  // Exits at once with its input closed; a child keeps its output open a little longer, as the
  // docker CLI's help still flows when it has exited.
  const dir = mkdtempSync(path.join(tmpdir(), 'spread-exit-'));
  const docker = path.join(dir, 'docker');
  writeFileSync(docker, '#!/bin/sh\nexec 0<&-\n( sleep 0.6 ) &\nexit 1\n');
  chmodSync(docker, 0o755);
  const started = startBuildx(
    { docker, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', DOCKER_CONFIG: dir } },
    { tags: ['r/x:1'], dockerfile: 'Dockerfile', output: 'push', cacheFor: 'r/x' },
    'FROM scratch\n',
    silentLogger,
  );
  await new Promise((resolve) => setTimeout(resolve, 200));
  const error = await started.send(Readable.from([Buffer.alloc(64 * 1024)])).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(BuildxMissingError);
});

test('a missing builder says what to do on GitHub, in the GitLab component (services, docker-host) and elsewhere', () => {
  const message = new BuildxMissingError('the builder does not answer: Cannot connect to the Docker daemon')
    .message;
  expect(message).toContain('on GitHub add a docker/setup-buildx-action step');
  expect(message).toContain(
    'in the GitLab component give the job a Docker engine, the inputs `services` (e.g. a docker:dind service aliased docker) and `docker-host` (tcp://docker:2375)',
  );
  expect(message).toContain('elsewhere install docker-buildx');
});

test('a directory build starts once sent, with the Dockerfile and its Dockerfile.dockerignore beside the metadata file', async () => {
  // A docker CLI that records its arguments and the two files its --file names, then fails.
  const dir = mkdtempSync(path.join(tmpdir(), 'spread-dirbuild-'));
  const record = path.join(dir, 'record');
  const docker = path.join(dir, 'docker');
  writeFileSync(
    docker,
    `#!/bin/sh\n[ "$2" = build ] || exit 1\necho "$@" > ${record}\nfor a; do [ "$prev" = --file ] && cat "$a" "$a.dockerignore" >> ${record}; prev=$a; done\nexit 1\n`,
  );
  chmodSync(docker, 0o755);
  const started = startBuildx(
    { docker, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', DOCKER_CONFIG: dir } },
    {
      tags: ['r/x:1'],
      dockerfile: 'Dockerfile',
      output: 'push',
      cacheFor: 'r/x',
      directory: { dir: '/src/web', ignorePatterns: ['**/*.ctr', 'Dockerfile', '.dockerignore'] },
    },
    'FROM scratch\n',
    silentLogger,
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  // Not started before the context is sent: a directory context cannot be held back on stdin.
  expect(() => readFileSync(record)).toThrow();
  await started.send().catch(() => undefined);
  const [args, ...files] = readFileSync(record, 'utf8').split('\n');
  expect(args).toMatch(/ --file \S+\/Dockerfile .* \/src\/web$/);
  expect(files.join('\n')).toBe(
    'FROM scratch\n# written by spread: the exclusions of the build context\n**/*.ctr\nDockerfile\n.dockerignore\n',
  );
});

test("a builder whose Docker engine cannot be reached (a GitLab job with no docker:dind) is found in buildx's output", () => {
  const line =
    'ERROR: failed to connect to the docker API at unix:///var/run/docker.sock; check if the path is correct and if the daemon is running: dial unix /var/run/docker.sock: connect: no such file or directory';
  const engine = unreachableEngine(['#0 building with "default" instance using docker driver', line]);
  expect(engine).toBe(line.replace('ERROR: ', ''));
  expect(new BuildxMissingError(`its Docker engine cannot be reached: ${engine}`).message).toContain(
    'give the job a Docker engine, the inputs `services` (e.g. a docker:dind service aliased docker) and `docker-host` (tcp://docker:2375)',
  );
  expect(
    unreachableEngine(['ERROR: failed to solve: process "/bin/sh -c false" did not complete successfully']),
  ).toBeUndefined();
});
