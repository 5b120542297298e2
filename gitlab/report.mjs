#!/usr/bin/env node
// The GitLab component's report step: turns the JSON report of `spread deploy|plan -o json` into
//   spread.env   dotenv report (SPREAD_DEPLOYMENT, SPREAD_NAMESPACE, SPREAD_CONTEXT, SPREAD_REVISION,
//                SPREAD_IMAGES, SPREAD_CHANGED, SPREAD_ENVIRONMENT_URL) for `artifacts:reports:dotenv`
//   plan.md      the plan (or the deploy's report) as Markdown, the same text as the Action's
//   summary.md   plan.md plus the rollout with durations
// and, in a merge request pipeline with SPREAD_GITLAB_TOKEN set, creates or updates ONE note per
// deployment holding the plan (found again by its hidden marker).
//   node gitlab/report.mjs REPORT.json OUT_DIR
// Reads CI_* variables; never prints the token. Ships in the npm package beside dist/.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatPlanMarkdown, planMarker, renderPlanComment } from '../dist/spread.js';

/** GitLab's limit on a note's body, in characters. */
const NOTE_LIMIT = 1_000_000;

const [reportFile, outDir] = process.argv.slice(2);
if (!reportFile || !outDir) {
  console.error('usage: node gitlab/report.mjs REPORT.json OUT_DIR');
  process.exit(2);
}
const env = process.env;
const report = JSON.parse(readFileSync(reportFile, 'utf8'));
mkdirSync(outDir, { recursive: true });

const jobUrl = env.CI_JOB_URL;
const sha = env.CI_COMMIT_SHA;
const commitUrl = env.CI_PROJECT_URL && sha ? `${env.CI_PROJECT_URL}/-/commit/${sha}` : undefined;
const links = {
  ...(jobUrl ? { runUrl: jobUrl } : {}),
  ...(sha ? { sha } : {}),
  ...(commitUrl ? { commitUrl } : {}),
};

const plan = formatPlanMarkdown(report, links);
writeFileSync(path.join(outDir, 'plan.md'), plan);
const rollout = (report.rollout ?? []).map(
  (r) =>
    `| \`${r.kind.toLowerCase()}/${r.name}\` | ${r.ready ? '✅' : '❌'} | ${String(r.message).replace(/\|/g, '\\|')} | ${(r.durationMs / 1000).toFixed(1)}s |`,
);
writeFileSync(
  path.join(outDir, 'summary.md'),
  rollout.length > 0
    ? `${plan}\n#### Rollout\n\n| Workload | Ready | Status | Time |\n| --- | --- | --- | --- |\n${rollout.join('\n')}\n`
    : plan,
);

const changed = report.objects.some((o) => o.action !== 'unchanged');
const dotenv = {
  SPREAD_DEPLOYMENT: report.deployment,
  SPREAD_NAMESPACE: report.namespace,
  SPREAD_CONTEXT: report.context,
  SPREAD_REVISION: report.revision === undefined ? '' : String(report.revision),
  SPREAD_IMAGES: JSON.stringify(report.images ?? []),
  SPREAD_CHANGED: String(changed),
  SPREAD_ENVIRONMENT_URL: env.SPREAD_ENVIRONMENT_URL ?? '',
};
writeFileSync(
  path.join(outDir, 'spread.env'),
  Object.entries(dotenv)
    .map(([k, v]) => `${k}=${String(v).replace(/[\r\n]+/g, ' ')}`)
    .join('\n') + '\n',
);
console.log(
  `spread: wrote ${['spread.env', 'plan.md', 'summary.md'].map((f) => path.join(outDir, f)).join(', ')}`,
);

if (report.mode === 'plan' && env.CI_MERGE_REQUEST_IID && env.SPREAD_MR_NOTE !== 'false') {
  if (!env.SPREAD_GITLAB_TOKEN) {
    console.log('spread: no SPREAD_GITLAB_TOKEN: the plan is not posted on the merge request');
  } else {
    try {
      const url = await upsertNote(
        renderPlanComment(report, { ...links, limit: NOTE_LIMIT }),
        planMarker(report),
      );
      console.log(`spread: plan note ${url}`);
    } catch (error) {
      // The plan is still in the artifacts; a note that cannot be posted does not fail the job.
      console.log(`spread: WARNING: could not post the plan on the merge request: ${error.message}`);
    }
  }
}

/** Creates the merge request note holding `marker`, or updates the one an earlier pipeline created. */
async function upsertNote(body, marker) {
  const base = `${env.CI_API_V4_URL}/projects/${encodeURIComponent(env.CI_PROJECT_ID)}/merge_requests/${env.CI_MERGE_REQUEST_IID}/notes`;
  const headers = { 'PRIVATE-TOKEN': env.SPREAD_GITLAB_TOKEN, 'content-type': 'application/json' };
  const call = async (method, url, payload) => {
    const res = await fetch(url, { method, headers, ...(payload ? { body: JSON.stringify(payload) } : {}) });
    if (!res.ok) throw new Error(`${method} ${new URL(url).pathname}: HTTP ${res.status}`);
    return res.json();
  };
  for (let page = 1; ; page++) {
    const notes = await call('GET', `${base}?per_page=100&page=${page}&sort=asc`);
    const existing = notes.find((n) => typeof n.body === 'string' && n.body.includes(marker));
    if (existing) {
      if (existing.body !== body) await call('PUT', `${base}/${existing.id}`, { body });
      return `${existing.id} updated`;
    }
    if (notes.length < 100) break;
  }
  const created = await call('POST', base, { body });
  return `${created.id} created`;
}
