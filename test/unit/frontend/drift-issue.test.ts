// The drift issue's text: stable title and marker, each field `cluster → directory` with who changed
// it, what the rules left out, the heal; values come redacted from the status report.
import { describe, expect, test } from 'vitest';
import type { DriftReport } from '../../../src/core/drift-rules.js';
import {
  changedByText,
  driftIssueBody,
  driftIssueTitle,
  driftMarker,
} from '../../../src/frontend/drift-issue.js';

const report: DriftReport = {
  deployment: 'web',
  namespace: 'shop',
  context: 'prod',
  drifted: true,
  objects: [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: 'shop',
      name: 'db',
      source: '.k2e/db.yaml:1',
      state: 'differs',
      fields: [
        {
          op: 'change',
          path: 'data.password',
          before: '<redacted>',
          after: '<redacted>',
          changedBy: [{ manager: 'kubectl-edit', operation: 'Update', time: '2026-12-07T07:24:54Z' }],
        },
      ],
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'gone',
      namespace: 'shop',
      source: 'cm.yaml:1',
      state: 'missing',
      fields: [],
    },
  ],
  ignored: [
    {
      object: 'Deployment/web',
      path: 'spec.replicas',
      rule: 'hpa',
      reason: 'a HorizontalPodAutoscaler targets the object',
    },
  ],
};

describe('the drift issue', () => {
  test('title and marker are the deployment’s, with the environment when declared', () => {
    expect(driftIssueTitle({ deployment: 'web', namespace: 'shop' })).toBe('Drift: web in shop');
    expect(driftIssueTitle({ deployment: 'web', namespace: 'shop', environment: 'production' })).toBe(
      'Drift: web in shop (production)',
    );
    expect(driftMarker({ deployment: 'web', namespace: 'shop', environment: 'production' })).toBe(
      '<!-- spread-drift production/shop/web -->',
    );
  });

  test('the body: marker first, each object and field with who changed it, ignored and heal', () => {
    const body = driftIssueBody(report, {
      subject: { deployment: 'web', namespace: 'shop' },
      time: new Date('2026-12-07T08:00:00Z'),
      runUrl: 'https://gh/acme/shop/actions/runs/1',
      heal: { revision: 3, recorded: 5 },
    });
    expect(body.split('\n')[0]).toBe('<!-- spread-drift shop/web -->');
    expect(body).toContain('**2 objects** of deployment `web` in namespace `shop` (context `prod`) differ');
    expect(body).toContain('### Secret/db in shop — differs (`.k2e/db.yaml:1`)');
    expect(body).toContain('~ data.password: <redacted> → <redacted>');
    expect(body).toContain('- `data.password`: changed by **kubectl-edit** (Update) at 2026-12-07T07:24:54Z');
    expect(body).toContain('### ConfigMap/gone in shop — missing (`cm.yaml:1`)');
    expect(body).toContain(
      '- Deployment/web `spec.replicas`: a HorizontalPodAutoscaler targets the object (rule `hpa`)',
    );
    expect(body).toContain(
      '**Healed**: revision 3 (the last good deploy) was deployed again as revision 5, then the cluster was compared with it once more in this run',
    );
  });

  test('who changed a field: manager, operation, subresource, time when recorded', () => {
    expect(changedByText([{ manager: 'kubectl', operation: 'Update', subresource: 'scale' }])).toBe(
      'changed by **kubectl** (Update, subresource scale)',
    );
    expect(changedByText([])).toMatch(/^no other field manager owns it/);
  });

  test('a drift too large for one issue body lists what fits and counts the rest, under GitHub’s limit', () => {
    const many: DriftReport = {
      ...report,
      objects: Array.from({ length: 800 }, (_, i) => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: 'shop',
        name: `cm-${i}`,
        source: `cms/cm-${i}.yaml:1`,
        state: 'differs' as const,
        fields: [
          {
            op: 'change' as const,
            path: 'data.value',
            before: 'x'.repeat(60),
            after: 'y'.repeat(60),
            changedBy: [{ manager: 'kubectl-edit', operation: 'Update', time: '2026-12-07T07:24:54Z' }],
          },
        ],
      })),
      ignored: Array.from({ length: 2000 }, (_, i) => ({
        ...report.ignored[0]!,
        object: `Deployment/w-${i}`,
      })),
    };
    const body = driftIssueBody(many, {
      subject: { deployment: 'web', namespace: 'shop' },
      time: new Date('2026-12-07T08:00:00Z'),
      heal: { revision: 3, recorded: 5 },
    });
    expect(body.length).toBeLessThanOrEqual(65_536);
    expect(body).toContain('### ConfigMap/cm-0 in shop');
    expect(body).not.toContain('### ConfigMap/cm-799 in shop');
    expect(body).toMatch(/… and \d+ more drifted objects, not listed/);
    expect(body).toContain('**800 objects**');
    expect(body.trimEnd().endsWith('closed when the cluster matches again.')).toBe(true);
  });
});
