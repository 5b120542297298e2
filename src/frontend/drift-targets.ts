// Which comparisons a drift run makes: one per environment the directory's spread.yaml declares (each
// in its own context and namespace, on the cluster it names), else the one deployment as given. Shared
// by `spread status --all-environments`, the Action's and the GitLab component's mode drift.
import { loadEnvironments } from '../project/load.js';
import { type EnvironmentTarget, targetOf } from './environment.js';

/** One comparison of a drift run: an environment's target, or (`environment` absent) the deployment as given. */
export interface DriftTarget {
  /** The declared environment's name; absent without a declaration. */
  readonly environment?: string;
  readonly target?: EnvironmentTarget;
  /** Why the environment is not compared (a preview: one per pull request, none on a schedule). */
  readonly skipped?: string;
  /** Why it could not be resolved (a context given that contradicts it…). */
  readonly error?: string;
}

/**
 * The comparisons for `dir`: each declared environment in declaration order (only `named`, when
 * given and not `all`), else one without an environment (`named` then ignored). Preview
 * environments are skipped: they exist per pull request, and a scheduled run has none.
 *
 * @throws Error when the directory declares environments and `named` is none of them; InputError
 *   for a bad spread.yaml.
 */
export function driftTargets(dir: string, named?: string): DriftTarget[] {
  const declaration = loadEnvironments(dir);
  // Without a declaration a name is only the GitHub environment's (the Action's input environment).
  if (declaration === undefined || declaration.environments.length === 0) return [{}];
  const chosen = declaration.environments.filter((e) => !named || named === 'all' || e.name === named);
  if (chosen.length === 0)
    throw new Error(
      `environment ${named} is not declared in ${declaration.file} (declared: ${declaration.environments.map((e) => e.name).join(', ')})`,
    );
  return chosen.map((environment) => {
    if (environment.preview !== undefined)
      return { environment: environment.name, skipped: 'a preview environment: one per pull request' };
    try {
      return { environment: environment.name, target: targetOf(dir, environment, {}) };
    } catch (error) {
      return { environment: environment.name, error: (error as Error).message };
    }
  });
}
