import { PassThrough, Readable } from 'node:stream';
import type Docker from 'dockerode';
import { describe, expect, test } from 'vitest';
import type { Logger } from '../../../src/base/logger.js';
import {
  BuildError,
  buildImage,
  type DockerMessage,
  PushError,
  parseDockerHost,
  pushImage,
  readMessages,
} from '../../../src/image/docker.js';

test.each([
  ['unix:///var/run/docker.sock', { socketPath: '/var/run/docker.sock' }],
  ['tcp://10.0.0.1:2375', { host: '10.0.0.1', port: 2375, protocol: 'http' }],
  ['tcp://docker', { host: 'docker', port: 2375, protocol: 'http' }],
  ['https://docker:2376', { host: 'docker', port: 2376, protocol: 'https' }],
  ['ssh://me@host', { protocol: 'ssh', host: 'host', port: 22, username: 'me' }],
  ['npipe:////./pipe/docker_engine', { socketPath: '\\\\.\\pipe\\docker_engine' }],
])('parseDockerHost(%s)', (value, endpoint) => {
  expect(parseDockerHost(value)).toEqual(endpoint);
});

test('parseDockerHost refuses other schemes', () => {
  expect(() => parseDockerHost('fd://')).toThrow(/not supported/);
  expect(() => parseDockerHost('/var/run/docker.sock')).toThrow(/not scheme/);
});

/** A stream that sends `text` split into chunks of `size` characters. */
function chunked(text: string, size: number): Readable {
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return Readable.from(parts.map((p) => Buffer.from(p)));
}

const lines = (...messages: DockerMessage[]) => `${messages.map((m) => JSON.stringify(m)).join('\r\n')}\r\n`;

describe('readMessages', () => {
  test.each([1, 3, 7, 1000])('reads every message whatever the chunking (%i)', async (size) => {
    const seen: DockerMessage[] = [];
    const all = await readMessages(
      chunked(
        lines({ stream: 'Step 1/2 : FROM scratch\n' }, { status: 'é ünïcode' }, { aux: { ID: 'sha256:1' } }),
        size,
      ),
      (m) => seen.push(m),
    );
    expect(all).toEqual([
      { stream: 'Step 1/2 : FROM scratch\n' },
      { status: 'é ünïcode' },
      { aux: { ID: 'sha256:1' } },
    ]);
    expect(seen).toEqual(all);
  });

  test('a last line without newline and a non-JSON line are kept', async () => {
    const all = await readMessages(chunked('not json\n{"status":"x"}', 4), () => {});
    expect(all).toEqual([{ stream: 'not json\n' }, { status: 'x' }]);
  });

  test('a stream error rejects', async () => {
    const s = new PassThrough();
    const p = readMessages(s, () => {});
    s.destroy(new Error('socket hang up'));
    await expect(p).rejects.toThrow('socket hang up');
  });
});

function recorder(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => lines.push(`info ${m}`),
    warn: (m) => lines.push(`warn ${m}`),
    error: (m) => lines.push(`error ${m}`),
    debug: (m) => lines.push(`debug ${m}`),
    group: (_n, fn) => fn(),
  };
}

/** A dockerode stand-in whose build and push answer with the given messages. */
function fakeDocker(messages: DockerMessage[], calls: unknown[] = []): Docker {
  return {
    buildImage: async (_ctx: unknown, opts: unknown) => {
      calls.push(opts);
      return chunked(lines(...messages), 5);
    },
    getImage: (name: string) => ({
      push: async (opts: unknown) => {
        calls.push({ name, ...(opts as object) });
        return chunked(lines(...messages), 5);
      },
    }),
  } as unknown as Docker;
}

const buildOptions = { tag: 'r:1/web:t', dockerfile: 'Dockerfile', labels: { a: 'b' } };

