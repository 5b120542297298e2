// The Action's entry: inputs, target context, kubeconfig, the core's deploy or plan, then the report file,
// outputs, job summary and comments; any failure fails the step with the same reports saying why.
import path from 'node:path';
import * as core from '@actions/core';
import { toDnsLabel } from '../base/names.js';
import { defaultDeploymentName } from '../base/origin.js';
import type { KubeconfigSource } from '../cluster/kubeconfig.js';
import { defaultHolder } from '../engine/inventory/lock.js';
import { deployAnnotations } from '../frontend/ci.js';
import { DeployError, type DeployRequest, deploy } from '../frontend/deploy.js';
import type { EnvironmentTarget } from '../frontend/environment.js';
import { trapInterrupts } from '../frontend/interrupts.js';
import { deletes, NotFoundError } from '../frontend/manage.js';
import { deploymentOrigin } from '../frontend/origin.js';
import { ALL_ENVIRONMENTS } from '../project/environments.js';
import { declaredEnvironment } from './declared.js';
import { type DeploymentRun, type DeploymentTarget, markInactive, startDeployment } from './deployments.js';
import { runDrift } from './drift.js';
import { shortFormChoice } from './environments.js';
import { failureOf } from './failure.js';
import { FleetFailure, runFleetMode } from './fleet.js';
import { getInputs, type Inputs, passedOptions } from './inputs.js';
import { prepareKubeconfig } from './kubeconfig.js';
import { createActionLogger } from './logger.js';
import { failedPlans, planEnvironments, publishPlans } from './plan-comment-all.js';
import { isPublished, promote } from './promote.js';
import { publish, publishFailure } from './publish.js';
import { type RunnerEnv, readRunnerEnv, runLinks, workspacePath } from './runner.js';
import type { SummaryReport } from './summary.js';

/**
 * The Action: inputs → target context → kubeconfig → deploy (read, plan, apply, prune, wait: the
 * core's log groups) → report file, outputs (each capped, see outputs.ts), job summary and, for a
 * plan on a pull request, the plan comment. Any failure fails the step, with a job summary and a
 * report file saying why; located failures (a manifest's file and line) become file annotations
 * relative to the workspace, so they land on the pull request's diff. Messages name options as the
 * Action's inputs. Writing the summary, the report file or the comment only warns when it fails.
 */
export async function run(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  // A cancelled run (SIGINT, then SIGTERM) stops the deploy, which releases its Lease.
  const interrupts = trapInterrupts({ error: (m) => core.error(m) });
  let cleanup = () => {};
  let locate = (file: string) => file;
  let annotate = true;
  let inputs: Inputs | undefined;
  let published = false;
  const runner = readRunnerEnv(env);
  try {
    inputs = getInputs();
    for (const secret of inputs.buildSecrets) if (secret.value) core.setSecret(secret.value);
    const given = inputs;
    annotate = inputs.annotate;
    locate = (file) => workspacePath(runner.workspace, given.path, file);
    if (inputs.mode === 'plan' && inputs.environment === ALL_ENVIRONMENTS) {
      published = true;
      await runPlanAll(inputs, runner, interrupts.signal, locate, env);
      return;
    }
    if (inputs.mode === 'drift') return await runDrift(inputs, runner, interrupts.signal);
    if (inputs.mode.startsWith('fleet-'))
      return await runFleetMode(inputs, runner, interrupts.signal, (target, source) => ({
        ...deployOptions(given, runner, source, target.context ?? '', interrupts.signal, locate, env),
        ...environmentOptions(target, given),
        mode: 'plan',
      }));
    const chosen = chooseTarget(inputs, runner);
    if (chosen === undefined) return;
    const { context, target } = chosen;
    const kube = prepareKubeconfig(inputs.kubeconfig, context, runner);
    cleanup = kube.cleanup;
    if (inputs.mode === 'delete') {
      await runDelete(inputs, runner, kube.source, context, interrupts.signal, target);
      return;
    }
    if (inputs.mode === 'promote') return await promote(inputs, runner, kube.source, interrupts.signal, env);
    const options = {
      ...deployOptions(inputs, runner, kube.source, context, interrupts.signal, locate, env),
      ...(target ? environmentOptions(target, inputs) : {}),
    };
    let report: SummaryReport;
    const github = await startGitHubDeployment(inputs, runner, context, target);
    try {
      report = await deploy(options);
    } catch (error) {
      await github?.finish('failure');
      if (error instanceof DeployError) {
        published = true;
        await publish(error.report, inputs, runner, { error: failureOf(error, locate) });
      }
      throw error;
    }
    await github?.finish('success', report.url);
    await publish(report, inputs, runner);
  } catch (error) {
    const failure = failureOf(error, locate);
    // Failures with a place become annotations on that file; one without a place is the message
    // of setFailed below, which already prints it as an error.
    for (const f of failure.failures.filter((x) => x.file)) {
      const props = annotate && f.file ? { file: f.file, ...(f.line ? { startLine: f.line } : {}) } : {};
      if (f.severity === 'warning') core.warning(f.message, props);
      else core.error(f.message, props);
    }
    // A run that failed before it had a report (bad input, unknown context, a failed plan) still
    // gets a job summary and a report file, with the error.
    const done = published || isPublished(error) || error instanceof FleetFailure;
    if (!done) await publishFailure(failure, inputs, runner);
    core.setFailed(failure.error);
  } finally {
    cleanup();
    interrupts.dispose();
    const interrupted = interrupts.exitCode();
    if (interrupted !== undefined) process.exitCode = interrupted;
  }
}

