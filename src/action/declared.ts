// The environment the Action deploys to when the deployment's spread.yaml declares environments: the
// input `environment`, else the one whose `branches` match the branch, else on a pull request the
// declared preview. Without a declaration (or with the short form `environments`) nothing here applies.
import type { EnvironmentTarget } from '../frontend/environment.js';
import { resolveEnvironment } from '../frontend/environment.js';
import { environmentForBranch, loadEnvironments, previewEnvironment } from '../project/environments.js';
import { branchFor } from './environments.js';
import type { Inputs } from './inputs.js';
import type { RunnerEnv } from './runner.js';

/** What the declaration decided: deploy to `target`, skip (no environment for this branch), or not apply. */
export type DeclaredChoice =
  | { readonly kind: 'environment'; readonly target: EnvironmentTarget; readonly why: string }
  | { readonly kind: 'skip'; readonly why: string }
  | { readonly kind: 'none' };

/**
 * The declared environment of this run.
 *
 * @param dir the deployment's directory (the input `path`, resolved in the workspace).
 * @throws InputError for a spread.yaml with problems; Error for an `environment` it does not declare
 *   or a context/namespace input that contradicts the environment.
 */
export function declaredEnvironment(
  dir: string,
  inputs: Pick<
    Inputs,
    'environment' | 'environments' | 'context' | 'namespace' | 'helmValues' | 'helmSet' | 'mode'
  >,
  runner: RunnerEnv,
): DeclaredChoice {
  if (inputs.environments.length > 0) return { kind: 'none' };
  const declaration = loadEnvironments(dir);
  if (declaration === undefined) return { kind: 'none' };
  const given = {
    context: inputs.context || undefined,
    namespace: inputs.namespace || undefined,
    helmValues: inputs.helmValues,
    helmSet: inputs.helmSet,
    pullRequest: runner.pullRequest?.number,
  };
  const resolve = (name: string, why: string): DeclaredChoice => ({
    kind: 'environment',
    target: resolveEnvironment(dir, name, given),
    why,
  });
  if (inputs.environment) return resolve(inputs.environment, 'the input environment');
  const preview = previewEnvironment(declaration);
  // A pull request's deploy (and its delete on close) goes to the preview; its plan to the base branch's.
  if (runner.pullRequest !== undefined && inputs.mode !== 'plan' && preview !== undefined)
    return resolve(preview.name, `pull request #${runner.pullRequest.number}: the preview`);
  if (!declaration.environments.some((e) => e.branches.length > 0)) return { kind: 'none' };
  const branch = branchFor(runner, inputs.mode);
  const env = environmentForBranch(declaration, branch);
  if (env === undefined)
    return {
      kind: 'skip',
      why: `branch "${branch}" matches the branches of no environment of spread.yaml (${declaration.environments.map((e) => `${e.name}: ${e.branches.join(', ') || 'none'}`).join('; ')}): nothing deployed`,
    };
  return resolve(env.name, `branch "${branch}" matches the branches of environment ${env.name}`);
}
