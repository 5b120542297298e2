// A stand-in for the GitHub REST API on 127.0.0.1: the issue comments of one repository, which is what
// the Action's pull request plan comment uses (list, create, update). Point GITHUB_API_URL at `url`.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An issue (pull request) comment, as the REST API returns it. */
export interface Comment {
  id: number;
  issue: number;
  body: string;
  html_url: string;
}

/** The running stand-in and what it has seen. */
export interface GitHubApi {
  /** Its base URL, `http://127.0.0.1:PORT` (GITHUB_API_URL). */
  url: string;
  /** The comments, in the order they were created. */
  comments: Comment[];
  /** `METHOD /path` of every request, in order; clear it with `requests.length = 0`. */
  requests: string[];
  /** Every Authorization header seen. */
  auth: Set<string>;
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<Record<string, string>> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text ? JSON.parse(text) : {};
}

/**
 * Starts the stand-in for `repository` (`owner/name`): GET and POST
 * /repos/{repository}/issues/{number}/comments, PATCH /repos/{repository}/issues/comments/{id};
 * anything else answers 404, and the comments of pull request 500 answer 500. Comment URLs point to
 * https://gh/{repository}/pull/{number}.
 */
export function startGitHubApi(repository = 'acme/shop'): Promise<GitHubApi> {
  const comments: Comment[] = [];
  const requests: string[] = [];
  const auth = new Set<string>();
  let nextId = 1000;
  const prefix = `/repos/${repository}/issues/`;
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(`${req.method} ${url.pathname}`);
    auth.add(String(req.headers.authorization));
    const json = (status: number, data: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(data));
    };
    const rest = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : '';
    const list = /^(\d+)\/comments$/.exec(rest);
    // Pull request 500: GitHub having a bad moment.
    if (list?.[1] === '500') return json(500, { message: 'Server Error' });
    const one = /^comments\/(\d+)$/.exec(rest);
    if (list && req.method === 'GET')
      return json(
        200,
        comments.filter((c) => c.issue === Number(list[1])),
      );
    if (list && req.method === 'POST') {
      const id = nextId++;
      const c = {
        id,
        issue: Number(list[1]),
        body: (await body(req)).body!,
        html_url: `https://gh/${repository}/pull/${list[1]}#issuecomment-${id}`,
      };
      comments.push(c);
      return json(201, c);
    }
    if (one && req.method === 'PATCH') {
      const c = comments.find((x) => x.id === Number(one[1]));
      if (!c) return json(404, { message: 'Not Found' });
      c.body = (await body(req)).body!;
      return json(200, c);
    }
    json(404, { message: 'Not Found' });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        comments,
        requests,
        auth,
        close: () => new Promise<void>((done) => server.close(() => done())),
      }),
    ),
  );
}
