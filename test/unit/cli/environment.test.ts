import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { environmentsHint, pullRequestNumber } from '../../../src/cli/environment.js';
import { plansText } from '../../../src/cli/plan-all.js';

describe('pullRequestNumber', () => {
  test.each([
    [{ CI_MERGE_REQUEST_IID: '42' }, 42],
    [{ GITHUB_REF: 'refs/pull/7/merge' }, 7],
    [{ GITHUB_REF: 'refs/heads/main' }, undefined],
    [{ SPREAD_PULL_REQUEST: '3' }, 3],
    [{ SPREAD_PULL_REQUEST: 'x' }, undefined],
    [{}, undefined],
  ])('%j gives %s', (env, number) => {
    expect(pullRequestNumber(env)).toBe(number);
  });
});

describe('plansText', () => {
  test('a heading per environment, then its plan, its error or why it was not planned', () => {
    const text = plansText([
      { environment: 'pr', skipped: 'a preview, and this run has no pull request' },
      { environment: 'staging', context: 'a', namespace: 'web', error: 'cannot reach a' },
    ]);
    expect(text).toBe(
      '== environment pr ==\nnot planned: a preview, and this run has no pull request\n\n== environment staging (context a, namespace web) ==\nerror: cannot reach a\n',
    );
  });
});

describe('environmentsHint', () => {
  test('names the declared environments when none was given; nothing otherwise', () => {
    const dir = mkdtempSync(join(tmpdir(), 'spread-hint-'));
    expect(environmentsHint(dir, {})).toBeUndefined();
    writeFileSync(join(dir, 'spread.yaml'), 'environments:\n  staging: {}\n  production: {}\n');
    expect(environmentsHint(dir, {})).toBe(
      `hint: ${dir}/spread.yaml declares environments (staging, production): give one with --environment NAME`,
    );
    expect(environmentsHint(dir, { environment: 'staging' })).toBeUndefined();
  });
});
