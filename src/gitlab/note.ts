// The merge request note of the GitLab component's plan: one per deployment, found again by its
// hidden marker (src/report/comment.ts planMarker) and updated, through GitLab's REST API (v4).
// The token (SPREAD_GITLAB_TOKEN) goes in a header only; no message names it.

/** Where the note goes: the job's CI_API_V4_URL, CI_PROJECT_ID and CI_MERGE_REQUEST_IID, and the token. */
export interface NoteTarget {
  readonly apiUrl: string;
  readonly projectId: string;
  readonly mergeRequestIid: string;
  readonly token: string;
}

/**
 * Creates the merge request note holding `marker`, or updates the one an earlier pipeline created.
 * @returns `<id> created` or `<id> updated`.
 * @throws Error `METHOD PATH: HTTP STATUS` when GitLab refuses a request.
 */
export async function upsertNote(target: NoteTarget, body: string, marker: string): Promise<string> {
  const base = `${target.apiUrl}/projects/${encodeURIComponent(target.projectId)}/merge_requests/${target.mergeRequestIid}/notes`;
  const headers = { 'PRIVATE-TOKEN': target.token, 'content-type': 'application/json' };
  const call = async (method: string, url: string, payload?: unknown) => {
    const res = await fetch(url, { method, headers, ...(payload ? { body: JSON.stringify(payload) } : {}) });
    if (!res.ok) throw new Error(`${method} ${new URL(url).pathname}: HTTP ${res.status}`);
    return res.json();
  };
  for (let page = 1; ; page++) {
    const notes = (await call('GET', `${base}?per_page=100&page=${page}&sort=asc`)) as {
      id: number;
      body?: unknown;
    }[];
    const existing = notes.find((n) => typeof n.body === 'string' && n.body.includes(marker));
    if (existing) {
      if (existing.body !== body) await call('PUT', `${base}/${existing.id}`, { body });
      return `${existing.id} updated`;
    }
    if (notes.length < 100) break;
  }
  const created = (await call('POST', base, { body })) as { id: number };
  return `${created.id} created`;
}
