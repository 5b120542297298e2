// A stand-in for the GitHub REST API on 127.0.0.1, for one repository: the issue comments the
// Action's pull request plan comment uses (list, create, update), the Deployments API of the
// input `deployment` (create a deployment, list them by environment, create and list statuses), and
// the Issues API of mode drift (list by label and state, create, update, comment, close).
// Point GITHUB_API_URL at `url`.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An issue (pull request) comment, as the REST API returns it. */
export interface Comment {
  id: number;
  issue: number;
  body: string;
  html_url: string;
}

/** A deployment status, as the REST API returns it. */
export interface DeploymentStatus {
  id: number;
  state: string;
  environment_url?: string;
  log_url?: string;
  description?: string;
  auto_inactive?: boolean;
}

/** A deployment, as the REST API returns it, with its statuses (oldest first). */
export interface Deployment {
  id: number;
  sha: string;
  ref: string;
  environment: string;
  transient_environment: boolean;
  required_contexts: string[];
  auto_merge: boolean;
  description: string;
  statuses: DeploymentStatus[];
}

/** An issue, as the REST API returns it (labels as objects with a name). */
export interface Issue {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  state_reason: string | null;
  labels: { name: string }[];
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
  /** The deployments, in the order they were created. */
  deployments: Deployment[];
  /**
   * Each Deployments API call in order, as `create <environment>`, `list <environment>`,
   * `statuses <id>`, `status <id> <state>`; clear it with `deploymentCalls.length = 0`.
   */
  deploymentCalls: string[];
  /** The pull requests of a commit (GET /repos/{r}/commits/{sha}/pulls), by sha; none when absent. */
  commitPulls: Record<string, number[]>;
  /** Tokens (`token X` Authorization values) without `deployments: write`: their Deployments calls answer 403. */
  noDeploymentsWrite: Set<string>;
  /** The issues (not pull requests), in the order they were created; their comments are in `comments`. */
  issues: Issue[];
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text ? JSON.parse(text) : {};
}

/**
 * Starts the stand-in for `repository` (`owner/name`): GET and POST
 * /repos/{repository}/issues/{number}/comments, PATCH /repos/{repository}/issues/comments/{id};
 * POST and GET (`?environment=`) /repos/{repository}/deployments (newest first, as GitHub lists
 * them), POST and GET /repos/{repository}/deployments/{id}/statuses (newest first, `per_page`);
 * GET /repos/{repository}/commits/{sha}/pulls (from `commitPulls`);
 * anything else answers 404, and the comments of pull request 500 answer 500. Comment URLs point to
 * https://gh/{repository}/pull/{number}. A token in `noDeploymentsWrite` gets GitHub's 403
 * "Resource not accessible by integration" from the Deployments API.
 */
