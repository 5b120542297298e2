import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  failedPlans,
  planEnvironments,
  plansMarker,
  renderPlansComment,
} from '../../../src/action/plan-comment-all.js';
import type { DeployReport } from '../../../src/report/report.js';

const DIR = mkdtempSync(join(tmpdir(), 'spread-plans-'));
writeFileSync(
  join(DIR, 'spread.yaml'),
  'environments:\n  pr:\n    preview: true\n  staging:\n    context: a\n  production:\n    context: b\n    namespace: web\n',
);

const planOf = (context: string, replicas: string): DeployReport => ({
  deployment: 'web',
  namespace: 'web',
  context,
  mode: 'plan',
  objects: [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      namespace: 'web',
      name: 'web',
      action: 'update',
      source: 'deployment.yaml:1',
      changes: [{ op: 'change', path: 'spec.replicas', before: '1', after: replicas }],
    },
  ],
  rollout: [],
  durationMs: 0,
});

const inputs = { context: '', namespace: '', environments: [], helmValues: [], helmSet: {} };

describe('planEnvironments', () => {
  test('each environment is planned in its own context; a failure is kept and the others go on', async () => {
    const contexts: (string | undefined)[] = [];
    const plans = await planEnvironments(DIR, inputs, {}, async (target) => {
      contexts.push(target.context);
      if (target.context === 'a') throw new Error('cannot reach a');
      return planOf(target.context ?? '', '3');
    });
    expect(contexts).toEqual(['a', 'b']);
    expect(plans.map((p) => [p.environment, p.error ?? p.report?.context])).toEqual([
      ['staging', 'cannot reach a'],
      ['production', 'b'],
    ]);
  });

  test('on a pull request the preview is planned too, in its namespace', async () => {
    const namespaces: (string | undefined)[] = [];
    await planEnvironments(DIR, inputs, { pullRequest: { number: 9, headSha: 'x' } }, async (target) => {
      namespaces.push(target.namespace);
      return planOf('', '1');
    });
    expect(namespaces).toEqual(['pr-pr-9', undefined, 'web']);
  });

  test('a context or namespace input is refused: each environment has its own', async () => {
    await expect(
      planEnvironments(DIR, { ...inputs, context: 'x' }, {}, async () => planOf('', '1')),
    ).rejects.toThrow(/leave context, namespace and environments empty/);
  });
});

describe('renderPlansComment', () => {
  test('one comment holds each environment under its name, with its changes', () => {
    const body = renderPlansComment('web', [
      { environment: 'staging', report: planOf('a', '2') },
      { environment: 'production', report: planOf('b', '5') },
      { environment: 'qa', error: 'wrong cluster' },
    ]);
    expect(body.startsWith(`${plansMarker('web')}\n## Plan of web in every environment`)).toBe(true);
    const staging = body.indexOf('### Environment `staging`');
    const production = body.indexOf('### Environment `production`');
    expect(staging).toBeGreaterThan(0);
    expect(production).toBeGreaterThan(staging);
    expect(body.slice(staging, production)).toMatch(/spec\.replicas/);
    expect(body.slice(staging, production)).toMatch(/2/);
    expect(body.slice(production)).toMatch(/5/);
    expect(body).toContain('### Environment `qa`\n\n:x: wrong cluster');
  });
});

describe('a fleet in every environment', () => {
  const fleet = mkdtempSync(join(tmpdir(), 'spread-plans-fleet-'));
  writeFileSync(
    join(fleet, 'spread.yaml'),
    `environments:
  staging:
    context: s
  production:
    namespace: web
    clusters:
      - { name: eu-1, context: e1, helmSet: { region: eu } }
      - { name: us-1, context: u1, namespace: web-us, helmSet: { region: us } }
`,
  );

  test('each cluster of the fleet is planned in its own context, section and failure', async () => {
    const seen: [string | undefined, string | undefined, string | undefined][] = [];
    const plans = await planEnvironments(fleet, inputs, {}, async (target) => {
      seen.push([target.context, target.namespace, target.helmSet.region]);
      if (target.context === 'u1') throw new Error('cannot reach u1');
      return planOf(target.context ?? '', '2');
    });
    expect(seen).toEqual([
      ['s', undefined, undefined],
      ['e1', 'web', 'eu'],
      ['u1', 'web-us', 'us'],
    ]);
    expect(plans.map((p) => [p.environment, p.cluster, p.error ?? p.report?.context])).toEqual([
      ['staging', undefined, 's'],
      ['production', 'eu-1', 'e1'],
      ['production', 'us-1', 'cannot reach u1'],
    ]);
    expect(failedPlans(plans)).toEqual(['production (us-1): cannot reach u1']);
    const body = renderPlansComment('web', plans);
    expect(body).toContain('### Environment `production`, cluster `eu-1`');
    expect(body).toContain('### Environment `production`, cluster `us-1`\n\n:x: cannot reach u1');
  });
});
