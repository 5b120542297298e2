// The Action's mode `promote`: the input `environment` is the environment promoted to, `from` (else its
// `after:`) the one promoted from; `from-kubeconfig` reaches the source when `kubeconfig` does not. The
// front end's promote (frontend/promote.ts) does the rest; the summary says what was promoted.
import path from 'node:path';
import type { KubeconfigSource } from '../cluster/kubeconfig.js';
import { deployAnnotations } from '../frontend/ci.js';
import { DeployError } from '../frontend/deploy.js';
import { type PromoteReport, promote as promoteTo } from '../frontend/promote.js';
import { failureOf } from './failure.js';
import { type Inputs, passedOptions } from './inputs.js';
import { prepareKubeconfig } from './kubeconfig.js';
import { createActionLogger } from './logger.js';
import { publish } from './publish.js';
import { type RunnerEnv, runLinks, workspacePath } from './runner.js';

/**
 * Runs `spread promote` as the inputs say, on the kubeconfig prepared for the target.
 *
 * @throws Error when the input environment is empty; what frontend/promote's promote throws.
 */
export async function runPromote(
  inputs: Inputs,
  runner: RunnerEnv,
  kubeconfig: KubeconfigSource,
  signal: AbortSignal,
  locate: (file: string) => string,
  env: NodeJS.ProcessEnv,
): Promise<PromoteReport> {
  if (!inputs.environment)
    throw new Error(
      'mode promote needs the input environment: the environment promoted to (the job names it in environment: too, so its protection rules gate the promotion)',
    );
  const runUrl = runLinks(runner).runUrl;
  // Masked, and written for an exec plugin when it needs one, as the input kubeconfig is.
  const source = inputs.fromKubeconfig ? prepareKubeconfig(inputs.fromKubeconfig, '', runner) : undefined;
  try {
    return await promoteTo({
      dir: path.resolve(runner.workspace, inputs.path),
      from: inputs.from || undefined,
      to: inputs.environment,
      name: inputs.name || undefined,
      kubeconfig,
      ...(source ? { fromKubeconfig: source.source } : {}),
      commit: runner.sha,
      env,
      registry: { dockerConfigDir: runner.dockerConfigDir },
      deploy: {
        ...passedOptions(inputs),
        kustomize: {
          ...(inputs.kustomize ? { command: inputs.kustomize } : {}),
          ...(inputs.kustomizeEnableHelm ? { enableHelm: true } : {}),
          env,
          signal,
        },
        ...(inputs.urlFrom ? { urlFrom: inputs.urlFrom } : {}),
        ...(runUrl ? { runUrl } : {}),
        ...(inputs.objectAnnotations
          ? { annotations: deployAnnotations({ commit: runner.sha, runUrl }, new Date()) }
          : {}),
        signal,
        logger: createActionLogger({ annotate: inputs.annotate, locate }),
      },
    });
  } finally {
    source?.cleanup();
  }
}

/** Errors whose report {@link promote} published already (a failed rollout's). */
const published = new WeakSet<object>();

/** Whether {@link promote} published `error`'s report already, so the step adds no second summary. */
export function isPublished(error: unknown): boolean {
  return typeof error === 'object' && error !== null && published.has(error);
}

/**
 * Mode promote as a step: {@link runPromote}, then the report file, outputs and job summary (operation
 * `promote`); a failed rollout publishes what was applied, then the error goes on to fail the step.
 */
export async function promote(
  inputs: Inputs,
  runner: RunnerEnv,
  kubeconfig: KubeconfigSource,
  signal: AbortSignal,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const locate = (file: string) => workspacePath(runner.workspace, inputs.path, file);
  const report = await runPromote(inputs, runner, kubeconfig, signal, locate, env).catch(
    async (error: unknown) => {
      if (error instanceof DeployError) {
        const failure = failureOf(error, locate);
        await publish(error.report, inputs, runner, { error: failure, operation: 'promote' });
        published.add(error);
      }
      throw error;
    },
  );
  await publish(report, inputs, runner, { operation: 'promote' });
}
