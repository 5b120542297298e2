import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { silentLogger } from '../../../src/base/logger.js';
import { InputError } from '../../../src/base/source.js';
import { refusals, sameCommit } from '../../../src/core/promote.js';
import { readDeployment } from '../../../src/core/read.js';
import { parseRevisionSecret, type RevisionSummary } from '../../../src/engine/inventory/history.js';
import { pinPromotedImages } from '../../../src/image/promoted.js';

const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;
const SHA = '0123456789abcdef0123456789abcdef01234567';
const web = (digest: string) => ({
  mark: '&web',
  reference: `localhost:5000/web:ctx-0@${digest}`,
  digest,
});
const revision = (n: number, extra: Partial<RevisionSummary> = {}): RevisionSummary => ({
  deployment: 'shop',
  namespace: 'shop-staging',
  revision: n,
  time: '2026-01-01T00:00:00Z',
  status: 'deployed',
  images: [],
  objectCount: 3,
  secretName: `spread.shop.v${n}`,
  commit: SHA,
  marks: [web(D1)],
  ...extra,
});
const staging = { environment: 'staging' };

describe('what a promotion refuses', () => {
  test('a good revision at the checked-out commit: nothing', () => {
    expect(refusals(staging, revision(1), [revision(1)], SHA)).toEqual([]);
    expect(refusals(staging, revision(1), [revision(1)], SHA.slice(0, 12))).toEqual([]);
  });

  test('a failed rollout, saying which digests the failed revision changed', () => {
    const failed = revision(2, {
      status: 'failed',
      description: 'rollout failed: pod web',
      marks: [web(D2)],
    });
    const [reason, ...more] = refusals(staging, failed, [failed, revision(1)], SHA);
    expect(more).toEqual([]);
    expect(reason).toBe(
      `staging's last rollout failed: revision 2 (rollout failed: pod web); its images differ from revision 1, the last good one: &web sha256:111111111111… → sha256:222222222222…. Fix staging and deploy it again; a promotion takes only a revision whose rollout succeeded`,
    );
    const sameImage = revision(2, { status: 'failed', description: 'rollout failed: pod web' });
    expect(refusals(staging, sameImage, [sameImage, revision(1)], SHA)[0]).not.toContain('differ');
  });

  test('another commit, no commit known, an unpinned image: every reason at once', () => {
    expect(refusals(staging, revision(1), [], 'f'.repeat(40))).toEqual([
      `the checkout is at commit ${'f'.repeat(40)}, but staging's revision 1 ran commit ${SHA}: check out ${SHA} to promote it (a promotion renders the configuration of the commit staging ran)`,
    ]);
    expect(refusals(staging, revision(1), [], undefined)[0]).toMatch(/^the checked-out commit is not known/);
    const unknown = revision(1, {
      commit: undefined,
      marks: [{ mark: '&web', reference: 'localhost:5000/web:v1' }],
    });
    expect(refusals(staging, unknown, [], SHA)).toEqual([
      "staging's revision 1 records no commit (deployed outside CI and git), so nothing ties it to a checkout",
      "staging's revision 1 deployed &web unpinned (localhost:5000/web:v1), so its digest is not known",
    ]);
  });

  test('a revision deployed with --no-wait (its rollout never checked); one recorded before the mark is promotable', () => {
    const unwaited = revision(1, { rolloutUnchecked: true });
    expect(refusals(staging, unwaited, [unwaited], SHA)).toEqual([
      "staging's revision 1 was deployed with --no-wait: its rollout was never checked; deploy staging with the rollout wait (the same commit changes nothing and checks it), then promote",
    ]);
    const old = parseRevisionSecret({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'spread.shop.v1',
        annotations: { 'spread.rsprd.com/revision': '1', 'spread.rsprd.com/commit': SHA },
      },
    });
    expect(refusals(staging, old, [old], SHA)).toEqual([]);
  });

  test('uncommitted changes in the directory, named', () => {
    expect(
      refusals(staging, revision(1), [revision(1)], SHA, [' M deploy/a.yaml', '?? deploy/new.yaml']),
    ).toEqual([
      `the directory has uncommitted changes (git status --porcelain: M deploy/a.yaml; ?? deploy/new.yaml), so the render would not be the configuration of commit ${SHA} that staging ran: commit or discard them`,
    ]);
  });

  test.each([
    [SHA, SHA, true],
    [SHA, SHA.slice(0, 7), true],
    [SHA.toUpperCase(), SHA.slice(0, 10), true],
    [SHA, SHA.slice(0, 6), false],
    [SHA, `${SHA.slice(0, 39)}0`, false],
  ])('sameCommit(%s, %s) is %s', (a, b, same) => {
    expect(sameCommit(a, b)).toBe(same);
  });
});

describe('pinPromotedImages', () => {
  function dir(files: Record<string, string>): string {
    const root = path.join(mkdtempSync(path.join(tmpdir(), 'spread-promote-')), 'app');
    for (const [file, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), content);
    }
    return root;
  }
  const read = (root: string) => readDeployment(root, { namespace: 'default', logger: silentLogger });

  test('every marker pinned to the reference given, reported as neither built nor pushed', async () => {
    const r = await read(dir({ 'web.ctr': 'name: web\nimage: "&web"\n', Dockerfile: 'FROM scratch\n' }));
    const pinned = pinPromotedImages(r.application, r.objects, new Map([['&web', web(D1).reference]]), 'x');
    const deployment = pinned.objects.find((o) => o.object.kind === 'Deployment')!.object as unknown as {
      spec: { template: { spec: { containers: { image: string }[] } } };
    };
    expect(deployment.spec.template.spec.containers[0]!.image).toBe(web(D1).reference);
    expect(pinned.images).toEqual([
      expect.objectContaining({ marks: ['&web'], digest: D1, built: false, pushed: false, tag: 'ctx-0' }),
    ]);
  });

  test('a marker the promoted revision did not deploy is an error at its line', async () => {
    const r = await read(
      dir({
        'web.ctr': 'name: web\nimage: "&web"\n',
        'api/api.ctr': 'name: api\nimage: "&api"\n',
        Dockerfile: 'FROM scratch\n',
        'api/Dockerfile': 'FROM scratch\n',
      }),
    );
    const error = (() => {
      try {
        pinPromotedImages(
          r.application,
          r.objects,
          new Map([['&web', web(D1).reference]]),
          "staging's revision 4",
        );
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toMatch(
      /api\/api\.ctr:2.*image "&api" is not in staging's revision 4, which deployed &web: a promotion builds nothing/,
    );
  });
});
