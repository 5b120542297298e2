// GitHub's Deployments API (the third "deployment": GitHub's record of a deploy to an environment, not
// spread's object set nor the Kubernetes kind): creates one per run, sets its status, retires old ones.
import { getOctokit } from '@actions/github';

/** Where GitHub deployments are recorded and for what. */
export interface DeploymentTarget {
  readonly token: string;
  /** REST API root, GITHUB_API_URL (tests point it at a local server). */
  readonly apiUrl: string;
  /** `owner/repo`. */
  readonly repository: string;
  /** The GitHub environment's name, e.g. `production` or `preview/feature-x`. */
  readonly environment: string;
}

/** What a deployment is for: the commit, and whether its environment goes away (a preview). */
export interface DeploymentStart {
  /** The commit deployed (for a `pull_request` event, the head commit). */
  readonly sha: string;
  /** A preview environment that `mode: delete` takes down (GitHub's `transient_environment`). */
  readonly transient: boolean;
  /** The run's page (`log_url` of every status). */
  readonly logUrl?: string;
  /** Shown on the deployment, e.g. `spread deploy web → production`. */
  readonly description: string;
}

/** Reports what cannot be done with GitHub's API; spread's deploy goes on. */
export type Warn = (message: string) => void;

type Octokit = ReturnType<typeof getOctokit>;

function clientOf(target: DeploymentTarget): { octokit: Octokit; owner: string; repo: string } {
  const [owner, repo] = target.repository.split('/');
  if (!owner || !repo) throw new Error(`GITHUB_REPOSITORY "${target.repository}" is not owner/repo`);
  return { octokit: getOctokit(target.token, { baseUrl: target.apiUrl }), owner, repo };
}

/** A deployment spread created and set `in_progress`; {@link DeploymentRun.finish} ends it. */
export interface DeploymentRun {
  readonly id: number;
  /**
   * Sets the final status: `success` (with `environmentUrl`, then marks the environment's older
   * successful deployments inactive) or `failure`. Problems only warn.
   */
  finish(state: 'success' | 'failure', environmentUrl?: string): Promise<void>;
}

/**
 * Creates a GitHub Deployment of `start.sha` to the environment and sets it `in_progress`
 * (REST "Create a deployment" with `auto_merge: false` and no required contexts, since the workflow
 * already decided to deploy; then "Create a deployment status"). Undefined, with a warning, when the
 * API refuses: a token without `deployments: write` is named as such.
 */
export async function startDeployment(
  target: DeploymentTarget,
  start: DeploymentStart,
  warn: Warn,
): Promise<DeploymentRun | undefined> {
  let id: number;
  const { octokit, owner, repo } = clientOf(target);
  try {
    const { data } = await octokit.rest.repos.createDeployment({
      owner,
      repo,
      ref: start.sha,
      environment: target.environment,
      auto_merge: false,
      required_contexts: [],
      transient_environment: start.transient,
      description: start.description,
      task: 'deploy',
    });
    if (!('id' in data)) {
      warn(`could not create a GitHub deployment to ${target.environment}: ${data.message ?? 'no id'}`);
      return undefined;
    }
    id = data.id;
    await octokit.rest.repos.createDeploymentStatus({
      owner,
      repo,
      deployment_id: id,
      state: 'in_progress',
      ...(start.logUrl ? { log_url: start.logUrl } : {}),
      description: start.description,
    });
  } catch (error) {
    warn(`could not create a GitHub deployment to ${target.environment}: ${describeDeploymentError(error)}`);
    return undefined;
  }
  return {
    id,
    async finish(state, environmentUrl) {
      try {
        await octokit.rest.repos.createDeploymentStatus({
          owner,
          repo,
          deployment_id: id,
          state,
          ...(start.logUrl ? { log_url: start.logUrl } : {}),
          ...(environmentUrl ? { environment_url: environmentUrl } : {}),
          description:
            state === 'success' ? `${start.description}: deployed` : `${start.description}: failed`,
          // Older deployments are marked below, production environments included.
          auto_inactive: false,
        });
      } catch (error) {
        warn(`could not set GitHub deployment ${id} to ${state}: ${describeDeploymentError(error)}`);
        return;
      }
      if (state === 'success') await markInactive(target, warn, id);
    },
  };
}

/**
 * Marks the environment's deployments whose latest status is `success` `inactive` (GitHub's own rule
 * for `auto_inactive`, applied here to production environments too), but for `keep`: after a newer
 * deploy, and when `mode: delete` took the environment down. One still `in_progress` may be another
 * run's, so it is left alone. Problems only warn.
 *
 * @returns the ids marked inactive.
 */
export async function markInactive(target: DeploymentTarget, warn: Warn, keep?: number): Promise<number[]> {
  const { octokit, owner, repo } = clientOf(target);
  const marked: number[] = [];
  try {
    const deployments = await octokit.paginate(octokit.rest.repos.listDeployments, {
      owner,
      repo,
      environment: target.environment,
      per_page: 100,
    });
    for (const d of deployments) {
      if (d.id === keep) continue;
      const { data: statuses } = await octokit.rest.repos.listDeploymentStatuses({
        owner,
        repo,
        deployment_id: d.id,
        per_page: 1,
      });
      const latest = statuses[0]?.state;
      if (latest !== 'success') continue;
      await octokit.rest.repos.createDeploymentStatus({
        owner,
        repo,
        deployment_id: d.id,
        state: 'inactive',
        description: keep === undefined ? 'environment deleted by spread' : 'superseded by a newer deploy',
      });
      marked.push(d.id);
    }
  } catch (error) {
    warn(
      `could not mark older GitHub deployments of ${target.environment} inactive: ${describeDeploymentError(error)}`,
    );
  }
  return marked;
}

/**
 * Why a Deployments API call failed. HTTP 403, or the 404 GitHub gives for what a token may not see,
 * names the permission the job's token needs; anything else says what happened.
 */
export function describeDeploymentError(error: unknown): string {
  const e = error as { status?: unknown; response?: unknown; message?: unknown };
  const message = String(e?.message ?? error);
  if (typeof e?.status !== 'number' || !e.response) return `the GitHub API could not be reached: ${message}`;
  const http = `HTTP ${e.status}: ${message}`;
  if (e.status === 401) return `the GitHub API refused the token (${http}): is github-token a valid token?`;
  if (e.status === 403 || e.status === 404)
    return `the token lacks the permission deployments: write (${http}); add \`permissions: deployments: write\` to the job`;
  return `the GitHub API answered ${http}`;
}
