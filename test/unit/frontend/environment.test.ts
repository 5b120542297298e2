import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { KubeClient } from '../../../src/cluster/client.js';
import { checkCluster, resolveEnvironment } from '../../../src/frontend/environment.js';

const UID_A = '0b6f2f8e-3c1a-4e5b-9d7c-1a2b3c4d5e6f';
const UID_B = '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b';

function project(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'spread-env-'));
  writeFileSync(join(dir, 'spread.yaml'), text);
  return dir;
}

const DIR = project(`environments:
  pr:
    preview:
      namespace: web-pr-{pr}
  staging:
    context: a
    namespace: web
    path: overlays/staging
    helmValues: [staging.yaml]
    helmSet: { replicas: 1, host: s.example.com }
  production:
    context: b
    server: https://b.example.com:6443
    kubeSystemUID: ${UID_B}
`);

describe('resolveEnvironment', () => {
  test('an environment gives its folder, context, namespace and values; the given ones come after', () => {
    const target = resolveEnvironment(DIR, 'staging', { helmValues: ['x.yaml'], helmSet: { replicas: '2' } });
    expect(target).toMatchObject({
      path: join(DIR, 'overlays/staging'),
      context: 'a',
      namespace: 'web',
      helmValues: ['staging.yaml', 'x.yaml'],
      helmSet: { replicas: '2', host: 's.example.com' },
    });
    expect(target.expect).toBeUndefined();
  });

  test('the cluster it must be, where it is declared: the lines of server: and kubeSystemUID:', () => {
    expect(resolveEnvironment(DIR, 'production', {}).expect).toEqual({
      environment: 'production',
      server: 'https://b.example.com:6443',
      kubeSystemUID: UID_B,
      source: { file: 'spread.yaml', line: 12 },
      serverSource: { file: 'spread.yaml', line: 13 },
      kubeSystemUIDSource: { file: 'spread.yaml', line: 14 },
    });
  });

  test('a preview takes its namespace from the pull request number', () => {
    expect(resolveEnvironment(DIR, 'pr', { pullRequest: 7 }).namespace).toBe('web-pr-7');
    // Created with the deployment, declared at the preview's line (spread.yaml beside the folder read).
    expect(resolveEnvironment(DIR, 'pr', { pullRequest: 7 }).createNamespace).toEqual({
      file: 'spread.yaml',
      line: 3,
    });
    expect(resolveEnvironment(DIR, 'staging', {}).createNamespace).toBeUndefined();
    expect(() => resolveEnvironment(DIR, 'pr', {})).toThrow(
      /preview per pull request.*no pull request number/,
    );
  });

  test.each([
    ['all', {}, /environment all: only a plan .* takes every environment; this takes one/],
    ['qa', {}, /environment qa is not declared in spread.yaml \(declared: pr, staging, production\)/],
    [
      'staging',
      { context: 'b' },
      /context b contradicts environment staging, whose context is a \(spread.yaml:6\)/,
    ],
    ['staging', { namespace: 'x' }, /namespace x contradicts environment staging, whose namespace is web/],
  ])('%s with %j is refused', (name, given, message) => {
    expect(() => resolveEnvironment(DIR, name, given)).toThrow(message);
  });

  test('the same value given and declared agrees; a directory without a declaration is an error', () => {
    expect(resolveEnvironment(DIR, 'staging', { context: 'a', namespace: 'web' }).context).toBe('a');
    const bare = mkdtempSync(join(tmpdir(), 'spread-env-'));
    expect(() => resolveEnvironment(bare, 'staging', {})).toThrow(/declares no environments/);
  });
});

describe('checkCluster (the wrong-cluster guard)', () => {
  const client = (uid: string | undefined) =>
    ({
      getOrUndefined: async (path: string) => {
        expect(path).toBe('/api/v1/namespaces/kube-system');
        return uid === undefined ? undefined : { metadata: { uid } };
      },
    }) as unknown as KubeClient;
  const expected = {
    environment: 'production',
    server: 'https://b.example.com:6443',
    kubeSystemUID: UID_B,
    source: { file: 'spread.yaml', line: 11 },
    serverSource: { file: 'spread.yaml', line: 12 },
    kubeSystemUIDSource: { file: 'spread.yaml', line: 13 },
  };

  test('the declared cluster passes, however its URL is written', async () => {
    await checkCluster(client(UID_B), { server: 'https://B.example.com:6443/', context: 'b' }, expected);
  });

  test('another cluster fails, naming both', async () => {
    await expect(
      checkCluster(client(UID_A), { server: 'https://a.example.com:6443', context: 'a' }, expected),
    ).rejects.toThrow(
      `wrong cluster: environment production is server https://b.example.com:6443 (spread.yaml:12), kube-system uid ${UID_B} (spread.yaml:13), but context a reaches server https://a.example.com:6443, kube-system uid ${UID_A}; nothing was written, nothing built`,
    );
  });

  test.each([
    ['the uid alone', { environment: 'p', kubeSystemUID: UID_B, source: { file: 'spread.yaml', line: 1 } }],
    [
      'the server alone',
      { environment: 'p', server: 'https://b:1', source: { file: 'spread.yaml', line: 1 } },
    ],
  ])('%s is compared', async (_, want) => {
    await expect(checkCluster(client(UID_A), { server: 'https://a:1', context: 'a' }, want)).rejects.toThrow(
      /^wrong cluster/,
    );
  });

  test('a cluster whose kube-system cannot be read is refused, saying why', async () => {
    const failing = {
      getOrUndefined: async () => {
        throw new Error('namespaces "kube-system" is forbidden');
      },
    } as unknown as KubeClient;
    await expect(
      checkCluster(failing, { server: 'https://b.example.com:6443', context: 'b' }, expected),
    ).rejects.toThrow(
      /cannot read the kube-system Namespace to compare \(namespaces "kube-system" is forbidden\)/,
    );
  });
});
