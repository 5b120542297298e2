import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { environmentsHint, pullRequestNumber } from '../../../src/cli/environment.js';
import { planEach, plansText } from '../../../src/cli/plan-all.js';
import { loadEnvironments } from '../../../src/project/load.js';

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

describe('planEach', () => {
  test('a fleet is planned cluster by cluster, each in its own section; one failing keeps the rest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spread-plan-fleet-'));
    writeFileSync(
      join(dir, 'spread.yaml'),
      `environments:
  staging: { context: s }
  production:
    namespace: web
    clusters:
      - { name: eu-1, context: e1 }
      - { name: us-1, context: u1, namespace: web-us }
`,
    );
    const plans = await planEach(dir, loadEnvironments(dir)!, undefined, async (target) => {
      if (target.context === 'e1') throw new Error('cannot reach e1');
      return {
        deployment: 'web',
        namespace: target.namespace ?? 'default',
        context: target.context ?? '',
        mode: 'plan',
        objects: [],
        rollout: [],
        durationMs: 0,
      };
    });
    expect(plans.map((p) => [p.environment, p.cluster, p.context, p.namespace, p.error])).toEqual([
      ['staging', undefined, 's', undefined, undefined],
      ['production', 'eu-1', 'e1', 'web', 'cannot reach e1'],
      ['production', 'us-1', 'u1', 'web-us', undefined],
    ]);
    expect(plansText(plans)).toContain(
      '== environment production, cluster eu-1 (context e1, namespace web) ==\nerror: cannot reach e1\n',
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
