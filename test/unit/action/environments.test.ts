import { describe, expect, test } from 'vitest';
import {
  branchFor,
  contextForBranch,
  matchBranch,
  parseEnvironments,
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
  test.each<[string, Parameters<typeof branchFor>[0], string, string]>([
    [
      'push: the pushed branch',
      { eventName: 'push', refName: 'main', headRef: '', baseRef: '' },
      'deploy',
      'main',
    ],
    [
      'tag push: the tag',
      { eventName: 'push', refName: 'v1.2.0', headRef: '', baseRef: '' },
      'deploy',
      'v1.2.0',
    ],
    ['pull request plan: the base', pr, 'plan', 'main'],
    ['pull request deploy: the head', pr, 'deploy', 'feature/x'],
    ['pull_request_target plan: the base', { ...pr, eventName: 'pull_request_target' }, 'plan', 'main'],
    [
      'workflow_dispatch: the ref',
      { eventName: 'workflow_dispatch', refName: 'main', headRef: '', baseRef: '' },
      'plan',
      'main',
    ],
  ])('%s', (_, ref, mode, expected) => {
    expect(branchFor(ref, mode)).toBe(expected);
  });
});
