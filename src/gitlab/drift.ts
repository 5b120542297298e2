// The GitLab component's drift step (dist/gitlab/drift.js, run by templates/deploy.yml after
// `spread status --all-environments -o json` in mode drift): keeps one issue per drifted deployment
// through GitLab's Issues API, writes summary.md and the dotenv report, and decides the job's outcome.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../base/logger.js';
import type { ComparedWith, DriftReport } from '../core/drift-rules.js';
import { parseDuration } from '../core/duration.js';
import {
  comparedText,
  DRIFT_LABEL,
  type DriftSubject,
  driftClosedComment,
  driftIssueBody,
  driftIssueTitle,
  driftMarker,
  type HealNote,
} from '../frontend/drift-issue.js';
import { healDeployment, healText } from '../frontend/heal.js';
import { kubeconfigSource } from '../frontend/kubeconfig.js';
import { drift } from '../frontend/manage.js';
import { type GitLabIssueResult, syncGitLabIssue } from './issues.js';

/** The usage line, printed with exit code 2 when an argument is missing. */
export const DRIFT_USAGE = 'usage: node dist/gitlab/drift.js REPORT.json OUT_DIR [EXIT_STATUS]';

interface EnvironmentEntry {
  readonly environment?: string;
  readonly context?: string;
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
  let remaining = false;
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
    const healed = e.drift.drifted && env.SPREAD_INPUT_HEAL === 'true' ? await healEntry(e, env) : undefined;
    const heal = healed?.note;
    const remains = healed ? healed.remains : e.drift.drifted;
    if (heal) console.log(`spread: ${heal.error ? `heal failed: ${heal.error}` : healText(heal)}`);
    const body = e.drift.drifted
      ? driftIssueBody(e.drift, {
          subject,
          time: new Date(),
          ...(env.CI_JOB_URL ? { runUrl: env.CI_JOB_URL } : {}),
          ...(heal ? { heal } : {}),
        })
      : undefined;
    parts.push(
      body ??
        `${driftIssueTitle(subject).replace(/^Drift: /, '')}: the cluster matches ${comparedText(e.drift.comparedWith)}.`,
    );
    // Healed: the issue records what changed and the heal, then is closed, as the Action's.
    const keep = async () => {
      let kept = await keepIssue(env, subject, body, e.drift?.comparedWith, heal);
      if (body !== undefined && !remains)
        kept = (await keepIssue(env, subject, undefined, e.drift?.comparedWith, heal)) ?? kept;
      return kept;
    };
    const kept = await keep().catch((error: unknown) => {
      failed = true;
      console.error(
        `spread drift: the issue of ${driftIssueTitle(subject)} was not kept: ${(error as Error).message}`,
      );
      return undefined;
    });
    if (kept?.iid !== undefined) iids.push(kept.iid);
    if (kept && kept.action !== 'none') console.log(`spread: drift issue #${kept.iid} ${kept.action}`);
    if (remains) remaining = true;
  }
  const drifted = entries.some((e) => e.drift?.drifted);
  writeFileSync(path.join(outDir, 'summary.md'), `${parts.join('\n\n')}\n`);
  writeFileSync(
    path.join(outDir, 'spread.env'),
    `SPREAD_DRIFTED=${drifted}\nSPREAD_DRIFT_ISSUES=${iids.join(',')}\n`,
  );
  if (status === 1 || failed) return 1;
  return remaining && env.SPREAD_INPUT_FAIL_ON_DRIFT === 'true' ? 1 : 0;
}

async function keepIssue(
  env: NodeJS.ProcessEnv,
  subject: DriftSubject,
  description: string | undefined,
  compared: ComparedWith | undefined,
  heal: HealNote | undefined,
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
      closeNote: `${heal && !heal.error ? `${healText(heal)} ` : ''}${driftClosedComment(new Date(), env.CI_JOB_URL, compared)}`,
    },
  );
}

/**
 * With the input `heal: true`, a drifted deployment's last good revision deployed again
 * (src/frontend/heal.ts, as the Action's heal), then the cluster compared with it once more: whether
 * the drift remains. The cluster is the job's (KUBECONFIG, the entry's context or the input's).
 */
async function healEntry(
  e: EnvironmentEntry,
  env: NodeJS.ProcessEnv,
): Promise<{ note: HealNote; remains: boolean }> {
  const report = e.drift as DriftReport;
  const kubeconfig = kubeconfigSource(undefined, env);
  const context = e.context ?? (env.SPREAD_INPUT_CONTEXT || undefined);
  const logger = consoleLogger();
  const timeoutMs = durationOf(env.SPREAD_INPUT_TIMEOUT);
  const lockTimeoutMs = durationOf(env.SPREAD_INPUT_LOCK_TIMEOUT);
  const note = await healDeployment(report.deployment, {
    kubeconfig,
    context,
    namespace: report.namespace,
    logger,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(lockTimeoutMs !== undefined ? { lockTimeoutMs } : {}),
  });
  if (note.error) return { note, remains: true };
  const dir = path.resolve(env.SPREAD_INPUT_PATH || '.');
  const again = await drift({
    path: dir,
    projectDir: dir,
    name: report.deployment,
    namespace: report.namespace,
    against: 'revision',
    cluster: { kubeconfig, ...(context ? { context } : {}) },
    logger,
  }).catch((error: unknown) => {
    console.error(`spread drift: the comparison after the heal failed: ${(error as Error).message}`);
    return undefined;
  });
  return { note, remains: again?.drift.drifted ?? true };
}

function durationOf(text: string | undefined): number | undefined {
  try {
    return text ? parseDuration(text) : undefined;
  } catch {
    return undefined;
  }
}

/** The job log as the CLI writes it: lines on stdout, warnings and errors on stderr. */
function consoleLogger(): Logger {
  return {
    info: (m) => console.log(`spread: ${m}`),
    warn: (m) => console.error(`spread: warning: ${m}`),
    error: (m) => console.error(`spread: error: ${m}`),
    debug: () => {},
    group: (name, fn) => {
      console.log(`spread: ${name}`);
      return fn();
    },
  };
}