export function startGitHubApi(repository = 'acme/shop'): Promise<GitHubApi> {
  const comments: Comment[] = [];
  const requests: string[] = [];
  const auth = new Set<string>();
  const deployments: Deployment[] = [];
  const deploymentCalls: string[] = [];
  const noDeploymentsWrite = new Set<string>();
  const commitPulls: Record<string, number[]> = {};
  const issues: Issue[] = [];
  let nextId = 1000;
  let nextIssue = 100;
  const prefix = `/repos/${repository}/issues/`;
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(`${req.method} ${url.pathname}`);
    auth.add(String(req.headers.authorization));
    const json = (status: number, data: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(data));
    };
    const pulls = new RegExp(`^/repos/${repository}/commits/([0-9a-f]+)/pulls$`).exec(url.pathname);
    if (pulls && req.method === 'GET')
      return json(
        200,
        (commitPulls[pulls[1]!] ?? []).map((number) => ({ number, state: 'closed' })),
      );
    const deploys = `/repos/${repository}/deployments`;
    if (url.pathname === deploys || url.pathname.startsWith(`${deploys}/`)) {
      if (noDeploymentsWrite.has(String(req.headers.authorization)))
        return json(403, {
          message: 'Resource not accessible by integration',
          documentation_url: 'https://docs.github.com/rest/deployments/deployments#create-a-deployment',
        });
      if (url.pathname === deploys && req.method === 'POST') {
        const b = await body(req);
        const d: Deployment = {
          id: nextId++,
          sha: String(b.ref),
          ref: String(b.ref),
          environment: String(b.environment ?? 'production'),
          transient_environment: b.transient_environment === true,
          required_contexts: (b.required_contexts as string[] | undefined) ?? ['(all)'],
          auto_merge: b.auto_merge !== false,
          description: String(b.description ?? ''),
          statuses: [],
        };
        deployments.push(d);
        deploymentCalls.push(`create ${d.environment}`);
        const { statuses: _, ...shown } = d;
        return json(201, shown);
      }
      if (url.pathname === deploys && req.method === 'GET') {
        const environment = url.searchParams.get('environment');
        deploymentCalls.push(`list ${environment ?? '(all)'}`);
        return json(
          200,
          deployments
            .filter((d) => environment === null || d.environment === environment)
            .reverse()
            .map(({ statuses: _, ...d }) => d),
        );
      }
      const statuses = /^\/(\d+)\/statuses$/.exec(url.pathname.slice(deploys.length));
      const d = statuses ? deployments.find((x) => x.id === Number(statuses[1])) : undefined;
      if (!d) return json(404, { message: 'Not Found' });
      if (req.method === 'POST') {
        const b = await body(req);
        const s: DeploymentStatus = { id: nextId++, state: String(b.state) };
        for (const k of ['environment_url', 'log_url', 'description'] as const)
          if (typeof b[k] === 'string') s[k] = b[k];
        if (typeof b.auto_inactive === 'boolean') s.auto_inactive = b.auto_inactive;
        d.statuses.push(s);
        deploymentCalls.push(`status ${d.id} ${s.state}`);
        return json(201, s);
      }
      if (req.method === 'GET') {
        deploymentCalls.push(`statuses ${d.id}`);
        const perPage = Number(url.searchParams.get('per_page') ?? 30);
        return json(200, [...d.statuses].reverse().slice(0, perPage));
      }
      return json(404, { message: 'Not Found' });
    }
    // The Issues API: GET lists by `labels` (comma-separated, all required) and `state` (default
    // open), newest first as GitHub does; POST creates; PATCH /issues/{n} changes title, body, state.
    if (url.pathname === `/repos/${repository}/issues`) {
      if (req.method === 'GET') {
        const labels = (url.searchParams.get('labels') ?? '').split(',').filter((l) => l);
        const state = url.searchParams.get('state') ?? 'open';
        return json(
          200,
          [...issues]
            .reverse()
            .filter((i) => state === 'all' || i.state === state)
            .filter((i) => labels.every((l) => i.labels.some((x) => x.name === l))),
        );
      }
      if (req.method === 'POST') {
        const b = await body(req);
        if (typeof b.title !== 'string' || !b.title) return json(422, { message: 'Validation Failed' });
        const number = nextIssue++;
        const issue: Issue = {
          number,
          title: b.title,
          body: String(b.body ?? ''),
          state: 'open',
          state_reason: null,
          labels: ((b.labels as string[] | undefined) ?? []).map((name) => ({ name })),
          html_url: `https://gh/${repository}/issues/${number}`,
        };
        issues.push(issue);
        return json(201, issue);
      }
    }
    const issueNumber = url.pathname.startsWith(prefix)
      ? /^(\d+)$/.exec(url.pathname.slice(prefix.length))
      : null;
    if (issueNumber) {
      const issue = issues.find((i) => i.number === Number(issueNumber[1]));
      if (!issue) return json(404, { message: 'Not Found' });
      if (req.method === 'GET') return json(200, issue);
      if (req.method === 'PATCH') {
        const b = await body(req);
        if (typeof b.title === 'string') issue.title = b.title;
        if (typeof b.body === 'string') issue.body = b.body;
        if (b.state === 'open' || b.state === 'closed') issue.state = b.state;
        if (typeof b.state_reason === 'string') issue.state_reason = b.state_reason;
        return json(200, issue);
      }
    }
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
        body: String((await body(req)).body),
        html_url: `https://gh/${repository}/pull/${list[1]}#issuecomment-${id}`,
      };
      comments.push(c);
      return json(201, c);
    }
    if (one && req.method === 'PATCH') {
      const c = comments.find((x) => x.id === Number(one[1]));
      if (!c) return json(404, { message: 'Not Found' });
      c.body = String((await body(req)).body);
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
        deployments,
        deploymentCalls,
        noDeploymentsWrite,
        commitPulls,
        issues,
        close: () => new Promise<void>((done) => server.close(() => done())),
      }),
    ),
  );
}