/**
 * The core's deploy options from the inputs and the runner (mode deploy or plan); `env` is the
 * environment of the docker CLI that runs buildx (DOCKER_*, BUILDX_*, and ACTIONS_* for `type=gha`).
 */
function deployOptions(
  inputs: Inputs,
  runner: RunnerEnv,
  kubeconfig: KubeconfigSource,
  context: string,
  signal: AbortSignal,
  locate: (file: string) => string,
  env: NodeJS.ProcessEnv,
): DeployRequest {
  return {
    path: path.resolve(runner.workspace, inputs.path),
    signal,
    kubeconfig,
    context: context || undefined,
    namespace: inputs.namespace || undefined,
    name: inputs.name || undefined,
    origin: deploymentOrigin(env, path.resolve(runner.workspace, inputs.path)),
    mode: inputs.mode === 'plan' ? ('plan' as const) : ('deploy' as const),
    // wait, timeoutMs, prune, adopt, concurrency, lockTimeoutMs…: the inputs' values as they are.
    ...passedOptions(inputs),
    charts: { helm: inputs.helm || undefined, helmValues: inputs.helmValues, helmSet: inputs.helmSet },
    images: {
      ...(inputs.registry ? { registry: inputs.registry } : {}),
      // The commit, shortened as the CLI does, is a second tag of images built without a tag input;
      // they are deployed by their content-addressed tag, so an unchanged context rolls nothing.
      ...(inputs.tag ? { tag: inputs.tag } : runner.sha ? { commit: runner.sha.slice(0, 12) } : {}),
      buildArgs: inputs.buildArgs,
      build: inputs.build,
      push: inputs.push,
      ...(runner.dockerHost ? { docker: runner.dockerHost } : {}),
      dockerConfigDir: runner.dockerConfigDir,
      ...layerCacheOption(inputs, runner),
      platforms: inputs.platforms,
      attestations: attestationsOf(inputs.attestations),
      secrets: inputs.buildSecrets,
      buildx: { ...(inputs.builder ? { builder: inputs.builder } : {}), env },
    },
    kustomize: {
      ...(inputs.kustomize ? { command: inputs.kustomize } : {}),
      ...(inputs.kustomizeEnableHelm ? { enableHelm: true } : {}),
      env,
      signal,
    },
    ...(inputs.urlFrom ? { urlFrom: inputs.urlFrom } : {}),
    ...(runLinks(runner).runUrl ? { runUrl: runLinks(runner).runUrl } : {}),
    ...(runner.sha ? { commit: runner.sha } : {}),
    ...(inputs.objectAnnotations
      ? {
          annotations: deployAnnotations({ commit: runner.sha, runUrl: runLinks(runner).runUrl }, new Date()),
        }
      : {}),
    logger: createActionLogger({ annotate: inputs.annotate, locate }),
  };
}

/**
 * The build cache option: BuildKit's `type=gha` backend, the GitHub Actions cache service (buildx reads
 * its URL and token from the environment). None when the input is off, or `auto` in a repository not
 * known to be private (workflows of pull requests from forks can read the base branch's caches, and
 * the cache holds every layer of the images, build-arg values in their history included), or when the
 * runner has no cache service.
 */
