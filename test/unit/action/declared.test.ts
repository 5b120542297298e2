import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { declaredEnvironment } from '../../../src/action/declared.js';
import type { RunnerEnv } from '../../../src/action/runner.js';

const DIR = mkdtempSync(join(tmpdir(), 'spread-declared-'));
writeFileSync(
  join(DIR, 'spread.yaml'),
  `environments:
  preview:
    context: dev
    preview: true
  staging:
    context: a
    branches: [main]
  production:
    context: b
    branches: ["release/*"]
`,
);

const inputs = {
  environment: '',
  environments: [],
  context: '',
  namespace: '',
  helmValues: [],
  helmSet: {},
  mode: 'deploy' as const,
};
const push = (refName: string) => ({ eventName: 'push', refName, headRef: '', baseRef: '' }) as RunnerEnv;
const pr = {
  eventName: 'pull_request',
  refName: '7/merge',
  headRef: 'feature/x',
  baseRef: 'release/1',
  pullRequest: { number: 7, headSha: 'abc' },
} as RunnerEnv;

describe('declaredEnvironment', () => {
  test.each([
    ['a push of main', inputs, push('main'), 'staging', 'a', undefined],
    ['a push of release/2', inputs, push('release/2'), 'production', 'b', undefined],
    [
      'the input environment',
      { ...inputs, environment: 'production' },
      push('main'),
      'production',
      'b',
      undefined,
    ],
    ["a pull request's deploy", inputs, pr, 'preview', 'dev', 'preview-pr-7'],
    [
      "a pull request's plan (its base branch)",
      { ...inputs, mode: 'plan' as const },
      pr,
      'production',
      'b',
      undefined,
    ],
  ])('%s deploys to the declared environment', (_, given, runner, name, context, namespace) => {
    const choice = declaredEnvironment(DIR, given, runner);
    expect(choice.kind).toBe('environment');
    if (choice.kind !== 'environment') return;
    expect([choice.target.environment.name, choice.target.context, choice.target.namespace]).toEqual([
      name,
      context,
      namespace,
    ]);
  });

  test('a branch no environment takes is skipped, saying which branches each takes', () => {
    expect(declaredEnvironment(DIR, inputs, push('feature/y'))).toEqual({
      kind: 'skip',
      why: 'branch "feature/y" matches the branches of no environment of spread.yaml (preview: none; staging: main; production: release/*): nothing deployed',
    });
  });

  test('the short form, or a directory without a declaration, leaves the inputs as they are', () => {
    const rules = [{ pattern: 'main', context: 'x' }];
    expect(declaredEnvironment(DIR, { ...inputs, environments: rules }, push('main'))).toEqual({
      kind: 'none',
    });
    expect(declaredEnvironment(mkdtempSync(join(tmpdir(), 'spread-')), inputs, push('main'))).toEqual({
      kind: 'none',
    });
  });

  test('an input that contradicts the environment is an error', () => {
    expect(() => declaredEnvironment(DIR, { ...inputs, context: 'b' }, push('main'))).toThrow(
      /context b contradicts environment staging/,
    );
  });
});
