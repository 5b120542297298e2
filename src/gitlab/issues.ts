// GitLab's Issues API (v4) for the component's mode drift: the one open issue of a drifted deployment,
// found by its label and the marker in its description, created, its description replaced, or noted
// and closed when the cluster matches again. The token goes in a header only; no message names it.

/** The project of the drift issues: the job's CI_API_V4_URL and CI_PROJECT_ID, and SPREAD_GITLAB_TOKEN. */
export interface GitLabIssueTarget {
  readonly apiUrl: string;
  readonly projectId: string;
  readonly token: string;
}

/** The issue to keep (as the Action's): description when drifted, else the note that closes it. */
export interface GitLabDriftIssue {
  readonly title: string;
  readonly label: string;
  readonly marker: string;
  readonly description?: string;
  readonly closeNote: string;
}

/** What {@link syncGitLabIssue} did, with the issue's project-level number (iid). */
export interface GitLabIssueResult {
  readonly action: 'created' | 'updated' | 'closed' | 'none';
  readonly iid?: number;
  readonly url?: string;
}

/**
 * Keeps one issue per deployment: lists the project's opened issues with `label` (GET
 * /projects/:id/issues?labels=…&state=opened) and takes the one whose description holds `marker`.
 * Drifted: creates it (POST, with the label) or replaces its description (PUT). In sync: adds
 * `closeNote` (POST …/notes) and closes it (PUT `state_event: close`).
 *
 * @throws Error `METHOD PATH: HTTP STATUS` when GitLab refuses a request.
 */
export async function syncGitLabIssue(
  target: GitLabIssueTarget,
  issue: GitLabDriftIssue,
): Promise<GitLabIssueResult> {
  const base = `${target.apiUrl}/projects/${encodeURIComponent(target.projectId)}/issues`;
  const headers = { 'PRIVATE-TOKEN': target.token, 'content-type': 'application/json' };
  const call = async (method: string, url: string, payload?: unknown) => {
    const res = await fetch(url, { method, headers, ...(payload ? { body: JSON.stringify(payload) } : {}) });
    if (!res.ok) throw new Error(`${method} ${new URL(url).pathname}: HTTP ${res.status}`);
    return res.json();
  };
  type Issue = { iid: number; description?: unknown; web_url?: string };
  let existing: Issue | undefined;
  for (let page = 1; !existing; page++) {
    const query = `labels=${encodeURIComponent(issue.label)}&state=opened&per_page=100&page=${page}`;
    const list = (await call('GET', `${base}?${query}`)) as Issue[];
    existing = list.find((i) => typeof i.description === 'string' && i.description.includes(issue.marker));
    if (list.length < 100) break;
  }
  if (issue.description === undefined) {
    if (!existing) return { action: 'none' };
    await call('POST', `${base}/${existing.iid}/notes`, { body: issue.closeNote });
    await call('PUT', `${base}/${existing.iid}`, { state_event: 'close' });
    return { action: 'closed', iid: existing.iid, ...(existing.web_url ? { url: existing.web_url } : {}) };
  }
  if (!existing) {
    const created = (await call('POST', base, {
      title: issue.title,
      description: issue.description,
      labels: issue.label,
    })) as Issue;
    return { action: 'created', iid: created.iid, ...(created.web_url ? { url: created.web_url } : {}) };
  }
  await call('PUT', `${base}/${existing.iid}`, { description: issue.description });
  return { action: 'updated', iid: existing.iid, ...(existing.web_url ? { url: existing.web_url } : {}) };
}
