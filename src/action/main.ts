import path from 'node:path';
import * as core from '@actions/core';
import type { KubeconfigSource } from '../cluster/kubeconfig.js';
import { defaultHolder } from '../cluster/lock.js';
import { DeployError, deploy } from '../core/deploy.js';
import { locatedFailures } from '../core/errors.js';
import { deletes } from '../core/manage.js';
import { toDnsLabel } from '../entity/names.js';
import { deployAnnotations } from '../frontend/ci.js';
import { trapInterrupts } from '../frontend/interrupts.js';
import { formatPlanMarkdown, planMarker, renderPlanComment } from '../report/comment.js';
import { countActions } from '../report/report.js';
import { addDeploySummary, type SummaryReport } from '../report/summary.js';
import { upsertComment } from './comment.js';
import { branchFor, contextForBranch } from './environments.js';
import { getInputs, type Inputs } from './inputs.js';
import { prepareKubeconfig } from './kubeconfig.js';
import { actionsLayerCache } from './layer-cache.js';
import { createActionLogger } from './logger.js';
import { type RunnerEnv, readRunnerEnv, runLinks, workspacePath } from './runner.js';

/** Longest `plan` output, in characters (a step's outputs share GitHub's 1 MiB). */
const PLAN_OUTPUT_LIMIT = 256 * 1024;

/**
 * The Action: inputs → target context → kubeconfig → deploy (read, plan, apply, prune, wait: the
 * core's log groups) → outputs, job summary and, for a plan on a pull request, the plan comment.
 * Any failure fails the step; located failures (a manifest's file and line) become file annotations
 * relative to the workspace, so they land on the pull request's diff. Writing the summary or the
 * comment only warns when it fails.
 */
export async function run(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  // A cancelled run (SIGINT, then SIGTERM) stops the deploy, which releases its Lease.
  const interrupts = trapInterrupts({ error: (m) => core.error(m) });
  let cleanup = () => {};
  let locate = (file: string) => file;
  let annotate = true;
  try {
    const inputs = getInputs();
    const runner = readRunnerEnv(env);
    annotate = inputs.annotate;
    locate = (file) => workspacePath(runner.workspace, inputs.path, file);
    const context = targetContext(inputs, runner);
    if (context === undefined) return;
    const kube = prepareKubeconfig(inputs.kubeconfig, context, runner);
    cleanup = kube.cleanup;
    if (inputs.mode === 'delete') {
      await runDelete(inputs, runner, kube.source, context, interrupts.signal);
      return;
    }
    const options = {
      path: path.resolve(runner.workspace, inputs.path),
      signal: interrupts.signal,
      kubeconfig: kube.source,
      context: context || undefined,
      namespace: inputs.namespace || undefined,
      name: inputs.name || undefined,
      mode: inputs.mode === 'plan' ? ('plan' as const) : ('deploy' as const),
      wait: inputs.wait,
      timeoutMs: inputs.timeoutMs,
      forceConflicts: inputs.forceConflicts,
      replace: inputs.replace,
      adopt: inputs.adopt,
      prune: inputs.prune,
      pruneCrds: inputs.pruneCrds,
      images: {
        ...(inputs.registry ? { registry: inputs.registry } : {}),
        // The commit, shortened as the CLI does, unless a tag is given.
        ...(inputs.tag || runner.sha ? { tag: inputs.tag || runner.sha.slice(0, 12) } : {}),
        buildArgs: inputs.buildArgs,
        build: inputs.build,
        push: inputs.push,
        ...(runner.dockerHost ? { docker: runner.dockerHost } : {}),
        dockerConfigDir: runner.dockerConfigDir,
        ...(await layerCacheOption(inputs, runner)),
      },
      concurrency: inputs.concurrency,
      rollbackOnFailure: inputs.rollbackOnFailure,
      lockTimeoutMs: inputs.lockTimeoutMs,
      waitLoadBalancer: inputs.waitLoadBalancer,
      ...(runLinks(runner).runUrl ? { runUrl: runLinks(runner).runUrl } : {}),
      ...(runner.sha ? { commit: runner.sha } : {}),
      ...(inputs.objectAnnotations
        ? {
            annotations: deployAnnotations(
              { commit: runner.sha, runUrl: runLinks(runner).runUrl },
              new Date(),
            ),
          }
        : {}),
      logger: createActionLogger({ annotate, locate }),
    };
    let report: SummaryReport;
    try {
      report = await deploy(options);
    } catch (error) {
      if (error instanceof DeployError) await publish(error.report, inputs, runner, error.message);
      throw error;
    }
    await publish(report, inputs, runner);
  } catch (error) {
    // Failures with a place become annotations on that file; one without a place is the message
    // of setFailed below, which already prints it as an error.
    for (const f of locatedFailures(error).filter((x) => x.file)) {
      const props =
        annotate && f.file ? { file: locate(f.file), ...(f.line ? { startLine: f.line } : {}) } : {};
      if (f.severity === 'warning') core.warning(f.message, props);
      else core.error(f.message, props);
    }
    core.setFailed((error as Error).message ?? String(error));
  } finally {
    cleanup();
    interrupts.dispose();
    const interrupted = interrupts.exitCode();
    if (interrupted !== undefined) process.exitCode = interrupted;
  }
}

