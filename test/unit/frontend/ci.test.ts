import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { checkoutOf, ciContext, DEPLOY_ANNOTATIONS, deployAnnotations } from '../../../src/frontend/ci.js';

const outsideGit = mkdtempSync(path.join(tmpdir(), 'spread-nogit-'));

describe('ciContext', () => {
  test.each([
    [
      'GitHub Actions',
      {
        GITHUB_SHA: 'abc123',
        GITHUB_RUN_ID: '7',
        GITHUB_REPOSITORY: 'o/r',
        GITHUB_SERVER_URL: 'https://ghe.example',
      },
      { commit: 'abc123', runUrl: 'https://ghe.example/o/r/actions/runs/7' },
    ],
    [
      'GitLab',
      { CI_COMMIT_SHA: 'def456', CI_JOB_URL: 'https://gl.example/o/r/-/jobs/9' },
      { commit: 'def456', runUrl: 'https://gl.example/o/r/-/jobs/9' },
    ],
    ['nothing outside git', {}, {}],
  ])('%s', (_name, env, expected) => {
    expect(ciContext(env, outsideGit)).toEqual(expected);
  });

  test('falls back to git rev-parse HEAD', () => {
    expect(ciContext({}, process.cwd()).commit).toMatch(/^[0-9a-f]{40}$/);
  });
});

test('deployAnnotations', () => {
  expect(deployAnnotations({ commit: 'c' }, new Date('2026-01-02T03:04:05Z'))).toEqual({
    [DEPLOY_ANNOTATIONS.commit]: 'c',
    [DEPLOY_ANNOTATIONS.time]: '2026-01-02T03:04:05.000Z',
  });
});

describe('checkoutOf (what promote compares with the revision)', () => {
  test("a git work tree: its real HEAD over the CI's commit, and the directory's uncommitted changes", () => {
    const repo = mkdtempSync(path.join(tmpdir(), 'spread-git-'));
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
        cwd: repo,
        stdio: ['ignore', 'pipe', 'ignore'],
      })
        .toString()
        .trim();
    git('init', '-q');
    mkdirSync(path.join(repo, 'deploy'));
    writeFileSync(path.join(repo, 'deploy', 'a.yaml'), 'a: 1\n');
    writeFileSync(path.join(repo, 'other.txt'), 'x\n');
    git('add', '.');
    git('commit', '-q', '-m', 'one');
    const head = git('rev-parse', 'HEAD');
    const dir = path.join(repo, 'deploy');
    const ciCommit = 'f'.repeat(40);
    expect(checkoutOf(dir, ciCommit)).toEqual({ commit: head, uncommitted: [] });
    writeFileSync(path.join(dir, 'a.yaml'), 'a: 2\n');
    writeFileSync(path.join(dir, 'new.yaml'), 'b: 1\n');
    // A change outside the directory is not the deployment's, nor the GitLab job's own .spread/.
    mkdirSync(path.join(dir, '.spread'));
    writeFileSync(path.join(dir, '.spread', 'report.json'), '{}\n');
    writeFileSync(path.join(repo, 'other.txt'), 'y\n');
    expect(checkoutOf(dir, ciCommit)).toEqual({
      commit: head,
      uncommitted: [' M deploy/a.yaml', '?? deploy/new.yaml'],
    });
  });

  test("outside git: the CI's commit, no changes known", () => {
    expect(checkoutOf(outsideGit, 'abc123')).toEqual({ commit: 'abc123', uncommitted: [] });
    expect(checkoutOf(outsideGit, undefined)).toEqual({ uncommitted: [] });
  });
});
