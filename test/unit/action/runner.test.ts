import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { readRunnerEnv } from '../../../src/action/runner.js';
import { kubeconfigSource } from '../../../src/frontend/kubeconfig.js';

describe('readRunnerEnv: the kubeconfig of the environment', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'spread-runner-'));
  const present = path.join(dir, 'config');
  writeFileSync(present, 'apiVersion: v1\nkind: Config\n');
  const missing = path.join(dir, 'missing');

  // One rule for every front end: what the CLI reads is what the Action reads.
  test.each([
    ['a file of KUBECONFIG that does not exist is skipped, as kubectl does', `${missing}:${present}`],
    ['no file of KUBECONFIG exists: all kept, for the error to name', `${missing}:${missing}-2`],
    ['no KUBECONFIG: ~/.kube/config', undefined],
  ])('%s', (_, KUBECONFIG) => {
    const env = { HOME: dir, ...(KUBECONFIG ? { KUBECONFIG } : {}) };
    expect(readRunnerEnv(env).kubeconfig).toEqual(kubeconfigSource(undefined, env));
  });

  test('the missing file is not among the paths', () => {
    expect(readRunnerEnv({ KUBECONFIG: `${missing}:${present}` }).kubeconfig).toEqual({ paths: [present] });
  });
});

describe('readRunnerEnv: whether the ref is a tag', () => {
  test.each([
    [{ GITHUB_REF_TYPE: 'tag', GITHUB_REF: 'refs/tags/release/1.0' }, 'tag'],
    [{ GITHUB_REF: 'refs/tags/release/1.0' }, 'tag'],
    [{ GITHUB_REF_TYPE: 'branch', GITHUB_REF: 'refs/heads/main' }, 'branch'],
    [{ GITHUB_REF: 'refs/heads/main' }, undefined],
  ])('%o: %s', (env, refType) => {
    expect(readRunnerEnv(env).refType).toBe(refType);
  });
});
