import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import {
  CredentialError,
  type CredentialHelperRunner,
  engineAuthConfig,
  registryHost,
  resolveCredential,
  runCredentialHelper,
  serverAddress,
} from '../../../src/image/credentials.js';

function configDir(config: unknown): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'spread-dockercfg-'));
  writeFileSync(path.join(dir, 'config.json'), typeof config === 'string' ? config : JSON.stringify(config));
  return dir;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

test.each([
  ['localhost:5000', 'localhost:5000'],
  ['http://localhost:5000', 'localhost:5000'],
  ['https://localhost:5000/v2/', 'localhost:5000'],
  ['localhost:5000/team-a', 'localhost:5000'],
  ['docker.io', 'docker.io'],
  ['index.docker.io', 'docker.io'],
  ['https://index.docker.io/v1/', 'docker.io'],
  ['registry-1.docker.io', 'docker.io'],
  ['GHCR.io', 'ghcr.io'],
])('registryHost(%s) = %s', (address, host) => {
  expect(registryHost(address)).toBe(host);
});

test('serverAddress: Docker Hub is https://index.docker.io/v1/', () => {
  expect(serverAddress('docker.io')).toBe('https://index.docker.io/v1/');
  expect(serverAddress('localhost:5000')).toBe('localhost:5000');
});

describe('resolveCredential from auths', () => {
  test.each<[string, unknown, string, Record<string, string | undefined>]>([
    [
      'base64 auth',
      { auths: { 'localhost:5000': { auth: b64('u:p:with:colons') } } },
      'localhost:5000',
      { username: 'u', password: 'p:with:colons' },
    ],
    [
      'username/password',
      { auths: { 'http://localhost:5000': { username: 'u', password: 'p' } } },
      'localhost:5000',
      { username: 'u', password: 'p' },
    ],
    [
      'identity token',
      { auths: { 'ghcr.io': { identitytoken: 'tok' } } },
      'ghcr.io/org',
      { identityToken: 'tok' },
    ],
    [
      'Docker Hub by its v1 URL',
      { auths: { 'https://index.docker.io/v1/': { auth: b64('hub:pw') } } },
      'docker.io',
      { username: 'hub', password: 'pw' },
    ],
  ])('%s', async (_name, config, registry, expected) => {
    const c = await resolveCredential(configDir(config), registry);
    expect(c).toMatchObject({ ...expected, from: 'auths' });
  });

  test('no entry, no file, or an empty entry: no credentials', async () => {
    expect(
      await resolveCredential(configDir({ auths: { 'other:1': { auth: b64('a:b') } } }), 'localhost:5000'),
    ).toBeUndefined();
    expect(await resolveCredential(mkdtempSync(path.join(tmpdir(), 'x-')), 'localhost:5000')).toBeUndefined();
    expect(
      await resolveCredential(configDir({ auths: { 'localhost:5000': {} } }), 'localhost:5000'),
    ).toBeUndefined();
  });

  test('a broken config says where, never what', async () => {
    const dir = configDir('{"auths": {"localhost:5000": {"auth": "c2VjcmV0OnBhc3N3b3Jk"}');
    const error = await resolveCredential(dir, 'localhost:5000').catch((e: Error) => e);
    expect(error).toBeInstanceOf(CredentialError);
    expect((error as Error).message).toContain('config.json is not valid JSON');
    expect((error as Error).message).not.toContain('c2VjcmV0');
    const noColon = configDir({ auths: { 'localhost:5000': { auth: b64('secret') } } });
    const e2 = await resolveCredential(noColon, 'localhost:5000').catch((e: Error) => e);
    expect((e2 as Error).message).toMatch(/not base64 of user:password/);
    expect((e2 as Error).message).not.toContain('secret');
  });
});

describe('resolveCredential from helpers', () => {
  const calls: [string, string][] = [];
  const fake =
    (answers: Record<string, { Username?: string; Secret?: string } | undefined>): CredentialHelperRunner =>
    async (helper, server) => {
      calls.push([helper, server]);
      return answers[`${helper} ${server}`];
    };
  afterEach(() => {
    calls.length = 0;
  });

  test('credHelpers entry for the host wins over credsStore and auths', async () => {
    const dir = configDir({
      credHelpers: { 'localhost:5000': 'one' },
      credsStore: 'store',
      auths: { 'localhost:5000': { auth: b64('file:pw') } },
    });
    const c = await resolveCredential(dir, 'localhost:5000', {
      runHelper: fake({ 'one localhost:5000': { Username: 'h', Secret: 's' } }),
    });
    expect(c).toEqual({
      serverAddress: 'localhost:5000',
      username: 'h',
      password: 's',
      from: 'credHelpers (one)',
    });
    expect(calls).toEqual([['one', 'localhost:5000']]);
  });

  test('credsStore for everything else; Docker Hub is asked by its v1 URL; <token> is an identity token', async () => {
    const dir = configDir({ credsStore: 'store', credHelpers: { 'ghcr.io': 'gh' } });
    const c = await resolveCredential(dir, 'docker.io', {
      runHelper: fake({ 'store https://index.docker.io/v1/': { Username: '<token>', Secret: 'refresh' } }),
    });
    expect(c).toEqual({
      serverAddress: 'https://index.docker.io/v1/',
      identityToken: 'refresh',
      from: 'credsStore (store)',
    });
  });

  test('a helper with nothing for the host falls back to auths', async () => {
    const dir = configDir({ credsStore: 'store', auths: { 'localhost:5000': { auth: b64('file:pw') } } });
    const c = await resolveCredential(dir, 'localhost:5000', { runHelper: fake({}) });
    expect(c).toMatchObject({ username: 'file', password: 'pw', from: 'auths' });
  });

  test('a real helper program on PATH: server URL on stdin, JSON out; not found; failing; missing', async () => {
    const bin = mkdtempSync(path.join(tmpdir(), 'spread-helper-'));
    const script = path.join(bin, 'docker-credential-unittest');
    writeFileSync(
      script,
      `#!/bin/sh
[ "$1" = get ] || exit 2
server=$(cat)
case "$server" in
  good:1) printf '{"ServerURL":"%s","Username":"hu","Secret":"hs"}' "$server" ;;
  broken:1) echo "helper exploded" >&2; exit 3 ;;
  *) echo "credentials not found in native keychain"; exit 1 ;;
esac
`,
    );
    chmodSync(script, 0o755);
    const saved = process.env.PATH;
    process.env.PATH = `${bin}:${saved}`;
    try {
      expect(await runCredentialHelper('unittest', 'good:1')).toEqual({
        ServerURL: 'good:1',
        Username: 'hu',
        Secret: 'hs',
      });
      expect(await runCredentialHelper('unittest', 'other:1')).toBeUndefined();
      await expect(runCredentialHelper('unittest', 'broken:1')).rejects.toThrow(
        /docker-credential-unittest failed for broken:1 \(exit code 3\): helper exploded/,
      );
      await expect(runCredentialHelper('absent-helper', 'x')).rejects.toThrow(
        /docker-credential-absent-helper is not on PATH/,
      );
    } finally {
      process.env.PATH = saved;
    }
  });
});

test('engineAuthConfig: password or identity token, with the server address', () => {
  expect(engineAuthConfig({ serverAddress: 'r:1', username: 'u', password: 'p', from: 'auths' })).toEqual({
    serveraddress: 'r:1',
    username: 'u',
    password: 'p',
  });
  expect(engineAuthConfig({ serverAddress: 'r:1', identityToken: 't', from: 'auths' })).toEqual({
    serveraddress: 'r:1',
    identitytoken: 't',
  });
});
