// The Action's `mode: drift`, for a `schedule:` or `workflow_dispatch` workflow: compares the deployment
// with the cluster, keeps its one drift issue (opened, body replaced, closed when it matches again),
// heals when asked (its last good revision deployed again), and sets the outputs `drifted` and `issue`.
import path from 'node:path';
import * as core from '@actions/core';
import { defaultDeploymentName } from '../base/origin.js';
import type { KubeconfigSource } from '../cluster/kubeconfig.js';
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
import { type DriftTarget as DriftTargetOf, driftTargets } from '../frontend/drift-targets.js';
import { healDeployment as heal, healText } from '../frontend/heal.js';
import { type DriftReport, type DriftResult, drift } from '../frontend/manage.js';
import { deploymentOrigin } from '../frontend/origin.js';
import type { Inputs } from './inputs.js';
import { type IssueResult, syncDriftIssue } from './issues.js';
import { prepareKubeconfig } from './kubeconfig.js';
import { actionText, createActionLogger } from './logger.js';
import { type RunnerEnv, runLinks } from './runner.js';

/** Where mode drift compares: the kubeconfig and context the step prepared. */
export interface DriftTarget {
  readonly kubeconfig: KubeconfigSource;
  readonly context: string | undefined;
  readonly signal: AbortSignal;
}

/**
 * Mode `drift`: the comparison (src/core/drift.ts), then — drifted and `heal` on — the deployment's
 * last good revision deployed again and compared once more; then the drift issue kept (with
 * `github-token`), the outputs `drifted` and `issue`, a job summary; with `fail-on-drift`, a drift
 * that remains fails the step. The issue and the summary hold what the status report holds: field
 * paths, ConfigMap values, Secret values redacted, never the kubeconfig (prepared as for a deploy:
 * its values masked, a file it needs removed after). Each environment spread.yaml declares (or the
 * one the input environment names) is compared, whatever the branch.
 */
export async function runDrift(inputs: Inputs, runner: RunnerEnv, signal: AbortSignal): Promise<void> {
  const kube = prepareKubeconfig(inputs.kubeconfig, inputs.context, runner);
  try {
    await driftAll(inputs, runner, { kubeconfig: kube.source, context: inputs.context || undefined, signal });
  } finally {
    kube.cleanup();
  }
}

async function driftAll(inputs: Inputs, runner: RunnerEnv, target: DriftTarget): Promise<void> {
  const dir = path.resolve(runner.workspace, inputs.path);
  const results: OneDrift[] = [];
  for (const t of driftTargets(dir, inputs.environment || undefined)) {
    const label = t.environment ? `environment ${t.environment}` : undefined;
    if (t.skipped || t.error) {
      if (t.error) throw new Error(`${label}: ${t.error}`);
      core.info(`${label}: not compared, ${t.skipped}`);
      continue;
    }
    results.push(
      await (label
        ? core.group(label, () => driftOne(inputs, runner, target, t))
        : driftOne(inputs, runner, target, t)),
    );
  }
  core.setOutput('drifted', String(results.some((r) => r.drifted)));
  core.setOutput(
    'issue',
    results
      .map((r) => r.issue?.number)
      .filter((n) => n !== undefined)
      .join(','),
  );
  const remaining = results.filter((r) => r.remains);
  if (remaining.length > 0 && inputs.failOnDrift)
    core.setFailed(
      remaining.map((r) => `${r.what} drifted${r.issue?.url ? `: ${r.issue.url}` : ''}`).join('; '),
    );
}

/** What one comparison of a drift run found and did. */
interface OneDrift {
  /** `web in shop (production)`. */
  readonly what: string;
  readonly drifted: boolean;
  /** Still drifted after the heal (without heal: drifted). */
  readonly remains: boolean;
  readonly issue?: IssueResult | undefined;
}