describe('buildImage', () => {
  test('logs each step and its output; returns the image ID; passes options', async () => {
    const calls: unknown[] = [];
    const logger = recorder();
    const id = await buildImage(
      fakeDocker(
        [
          { stream: 'Step 1/2 : FROM scratch\n' },
          { stream: ' ---> \n' },
          { stream: 'Step 2/2 : RUN echo hi\n' },
          { stream: ' ---> Running in abc\n' },
          { stream: 'hi\n' },
          { aux: { ID: 'sha256:feed' } },
          { stream: 'Successfully built feed\n' },
        ],
        calls,
      ),
      Readable.from([]),
      { ...buildOptions, buildArgs: { A: '1' }, target: 'prod', networkMode: 'none' },
      logger,
    );
    expect(id).toBe('sha256:feed');
    expect(logger.lines.filter((l) => l.startsWith('info'))).toEqual([
      'info Step 1/2 : FROM scratch',
      'info Step 2/2 : RUN echo hi',
      'info   hi',
    ]);
    expect(calls[0]).toMatchObject({
      t: 'r:1/web:t',
      dockerfile: 'Dockerfile',
      labels: { a: 'b' },
      buildargs: { A: '1' },
      target: 'prod',
      networkmode: 'none',
    });
  });

  test('any errorDetail fails with the failing step and its output', async () => {
    const error = await buildImage(
      fakeDocker([
        { stream: 'Step 1/2 : FROM scratch\n' },
        { stream: 'Step 2/2 : RUN false\n' },
        { stream: 'about to fail\n' },
        {
          errorDetail: { code: 3, message: "The command '/bin/sh -c false' returned a non-zero code: 3" },
          error: '…',
        },
        { aux: { ID: 'sha256:feed' } },
      ]),
      Readable.from([]),
      buildOptions,
      recorder(),
    ).catch((e: Error) => e);
    expect(error).toBeInstanceOf(BuildError);
    expect((error as BuildError).step).toBe('Step 2/2 : RUN false');
    expect((error as Error).message).toBe(
      "building r:1/web:t failed at Step 2/2 : RUN false: The command '/bin/sh -c false' returned a non-zero code: 3\n  | about to fail",
    );
  });

  test('a bare error field fails too; no image ID fails', async () => {
    await expect(
      buildImage(fakeDocker([{ error: 'boom' }]), Readable.from([]), buildOptions, recorder()),
    ).rejects.toThrow('building r:1/web:t failed: boom');
    await expect(
      buildImage(
        fakeDocker([{ stream: 'Step 1/1 : FROM scratch\n' }]),
        Readable.from([]),
        buildOptions,
        recorder(),
      ),
    ).rejects.toThrow(/named no image/);
  });
});

const D = `sha256:${'b'.repeat(64)}`;
const credential = { serverAddress: 'localhost:5000', username: 'u', password: 'hunter2', from: 'auths' };

describe('pushImage', () => {
  test('the digest comes from aux; the credential goes in authconfig', async () => {
    const calls: unknown[] = [];
    const digest = await pushImage(
      fakeDocker(
        [
          { status: 'The push refers to repository [localhost:5000/web]' },
          { status: 'Pushed', id: 'abc', progressDetail: {} },
          { status: `t: digest: ${D} size: 527` },
          { aux: { Tag: 't', Digest: D, Size: 527 } },
        ],
        calls,
      ),
      'localhost:5000/web',
      't',
      'localhost:5000',
      credential,
      recorder(),
    );
    expect(digest).toBe(D);
    expect(calls[0]).toEqual({
      name: 'localhost:5000/web',
      tag: 't',
      authconfig: { serveraddress: 'localhost:5000', username: 'u', password: 'hunter2' },
    });
  });

  test('the digest from the final status line when there is no aux', async () => {
    expect(
      await pushImage(
        fakeDocker([{ status: `t: digest: ${D} size: 1` }]),
        'r/w',
        't',
        'r',
        undefined,
        recorder(),
      ),
    ).toBe(D);
  });

  test('an errorDetail after success-looking lines fails; an auth failure names the registry; no secret', async () => {
    const error = await pushImage(
      fakeDocker([
        { status: 'The push refers to repository [localhost:5000/web]' },
        { status: 'Preparing', id: 'abc', progressDetail: {} },
        {
          errorDetail: { message: 'unauthorized: authentication required' },
          error: 'unauthorized: authentication required',
        },
      ]),
      'localhost:5000/web',
      't',
      'localhost:5000',
      credential,
      recorder(),
    ).catch((e: Error) => e);
    expect(error).toBeInstanceOf(PushError);
    expect((error as Error).message).toBe(
      'pushing localhost:5000/web:t: authentication to localhost:5000 failed (the credentials from auths were refused): unauthorized: authentication required',
    );
    expect((error as Error).message).not.toContain('hunter2');
  });

  test('other errors and a missing digest fail', async () => {
    await expect(
      pushImage(
        fakeDocker([{ errorDetail: { message: 'blob upload unknown' } }]),
        'r/w',
        't',
        'r',
        undefined,
        recorder(),
      ),
    ).rejects.toThrow('pushing r/w:t to r failed: blob upload unknown');
    await expect(
      pushImage(fakeDocker([{ status: 'Pushed', id: 'a' }]), 'r/w', 't', 'r', undefined, recorder()),
    ).rejects.toThrow(/reported no digest/);
  });
});
