#!/usr/bin/env node
// The GitLab component's report step: turns what `spread deploy|plan -o json` wrote into
//   spread.env   dotenv report (SPREAD_OUTCOME, SPREAD_ERROR, SPREAD_DEPLOYMENT, SPREAD_NAMESPACE,
//                SPREAD_CONTEXT, SPREAD_REVISION, SPREAD_IMAGES, SPREAD_CHANGED, SPREAD_ENVIRONMENT_URL)
//                for `artifacts:reports:dotenv`
//   plan.md      the plan (or the deploy's report) as Markdown, the same text as the Action's
//   summary.md   plan.md plus the rollout with durations
// and, in a merge request pipeline with SPREAD_GITLAB_TOKEN set, creates or updates ONE note per
// deployment holding the plan (found again by its hidden marker).
//   node gitlab/report.mjs REPORT.json OUT_DIR [EXIT_STATUS]
// REPORT.json is a report ({deployment, objects, …}), or after a failure {error, failures, report?}
// (report: what a failed rollout applied), or empty when spread failed before writing anything
// (EXIT_STATUS, spread's exit code, then says so). All three files are written in every case, a
// failure's with its error, so a failed job's artifacts say why. Exit code 0 when the files were
// written, 1 when something went wrong here (said on stderr, and in the files where possible).
// Reads CI_* and SPREAD_INPUT_* variables; never prints the token. Ships beside dist/ (npm package,
// image).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** GitLab's limit on a note's body, in characters. */
const NOTE_LIMIT = 1_000_000;
/** Longest value written to the dotenv report, in characters (an error can be long). */
const DOTENV_VALUE_LIMIT = 1_000;

/**
 * An error as a few short lines: name, message (at most 20 lines) and at most 20 `at` frames, each
 * line cut to 300 characters. Never the source line Node puts first in an uncaught error's output
 * or in a SyntaxError's stack: in dist/spread.js that is one minified line of 400,000 characters.
 */
function describeError(error) {
  const clip = (s) => (s.length > 300 ? `${s.slice(0, 299)}…` : s);
  const head = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const frames = String(error?.stack ?? '')
    .split('\n')
    .filter((l) => /^\s+at /.test(l))
    .slice(0, 20);
  return [...head.split('\n').slice(0, 20), ...frames].map(clip).join('\n');
}

// Anything not caught below (a callback of fetch, say) is printed the same way, not by Node.
process.on('uncaughtException', (error) => {
  process.stderr.write(`spread report: internal error: ${describeError(error)}\n`);
  process.exit(1);
});

const [reportFile, outDir, statusArg] = process.argv.slice(2);
if (!reportFile || !outDir) {
  console.error('usage: node gitlab/report.mjs REPORT.json OUT_DIR [EXIT_STATUS]');
  process.exit(2);
}
const env = process.env;
const status = statusArg === undefined ? undefined : Number(statusArg);
mkdirSync(outDir, { recursive: true });

const jobUrl = env.CI_JOB_URL;
const sha = env.CI_COMMIT_SHA;
const commitUrl = env.CI_PROJECT_URL && sha ? `${env.CI_PROJECT_URL}/-/commit/${sha}` : undefined;
const links = {
  ...(jobUrl ? { runUrl: jobUrl } : {}),
  ...(sha ? { sha } : {}),
  ...(commitUrl ? { commitUrl } : {}),
};

/** Problems of this step itself; they are added to the files and make the exit code 1. */
const problems = [];
const outcome = readOutcome();
/** The bundle's Markdown formatters, or undefined when it cannot be loaded. */
const bundle = await import('../dist/spread.js').catch((error) => {
  problems.push(`could not load spread's dist/spread.js: ${describeError(error)}`);
  return undefined;
});

let plan;
try {
  plan = planMarkdown(outcome);
} catch (error) {
  problems.push(`could not format the report: ${describeError(error)}`);
  plan = failureMarkdown({ error: outcome.error ?? 'the report could not be formatted', failures: [] });
}
if (problems.length > 0) plan += `\n${fenced(problems.map((p) => `spread report: ${p}`).join('\n'))}\n`;
writeFileSync(path.join(outDir, 'plan.md'), plan);
let rollout = '';
try {
  rollout = rolloutMarkdown(outcome.report);
} catch (error) {
  problems.push(`could not format the rollout: ${describeError(error)}`);
}
writeFileSync(path.join(outDir, 'summary.md'), plan + rollout);
let dotenv;
try {
  dotenv = dotenvText(outcome);
} catch (error) {
  problems.push(`could not write the dotenv report: ${describeError(error)}`);
  dotenv = dotenvText({ error: outcome.error ?? 'the report could not be read' });
}
writeFileSync(path.join(outDir, 'spread.env'), dotenv);
console.log(
  `spread: wrote ${['spread.env', 'plan.md', 'summary.md'].map((f) => path.join(outDir, f)).join(', ')}`,
);
for (const p of problems) console.error(`spread report: ${p}`);

