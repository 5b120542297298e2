import * as core from '@actions/core';
import { describe, expect, test } from 'vitest';
import {
  addDeploySummary,
  addFailureSummary,
  SUMMARY_LIMIT_BYTES,
  type SummaryReport,
} from '../../../src/action/summary.js';
import type { ObjectReport } from '../../../src/report/report.js';

const obj = (
  i: number,
  action: ObjectReport['action'] = 'created',
  extra: Partial<ObjectReport> = {},
): ObjectReport => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  namespace: 'team-a',
  name: `cm-${i}`,
  action,
  source: `.k2e/cm-${i}.yaml:1`,
  ...extra,
});

const report: SummaryReport = {
  deployment: 'web',
  namespace: 'team-a',
  context: 'production',
  mode: 'deploy',
  revision: 7,
  objects: [obj(1), obj(2, 'configured'), obj(3, 'pruned')],
  images: [
    {
      name: 'localhost:5000/web',
      reference: `localhost:5000/web:abc@sha256:${'f'.repeat(64)}`,
      tag: 'abc',
      digest: `sha256:${'f'.repeat(64)}`,
      contextDigest: `sha256:${'e'.repeat(64)}`,
      built: true,
      pushed: true,
      context: 'web',
      source: 'web/web.ctr:3',
      marks: ['&web'],
    },
  ],
  rollout: [
    {
      kind: 'Deployment',
      namespace: 'team-a',
      name: 'web',
      ready: true,
      message: '2/2 ready',
      durationMs: 4200,
    },
  ],
  durationMs: 6100,
};

const render = (r: SummaryReport, options = {}) => {
  addDeploySummary(core.summary, r, options);
  const text = core.summary.stringify();
  core.summary.emptyBuffer();
  return text;
};

