import { describe, expect, test } from 'vitest';
import { formatHistoryText, formatTable } from '../../../src/cli/manage.js';
import type { RevisionSummary } from '../../../src/engine/inventory/history.js';

const digest = `sha256:${'0123456789abcdef'.repeat(4)}`;
const revision = (n: number, extra: Partial<RevisionSummary> = {}): RevisionSummary => ({
  deployment: 'web',
  namespace: 'prod',
  revision: n,
  time: `2026-01-0${n}T00:00:00.000Z`,
  images: [],
  objectCount: 3,
  secretName: `spread.web.v${n}`,
  status: 'deployed',
  ...extra,
});

describe('spread history text', () => {
  test('every image whole, one a line under IMAGES; STATUS as helm history names it', () => {
    const images = [
      { image: `localhost:5000/team/web@${digest}`, digest },
      { image: `localhost:5000/team/worker@${digest}`, digest },
      { image: 'busybox:1.36' },
    ];
    const text = formatHistoryText({
      deployment: 'web',
      namespace: 'prod',
      context: 'kind',
      current: 3,
      revisions: [
        revision(3, { description: 'rollback to 1', images }),
        revision(2, { status: 'failed', description: 'rollout failed: Deployment prod/web: pod …' }),
        revision(1, { commit: '0123456789abcdef0123', images: images.slice(2) }),
      ],
    });
    const lines = text.split('\n');
    expect(lines[1]).toMatch(/^REVISION\s+TIME\s+STATUS\s+COMMIT\s+OBJECTS\s+IMAGES\s+DESCRIPTION$/);
    const column = lines[1]!.indexOf('IMAGES');
    expect(lines[2]).toMatch(/^3\*\s+2026-01-03T00:00:00.000Z\s+deployed\s+-\s+3\s+/);
    expect(lines[2]!.slice(column)).toMatch(
      new RegExp(`^localhost:5000/team/web@${digest}\\s+rollback to 1$`),
    );
    expect(lines[3]!.slice(0, column).trim()).toBe('');
    expect(lines[3]!.slice(column)).toBe(`localhost:5000/team/worker@${digest}`);
    expect(lines[4]!.slice(column)).toBe('busybox:1.36');
    expect(lines[5]).toMatch(/^2\s+\S+\s+failed\s+-\s+3\s+-\s+rollout failed: Deployment prod\/web: pod …$/);
    expect(lines[6]).toMatch(/^1\s+\S+\s+superseded\s+0123456789ab\s+3\s+busybox:1\.36\s+deploy$/);
  });

  test('formatTable pads columns to the widest line of any cell and cuts nothing', () => {
    expect(
      formatTable([
        ['A', 'B', 'C'],
        ['x\nlonger', 'y', 'z'],
        ['w', 'v', 'u'],
      ]),
    ).toBe('A        B   C\nx        y   z\nlonger\nw        v   u');
  });
});

describe('spread delete text', () => {
  test('a kept Namespace says kept, and why', async () => {
    const { formatDeleteText } = await import('../../../src/cli/manage.js');
    const text = formatDeleteText({
      deployment: 'web',
      namespace: 'shop',
      context: 'kind',
      revisions: 2,
      durationMs: 10,
      objects: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: 'shop',
          name: 'ours',
          action: 'pruned',
          source: 'a.yaml',
        },
        {
          apiVersion: 'v1',
          kind: 'Namespace',
          name: 'shop',
          action: 'kept',
          source: 'ns.yaml',
          note: 'it holds 1 object not of this deployment (configmap/hand-made), which deleting it would delete',
        },
      ],
    });
    expect(text.split('\n')).toEqual([
      'Deleted web from namespace shop (context kind):',
      '  configmap/ours deleted -n shop',
      '  namespace/shop kept: it holds 1 object not of this deployment (configmap/hand-made), which deleting it would delete',
      '  2 revision(s), the ApplySet parent and the lock removed',
      '',
    ]);
  });
});

describe('spread history text with provenance', () => {
  test('an ENVIRONMENT column once a revision names one; a promotion says where from', () => {
    const text = formatHistoryText({
      deployment: 'web',
      namespace: 'prod',
      context: 'kind',
      current: 2,
      revisions: [
        revision(2, {
          environment: 'production',
          commit: '0123456789abcdef0123',
          promotedFrom: { environment: 'staging', revision: 4, deployment: 'web', namespace: 'shop-staging' },
        }),
        revision(1),
      ],
    });
    const lines = text.split('\n');
    expect(lines[1]).toMatch(
      /^REVISION\s+TIME\s+STATUS\s+ENVIRONMENT\s+COMMIT\s+OBJECTS\s+IMAGES\s+DESCRIPTION$/,
    );
    expect(lines[2]).toMatch(
      /^2\*\s+\S+\s+deployed\s+production\s+0123456789ab\s+3\s+-\s+promoted from staging revision 4 \(web in shop-staging\)$/,
    );
    expect(lines[3]).toMatch(/^1\s+\S+\s+superseded\s+-\s+-\s+3\s+-\s+deploy$/);
  });
});
