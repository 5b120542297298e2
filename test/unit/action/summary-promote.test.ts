import * as core from '@actions/core';
import { describe, expect, test } from 'vitest';
import { addDeploySummary } from '../../../src/action/summary.js';
import type { PromoteReport } from '../../../src/core/promote.js';
import { promotionMarkdown } from '../../../src/gitlab/markdown.js';

const digest = `sha256:${'a'.repeat(64)}`;
const reference = `localhost:5000/shop/web:ctx-0123456789ab@${digest}`;
const promoted = (unchanged: boolean): PromoteReport => ({
  deployment: 'shop',
  namespace: 'shop-production',
  context: 'prod',
  mode: 'deploy',
  revision: 2,
  objects: [],
  rollout: [],
  durationMs: 1000,
  promotion: {
    from: {
      environment: 'staging',
      revision: 4,
      deployment: 'shop',
      namespace: 'shop-staging',
      context: 'stg',
    },
    to: 'production',
    commit: '0123456789abcdef0123456789abcdef01234567',
    images: [{ mark: '&web', reference, digest }],
    unchanged,
  },
});

describe('what a promotion says it promoted', () => {
  test('the job summary: from where, the commit, each marker with its digest', () => {
    addDeploySummary(core.summary, promoted(false), { operation: 'promote' });
    const text = core.summary.stringify();
    core.summary.emptyBuffer();
    expect(text).toContain('⏩ spread promote: shop → prod');
    expect(text).toContain(
      'Promoted staging revision 4 to <strong>production</strong> · commit <code>0123456789ab</code> · nothing built',
    );
    expect(text).toContain(`<td><code>&amp;web</code></td><td><code>${reference}</code></td>`);
  });

  test('a second promotion says the target already runs it', () => {
    addDeploySummary(core.summary, promoted(true), { operation: 'promote' });
    const text = core.summary.stringify();
    core.summary.emptyBuffer();
    expect(text).toContain('<strong>production</strong> already runs staging revision 4: nothing changed');
  });

  test("the GitLab component's summary.md", () => {
    expect(promotionMarkdown(promoted(false))).toBe(
      `Promoted staging revision 4 to **production** · commit \`0123456789ab\` · nothing built\n\n| Image | Digest |\n| --- | --- |\n| \`&web\` | \`${reference}\` |\n\n`,
    );
    expect(promotionMarkdown({ objects: [] })).toBe('');
  });
});
