import { describe, expect, test } from 'vitest';
import {
  COMMENT_LIMIT_CHARS,
  formatPlanMarkdown,
  planMarker,
  renderPlanComment,
} from '../../../src/report/comment.js';
import type { DeployReport, ObjectReport } from '../../../src/report/report.js';

const base = { deployment: 'web', namespace: 'team-a', context: 'production', rollout: [], durationMs: 1234 };
const obj = (
  kind: string,
  name: string,
  action: ObjectReport['action'],
  extra: Partial<ObjectReport> = {},
): ObjectReport => ({
  apiVersion: kind === 'Deployment' ? 'apps/v1' : 'v1',
  kind,
  namespace: 'team-a',
  name,
  action,
  source: `${name}.yaml:1`,
  ...extra,
});

const plan: DeployReport = {
  ...base,
  mode: 'plan',
  objects: [
    obj('ConfigMap', 'settings', 'unchanged'),
    obj('Deployment', 'web', 'update', {
      changes: [
        { op: 'change', path: 'spec.replicas', before: '2', after: '3' },
        { op: 'add', path: 'metadata.labels.tier', after: '"front"' },
      ],
    }),
    obj('Secret', 'db', 'update', {
      changes: [{ op: 'change', path: 'data.password', before: '<redacted>', after: '<redacted>' }],
    }),
    obj('Service', 'web', 'create'),
    obj('Service', 'old', 'prune', { source: '' }),
  ],
};

describe('formatPlanMarkdown', () => {
  test('counts, a table of what changes (creates first), collapsed diffs, unchanged collapsed', () => {
    const md = formatPlanMarkdown(plan, {
      sha: '0123456789abcdef',
      runUrl: 'https://gh/run/1',
      commitUrl: 'https://gh/c/0123',
    });
    expect(md).toContain('### Plan: `web` → context `production`, namespace `team-a`');
    expect(md).toContain('**1** to create · **2** to update · **1** to prune · 1 unchanged');
    const rows = md.split('\n').filter((l) => l.startsWith('| '));
    expect(rows.slice(2)).toEqual([
      '| ➕ create | `service/web` | team-a | `web.yaml:1` |',
      '| ✏️ update | `deployment.apps/web` | team-a | `web.yaml:1` |',
      '| ✏️ update | `secret/db` | team-a | `db.yaml:1` |',
      '| 🗑️ prune | `service/old` | team-a |  |',
    ]);
    expect(md).toContain(
      '<summary>✏️ <code>deployment.apps/web</code> in <code>team-a</code>: 2 fields changed</summary>',
    );
    expect(md).toContain(
      '```diff\n- spec.replicas: 2\n+ spec.replicas: 3\n+ metadata.labels.tier: "front"\n```',
    );
    expect(md).toContain('<summary>1 object unchanged</summary>');
    expect(md).toContain('commit [`0123456`](https://gh/c/0123) · [run](https://gh/run/1)');
    expect(md).not.toContain('settings.yaml');
  });

  test('no changes: one line', () => {
    const md = formatPlanMarkdown({
      ...plan,
      objects: [obj('ConfigMap', 'a', 'unchanged'), obj('Service', 'b', 'unchanged')],
    });
    expect(md).toContain(
      '✅ **No changes.** The cluster already matches the directory (2 objects up to date).',
    );
    expect(md).not.toContain('| --- |');
  });

  test('an unchanged object that holds fields the directory does not declare is listed, not "no changes"', () => {
    const note = 'helm owns data.b, which the directory does not declare: a deploy leaves it';
    const md = formatPlanMarkdown({
      ...plan,
      objects: [obj('ConfigMap', 'a', 'unchanged', { note }), obj('Service', 'b', 'unchanged')],
    });
    expect(md).not.toContain('No changes');
    expect(
      md
        .split('\n')
        .filter((l) => l.startsWith('| '))
        .slice(2),
    ).toEqual([`| · unchanged | \`configmap/a\` (${note}) | team-a | \`a.yaml:1\` |`]);
    expect(md).toContain('<summary>1 object unchanged</summary>');
  });

  test('a deploy report reads in past tense', () => {
    const md = formatPlanMarkdown({ ...base, mode: 'deploy', objects: [obj('Service', 'web', 'created')] });
    expect(md).toContain('### Deploy: `web`');
    expect(md).toContain('**1** created · **0** configured · **0** pruned · 0 unchanged');
  });

  test('backticks in values get a longer fence; pipes in names are escaped', () => {
    const md = formatPlanMarkdown({
      ...plan,
      objects: [
        obj('ConfigMap', 'a|b', 'update', { changes: [{ op: 'add', path: 'data.x', after: '"```"' }] }),
      ],
    });
    expect(md).toContain('````diff\n+ data.x: "```"\n````');
    expect(md).toContain('`configmap/a\\|b`');
  });
});

describe('trimming', () => {
  const many: DeployReport = {
    ...base,
    mode: 'plan',
    objects: Array.from({ length: 400 }, (_, i) =>
      obj('ConfigMap', `cm-${i}`, 'update', {
        changes: Array.from({ length: 20 }, (_, j) => ({
          op: 'change' as const,
          path: `data.key${j}`,
          before: `"${'a'.repeat(50)}"`,
          after: `"${'b'.repeat(50)}"`,
        })),
      }),
    ),
  };

  test("a comment stays within GitHub's limit: diffs go first, with a link to the run", () => {
    const body = renderPlanComment(many, { runUrl: 'https://gh/run/9' });
    expect(body.length).toBeLessThanOrEqual(COMMENT_LIMIT_CHARS);
    expect(body.startsWith(`${planMarker(many)}\n`)).toBe(true);
    expect(body).toContain(
      "The [run's summary](https://gh/run/9) has more of it; all of it is in the file the step's output report-file names",
    );
    expect(body.split('\n').filter((l) => l.startsWith('| ✏️')).length).toBe(400);
    expect(body).toContain('<summary>✏️ <code>configmap/cm-0</code>');
    expect(body).not.toContain('configmap/cm-399</code> in');
  });

  test('with a tiny limit, rows go too, counted', () => {
    const md = formatPlanMarkdown(many, { limit: 3000 });
    expect(md.length).toBeLessThanOrEqual(3000);
    expect(md).toMatch(/… and \d+ more objects/);
    expect(md).toContain('**400** to update');
  });

  test('an untrimmed plan carries no note', () => {
    expect(renderPlanComment(plan)).not.toContain('trimmed');
  });
});

test('planMarker', () => {
  expect(planMarker(plan)).toBe('<!-- spread-plan:production/team-a/web -->');
});