/** One deployment (of one environment): compare, heal, keep its issue, add to the job summary. */
async function driftOne(
  inputs: Inputs,
  runner: RunnerEnv,
  given: DriftTarget,
  t: DriftTargetOf,
): Promise<OneDrift> {
  const logger = createActionLogger({ annotate: inputs.annotate, locate: (f) => f });
  const dir = path.resolve(runner.workspace, inputs.path);
  const origin = deploymentOrigin(process.env, dir);
  const env = t.target;
  const context = env ? env.context : given.context;
  const target = { ...given, context };
  const compare = () =>
    drift({
      path: env?.path ?? dir,
      projectDir: dir,
      // Drift is what changed since the last deploy: commits not deployed yet are not drift.
      against: 'revision',
      name: inputs.name || undefined,
      origin,
      namespace: env ? env.namespace : inputs.namespace || undefined,
      charts: {
        helm: inputs.helm || undefined,
        helmValues: env?.helmValues ?? inputs.helmValues,
        helmSet: env?.helmSet ?? inputs.helmSet,
      },
      kustomize: { ...(inputs.kustomize ? { command: inputs.kustomize } : {}), signal: given.signal },
      cluster: {
        kubeconfig: given.kubeconfig,
        ...(context ? { context } : {}),
        images: {
          ...(inputs.registry ? { registry: inputs.registry } : {}),
          ...(inputs.tag ? { tag: inputs.tag } : {}),
        },
        ...(env?.expect ? { expectCluster: env.expect } : {}),
      },
      logger,
    });
  const found = await logger.group('Compare', compare);
  let result = found;
  let heal: HealNote | undefined;
  if (found.drift.drifted && inputs.heal) {
    heal = await logger.group('Heal', () => healDeployment(found, inputs, target));
    if (!heal.error) result = await logger.group('Compare again', compare);
  }
  const report = found.drift;
  const subject: DriftSubject = {
    deployment: report.deployment || defaultDeploymentName(origin),
    namespace: report.namespace,
    ...(t.environment ? { environment: t.environment } : {}),
  };
  const remains = result.drift.drifted;
  core.info(
    report.drifted
      ? `${report.objects.length} objects drifted${heal ? (remains ? '; the heal did not make them match' : '; healed') : ''}`
      : `the cluster matches ${comparedText(report.comparedWith)}`,
  );
  const { body, issue } = await keepDriftIssue(inputs, runner, report, subject, heal, remains);
  await writeSummary(body, remains, issue, heal, comparedText(report.comparedWith));
  return { what: driftIssueTitle(subject).replace(/^Drift: /, ''), drifted: report.drifted, remains, issue };
}

/**
 * The issue of one deployment: the drift as found (and the heal, if any) as its body; healed and
 * matching again, closed after, so the record of what changed and who changed it stays. Notes name
 * settings as the Action's inputs (`the input force-conflicts: true`).
 */
async function keepDriftIssue(
  inputs: Inputs,
  runner: RunnerEnv,
  report: DriftReport,
  subject: DriftSubject,
  heal: HealNote | undefined,
  remains: boolean,
): Promise<{ body?: string; issue?: IssueResult | undefined }> {
  const runUrl = runLinks(runner).runUrl;
  const time = new Date();
  const body = report.drifted
    ? actionText(
        driftIssueBody(report, { subject, time, ...(runUrl ? { runUrl } : {}), ...(heal ? { heal } : {}) }),
      )
    : undefined;
  const issue = {
    title: driftIssueTitle(subject),
    label: DRIFT_LABEL,
    marker: driftMarker(subject),
    closeComment: `${heal && !remains ? `${healText(heal)} ` : ''}${driftClosedComment(time, runUrl, report.comparedWith)}`,
  };
  let kept = await keepIssue(inputs, runner, { ...issue, ...(body !== undefined ? { body } : {}) });
  if (body !== undefined && !remains) kept = (await keepIssue(inputs, runner, issue)) ?? kept;
  return { ...(body !== undefined ? { body } : {}), issue: kept };
}

async function keepIssue(
  inputs: Inputs,
  runner: RunnerEnv,
  issue: Parameters<typeof syncDriftIssue>[1],
): Promise<IssueResult | undefined> {
  if (!inputs.githubToken) {
    core.warning('no github-token: the drift issue is not kept');
    return undefined;
  }
  const result = await syncDriftIssue(
    { token: inputs.githubToken, apiUrl: runner.apiUrl, repository: runner.repository },
    issue,
  );
  if (result.action !== 'none') core.info(`drift issue #${result.number} ${result.action}`);
  return result;
}

/** The heal (src/frontend/heal.ts) on the step's cluster, with the step's limits. */
function healDeployment(result: DriftResult, inputs: Inputs, target: DriftTarget): Promise<HealNote> {
  return heal(result.status.deployment, {
    kubeconfig: target.kubeconfig,
    context: target.context,
    namespace: result.status.namespace,
    logger: createActionLogger({ annotate: inputs.annotate, locate: (f) => f }),
    signal: target.signal,
    timeoutMs: inputs.timeoutMs,
    lockTimeoutMs: inputs.lockTimeoutMs,
  });
}

async function writeSummary(
  body: string | undefined,
  drifted: boolean,
  issue: IssueResult | undefined,
  heal: HealNote | undefined,
  compared: string,
): Promise<void> {
  try {
    const link = issue?.url ? ` Issue: ${issue.url} (${issue.action}).` : '';
    const healed = heal && !heal.error && !drifted ? ` ${healText(heal)}` : '';
    core.summary.addHeading('🔎 spread drift', 2);
    if (body !== undefined) core.summary.addRaw(body, true);
    core.summary.addRaw(drifted ? link : `The cluster matches ${compared}.${healed}${link}`, true);
    await core.summary.write();
  } catch (error) {
    core.warning(`could not write the job summary: ${(error as Error).message}`);
  }
}
