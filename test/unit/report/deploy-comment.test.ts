import { describe, expect, test } from 'vitest';
import { planMarker, renderDeployComment } from '../../../src/report/comment.js';
import type { DeployReport } from '../../../src/report/report.js';

const report: DeployReport = {
  deployment: 'web',
  namespace: 'shop',
  context: 'production',
  mode: 'deploy',
  revision: 4,
  url: 'https://shop.example.com',
  objects: [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      namespace: 'shop',
      name: 'web',
      action: 'configured',
      source: 'deployment.yaml:1',
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      namespace: 'shop',
      name: 'web',
      action: 'unchanged',
      source: '.k2e/svc.yaml:1',
    },
  ],
  rollout: [],
  durationMs: 1200,
};

describe('renderDeployComment', () => {
  test('the plan marker, what was deployed where, the revision, URL and commit, then the report', () => {
    const body = renderDeployComment(report, {
      sha: '0123456789abcdef',
      commitUrl: 'https://gh/acme/shop/commit/0123456789abcdef',
      runUrl: 'https://gh/acme/shop/actions/runs/1',
    });
    const lines = body.split('\n');
    expect(lines[0]).toBe(planMarker(report));
    expect(lines[1]).toBe('### 🚀 Deployed `web` → context `production`, namespace `shop`');
    expect(body).toContain(
      'revision **4** · <https://shop.example.com> · commit [`0123456`](https://gh/acme/shop/commit/0123456789abcdef)',
    );
    expect(body).toContain('#### Deploy: `web`');
    expect(body).toContain('| ✏️ configured | `deployment.apps/web` |');
    expect(body).toContain('[run](https://gh/acme/shop/actions/runs/1)');
  });

  test.each([
    [{ failedIn: 'post' }, '### ❌ Deploy of `web` → context `production`, namespace `shop` failed in post'],
    [
      { failedIn: 'rollout', rolledBackTo: 3 },
      '### ❌ Deploy of `web` → context `production`, namespace `shop` failed in the rollout, rolled back to revision 3',
    ],
    [
      { failedIn: 'pre', failedBeforeMain: 'pre' },
      '### ❌ Deploy of `web` → context `production`, namespace `shop` failed in pre, before the main phase',
    ],
  ] as const)('a failed deploy (%o) is titled so', (failure, title) => {
    const body = renderDeployComment({
      ...report,
      ...failure,
      skipped: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'late', source: 'late.yaml:1' }],
    });
    expect(body.split('\n')[1]).toBe(title);
    expect(body).toContain('`1 not applied (an earlier step failed): configmap/late`');
  });

  test('without a URL or revision those parts are left out; the limit holds', () => {
    const { url: _, revision: __, ...bare } = report;
    const body = renderDeployComment(bare, { limit: 400 });
    expect(body).not.toContain('revision');
    expect(body).not.toContain('<http');
    expect(body.length).toBeLessThanOrEqual(400);
  });
});
