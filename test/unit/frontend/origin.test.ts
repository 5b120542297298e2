import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { deploymentOrigin, repositoryOfRemote } from '../../../src/frontend/origin.js';

describe('repositoryOfRemote', () => {
  test.each([
    ['git@github.com:Acme/Shop.git', 'github.com/acme/shop'],
    ['https://github.com/acme/shop.git', 'github.com/acme/shop'],
    ['https://x-access-token:s3cr3t@github.com/acme/shop.git/', 'github.com/acme/shop'],
    ['ssh://git@gitlab.example:2222/group/sub/app.git', 'gitlab.example/group/sub/app'],
    ['/srv/git/shop.git', '/srv/git/shop'],
    ['not a remote', undefined],
  ])('%s', (remote, expected) => {
    expect(repositoryOfRemote(remote)).toBe(expected);
    // A credential in the remote never reaches the origin (it is written to the parent).
    expect(repositoryOfRemote(remote) ?? '').not.toContain('s3cr3t');
  });
});

describe('deploymentOrigin', () => {
  const outsideGit = mkdtempSync(path.join(tmpdir(), 'spread-origin-'));
  const dir = path.join(outsideGit, 'deploy', 'k8s');
  mkdirSync(dir, { recursive: true });

  test.each([
    [
      'GitHub Actions: the repository and the path inside the workspace',
      {
        GITHUB_REPOSITORY: 'Acme/Shop',
        GITHUB_SERVER_URL: 'https://github.com',
        GITHUB_WORKSPACE: outsideGit,
      },
      { repository: 'github.com/acme/shop', path: 'deploy/k8s' },
    ],
    [
      'GitLab CI',
      { CI_PROJECT_PATH: 'group/shop', CI_SERVER_HOST: 'gitlab.example', CI_PROJECT_DIR: outsideGit },
      { repository: 'gitlab.example/group/shop', path: 'deploy/k8s' },
    ],
    ['no CI and no git: the absolute path', {}, { path: dir.split(path.sep).join('/') }],
  ])('%s', (_what, env, expected) => {
    expect(deploymentOrigin(env, dir)).toEqual(expected);
  });

  test('a git work tree with a remote: the remote and the path from its top level', () => {
    const repo = mkdtempSync(path.join(tmpdir(), 'spread-origin-git-'));
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
    git('init', '-q');
    git('remote', 'add', 'origin', 'https://token@github.com/acme/shop.git');
    mkdirSync(path.join(repo, 'app'));
    expect(deploymentOrigin({}, path.join(repo, 'app'))).toEqual({
      repository: 'github.com/acme/shop',
      path: 'app',
    });
    expect(deploymentOrigin({}, repo)).toEqual({ repository: 'github.com/acme/shop', path: '.' });
  });
});
