// `--environment NAME` on the CLI's commands: the environment the directory's spread.yaml declares,
// resolved with the flags given beside it (a context or namespace that contradicts it is an error),
// and the pull request number of a preview read from the CI's variables.
import type { EnvironmentTarget } from '../frontend/environment.js';
import { resolveEnvironment } from '../frontend/environment.js';
import { loadEnvironments } from '../project/load.js';
import { contextOf } from './args.js';

/** The flags that an environment sets, as the commands that take `--environment` have them. */
export interface EnvironmentFlags {
  readonly environment?: string | undefined;
  readonly context?: string | undefined;
  readonly namespace?: string | undefined;
  readonly helmValues?: readonly string[] | undefined;
  readonly helmSet?: Readonly<Record<string, string>> | undefined;
}

/**
 * The pull request a run is for, from the CI's variables: GitLab's CI_MERGE_REQUEST_IID, GitHub's
 * `refs/pull/N/merge` (GITHUB_REF), else SPREAD_PULL_REQUEST (a number set by hand).
 */
export function pullRequestNumber(env: NodeJS.ProcessEnv): number | undefined {
  const text =
    env.CI_MERGE_REQUEST_IID ||
    /^refs\/pull\/(\d+)\/merge$/.exec(env.GITHUB_REF ?? '')?.[1] ||
    env.SPREAD_PULL_REQUEST;
  const number = Number(text);
  return text && Number.isInteger(number) && number > 0 ? number : undefined;
}

/**
 * The environment `--environment` names for a command reading `dir`; undefined without the flag.
 * @throws what {@link resolveEnvironment} throws.
 */
export function environmentTarget(
  dir: string,
  flags: EnvironmentFlags,
  contextArgument: string | undefined,
  env: NodeJS.ProcessEnv,
): EnvironmentTarget | undefined {
  if (!flags.environment) return undefined;
  return resolveEnvironment(dir, flags.environment, {
    context: contextOf(contextArgument, flags.context),
    namespace: flags.namespace,
    helmValues: flags.helmValues,
    helmSet: flags.helmSet,
    pullRequest: pullRequestNumber(env),
  });
}

/**
 * A hint for a command that read `dir` whole and failed on its input, when the directory declares
 * environments that deploy its folders one at a time (their overlays often share object names).
 */
export function environmentsHint(dir: string, flags: EnvironmentFlags): string | undefined {
  if (flags.environment) return undefined;
  try {
    const names = loadEnvironments(dir)?.environments.map((e) => e.name) ?? [];
    if (names.length === 0) return undefined;
    return `hint: ${dir}/spread.yaml declares environments (${names.join(', ')}): give one with --environment NAME`;
  } catch {
    return undefined;
  }
}