function layerCacheOption(inputs: Inputs, runner: RunnerEnv) {
  if (inputs.layerCache === false) return {};
  if (inputs.layerCache === 'auto' && runner.repositoryPrivate !== true) {
    core.debug('layer-cache: off (auto): the repository is not known to be private');
    return {};
  }
  if (!runner.cacheService) {
    core.debug(
      'layer-cache: the runner offers no cache service (ACTIONS_RUNTIME_TOKEN with ACTIONS_RESULTS_URL or ACTIONS_CACHE_URL); not used',
    );
    return {};
  }
  return { cache: { type: 'gha' as const } };
}

/** The image stage's attestations from the input's choice. */
export function attestationsOf(choice: 'false' | 'provenance' | 'true'): boolean | 'provenance' {
  return choice === 'provenance' ? choice : choice === 'true';
}

/**
 * Where to deploy: the environment spread.yaml declares for this run (src/action/declared.ts) with its
 * context, else the context of {@link targetContext}. Undefined when nothing is deployed (a notice
 * said why, and the output `skipped` is `true`).
 */
function chooseTarget(
  inputs: Inputs,
  runner: RunnerEnv,
): { readonly context: string; readonly target?: EnvironmentTarget } | undefined {
  const declared = declaredEnvironment(path.resolve(runner.workspace, inputs.path), inputs, runner);
  if (declared.kind === 'skip') {
    core.notice(declared.why);
    core.setOutput('skipped', 'true');
    return undefined;
  }
  if (declared.kind === 'environment') {
    core.setOutput('skipped', 'false');
    const { target } = declared;
    core.info(
      `environment ${target.environment.name} (${declared.why}): context ${target.context ?? '(current)'}, namespace ${target.namespace ?? "(the context's)"}`,
    );
    return { context: target.context ?? '', target };
  }
  const context = targetContext(inputs, runner);
  return context === undefined ? undefined : { context };
}

/**
 * Mode `plan` with `environment: all` (./plan-comment-all.ts): each declared environment planned in
 * its own context, one summary section and one comment. Fails the step when any plan failed.
 */
async function runPlanAll(
  inputs: Inputs,
  runner: RunnerEnv,
  signal: AbortSignal,
  locate: (file: string) => string,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const dir = path.resolve(runner.workspace, inputs.path);
  const plans = await planEnvironments(dir, inputs, runner, async (target) => {
    const kube = prepareKubeconfig(inputs.kubeconfig, target.context ?? '', runner);
    try {
      const options = deployOptions(inputs, runner, kube.source, target.context ?? '', signal, locate, env);
      return await deploy({ ...options, ...environmentOptions(target, inputs) });
    } finally {
      kube.cleanup();
    }
  });
  core.setOutput('skipped', 'false');
  const deployment = inputs.name || defaultDeploymentName(deploymentOrigin(process.env, dir));
  await publishPlans(deployment, plans, inputs, runner);
  const failed = failedPlans(plans);
  if (failed.length > 0)
    throw new Error(`the plan failed in ${failed.length} environment(s):\n${failed.join('\n')}`);
}

/** What an environment changes in the deploy's options: its folder, namespace, Helm values, cluster. */
function environmentOptions(target: EnvironmentTarget, inputs: Inputs): Partial<DeployRequest> {
  return {
    path: target.path,
    projectDir: target.projectDir,
    namespace: target.namespace,
    charts: { helm: inputs.helm || undefined, helmValues: target.helmValues, helmSet: target.helmSet },
    ...(target.expect ? { expectCluster: target.expect } : {}),
    // A preview's namespace comes and goes with the deployment.
    ...(target.createNamespace ? { createNamespace: { source: target.createNamespace } } : {}),
    provenance: { environment: target.environment.name },
  };
}

/**
 * The context to deploy to: the `context` input, or the `environments` rule matching the branch.
 * Undefined when the rules map the branch to nothing, or the run is a pull request's deploy (which
 * goes only to a declared preview): the step then ends with a notice and the output `skipped` set
 * to `true`.
 */
