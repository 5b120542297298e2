// GitHub's Issues API for mode `drift`: the one open issue of a drifted deployment, found by its label
// and marker, created, its body replaced, or commented on and closed when the cluster matches again.
import { getOctokit } from '@actions/github';

/** The repository and token of the drift issues. */
export interface IssueTarget {
  readonly token: string;
  /** REST API root, GITHUB_API_URL (tests point it at a local server). */
  readonly apiUrl: string;
  /** `owner/repo`. */
  readonly repository: string;
}

/** What {@link syncDriftIssue} did. */
export interface IssueResult {
  readonly action: 'created' | 'updated' | 'closed' | 'none';
  /** The issue's number; absent for `none`. */
  readonly number?: number;
  readonly url?: string;
}

/** The issue to keep: its title, label, marker, and the body (drifted) or closing comment (in sync). */
export interface DriftIssue {
  readonly title: string;
  readonly label: string;
  /** Found in the body of the issue a previous run opened. */
  readonly marker: string;
  /** Drifted: the body to create or replace. Absent: the cluster matches, close the issue if open. */
  readonly body?: string;
  readonly closeComment: string;
}

/**
 * Keeps one issue per deployment: lists the open issues with `label` (REST "List repository issues",
 * `labels`, `state=open`; pull requests left out) and takes the one whose body holds `marker`.
 * Drifted: creates it (with the label) or replaces its body. In sync: comments `closeComment` on the
 * open one and closes it (`state_reason: completed`); none open is nothing to do.
 *
 * @throws the API's error (a token without `issues: write` gets 403).
 */
export async function syncDriftIssue(target: IssueTarget, issue: DriftIssue): Promise<IssueResult> {
  const [owner, repo] = target.repository.split('/');
  if (!owner || !repo) throw new Error(`GITHUB_REPOSITORY "${target.repository}" is not owner/repo`);
  const octokit = getOctokit(target.token, { baseUrl: target.apiUrl });
  const open = await octokit.paginate(octokit.rest.issues.listForRepo, {
    owner,
    repo,
    labels: issue.label,
    state: 'open',
    per_page: 100,
  });
  const existing = open.find((i) => !i.pull_request && i.body?.includes(issue.marker));
  if (issue.body === undefined) {
    if (!existing) return { action: 'none' };
    const at = { owner, repo, issue_number: existing.number };
    await octokit.rest.issues.createComment({ ...at, body: issue.closeComment });
    await octokit.rest.issues.update({ ...at, state: 'closed', state_reason: 'completed' });
    return { action: 'closed', number: existing.number, url: existing.html_url };
  }
  if (!existing) {
    const { data } = await octokit.rest.issues.create({
      owner,
      repo,
      title: issue.title,
      body: issue.body,
      labels: [issue.label],
    });
    return { action: 'created', number: data.number, url: data.html_url };
  }
  await octokit.rest.issues.update({ owner, repo, issue_number: existing.number, body: issue.body });
  return { action: 'updated', number: existing.number, url: existing.html_url };
}
