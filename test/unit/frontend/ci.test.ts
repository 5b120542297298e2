import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { ciContext, DEPLOY_ANNOTATIONS, deployAnnotations } from '../../../src/frontend/ci.js';

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