describe('addDeploySummary', () => {
  test("a rollback after a failed deploy: its revision, counts and objects after the deploy's", () => {
    const html = render(
      {
        ...report,
        rolledBackTo: 6,
        rollback: [
          obj(2, 'configured'),
          obj(4, 'pruned'),
          obj(5, 'kept', { kind: 'Job', apiVersion: 'batch/v1', name: 'migrate', note: 'holds its logs' }),
        ],
      },
      { failure: 'pre failed' },
    );
    expect(html).toContain('<h3>Rolled back to revision 6</h3>');
    expect(html).toContain(
      '<p><strong>0</strong> created · <strong>1</strong> configured · <strong>1</strong> pruned · <strong>1</strong> kept · 0 unchanged</p>',
    );
    const after = html.slice(html.indexOf('Rolled back to revision 6'));
    expect(after).toContain('<code>configmap/cm-4</code>');
    expect(after).toContain('<code>job.batch/migrate</code> (holds its logs)');
    expect(render(report)).not.toContain('Rolled back');
  });

  test('the environment, before the namespace', () => {
    const html = render({ ...report, environment: 'staging' });
    expect(html).toContain('<p>environment staging · namespace <code>team-a</code>');
    expect(render(report)).not.toContain('environment');
  });

  test('heading, links, counts, objects, images, rollout, plan', () => {
    const html = render(report, {
      commitUrl: 'https://gh/c/abc',
      runUrl: 'https://gh/r/1',
      sha: 'abcdef0123',
    });
    expect(html).toContain('<h2>🚀 spread deploy: web → production · revision 7</h2>');
    expect(html).toContain(
      'commit <a href="https://gh/c/abc">abcdef0</a> · <a href="https://gh/r/1">run</a>',
    );
    expect(html).toContain(
      '<strong>1</strong> created · <strong>1</strong> configured · <strong>1</strong> pruned',
    );
    expect(html).toContain('<td>➕ created</td><td><code>configmap/cm-1</code></td>');
    expect(html).toContain(`<code>sha256:${'f'.repeat(64)}</code>`);
    expect(html).toContain('<td><code>deployment/web</code></td><td>✅</td><td>2/2 ready</td><td>4.2s</td>');
    expect(html).toContain('<details><summary>Report as Markdown</summary>');
  });

  test('a failure is said first', () => {
    const html = render(report, { failure: 'rollout of deployment/web timed out' });
    expect(html).toContain('<h2>❌ spread deploy');
    expect(html).toContain('<strong>Failed:</strong> rollout of deployment/web timed out');
  });

  test('a failed step is named in the heading, with the rollback, and what it left unapplied', () => {
    const html = render(
      {
        ...report,
        failedIn: 'main wave 1',
        rolledBackTo: 3,
        skipped: [
          { apiVersion: 'batch/v1', kind: 'Job', name: 'smoke', phase: 'post', source: 'smoke.yaml:1' },
        ],
      },
      { failure: 'main wave 1 failed: rollout failed' },
    );
    expect(html).toContain('<h2>❌ spread deploy failed in main wave 1, rolled back to revision 3: web');
    expect(html).toContain('<p>1 not applied (an earlier step failed): job.batch/smoke</p>');
  });

  test('names are escaped', () => {
    const html = render({ ...report, deployment: '<script>' });
    expect(html).toContain('spread deploy: &lt;script&gt; → production');
    // In the Markdown part it sits in a code span, which GitHub shows literally.
    expect(html.replace(/`[^`\n]*`/g, '')).not.toContain('<script>');
  });

  test('a plan summary holds the diffs in <details>', () => {
    const html = render({
      ...report,
      mode: 'plan',
      objects: [
        obj(1, 'update', { changes: [{ op: 'change', path: 'data.a', before: '"x"', after: '"y"' }] }),
      ],
    });
    expect(html).toContain('<details><summary>Plan (1 field changes)</summary>');
    expect(html).toContain('- data.a: "x"\n+ data.a: "y"');
  });

  test('stays within 1 MiB: the plan is trimmed first', () => {
    const changes = Array.from({ length: 30 }, (_, j) => ({
      op: 'add' as const,
      path: `data.k${j}`,
      after: `"${'v'.repeat(100)}"`,
    }));
    const big: SummaryReport = {
      ...report,
      mode: 'plan',
      objects: Array.from({ length: 2000 }, (_, i) => obj(i, 'update', { changes })),
    };
    const html = render(big, { runUrl: 'https://gh/r/1' });
    expect(Buffer.byteLength(html)).toBeLessThanOrEqual(SUMMARY_LIMIT_BYTES);
    expect(html).toContain('configmap/cm-1999');
    expect(html).toContain('trimmed');
  });

  test('stays within the limit when even the table is too long', () => {
    const big: SummaryReport = { ...report, objects: Array.from({ length: 5000 }, (_, i) => obj(i)) };
    const html = render(big, { limitBytes: 64 * 1024 });
    expect(Buffer.byteLength(html)).toBeLessThanOrEqual(64 * 1024);
    expect(html).toMatch(/… and \d+ more \(trimmed to fit the summary limit/);
  });
});

describe('the operation in the heading', () => {
  test('mode delete is labelled a delete, with the deleted count, not a deploy', () => {
    const deleted: SummaryReport = { ...report, objects: [obj(1, 'pruned'), obj(2, 'pruned')], rollout: [] };
    const html = render(deleted, { operation: 'delete' });
    expect(html).toContain('<h2>🗑️ spread delete: web → production · revision 7</h2>');
    expect(html).toContain('<p><strong>2</strong> deleted</p>');
    expect(html).not.toContain('spread deploy');
  });

  test('a plan stays a plan whatever the operation says', () => {
    expect(render({ ...report, mode: 'plan' }, { operation: 'deploy' })).toContain('<h2>📋 spread plan: web');
  });
});

describe('addFailureSummary: a run that failed before it had a report', () => {
  const failures = [
    {
      message: 'Service: metadata.name is required',
      file: 'deploy/web/.k2e/svc.yaml',
      line: 3,
      severity: 'error' as const,
    },
    { message: 'a <b> tag', file: 'deploy/web/.k2e/cm.yaml', line: 1, severity: 'warning' as const },
    { message: 'no place', severity: 'error' as const },
  ];
  const renderFailure = (limitBytes?: number) => {
    addFailureSummary(core.summary, '2 error(s) in the input; nothing was deployed', failures, {
      operation: 'deploy',
      target: 'deploy/web',
      runUrl: 'https://gh/r/1',
      ...(limitBytes ? { limitBytes } : {}),
    });
    const text = core.summary.stringify();
    core.summary.emptyBuffer();
    return text;
  };

  test('heading, the error, and each located failure with its file and line', () => {
    const html = renderFailure();
    expect(html).toContain('<h2>❌ spread deploy failed: deploy/web</h2>');
    expect(html).toContain('<pre>2 error(s) in the input; nothing was deployed</pre>');
    expect(html).toContain(
      '<td>error</td><td><code>deploy/web/.k2e/svc.yaml:3</code></td><td>Service: metadata.name is required</td>',
    );
    expect(html).toContain(
      '<td>warning</td><td><code>deploy/web/.k2e/cm.yaml:1</code></td><td>a &lt;b&gt; tag</td>',
    );
    expect(html).not.toContain('no place');
  });

  test('rows are left out, with a note, to fit the limit', () => {
    const whole = Buffer.byteLength(renderFailure());
    const html = renderFailure(whole - 10);
    expect(Buffer.byteLength(html)).toBeLessThanOrEqual(whole - 10);
    expect(html).toContain('… and 1 more (trimmed to fit the summary limit)');
  });
});
