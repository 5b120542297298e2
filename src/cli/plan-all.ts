// `spread plan --environment all`: the plan of every environment the directory declares, in their
// order, each against its own cluster (a fleet's clusters each in their own section), so a reviewer sees
// a change's effect on staging and production at once. One failure is reported and the rest planned.
import type { DeployRequest } from '../frontend/deploy.js';
import { type EnvironmentTarget, requireDeclaration, targetOf } from '../frontend/environment.js';
import { ALL_ENVIRONMENTS, type EnvironmentsDeclaration } from '../project/environments.js';
import { type DeployReport, formatReportText } from '../report/report.js';
import { contextOf } from './args.js';
import { pullRequestNumber } from './environment.js';
import { cliText } from './logger.js';

/** One environment's plan, or why there is none. */
export interface EnvironmentPlan {
  readonly environment: string;
  /** The cluster of a fleet this plan is of (each cluster of a fleet is planned on its own). */
  readonly cluster?: string;
  readonly context?: string;
  readonly namespace?: string;
  readonly report?: DeployReport;
  readonly error?: string;
  /** Why it was not planned (a preview without a pull request). */
  readonly skipped?: string;
}

/**
 * Plans every declared environment and prints each plan under a heading (or, with `--output json`,
 * `{ environments: EnvironmentPlan[] }`). Sets exit code 1 when any plan failed.
 */
export async function planAll(
  dir: string,
  context: string | undefined,
  flags: { readonly output?: string; readonly namespace?: string | undefined; readonly context?: string },
  request: (target: EnvironmentTarget) => DeployRequest,
): Promise<void> {
  const declaration = requireDeclaration(dir, ALL_ENVIRONMENTS);
  const given = contextOf(context, flags.context);
  if (given || flags.namespace)
    throw new Error(
      '--environment all plans each environment in its own context and namespace: give no context or --namespace',
    );
  const { deploy } = await import('../frontend/deploy.js');
  const plans = await planEach(dir, declaration, pullRequestNumber(process.env), (target) =>
    deploy(request(target)),
  );
  process.stdout.write(
    cliText(
      flags.output === 'json' ? `${JSON.stringify({ environments: plans }, null, 2)}\n` : plansText(plans),
    ),
  );
  if (plans.some((p) => p.error !== undefined)) process.exitCode = 1;
}

/**
 * The plan of each environment of `declaration` (of each cluster of a fleet, on its own), in order:
 * a preview only with a pull request; one failing keeps its error and the others are planned.
 */
export async function planEach(
  dir: string,
  declaration: EnvironmentsDeclaration,
  pullRequest: number | undefined,
  plan: (target: EnvironmentTarget) => Promise<DeployReport>,
): Promise<EnvironmentPlan[]> {
  const plans: EnvironmentPlan[] = [];
  for (const environment of declaration.environments) {
    if (environment.preview !== undefined && pullRequest === undefined) {
      plans.push({ environment: environment.name, skipped: 'a preview, and this run has no pull request' });
      continue;
    }
    // A fleet: each of its clusters in its own section (its context, namespace and values).
    const clusters = environment.clusters.length > 1 ? environment.clusters : [undefined];
    for (const cluster of clusters) {
      let target: EnvironmentTarget | undefined;
      const named = { environment: environment.name, ...(cluster ? { cluster: cluster.name } : {}) };
      try {
        target = targetOf(dir, environment, { pullRequest }, cluster);
        plans.push({ ...named, ...where(target), report: await plan(target) });
      } catch (error) {
        plans.push({ ...named, ...where(target), error: (error as Error).message });
      }
    }
  }
  return plans;
}

function where(target: EnvironmentTarget | undefined) {
  return {
    ...(target?.context ? { context: target.context } : {}),
    ...(target?.namespace ? { namespace: target.namespace } : {}),
  };
}

/** The plans as text: a heading per environment (per cluster of a fleet), then its plan (or its error). */
export function plansText(plans: readonly EnvironmentPlan[]): string {
  return plans
    .map((p) => {
      const at = [p.context && `context ${p.context}`, p.namespace && `namespace ${p.namespace}`]
        .filter(Boolean)
        .join(', ');
      const cluster = p.cluster !== undefined ? `, cluster ${p.cluster}` : '';
      const head = `== environment ${p.environment}${cluster}${at ? ` (${at})` : ''} ==\n`;
      if (p.skipped !== undefined) return `${head}not planned: ${p.skipped}\n`;
      if (p.error !== undefined) return `${head}error: ${p.error}\n`;
      return `${head}${p.report ? formatReportText(p.report) : ''}`;
    })
    .join('\n');
}
