// The environment the Action deploys to when the deployment's spread.yaml declares environments: the
// input `environment`, else on a pull request the declared preview, else the one whose `branches` match
// the pushed branch. Without a declaration nothing here applies; with the short form too, it is an error.
import type { EnvironmentTarget } from '../frontend/environment.js';
import { resolveEnvironment } from '../frontend/environment.js';
import { environmentForBranch, previewEnvironment } from '../project/environments.js';
import { loadEnvironments } from '../project/load.js';
import { branchFor, isPullRequest } from './environments.js';
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
 * @throws InputError for a spread.yaml with problems; Error for an `environment` it does not declare,
 *   a context/namespace input that contradicts the environment, or the short form `environments`
 *   given beside a declaration.
 */
export function declaredEnvironment(
  dir: string,
  inputs: Pick<
    Inputs,
    'environment' | 'environments' | 'context' | 'namespace' | 'helmValues' | 'helmSet' | 'mode'
  > &
    Partial<Pick<Inputs, 'cluster'>>,
  runner: RunnerEnv,
): DeclaredChoice {
  const declaration = loadEnvironments(dir);
  if (declaration === undefined || declaration.environments.length === 0) return { kind: 'none' };
  // Both would leave one of them silently unused (the declaration's guard, or the workflow's rules).
  if (inputs.environments.length > 0)
    throw new Error(
      `input environments (the short form) and ${declaration.file}, which declares environments (${declaration.environments.map((e) => e.name).join(', ')}): give one, not both; move the input's rules into the branches of spread.yaml's environments (docs/environments.md)`,
    );
  const given = {
    context: inputs.context || undefined,
    namespace: inputs.namespace || undefined,
    helmValues: inputs.helmValues,
    helmSet: inputs.helmSet,
    pullRequest: runner.pullRequest?.number,
  };
  const resolve = (name: string, why: string): DeclaredChoice => ({
    kind: 'environment',
    target: resolveEnvironment(dir, name, given, inputs.cluster || undefined),
    why,
  });
  if (inputs.environment) return resolve(inputs.environment, 'the input environment');
  const preview = previewEnvironment(declaration);
  // A pull request's deploy (and its delete on close) goes to the preview; its plan to the base branch's.
  const pullRequest = isPullRequest(runner) && inputs.mode !== 'plan';
  if (pullRequest && preview !== undefined)
    return resolve(preview.name, `pull request #${runner.pullRequest?.number}: the preview`);
  if (!declaration.environments.some((e) => e.branches.length > 0)) return { kind: 'none' };
  // Never by its head branch: anyone opening a pull request names that branch (`main`, `release/x`).
  if (pullRequest)
    return {
      kind: 'skip',
      why: `a pull request deploys only to a preview environment, and ${declaration.file} declares none (preview:): nothing deployed`,
    };
  // `branches:` are branch filters, as GitHub's: a tag named like a branch (release/1.0) is not one.
  if (runner.refType === 'tag')
    return {
      kind: 'skip',
      why: `tag "${runner.refName}" is not a branch, and the branches of ${declaration.file}'s environments match only branches: nothing deployed`,
    };
  const branch = branchFor(runner);
  const env = environmentForBranch(declaration, branch);
  if (env === undefined)
    return {
      kind: 'skip',
      why: `branch "${branch}" matches the branches of no environment of spread.yaml (${declaration.environments.map((e) => `${e.name}: ${e.branches.join(', ') || 'none'}`).join('; ')}): nothing deployed`,
    };
  return resolve(env.name, `branch "${branch}" matches the branches of environment ${env.name}`);
}
