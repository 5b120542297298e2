import { describe, expect, test } from 'vitest';
import { describeDeploymentError } from '../../../src/action/deployments.js';

const http = (status: number, message: string) =>
  Object.assign(new Error(message), { status, response: { headers: {} } });

describe('describeDeploymentError', () => {
  test.each<[string, unknown, RegExp]>([
    [
      '403 names the permission',
      http(403, 'Resource not accessible by integration'),
      /^the token lacks the permission deployments: write \(HTTP 403: Resource not accessible by integration\)/,
    ],
    ['404 names it too (what a token may not see)', http(404, 'Not Found'), /deployments: write \(HTTP 404/],
    [
      '401 is about the token itself',
      http(401, 'Bad credentials'),
      /^the GitHub API refused the token \(HTTP 401/,
    ],
    ['a server error says so', http(502, 'Bad Gateway'), /^the GitHub API answered HTTP 502: Bad Gateway$/],
    [
      'no response: not reached',
      new Error('connect ECONNREFUSED 127.0.0.1:1'),
      /^the GitHub API could not be reached: connect ECONNREFUSED/,
    ],
  ])('%s', (_, error, expected) => expect(describeDeploymentError(error)).toMatch(expected));
});