if (
  outcome.error === undefined &&
  outcome.report?.mode === 'plan' &&
  env.CI_MERGE_REQUEST_IID &&
  env.SPREAD_MR_NOTE !== 'false' &&
  bundle
) {
  if (!env.SPREAD_GITLAB_TOKEN) {
    console.log('spread: no SPREAD_GITLAB_TOKEN: the plan is not posted on the merge request');
  } else {
    try {
      const url = await upsertNote(
        bundle.renderPlanComment(outcome.report, { ...links, limit: NOTE_LIMIT }),
        bundle.planMarker(outcome.report),
      );
      console.log(`spread: plan note ${url}`);
    } catch (error) {
      // The plan is still in the artifacts; a note that cannot be posted does not fail the job.
      console.log(`spread: WARNING: could not post the plan on the merge request: ${error.message}`);
    }
  }
}
process.exitCode = problems.length > 0 ? 1 : 0;

/**
 * What spread wrote, as `{report?, error?, failures}`: `report` a DeployReport (a success's, or
 * what a failed rollout applied), `error` the message when spread failed.
 */
function readOutcome() {
  let text = '';
  try {
    text = readFileSync(reportFile, 'utf8');
  } catch (error) {
    if (error?.code !== 'ENOENT') problems.push(`could not read ${reportFile}: ${error.message}`);
  }
  const failed = status !== undefined && status !== 0;
  if (text.trim() === '') {
    return failed
      ? {
          error: `spread exited with status ${status} before writing a report; its errors are in the job log`,
          failures: [],
        }
      : { error: `spread wrote no report to ${reportFile}`, failures: [] };
  }
  let json;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { error: `spread's report ${reportFile} is not JSON (${error.message})`, failures: [] };
  }
  if (typeof json?.error === 'string') {
    return {
      error: json.error,
      failures: Array.isArray(json.failures) ? json.failures : [],
      report: isReport(json.report) ? json.report : undefined,
    };
  }
  if (!isReport(json))
    return { error: `spread's report ${reportFile} holds no deployment report`, failures: [] };
  if (failed)
    return {
      error: `spread exited with status ${status} after writing its report`,
      failures: [],
      report: json,
    };
  return { report: json, failures: [] };
}

function isReport(value) {
  return typeof value === 'object' && value !== null && Array.isArray(value.objects);
}

/** plan.md: the report's Markdown; after a failure the error first, then what was done. */
function planMarkdown({ report, error, failures }) {
  if (error === undefined) {
    if (bundle) return bundle.formatPlanMarkdown(report, links);
    return `### ${report.mode === 'plan' ? 'Plan' : 'Deploy'}: \`${code(report.deployment)}\` → context \`${code(report.context)}\`, namespace \`${code(report.namespace)}\`\n\nThe report could not be formatted; the whole report is in report.json.\n`;
  }
  return failureMarkdown({ report, error, failures });
}

