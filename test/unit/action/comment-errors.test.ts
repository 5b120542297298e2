import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { describeCommentError, upsertComment } from '../../../src/action/comment.js';

// A local HTTP server answers as GitHub's REST API does on failure; the pull request's number picks
// the answer. upsertComment's first request lists the comments.
const answers: Record<number, [number, Record<string, string>, unknown]> = {
  1: [403, {}, { message: 'Resource not accessible by integration' }],
  2: [404, {}, { message: 'Not Found' }],
  3: [500, {}, { message: 'Server Error' }],
  4: [401, {}, { message: 'Bad credentials' }],
  5: [403, { 'x-ratelimit-remaining': '0' }, { message: 'API rate limit exceeded for installation' }],
  6: [502, {}, 'Bad Gateway'],
};
let server: Server;
let apiUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const pr = Number(/\/issues\/(\d+)\/comments/.exec(req.url ?? '')?.[1]);
    const [status, headers, body] = answers[pr] ?? [418, {}, {}];
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, {
      'content-type': typeof body === 'string' ? 'text/plain' : 'application/json',
      ...headers,
    });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

async function failure(pullRequest: number, url = apiUrl): Promise<string> {
  const error = await upsertComment(
    { token: 'ghs_test', apiUrl: url, repository: 'acme/shop', pullRequest },
    '<!-- m -->',
    'body',
  ).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeDefined();
  return describeCommentError(error, url);
}

describe('describeCommentError: only an answer about the token blames its permissions', () => {
  test.each([
    [
      1,
      /^the token may not comment on the pull request \(HTTP 403: Resource not accessible by integration\): it needs pull-requests: write/,
    ],
    [
      2,
      /^the token may not comment on the pull request \(HTTP 404: Not Found\): it needs pull-requests: write/,
    ],
    [3, /^the GitHub API answered HTTP 500: Server Error$/],
    [4, /^the GitHub API refused the token \(HTTP 401: Bad credentials\)/],
    [5, /^the GitHub API's rate limit was reached \(HTTP 403: API rate limit exceeded/],
    [6, /^the GitHub API answered HTTP 502: Bad Gateway$/],
  ])('answer of pull request %i', async (pr, expected) => {
    expect(await failure(pr)).toMatch(expected);
  });

  test('an API that cannot be reached says so, without blaming the token', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const text = await failure(1, url);
    expect(text).toMatch(new RegExp(`^could not reach the GitHub API at ${url}: .*ECONNREFUSED`));
    expect(text).not.toContain('pull-requests: write');
  });

  test('a DNS failure (as Octokit reports it: status 500, no response) says so', () => {
    const dns = Object.assign(new Error('getaddrinfo ENOTFOUND api.github.invalid'), { status: 500 });
    expect(describeCommentError(dns, 'https://api.github.invalid')).toBe(
      'could not reach the GitHub API at https://api.github.invalid: getaddrinfo ENOTFOUND api.github.invalid',
    );
  });
});
