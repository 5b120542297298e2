// The Action's plan of every declared environment (`mode: plan`, `environment: all`): one pull request
// comment and one job summary section holding each environment's plan under its name, so a reviewer
// sees a change's effect on staging and production at once.
import * as core from '@actions/core';
import { type EnvironmentTarget, requireDeclaration, targetOf } from '../frontend/environment.js';
import { ALL_ENVIRONMENTS } from '../project/environments.js';
import { COMMENT_LIMIT_CHARS, formatPlanMarkdown } from '../report/comment.js';
import type { DeployReport } from '../report/report.js';
import { describeCommentError, upsertComment } from './comment.js';
import type { Inputs } from './inputs.js';
import { actionText } from './logger.js';
import { type RunnerEnv, runLinks } from './runner.js';

/** One environment's plan (one cluster's, of a fleet), or why there is none. */
export interface EnvironmentPlan {
  readonly environment: string;
  /** The fleet's cluster this plan is of: each cluster of a fleet is planned in its own section. */
  readonly cluster?: string;
  readonly report?: DeployReport;
  readonly error?: string;
}

/**
 * Plans every environment `dir`'s spread.yaml declares, in order, with `plan` (a preview only on a
 * pull request; each cluster of a fleet on its own); an environment whose plan fails keeps its error
 * and the others are still planned.
 *
 * @throws Error when the inputs name a context, namespace or short-form rules (each environment has
 *   its own), or the directory declares no environments.
 */
export async function planEnvironments(
  dir: string,
  inputs: Pick<Inputs, 'context' | 'namespace' | 'environments' | 'helmValues' | 'helmSet'>,
  runner: Pick<RunnerEnv, 'pullRequest'>,
  plan: (target: EnvironmentTarget) => Promise<DeployReport>,
): Promise<EnvironmentPlan[]> {
  if (inputs.context || inputs.namespace || inputs.environments.length > 0)
    throw new Error(
      'input environment all plans each environment in its own context and namespace: leave context, namespace and environments empty',
    );
  const declaration = requireDeclaration(dir, ALL_ENVIRONMENTS);
  const given = {
    helmValues: inputs.helmValues,
    helmSet: inputs.helmSet,
    pullRequest: runner.pullRequest?.number,
  };
  const plans: EnvironmentPlan[] = [];
  for (const environment of declaration.environments) {
    if (environment.preview !== undefined && runner.pullRequest === undefined) continue;
    const clusters = environment.clusters.length > 1 ? environment.clusters : [undefined];
    for (const cluster of clusters) {
      const named = { environment: environment.name, ...(cluster ? { cluster: cluster.name } : {}) };
      try {
        plans.push({ ...named, report: await plan(targetOf(dir, environment, given, cluster)) });
      } catch (error) {
        plans.push({ ...named, error: actionText((error as Error).message) });
      }
    }
  }
  return plans;
}

/** Each failed plan, `ENVIRONMENT: error` (`ENVIRONMENT (CLUSTER): error` for a fleet's cluster). */
export function failedPlans(plans: readonly EnvironmentPlan[]): string[] {
  return plans
    .filter((p) => p.error !== undefined)
    .map((p) => `${p.environment}${p.cluster !== undefined ? ` (${p.cluster})` : ''}: ${p.error}`);
}

/** The hidden marker of a deployment's all-environments plan comment. */
export function plansMarker(deployment: string): string {
  return `<!-- spread-plan-environments:${deployment} -->`;
}

/** The comment's Markdown: a heading per environment with its plan (or its error), within GitHub's limit. */
export function renderPlansComment(
  deployment: string,
  plans: readonly EnvironmentPlan[],
  links: { readonly runUrl?: string; readonly sha?: string; readonly commitUrl?: string } = {},
): string {
  const share = Math.floor((COMMENT_LIMIT_CHARS - 500) / Math.max(plans.length, 1));
  const parts = plans.map((p) => {
    const body = p.report
      ? formatPlanMarkdown(p.report, { ...links, headingLevel: 4, limit: share })
      : `:x: ${p.error ?? 'not planned'}`;
    const cluster = p.cluster !== undefined ? `, cluster \`${p.cluster}\`` : '';
    return `### Environment \`${p.environment}\`${cluster}\n\n${body}`;
  });
  return `${plansMarker(deployment)}\n## Plan of ${deployment} in every environment\n\n${parts.join('\n\n')}\n`;
}

/** Writes the job summary and, on a pull request, the one comment of every environment's plan. */
export async function publishPlans(
  deployment: string,
  plans: readonly EnvironmentPlan[],
  inputs: Pick<Inputs, 'comment' | 'githubToken'>,
  runner: RunnerEnv,
): Promise<void> {
  const links = runLinks(runner);
  const sha = runner.pullRequest?.headSha || runner.sha;
  const body = renderPlansComment(deployment, plans, { ...links, ...(sha ? { sha } : {}) });
  try {
    await core.summary.addRaw(body, true).write();
  } catch (error) {
    core.warning(`could not write the job summary: ${(error as Error).message}`);
  }
  if (!runner.pullRequest || !inputs.comment) return;
  if (!inputs.githubToken) {
    core.notice('no github-token: the plan is not posted on the pull request');
    return;
  }
  try {
    const result = await upsertComment(
      {
        token: inputs.githubToken,
        apiUrl: runner.apiUrl,
        repository: runner.repository,
        pullRequest: runner.pullRequest.number,
      },
      plansMarker(deployment),
      body,
    );
    core.info(`plan comment ${result.action}: ${result.url}`);
    core.setOutput('comment-url', result.url);
  } catch (error) {
    core.warning(
      `could not post the plan on pull request #${runner.pullRequest.number}: ${describeCommentError(error, runner.apiUrl)}`,
    );
  }
}