/**
 * The layer cache option: the GitHub Actions cache, holding `$RUNNER_TEMP/spread-layer-cache` (a path
 * that is the same in every run of a hosted runner, as actions/cache's version of an entry needs).
 * None when the input is off, or `auto` in a repository not known to be private (workflows of pull
 * requests from forks can read the base branch's caches, and a cache entry holds every layer of the
 * images, build-arg values in their history included), or when the runner has no cache service.
 */
async function layerCacheOption(inputs: Inputs, runner: RunnerEnv) {
  if (inputs.layerCache === false) return {};
  if (inputs.layerCache === 'auto' && runner.repositoryPrivate !== true) {
    core.debug('layer-cache: off (auto): the repository is not known to be private');
    return {};
  }
  const store = await actionsLayerCache();
  if (!store) {
    core.debug(
      'layer-cache: the runner offers no cache service (ACTIONS_CACHE_SERVICE_V2 with ACTIONS_RESULTS_URL, or ACTIONS_CACHE_URL); not used',
    );
    return {};
  }
  return { layerCache: { store, dir: path.join(runner.temp, 'spread-layer-cache') } };
}

/**
 * The context to deploy to: the `context` input, or the `environments` rule matching the branch.
 * Undefined when the rules map the branch to nothing: the step then ends with a notice and the
 * output `skipped` set to `true`.
 */
function targetContext(inputs: Inputs, runner: RunnerEnv): string | undefined {
  core.setOutput('skipped', 'false');
  if (inputs.environments.length === 0) return inputs.context;
  const branch = branchFor(runner, inputs.mode);
  const rule = contextForBranch(inputs.environments, branch);
  if (!rule) {
    core.notice(
      `branch "${branch}" matches no line of the environments input (${inputs.environments.map((r) => r.pattern).join(', ')}): nothing deployed`,
    );
    core.setOutput('skipped', 'true');
    return undefined;
  }
  core.info(`branch "${branch}" matches ${rule.pattern}: context ${rule.context}`);
  return rule.context;
}

/**
 * Mode `delete`: removes every object of the deployment, its history, lock and ApplySet parent
 * (the seed's Stop), and reports the deleted objects like pruned ones.
 */
async function runDelete(
  inputs: Inputs,
  runner: RunnerEnv,
  kubeconfig: KubeconfigSource,
  context: string | undefined,
  signal: AbortSignal,
) {
  const name = inputs.name || toDnsLabel(path.basename(path.resolve(runner.workspace, inputs.path)));
  const result = await deletes(name, {
    kubeconfig,
    ...(context ? { context } : {}),
    ...(inputs.namespace ? { namespace: inputs.namespace } : {}),
    lockTimeoutMs: inputs.lockTimeoutMs,
    holder: defaultHolder(runLinks(runner).runUrl),
    logger: createActionLogger({ annotate: inputs.annotate, locate: (f) => f }),
    signal,
  });
  await publish({ ...result, mode: 'deploy', rollout: [] }, inputs, runner);
}

async function publish(
  report: SummaryReport,
  inputs: Inputs,
  runner: RunnerEnv,
  failure?: string,
): Promise<void> {
  const links = runLinks(runner);
  const sha = runner.pullRequest?.headSha || runner.sha;
  const c = countActions(report);
  core.setOutput('deployment', report.deployment);
  core.setOutput('namespace', report.namespace);
  core.setOutput('context', report.context);
  if (report.revision !== undefined) core.setOutput('revision', String(report.revision));
  core.setOutput('objects', JSON.stringify(report.objects));
  if (report.images !== undefined) core.setOutput('images', JSON.stringify(report.images));
  core.setOutput('created', c.created + c.create);
  core.setOutput('configured', c.configured + c.update + c.replace);
  core.setOutput('unchanged', c.unchanged);
  core.setOutput('pruned', c.pruned + c.prune);
  core.setOutput(
    'changed',
    c.created + c.create + c.configured + c.update + c.replace + c.pruned + c.prune > 0,
  );
  core.setOutput(
    'plan',
    formatPlanMarkdown(report, { ...links, ...(sha ? { sha } : {}), limit: PLAN_OUTPUT_LIMIT }),
  );
  try {
    addDeploySummary(core.summary, report, {
      ...links,
      ...(sha ? { sha } : {}),
      ...(failure ? { failure } : {}),
    });
    await core.summary.write();
  } catch (error) {
    core.warning(`could not write the job summary: ${(error as Error).message}`);
  }
  if (report.mode === 'plan' && runner.pullRequest && inputs.comment) {
    if (!inputs.githubToken) {
      core.notice('no github-token: the plan is not posted on the pull request');
      return;
    }
    try {
      const body = renderPlanComment(report, { ...links, ...(sha ? { sha } : {}) });
      const result = await upsertComment(
        {
          token: inputs.githubToken,
          apiUrl: runner.apiUrl,
          repository: runner.repository,
          pullRequest: runner.pullRequest.number,
        },
        planMarker(report),
        body,
      );
      core.info(`plan comment ${result.action}: ${result.url}`);
      core.setOutput('comment-url', result.url);
    } catch (error) {
      // A fork's pull request gets a read-only token: the plan is still in the summary.
      core.warning(
        `could not post the plan on pull request #${runner.pullRequest.number}: ${(error as Error).message} (the token needs pull-requests: write)`,
      );
    }
  }
}