function targetContext(inputs: Inputs, runner: RunnerEnv): string | undefined {
  core.setOutput('skipped', 'false');
  if (inputs.environments.length === 0) return inputs.context;
  const choice = shortFormChoice(inputs.environments, runner, inputs.mode);
  if (choice.kind === 'skip') {
    core.notice(choice.why);
    core.setOutput('skipped', 'true');
    return undefined;
  }
  core.info(`branch "${choice.branch}" matches ${choice.rule.pattern}: context ${choice.rule.context}`);
  return choice.rule.context;
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
  target: EnvironmentTarget | undefined,
) {
  const dir = path.resolve(runner.workspace, inputs.path);
  const namespace = target ? target.namespace : inputs.namespace;
  const remove = (name: string) =>
    deletes(name, {
      kubeconfig,
      ...(context ? { context } : {}),
      ...(namespace ? { namespace } : {}),
      ...(target?.expect ? { expectCluster: target.expect } : {}),
      lockTimeoutMs: inputs.lockTimeoutMs,
      lock: { leaseDurationSeconds: inputs.lockLeaseDurationSeconds },
      pruneCrds: inputs.pruneCrds,
      includeKept: inputs.includeKept,
      holder: defaultHolder(runLinks(runner).runUrl),
      logger: createActionLogger({ annotate: inputs.annotate, locate: (f) => f }),
      signal,
    });
  // Without the input name, the default name deploy takes; a folder deployed under its folder's
  // name before spread recorded origins (a generic name: k8s, deploy…) is found under that name.
  const folderName = toDnsLabel(path.basename(dir));
  const name = inputs.name || defaultDeploymentName(deploymentOrigin(process.env, dir));
  const result = await remove(name).catch((error: unknown) => {
    if (inputs.name || name === folderName || !(error instanceof NotFoundError)) throw error;
    return remove(folderName);
  });
  await publish({ ...result, mode: 'deploy', rollout: [] }, inputs, runner, { operation: 'delete' });
  const github = deploymentTarget(inputs, runner, context ?? '', target);
  if (github) {
    const marked = await markInactive(github, (m) => core.warning(m));
    core.info(
      `GitHub deployments of ${github.environment} marked inactive: ${marked.length > 0 ? marked.join(', ') : 'none'}`,
    );
  }
}

/**
 * The GitHub environment the input `deployment` records to: the input `environment`, else the declared
 * environment deployed to (a preview's name is `NAME/pr-N`, a transient environment), else the context
 * deployed to, else GitHub's default `production`. Undefined when the input is off or there is no
 * token (said with a notice).
 */
function deploymentTarget(
  inputs: Inputs,
  runner: RunnerEnv,
  context: string,
  declared?: EnvironmentTarget,
): (DeploymentTarget & { transient: boolean }) | undefined {
  if (!inputs.deployment) return undefined;
  if (!inputs.githubToken) {
    core.notice('no github-token: no GitHub deployment is recorded');
    return undefined;
  }
  // Only a declared preview is one: the short form never deploys a pull request (./environments.ts).
  const preview = declared?.environment.preview !== undefined;
  const environment =
    (preview && declared ? `${declared.environment.name}/pr-${runner.pullRequest?.number}` : '') ||
    inputs.environment ||
    declared?.environment.name ||
    context ||
    'production';
  return {
    token: inputs.githubToken,
    apiUrl: runner.apiUrl,
    repository: runner.repository,
    environment,
    transient: preview,
  };
}

/** Creates the GitHub deployment of this deploy and sets it in_progress (input `deployment`). */
async function startGitHubDeployment(
  inputs: Inputs,
  runner: RunnerEnv,
  context: string,
  declared: EnvironmentTarget | undefined,
): Promise<DeploymentRun | undefined> {
  const target = deploymentTarget(inputs, runner, context, declared);
  if (!target) return undefined;
  const name =
    inputs.name ||
    defaultDeploymentName(deploymentOrigin(process.env, path.resolve(runner.workspace, inputs.path)));
  const run = await startDeployment(
    target,
    {
      sha: runner.pullRequest?.headSha || runner.sha,
      transient: target.transient,
      description: `spread deploy ${name}`,
      ...(runLinks(runner).runUrl ? { logUrl: runLinks(runner).runUrl } : {}),
    },
    (m) => core.warning(m),
  );
  if (run) {
    core.info(`GitHub deployment ${run.id} to ${target.environment}: in_progress`);
    core.setOutput('deployment-id', String(run.id));
  }
  return run;
}
