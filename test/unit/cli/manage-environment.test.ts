// `--environment` on history, rollback and list (and delete): resolved in spread.yaml as deploy resolves
// it, before any connection. The kubeconfig's contexts point at a port nothing listens on, so what is
// asserted is what the CLI decided from the declaration: a contradicting flag, the wrong-cluster guard
// naming the environment's server: line, the environment's context reached.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { main } from '../../../src/cli/main.js';

let dir: string;
let kubeconfig: string;
let stderr: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'spread-manage-env-'));
  writeFileSync(
    path.join(dir, 'spread.yaml'),
    [
      'environments:',
      '  staging:',
      '    context: stg',
      '    namespace: web-staging',
      '  production:',
      '    context: prd',
      '    namespace: web-production',
      '    server: https://prod.example.test:6443',
      '',
    ].join('\n'),
  );
  kubeconfig = path.join(dir, 'kubeconfig');
  const cluster = (name: string) =>
    `- name: ${name}\n  cluster: {server: "https://127.0.0.1:9", insecure-skip-tls-verify: true}`;
  const context = (name: string) => `- name: ${name}\n  context: {cluster: ${name}, user: u}`;
  writeFileSync(
    kubeconfig,
    `apiVersion: v1\nkind: Config\ncurrent-context: stg\nclusters:\n${cluster('stg')}\n${cluster('prd')}\ncontexts:\n${context('stg')}\n${context('prd')}\nusers:\n- name: u\n  user: {token: t}\n`,
  );
  stderr = '';
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
});
afterEach(() => vi.restoreAllMocks());

const run = (...args: string[]) => main(['node', 'spread', ...args, '--kubeconfig', kubeconfig]);

/** Runs `command` (with the folder as NAME, but list) in the folder, as a user in the repository would. */
async function inFolder(command: string, ...flags: string[]): Promise<number> {
  const args = command === 'list' ? [command] : [command, `${dir}/`];
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    return await run(...args, ...flags);
  } finally {
    process.chdir(cwd);
  }
}

describe('--environment on the commands of deployed deployments', () => {
  test.each(['history', 'rollback', 'list', 'delete'])(
    '%s refuses a --context or -n that contradicts the environment',
    async (command) => {
      expect(await inFolder(command, '--environment', 'staging', '--context', 'prd')).toBe(1);
      expect(stderr).toContain('context prd contradicts environment staging, whose context is stg');
      expect(await inFolder(command, '--environment', 'staging', '-n', 'other')).toBe(1);
      expect(stderr).toContain(
        'namespace other contradicts environment staging, whose namespace is web-staging',
      );
    },
  );

  test.each(['history', 'rollback', 'list', 'delete'])(
    '%s: the wrong-cluster guard of the environment, at its server: line, before anything is read',
    async (command) => {
      expect(await inFolder(command, '--environment', 'production')).toBe(1);
      expect(stderr).toContain(
        'wrong cluster: environment production is server https://prod.example.test:6443 (spread.yaml:8), but context prd reaches server https://127.0.0.1:9',
      );
    },
  );

  test('an environment the folder does not declare is an error naming the declared ones', async () => {
    expect(await inFolder('history', '--environment', 'qa')).toBe(1);
    expect(stderr).toContain('environment qa is not declared in spread.yaml (declared: staging, production)');
  });
});
