import { describe, expect, test } from 'vitest';
import {
  branchFor,
  contextForBranch,
  matchBranch,
  parseEnvironments,
  shortFormChoice,
} from '../../../src/action/environments.js';

describe('matchBranch', () => {
  test.each<[string, string, boolean]>([
    ['main', 'main', true],
    ['main', 'main2', false],
    ['release/*', 'release/1.2', true],
    ['release/*', 'release/1.2/hotfix', false],
    ['release/**', 'release/1.2/hotfix', true],
    ['**', 'any/thing', true],
    ['v?.x', 'v1.x', true],
    ['v?.x', 'v1/x', false],
    ['v1.0', 'v1x0', false],
    ['feature-(x)', 'feature-(x)', true],
    ['release/**', 'release', true],
    ['release/*', 'release/.next', true],
    ['{main,master}', 'master', true],
    ['release/[0-9]*', 'release/2.1', true],
    ['release/[0-9]*', 'release/next', false],
  ])('%s ~ %s → %s', (pattern, branch, expected) => {
    expect(matchBranch(pattern, branch)).toBe(expected);
  });
});

describe('contextForBranch', () => {
  const rules = parseEnvironments('main=production\nrelease/*=staging\n**=dev');
  test.each<[string, string]>([
    ['main', 'production'],
    ['release/2', 'staging'],
    ['feature/x', 'dev'],
  ])('%s → %s (first match wins)', (branch, context) => {
    expect(contextForBranch(rules, branch)?.context).toBe(context);
  });
  test('no match', () => {
    expect(contextForBranch(parseEnvironments('main=production'), 'dev')).toBeUndefined();
  });
});

describe('branchFor', () => {
  const pr = { eventName: 'pull_request', refName: '42/merge', headRef: 'feature/x', baseRef: 'main' };
  test.each<[string, Parameters<typeof branchFor>[0], string]>([
    ['push: the pushed branch', { eventName: 'push', refName: 'main', headRef: '', baseRef: '' }, 'main'],
    ['tag push: the tag', { eventName: 'push', refName: 'v1.2.0', headRef: '', baseRef: '' }, 'v1.2.0'],
    ['pull request: the base, never the head', pr, 'main'],
    ['pull_request_target: the base', { ...pr, eventName: 'pull_request_target' }, 'main'],
    [
      'workflow_dispatch: the ref',
      { eventName: 'workflow_dispatch', refName: 'main', headRef: '', baseRef: '' },
      'main',
    ],
  ])('%s', (_, ref, expected) => {
    expect(branchFor(ref)).toBe(expected);
  });
});

describe('shortFormChoice: the short form never deploys a pull request', () => {
  const rules = parseEnvironments('main=production\nfeature/**=preview');
  const pr = { eventName: 'pull_request', refName: '42/merge', headRef: 'main', baseRef: 'main' };
  test.each(['deploy', 'delete'])(
    'a pull request whose head branch is named main: %s skipped, not production',
    (mode) => {
      const choice = shortFormChoice(rules, pr, mode);
      expect(choice).toEqual({
        kind: 'skip',
        why: 'a pull request deploys only to a preview environment that spread.yaml declares (preview:, docs/environments.md), never through the input environments, whose rules would match its head branch "main", which whoever opens the pull request names: nothing deployed',
      });
      expect(
        shortFormChoice(rules, { ...pr, eventName: 'pull_request_target', headRef: 'feature/x' }, mode).kind,
      ).toBe('skip');
    },
  );

  test("a pull request's plan: its base branch's rule; a push: its branch's; a branch no rule maps: skipped", () => {
    expect(shortFormChoice(rules, { ...pr, headRef: 'feature/x' }, 'plan')).toMatchObject({
      kind: 'context',
      branch: 'main',
      rule: { context: 'production' },
    });
    const push = { eventName: 'push', refName: 'feature/a/b', headRef: '', baseRef: '' };
    expect(shortFormChoice(rules, push, 'deploy')).toMatchObject({
      kind: 'context',
      rule: { context: 'preview' },
    });
    expect(shortFormChoice(rules, { ...push, refName: 'dev' }, 'deploy')).toEqual({
      kind: 'skip',
      why: 'branch "dev" matches no line of the environments input (main, feature/**): nothing deployed',
    });
  });
});
