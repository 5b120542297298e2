import { describe, expect, test } from 'vitest';
import { formatPlanMarkdown } from '../../../src/report/comment.js';
import { countActions, type DeployReport, formatReportText, objectRef } from '../../../src/report/report.js';

const report: DeployReport = {
  deployment: 'web',
  namespace: 'prod',
  context: 'ctx',
  mode: 'deploy',
  objects: [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      namespace: 'prod',
      name: 'web',
      action: 'configured',
      source: 'deployment.yaml:1',
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      namespace: 'prod',
      name: 'web',
      action: 'unchanged',
      source: '.k2e/svc.yaml:1',
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'prod',
      name: 'old',
      action: 'pruned',
      source: '.k2e/cm.yaml:1',
    },
    { apiVersion: 'v1', kind: 'Namespace', name: 'prod', action: 'created', source: '.k2e/ns.yaml:1' },
  ],
  rollout: [
    {
      kind: 'Deployment',
      namespace: 'prod',
      name: 'web',
      ready: true,
      message: '2/2 replicas available',
      durationMs: 1500,
    },
  ],
  durationMs: 2500,
};

describe('report', () => {
  test('countActions', () => {
    expect(countActions(report)).toMatchObject({
      created: 1,
      configured: 1,
      unchanged: 1,
      pruned: 1,
      create: 0,
    });
  });

  test.each([
    [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, 'deployment.apps/web'],
    [{ apiVersion: 'v1', kind: 'Service', name: 'web' }, 'service/web'],
    [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w' }, 'widget.example.com/w'],
  ])('objectRef %j', (o, text) => {
    expect(objectRef(o)).toBe(text);
  });

  test('formatReportText lists objects like kubectl, the rollout and a total', () => {
    expect(formatReportText(report)).toBe(
      [
        'Deployed web to namespace prod (context ctx):',
        '  deployment.apps/web configured -n prod  (deployment.yaml:1)',
        '  service/web unchanged -n prod  (.k2e/svc.yaml:1)',
        '  configmap/old pruned -n prod  (.k2e/cm.yaml:1)',
        '  namespace/prod created  (.k2e/ns.yaml:1)',
        '  rollout deployment/web: ready — 2/2 replicas available (1.5s)',
        '1 created, 1 configured, 1 unchanged, 1 pruned in 2.5s',
        '',
      ].join('\n'),
    );
  });

  test('the environment deployed to, and where a promotion came from, in the text and the Markdown', () => {
    const promoted: DeployReport = {
      ...report,
      environment: 'production',
      promotedFrom: { environment: 'staging', revision: 4 },
    };
    expect(formatReportText(promoted).split('\n').slice(0, 2)).toEqual([
      'Deployed web to namespace prod (context ctx):',
      '  environment production (promoted from staging revision 4)',
    ]);
    expect(formatPlanMarkdown(promoted)).toContain(
      '`environment production (promoted from staging revision 4)`',
    );
    const staging = formatReportText({ ...report, environment: 'staging' });
    expect(staging).toContain('\n  environment staging\n');
    expect(formatReportText(report)).not.toContain('environment');
  });

  test('a plan shows the changed fields under each object', () => {
    const plan: DeployReport = {
      ...report,
      mode: 'plan',
      objects: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          namespace: 'prod',
          name: 'web',
          action: 'update',
          source: 'deployment.yaml:1',
          changes: [{ op: 'change', path: 'spec.replicas', before: '1', after: '2' }],
        },
      ],
      rollout: [],
    };
    const text = formatReportText(plan);
    expect(text).toContain('Plan for web');
    expect(text).toContain('      ~ spec.replicas: 1 → 2');
    expect(text).toContain('0 to create, 1 to update, 0 to replace, 0 unchanged, 0 to prune');
    expect(text).not.toContain('no value changes');
  });

  test('a line diff reads under its field, in the text report and the Markdown plan', () => {
    const plan: DeployReport = {
      ...report,
      mode: 'plan',
      objects: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: 'prod',
          name: 'conf',
          action: 'update',
          source: 'cm.yaml:1',
          changes: [
            {
              op: 'change',
              path: 'data["app.conf"]',
              before: '"a"',
              after: '"b"',
              lines: ['@@ -1,2 +1,2 @@', ' keep', '-old', '+new'],
            },
          ],
        },
      ],
      rollout: [],
    };
    expect(formatReportText(plan)).toContain(
      '      ~ data["app.conf"]:\n        @@ -1,2 +1,2 @@\n         keep\n        -old\n        +new\n',
    );
    expect(formatPlanMarkdown(plan)).toContain(
      '```diff\n  data["app.conf"]:\n    @@ -1,2 +1,2 @@\n     keep\n-   old\n+   new\n```',
    );
  });

  test('a deployment deleted whole reads as a delete in the Markdown, not as a deploy that pruned', () => {
    const deleted: DeployReport = {
      ...report,
      objects: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: 'prod',
          name: 'a',
          action: 'pruned',
          source: 'a.yaml:1',
        },
      ],
      rollout: [],
    };
    const md = formatPlanMarkdown(deleted, { operation: 'delete' });
    expect(md).toMatch(/^### Delete: `web`/);
    expect(md).toContain('**1** deleted');
    expect(md).toContain('| 🗑️ deleted | `configmap/a` |');
    expect(md).not.toMatch(/pruned|Deploy:/);
  });

  test('a planned update without changed values says that only ownership moves', () => {
    const plan: DeployReport = {
      ...report,
      mode: 'plan',
      objects: [
        {
          apiVersion: 'v1',
          kind: 'Secret',
          namespace: 'prod',
          name: 'db',
          action: 'update',
          source: 's.yaml:1',
        },
      ],
      rollout: [],
    };
    expect(formatReportText(plan)).toContain(
      '  secret/db update -n prod  (s.yaml:1)\n      (no value changes: spread takes over field ownership)',
    );
  });

  test('a planned object the deploy checks later says why, instead of an ownership note', () => {
    const plan: DeployReport = {
      ...report,
      mode: 'plan',
      objects: [
        {
          apiVersion: 'example.com/v1',
          kind: 'Widget',
          namespace: 'prod',
          name: 'w',
          action: 'update',
          source: 'w.yaml:1',
          deferred: 'its CRD changes in this deploy',
        },
      ],
      rollout: [],
    };
    const text = formatReportText(plan);
    expect(text).toContain(
      '  widget.example.com/w update -n prod  (w.yaml:1)\n      (not checked yet: its CRD changes in this deploy; the deploy checks it before going on)',
    );
    expect(text).not.toContain('takes over field ownership');
  });
});
