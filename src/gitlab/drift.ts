// The GitLab component's drift step (dist/gitlab/drift.js, run by templates/deploy.yml after
// `spread status --all-environments -o json` in mode drift): keeps one issue per drifted deployment
// through GitLab's Issues API, writes summary.md and the dotenv report, and decides the job's outcome.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ComparedWith, DriftReport } from '../core/drift-rules.js';
import {
  comparedText,
  DRIFT_LABEL,
  type DriftSubject,
  driftClosedComment,
  driftIssueBody,
  driftIssueTitle,
  driftMarker,
} from '../frontend/drift-issue.js';
import { type GitLabIssueResult, syncGitLabIssue } from './issues.js';

/** The usage line, printed with exit code 2 when an argument is missing. */
export const DRIFT_USAGE = 'usage: node dist/gitlab/drift.js REPORT.json OUT_DIR [EXIT_STATUS]';

interface EnvironmentEntry {
  readonly environment?: string;
  readonly drift?: DriftReport;
  readonly error?: string;
  readonly skipped?: string;
}

/**
 * Reads the report (`{ environments: [...] }`), keeps each deployment's issue (with
 * SPREAD_GITLAB_TOKEN; without one, says so), writes `summary.md` (each issue's text, or "matches")
 * and `spread.env` (SPREAD_DRIFTED `true`/`false`, SPREAD_DRIFT_ISSUES the issues' iids,
 * comma-separated).
 *
 * @returns the job's exit code: 1 when spread failed (`status` 1, no report) or an environment could
 *   not be compared or its issue kept, or when SPREAD_INPUT_FAIL_ON_DRIFT is `true` and one drifted; else 0.
 */
export async function driftStep(
  reportFile: string,
  outDir: string,
  status: number | undefined,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  let entries: EnvironmentEntry[];
  try {
    entries = (JSON.parse(readFileSync(reportFile, 'utf8')) as { environments: EnvironmentEntry[] })
      .environments;
    if (!Array.isArray(entries)) throw new Error('no environments in the report');
  } catch (error) {
    console.error(
      `spread drift: no report from spread (exit status ${status ?? 'unknown'}): ${(error as Error).message}`,
    );
    writeFileSync(path.join(outDir, 'spread.env'), 'SPREAD_DRIFTED=\nSPREAD_DRIFT_ISSUES=\n');
    return 1;
  }
  let failed = false;
  const parts: string[] = [];
  const iids: number[] = [];
  for (const e of entries) {
    const name = e.environment ? `environment ${e.environment}` : 'the deployment';
    if (e.skipped) parts.push(`${name}: not compared, ${e.skipped}`);
    if (e.error) {
      failed = true;
      parts.push(`${name}: error: ${e.error}`);
    }
    if (!e.drift) continue;
    const subject: DriftSubject = {
      deployment: e.drift.deployment,
      namespace: e.drift.namespace,
      ...(e.environment ? { environment: e.environment } : {}),
    };
    const body = e.drift.drifted
      ? driftIssueBody(e.drift, {
          subject,
          time: new Date(),
          ...(env.CI_JOB_URL ? { runUrl: env.CI_JOB_URL } : {}),
        })
      : undefined;
    parts.push(
      body ??
        `${driftIssueTitle(subject).replace(/^Drift: /, '')}: the cluster matches ${comparedText(e.drift.comparedWith)}.`,
    );
    const kept = await keepIssue(env, subject, body, e.drift.comparedWith).catch((error: unknown) => {
      failed = true;
      console.error(
        `spread drift: the issue of ${driftIssueTitle(subject)} was not kept: ${(error as Error).message}`,
      );
      return undefined;
    });
    if (kept?.iid !== undefined) iids.push(kept.iid);
    if (kept && kept.action !== 'none') console.log(`spread: drift issue #${kept.iid} ${kept.action}`);
  }
  const drifted = entries.some((e) => e.drift?.drifted);
  writeFileSync(path.join(outDir, 'summary.md'), `${parts.join('\n\n')}\n`);
  writeFileSync(
    path.join(outDir, 'spread.env'),
    `SPREAD_DRIFTED=${drifted}\nSPREAD_DRIFT_ISSUES=${iids.join(',')}\n`,
  );
  if (status === 1 || failed) return 1;
  return drifted && env.SPREAD_INPUT_FAIL_ON_DRIFT === 'true' ? 1 : 0;
}

async function keepIssue(
  env: NodeJS.ProcessEnv,
  subject: DriftSubject,
  description: string | undefined,
  compared: ComparedWith | undefined,
): Promise<GitLabIssueResult | undefined> {
  if (!env.SPREAD_GITLAB_TOKEN) {
    console.log('spread: no SPREAD_GITLAB_TOKEN: the drift issue is not kept');
    return undefined;
  }
  return syncGitLabIssue(
    {
      apiUrl: String(env.CI_API_V4_URL),
      projectId: String(env.CI_PROJECT_ID),
      token: env.SPREAD_GITLAB_TOKEN,
    },
    {
      title: driftIssueTitle(subject),
      label: DRIFT_LABEL,
      marker: driftMarker(subject),
      ...(description !== undefined ? { description } : {}),
      closeNote: driftClosedComment(new Date(), env.CI_JOB_URL, compared),
    },
  );
}
