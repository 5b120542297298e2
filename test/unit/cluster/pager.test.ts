import { describe, expect, test } from 'vitest';
import { KubeApiError, type KubeRequest, type KubeResponse } from '../../../src/cluster/client.js';
import { type ListPage, listInPages } from '../../../src/cluster/pager.js';

/** A client that answers each request with the next of `answers` (a page, or an error to throw). */
function scripted(answers: (ListPage<string> | KubeApiError)[]) {
  const requests: KubeRequest[] = [];
  return {
    requests,
    async request<R>(req: KubeRequest): Promise<KubeResponse<R>> {
      requests.push(req);
      const answer = answers.shift();
      if (!answer) throw new Error('no more answers');
      if (answer instanceof KubeApiError) throw answer;
      return { status: 200, body: answer as R, warnings: [] };
    },
  };
}
const gone = () => new KubeApiError(410, 'GET list', { reason: 'Expired', code: 410 }, '');

describe('listInPages', () => {
  test('follows the continue token page after page, each page to `take`, and answers the last resourceVersion', async () => {
    const client = scripted([
      { items: ['a', 'b'], metadata: { continue: 't1', resourceVersion: '5' } },
      { items: ['c'], metadata: { resourceVersion: '7' } },
    ]);
    const pages: string[][] = [];
    const signal = new AbortController().signal;
    const rv = await listInPages<string>(
      client,
      { path: '/api/v1/pods', pageSize: 2, labelSelector: 'app=x', accept: 'application/json', signal },
      (p) => pages.push(p.items ?? []),
      () => expect.unreachable(),
    );
    expect(rv).toBe('7');
    expect(pages).toEqual([['a', 'b'], ['c']]);
    expect(client.requests.map((r) => r.query)).toEqual([
      { labelSelector: 'app=x', fieldSelector: undefined, limit: 2, continue: undefined },
      { labelSelector: 'app=x', fieldSelector: undefined, limit: 2, continue: 't1' },
    ]);
    expect(client.requests.every((r) => r.accept === 'application/json' && r.signal === signal)).toBe(true);
  });

  test('an expired continue token (410) lists again from the start in one request, after `restart`', async () => {
    const client = scripted([
      { items: ['a'], metadata: { continue: 't1' } },
      gone(),
      { items: ['a', 'b'], metadata: { resourceVersion: '9' } },
    ]);
    const taken: string[] = [];
    const rv = await listInPages<string>(
      client,
      { path: '/api/v1/pods', pageSize: 1 },
      (p) => taken.push(...(p.items ?? [])),
      () => {
        taken.length = 0;
      },
    );
    expect(rv).toBe('9');
    expect(taken).toEqual(['a', 'b']);
    expect(client.requests[2]?.query).toMatchObject({ limit: undefined, continue: undefined });
  });

  test('a 410 of the first request and any other error are thrown', async () => {
    const take = () => undefined;
    await expect(
      listInPages(scripted([gone()]), { path: '/p', pageSize: 1 }, take, take),
    ).rejects.toMatchObject({
      code: 410,
    });
    const forbidden = new KubeApiError(403, 'GET list', { reason: 'Forbidden', code: 403 }, '');
    const client = scripted([{ items: ['a'], metadata: { continue: 't' } }, forbidden]);
    await expect(listInPages(client, { path: '/p', pageSize: 1 }, take, take)).rejects.toBe(forbidden);
  });
});
