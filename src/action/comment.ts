// The pull request comment of the Action (the plan, or what a push deployed): finds the pull requests
// of a commit and creates or updates spread's one comment on each, through GitHub's REST API.
import { getOctokit } from '@actions/github';

/** Where and how to post a pull request comment. */
export interface CommentTarget {
  readonly token: string;
  /** REST API root, GITHUB_API_URL (tests point it at a local server). */
  readonly apiUrl: string;
  /** `owner/repo`. */
  readonly repository: string;
  readonly pullRequest: number;
}

/**
 * The pull requests a commit belongs to (REST "List pull requests associated with a commit"): for a
 * deploy on `push`, the merged pull request whose plan comment the deploy updates.
 *
 * @throws the API's error.
 */
export async function pullRequestsOf(
  target: Omit<CommentTarget, 'pullRequest'>,
  sha: string,
): Promise<number[]> {
  const [owner, repo] = target.repository.split('/');
  if (!owner || !repo) throw new Error(`GITHUB_REPOSITORY "${target.repository}" is not owner/repo`);
  const octokit = getOctokit(target.token, { baseUrl: target.apiUrl });
  const { data } = await octokit.rest.repos.listPullRequestsAssociatedWithCommit({
    owner,
    repo,
    commit_sha: sha,
    per_page: 100,
  });
  return data.map((p) => p.number);
}

/** What {@link upsertComment} did. */
export interface CommentResult {
  readonly action: 'created' | 'updated' | 'unchanged';
  readonly id: number;
  readonly url: string;
}

/**
 * Creates the pull request comment holding `marker`, or updates the one a previous run created
 * (the first comment whose body contains the marker), so each deployment has exactly one plan comment
 * that follows the latest push. A body equal to the current one is left alone.
 *
 * @throws the API's error (e.g. 403 for a fork's read-only token); the caller decides whether it fails the step.
 */
export async function upsertComment(
  target: CommentTarget,
  marker: string,
  body: string,
): Promise<CommentResult> {
  const [owner, repo] = target.repository.split('/');
  if (!owner || !repo) throw new Error(`GITHUB_REPOSITORY "${target.repository}" is not owner/repo`);
  const octokit = getOctokit(target.token, { baseUrl: target.apiUrl });
  const issue = { owner, repo, issue_number: target.pullRequest };
  const comments = await octokit.paginate(octokit.rest.issues.listComments, { ...issue, per_page: 100 });
  const existing = comments.find((c) => c.body?.includes(marker));
  if (!existing) {
    const { data } = await octokit.rest.issues.createComment({ ...issue, body });
    return { action: 'created', id: data.id, url: data.html_url };
  }
  if (existing.body === body) return { action: 'unchanged', id: existing.id, url: existing.html_url };
  const { data } = await octokit.rest.issues.updateComment({ owner, repo, comment_id: existing.id, body });
  return { action: 'updated', id: data.id, url: data.html_url };
}

/**
 * Why posting the plan comment failed, in words that match what happened. Only an answer that is about
 * the token's rights (HTTP 403, or the 404 GitHub gives for what a token may not see) names the
 * permission the token needs; an unreachable API (DNS, refused connection: Octokit reports those as
 * status 500 without a response), a refused token (401), a rate limit or a server error says so.
 *
 * @param error what {@link upsertComment} threw (an Octokit RequestError, or any error).
 * @param apiUrl GITHUB_API_URL, named when it could not be reached.
 */
export function describeCommentError(error: unknown, apiUrl: string): string {
  const e = error as {
    status?: unknown;
    response?: { headers?: Record<string, unknown> };
    message?: unknown;
  };
  const message = String(e?.message ?? error);
  const status = typeof e?.status === 'number' ? e.status : undefined;
  if (status === undefined || !e.response) return `could not reach the GitHub API at ${apiUrl}: ${message}`;
  const http = `HTTP ${status}: ${message}`;
  if (status === 401) return `the GitHub API refused the token (${http}): is github-token a valid token?`;
  if (
    (status === 403 || status === 429) &&
    (/rate limit/i.test(message) || String(e.response.headers?.['x-ratelimit-remaining']) === '0')
  )
    return `the GitHub API's rate limit was reached (${http}); the next run posts the plan`;
  if (status === 403 || status === 404)
    return `the token may not comment on the pull request (${http}): it needs pull-requests: write, which the read-only token of a fork's pull request lacks`;
  return `the GitHub API answered ${http}`;
}
