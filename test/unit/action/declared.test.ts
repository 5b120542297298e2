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

  test('a directory without a declaration leaves the inputs (and the short form) as they are', () => {
    const rules = [{ pattern: 'main', context: 'x' }];
    const bare = mkdtempSync(join(tmpdir(), 'spread-'));
    expect(declaredEnvironment(bare, inputs, push('main'))).toEqual({ kind: 'none' });
    expect(declaredEnvironment(bare, { ...inputs, environments: rules }, push('main'))).toEqual({
      kind: 'none',
    });
  });

  test('the short form beside a declaration is an error, also with the input environment', () => {
    const rules = [{ pattern: 'main', context: 'x' }];
    const error =
      /^input environments \(the short form\) and spread\.yaml, which declares environments \(preview, staging, production\): give one, not both/;
    expect(() => declaredEnvironment(DIR, { ...inputs, environments: rules }, push('main'))).toThrow(error);
    expect(() =>
      declaredEnvironment(DIR, { ...inputs, environment: 'production', environments: rules }, push('main')),
    ).toThrow(error);
  });

  test('a pushed tag matches no branches, whatever its name', () => {
    const tag = { ...push('release/1.0'), refType: 'tag' } as RunnerEnv;
    expect(declaredEnvironment(DIR, inputs, tag)).toEqual({
      kind: 'skip',
      why: `tag "release/1.0" is not a branch, and the branches of spread.yaml's environments match only branches: nothing deployed`,
    });
    // A branch push says so, and matches as before.
    const branch = declaredEnvironment(DIR, inputs, {
      ...push('release/1.0'),
      refType: 'branch',
    } as RunnerEnv);
    expect(branch.kind === 'environment' && branch.target.environment.name).toBe('production');
  });

  describe('without a preview, a pull request is never matched by its head branch', () => {
    const dir = mkdtempSync(join(tmpdir(), 'spread-declared-'));
    writeFileSync(
      join(dir, 'spread.yaml'),
      'environments:\n  staging:\n    context: a\n    branches: [main]\n  production:\n    context: b\n    branches: ["release/*"]\n',
    );
    const from = (headRef: string, eventName = 'pull_request') =>
      ({ ...pr, eventName, headRef, baseRef: 'main' }) as RunnerEnv;
    const skipped = {
      kind: 'skip',
      why: `a pull request deploys only to a preview environment, and spread.yaml declares none (preview:): nothing deployed`,
    };
    test.each([
      ['deploy', 'main', 'pull_request'],
      ['delete', 'release/evil', 'pull_request'],
      ['deploy', 'release/evil', 'pull_request_target'],
      ['delete', 'main', 'pull_request_target'],
    ] as const)('mode %s of a pull request from %s (%s) is skipped', (mode, head, event) => {
      expect(declaredEnvironment(dir, { ...inputs, mode }, from(head, event))).toEqual(skipped);
    });

    test("its plan is matched by the base branch, as GitHub's branch filters", () => {
      const plan = declaredEnvironment(dir, { ...inputs, mode: 'plan' }, from('release/evil'));
      expect(plan.kind === 'environment' && plan.target.environment.name).toBe('staging');
    });
  });

  test('an input that contradicts the environment is an error', () => {
    expect(() => declaredEnvironment(DIR, { ...inputs, context: 'b' }, push('main'))).toThrow(
      /context b contradicts environment staging/,
    );
  });
});
