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
