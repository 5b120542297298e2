// A stand-in for GitLab's REST API (v4) on 127.0.0.1, for one project: the Issues API of the
// component's mode drift, as GitLab documents it (list by labels and state, create, edit with
// description or state_event, notes). Point CI_API_V4_URL at `url`.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An issue, as GitLab returns it (labels as names), with its notes. */
export interface GitLabIssue {
  iid: number;
  title: string;
  description: string;
  state: 'opened' | 'closed';
  labels: string[];
  web_url: string;
  notes: string[];
}

/** The running stand-in and what it has seen. */
export interface GitLabApi {
  /** `http://127.0.0.1:PORT/api/v4` (CI_API_V4_URL). */
  url: string;
  issues: GitLabIssue[];
  /** `METHOD /path` of every request. */
  requests: string[];
  /** Every PRIVATE-TOKEN header seen. */
  tokens: Set<string>;
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text ? JSON.parse(text) : {};
}

/**
 * Starts the stand-in for project `projectId`: GET /projects/:id/issues (`labels` comma-separated,
 * all required; `state` opened, closed or all), POST /projects/:id/issues (`labels` a comma-separated
 * string), PUT /projects/:id/issues/:iid (`description`, `title`, `state_event` close or reopen), POST
 * /projects/:id/issues/:iid/notes. Anything else answers 404.
 */
export function startGitLabApi(projectId = '42'): Promise<GitLabApi> {
  const issues: GitLabIssue[] = [];
  const requests: string[] = [];
  const tokens = new Set<string>();
  const base = `/api/v4/projects/${projectId}/issues`;
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(`${req.method} ${url.pathname}`);
    tokens.add(String(req.headers['private-token']));
    const json = (status: number, data: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(data));
    };
    const shown = ({ notes: _, ...i }: GitLabIssue) => i;
    if (url.pathname === base && req.method === 'GET') {
      const labels = (url.searchParams.get('labels') ?? '').split(',').filter((l) => l);
      const state = url.searchParams.get('state') ?? 'all';
      return json(
        200,
        [...issues]
          .reverse()
          .filter((i) => state === 'all' || i.state === state)
          .filter((i) => labels.every((l) => i.labels.includes(l)))
          .map(shown),
      );
    }
    if (url.pathname === base && req.method === 'POST') {
      const b = await body(req);
      if (typeof b.title !== 'string' || !b.title) return json(400, { message: 'title is missing' });
      const iid = issues.length + 1;
      const issue: GitLabIssue = {
        iid,
        title: b.title,
        description: String(b.description ?? ''),
        state: 'opened',
        labels: String(b.labels ?? '')
          .split(',')
          .filter((l) => l),
        web_url: `https://gitlab.example/acme/shop/-/issues/${iid}`,
        notes: [],
      };
      issues.push(issue);
      return json(201, shown(issue));
    }
    const one = url.pathname.startsWith(`${base}/`)
      ? /^(\d+)(\/notes)?$/.exec(url.pathname.slice(base.length + 1))
      : null;
    const issue = one ? issues.find((i) => i.iid === Number(one[1])) : undefined;
    if (!one || !issue) return json(404, { message: '404 Not found' });
    const b = await body(req);
    if (one[2] && req.method === 'POST') {
      issue.notes.push(String(b.body));
      return json(201, { id: issue.notes.length, body: b.body });
    }
    if (!one[2] && req.method === 'PUT') {
      if (typeof b.description === 'string') issue.description = b.description;
      if (typeof b.title === 'string') issue.title = b.title;
      if (b.state_event === 'close') issue.state = 'closed';
      if (b.state_event === 'reopen') issue.state = 'opened';
      return json(200, shown(issue));
    }
    json(404, { message: '404 Not found' });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v4`,
        issues,
        requests,
        tokens,
        close: () => new Promise<void>((done) => server.close(() => done())),
      }),
    ),
  );
}
