// The Action's `mode: drift`, for a `schedule:` or `workflow_dispatch` workflow: compares the deployment
// with the cluster, keeps its one drift issue (opened, body replaced, closed when it matches again),
// heals when asked (its last good revision deployed again), and sets the outputs `drifted` and `issue`.
import path from 'node:path';
import * as core from '@actions/core';
import { defaultDeploymentName } from '../base/origin.js';
import type { KubeconfigSource } from '../cluster/kubeconfig.js';
import { lastGoodRevision } from '../engine/inventory/history.js';
import {
  DRIFT_LABEL,
  type DriftSubject,
  driftClosedComment,
  driftIssueBody,
  driftIssueTitle,
  driftMarker,
  type HealNote,
} from '../frontend/drift-issue.js';
import { type DriftResult, drift, history, rollback } from '../frontend/manage.js';
import { deploymentOrigin } from '../frontend/origin.js';
import type { Inputs } from './inputs.js';
import { type IssueResult, syncDriftIssue } from './issues.js';
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
 * paths, ConfigMap values, Secret values redacted, never the kubeconfig.
 */
export async function runDrift(inputs: Inputs, runner: RunnerEnv, target: DriftTarget): Promise<void> {
  const logger = createActionLogger({ annotate: inputs.annotate, locate: (f) => f });
  const dir = path.resolve(runner.workspace, inputs.path);
  const origin = deploymentOrigin(process.env, dir);
  const compare = () =>
    drift({
      path: dir,
      name: inputs.name || undefined,
      origin,
      namespace: inputs.namespace || undefined,
      charts: { helm: inputs.helm || undefined, helmValues: inputs.helmValues, helmSet: inputs.helmSet },
      kustomize: { ...(inputs.kustomize ? { command: inputs.kustomize } : {}), signal: target.signal },
      cluster: {
        kubeconfig: target.kubeconfig,
        ...(target.context ? { context: target.context } : {}),
        images: {
          ...(inputs.registry ? { registry: inputs.registry } : {}),
          ...(inputs.tag ? { tag: inputs.tag } : {}),
        },
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
  };
  const runUrl = runLinks(runner).runUrl;
  const time = new Date();
  const remains = result.drift.drifted;
  core.info(
    report.drifted
      ? `${report.objects.length} objects drifted${heal ? (remains ? '; the heal did not make them match' : '; healed') : ''}`
      : 'the cluster matches the directory',
  );
  // The drift as found (and the heal, if any); healed and matching again, the issue is then closed,
  // so the record of what changed and who changed it stays.
  // Notes name settings as the Action's inputs (`the input force-conflicts: true`).
  const body = report.drifted
    ? actionText(
        driftIssueBody(report, { subject, time, ...(runUrl ? { runUrl } : {}), ...(heal ? { heal } : {}) }),
      )
    : undefined;
  const issue = {
    title: driftIssueTitle(subject),
    label: DRIFT_LABEL,
    marker: driftMarker(subject),
    closeComment: `${heal && !remains ? `${healText(heal)} ` : ''}${driftClosedComment(time, runUrl)}`,
  };
  let kept = await keepIssue(inputs, runner, { ...issue, ...(body !== undefined ? { body } : {}) });
  if (body !== undefined && !remains) kept = (await keepIssue(inputs, runner, issue)) ?? kept;
  core.setOutput('drifted', String(report.drifted));
  core.setOutput('issue', kept?.number !== undefined ? String(kept.number) : '');
  await writeSummary(body, remains, kept, heal);
  if (remains && inputs.failOnDrift)
    core.setFailed(
      `deployment ${subject.deployment} in ${subject.namespace} drifted${kept?.url ? `: ${kept.url}` : ''}`,
    );
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

/**
 * Deploys the deployment's last good revision again: the current one when it did not fail, else the
 * newest before it that did not; through the rollback path (plan, apply, prune, wait, a revision
 * `rollback to N` recorded), taking the fields other managers changed back (force-conflicts).
 */
async function healDeployment(result: DriftResult, inputs: Inputs, target: DriftTarget): Promise<HealNote> {
  const logger = createActionLogger({ annotate: inputs.annotate, locate: (f) => f });
  const request = {
    kubeconfig: target.kubeconfig,
    ...(target.context ? { context: target.context } : {}),
    namespace: result.status.namespace,
    logger,
    signal: target.signal,
  };
  const name = result.status.deployment;
  const { revisions, current } = await history(name, request);
  const good =
    current !== undefined && revisions.some((r) => r.revision === current && r.status !== 'failed')
      ? current
      : lastGoodRevision(revisions, (current ?? Number.MAX_SAFE_INTEGER) + 1);
  if (good === undefined) return { revision: 0, error: 'the deployment has no revision that did not fail' };
  try {
    const back = await rollback(name, good, {
      ...request,
      forceConflicts: true,
      timeoutMs: inputs.timeoutMs,
      lockTimeoutMs: inputs.lockTimeoutMs,
    });
    return { revision: good, recorded: back.revision };
  } catch (error) {
    return { revision: good, error: (error as Error).message };
  }
}

function healText(h: HealNote): string {
  return `Healed: revision ${h.revision} (the last good deploy) was deployed again${h.recorded !== undefined ? ` as revision ${h.recorded}` : ''}.`;
}

async function writeSummary(
  body: string | undefined,
  drifted: boolean,
  issue: IssueResult | undefined,
  heal: HealNote | undefined,
): Promise<void> {
  try {
    const link = issue?.url ? ` Issue: ${issue.url} (${issue.action}).` : '';
    const healed = heal && !heal.error && !drifted ? ` ${healText(heal)}` : '';
    core.summary.addHeading('🔎 spread drift', 2);
    if (body !== undefined) core.summary.addRaw(body, true);
    core.summary.addRaw(drifted ? link : `The cluster matches the directory.${healed}${link}`, true);
    await core.summary.write();
  } catch (error) {
    core.warning(`could not write the job summary: ${(error as Error).message}`);
  }
}