/** A failure as Markdown: a title, the error and each located problem in a code block, what was applied. */
function failureMarkdown({ report, error, failures }) {
  const mode = report?.mode ?? (env.SPREAD_INPUT_MODE === 'plan' ? 'plan' : 'deploy');
  const what = [
    report?.deployment
      ? `\`${code(report.deployment)}\``
      : `directory \`${code(env.SPREAD_INPUT_PATH || '.')}\``,
    report?.context || env.SPREAD_INPUT_CONTEXT
      ? `context \`${code(report?.context || env.SPREAD_INPUT_CONTEXT)}\``
      : '',
    report?.namespace || env.SPREAD_INPUT_NAMESPACE
      ? `namespace \`${code(report?.namespace || env.SPREAD_INPUT_NAMESPACE)}\``
      : '',
  ].filter(Boolean);
  const lines = [
    `error: ${error}`,
    // The CLI's error message often lists the located problems already.
    ...failures
      .filter((f) => f && typeof f.message === 'string' && !error.includes(f.message))
      .map(
        (f) =>
          `  ${f.file ? `${projectPath(f.file)}${f.line ? `:${f.line}` : ''}: ` : ''}${f.severity === 'warning' ? 'warning: ' : ''}${f.message}`,
      ),
  ];
  const parts = [
    `### ❌ ${mode === 'plan' ? 'Plan' : 'Deploy'} failed: ${what.join(', ')}`,
    fenced(lines.join('\n')),
  ];
  if (report && bundle)
    parts.push(
      '#### What was applied before the failure',
      bundle.formatPlanMarkdown(report, { ...links, headingLevel: 4 }).trimEnd(),
    );
  else if (Object.keys(links).length > 0)
    parts.push(
      `<sub>spread${sha ? ` · commit \`${sha.slice(0, 7)}\`` : ''}${jobUrl ? ` · [job](${jobUrl})` : ''}</sub>`,
    );
  return `${parts.join('\n\n')}\n`;
}

/** The rollout table of summary.md, empty without waited workloads. */
function rolloutMarkdown(report) {
  const rows = (report?.rollout ?? []).map(
    (r) =>
      `| \`${code(`${String(r.kind).toLowerCase()}/${r.name}`)}\` | ${r.ready ? '✅' : '❌'} | ${String(r.message).replace(/\|/g, '\\|').replace(/\n/g, ' ')} | ${(Number(r.durationMs) / 1000).toFixed(1)}s |`,
  );
  return rows.length > 0
    ? `\n#### Rollout\n\n| Workload | Ready | Status | Time |\n| --- | --- | --- | --- |\n${rows.join('\n')}\n`
    : '';
}

/**
 * The images as a JSON array that still parses when cut to GitLab's dotenv limit (the bundle's
 * capJsonArray: the first images, then an object saying how many were left out); `[]` when too long
 * and the bundle could not be loaded.
 */
function imagesValue(images) {
  const whole = JSON.stringify(images);
  if (whole.length <= DOTENV_VALUE_LIMIT) return whole;
  if (!bundle) return '[]';
  return bundle.capJsonArray(images, 'images', {
    reportFile,
    reportFileName: `the artifact ${path.basename(reportFile)}`,
    limitName: "a dotenv value's limit in GitLab",
    limitBytes: DOTENV_VALUE_LIMIT,
  });
}

/** spread.env: one KEY=value line each, values on one line and at most DOTENV_VALUE_LIMIT characters. */
function dotenvText({ report, error }) {
  // Without a report, a failed plan changed nothing, and a failed deploy may have changed anything.
  const changed =
    report === undefined
      ? env.SPREAD_INPUT_MODE === 'plan'
        ? 'false'
        : ''
      : String(report.objects.some((o) => o.action !== 'unchanged'));
  const values = {
    SPREAD_OUTCOME: error === undefined ? 'success' : 'failure',
    SPREAD_ERROR: error ?? '',
    SPREAD_DEPLOYMENT: report?.deployment ?? '',
    // A failure before the report still names where it was going (the inputs).
    SPREAD_NAMESPACE: report?.namespace ?? env.SPREAD_INPUT_NAMESPACE ?? '',
    SPREAD_CONTEXT: report?.context ?? env.SPREAD_INPUT_CONTEXT ?? '',
    SPREAD_REVISION: report?.revision === undefined ? '' : String(report.revision),
    SPREAD_IMAGES: imagesValue(report?.images ?? []),
    SPREAD_CHANGED: changed,
    SPREAD_ENVIRONMENT_URL: env.SPREAD_ENVIRONMENT_URL ?? '',
  };
  return `${Object.entries(values)
    .map(([k, v]) => {
      const line = String(v).replace(/\s*[\r\n]+\s*/g, ' ');
      return `${k}=${line.length > DOTENV_VALUE_LIMIT ? `${line.slice(0, DOTENV_VALUE_LIMIT - 1)}…` : line}`;
    })
    .join('\n')}\n`;
}

/** A file of the deployed directory as a path in the project (the component's `path` input joined to it). */
function projectPath(file) {
  return path.isAbsolute(file) ? file : path.posix.join(env.SPREAD_INPUT_PATH || '.', file);
}

/** A fenced code block whose fence is longer than any run of backticks in the text. */
function fenced(text) {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}text\n${text}\n${fence}`;
}

/** Text inside a Markdown code span: backticks cannot be escaped there. */
function code(s) {
  return String(s).replace(/`/g, "'").replace(/\|/g, '\\|');
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
