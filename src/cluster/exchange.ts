// One HTTP request and its whole answer, written so that Node's kept-alive sockets hold no finished
// request or answer (a deploy's first LIST pages would otherwise live through the whole rollout wait).
import type http from 'node:http';
import type https from 'node:https';

/**
 * One HTTP request and its whole answer: status, headers and body as text (any status); rejects on a
 * connection error or after `options.timeout` ms of silence (`ETIMEDOUT`).
 *
 * The listeners left on the request reach the promise only through `pending`, cleared once it is
 * settled, and the body's chunks are let go once read: Node's https.Agent keeps, as long as a
 * kept-alive socket lives, a listener that holds the socket's first request, and through that
 * request's listeners its answer (the first LIST pages of a deploy, held through the rollout wait).
 */
export function exchange(
  transport: typeof http | typeof https,
  url: URL,
  options: https.RequestOptions,
  body: string | undefined,
  what: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; raw: string }> {
  type Answer = { status: number; headers: http.IncomingHttpHeaders; raw: string };
  let pending: { resolve: (a: Answer) => void; reject: (e: unknown) => void } | undefined;
  const promise = new Promise<Answer>((resolve, reject) => {
    pending = { resolve, reject };
  });
  const settle = (outcome: { answer: Answer } | { error: unknown }) => {
    const p = pending;
    pending = undefined;
    if ('answer' in outcome) p?.resolve(outcome.answer);
    else p?.reject(outcome.error);
  };
  const r = transport.request(url, options, (res) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('error', (error) => settle({ error }));
    res.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      chunks.length = 0;
      settle({ answer: { status: res.statusCode ?? 0, headers: res.headers, raw } });
    });
  });
  r.on('timeout', () =>
    r.destroy(Object.assign(new Error(`request timed out: ${what}`), { code: 'ETIMEDOUT' })),
  );
  r.on('error', (error) => settle({ error }));
  r.end(body);
  return promise;
}
