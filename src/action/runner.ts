// What the Action reads from the runner's environment (GitHub's default variables and the event file),
// read once here: nothing below the front end looks at process.env.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { KubeconfigSource } from '../cluster/kubeconfig.js';
import { kubeconfigSource } from '../frontend/kubeconfig.js';
import type { RefInfo } from './environments.js';

/**
 * What the Action reads from the runner's environment, once (GitHub's "default environment
 * variables"). Only the front end reads the environment; this is where it does.
 */
export interface RunnerEnv extends RefInfo {
  /** GITHUB_WORKSPACE: the checkout, which annotation paths are relative to. */
  readonly workspace: string;
  /** RUNNER_TEMP: emptied after each job; where a kubeconfig file goes when one is needed. */
  readonly temp: string;
  readonly sha: string;
  /** `owner/repo`. */
  readonly repository: string;
  readonly serverUrl: string;
  /** GITHUB_API_URL, e.g. `https://api.github.com` or a GHES `https://host/api/v3`. */
  readonly apiUrl: string;
  readonly runId: string;
  readonly runAttempt: string;
  /** The pull request of a `pull_request`/`pull_request_target` event, from GITHUB_EVENT_PATH. */
  readonly pullRequest?: { readonly number: number; readonly headSha: string };
  /** The event's `repository.private`; undefined when the event does not say. */
  readonly repositoryPrivate?: boolean;
  /**
   * The environment's kubeconfig, by the rule the CLI follows too (frontend/kubeconfig.ts): the files
   * of KUBECONFIG that exist, else ~/.kube/config (or the in-cluster service account).
   */
  readonly kubeconfig: KubeconfigSource;
  /** DOCKER_HOST: the Docker engine that builds images; undefined: the default socket. */
  readonly dockerHost?: string;
  /** DOCKER_CONFIG, else ~/.docker: registry credentials (docker/login-action writes them there). */
  readonly dockerConfigDir: string;
  /**
   * The runner offers the Actions cache service that BuildKit's `type=gha` cache uses:
   * ACTIONS_RUNTIME_TOKEN with ACTIONS_RESULTS_URL (v2) or ACTIONS_CACHE_URL (v1).
   */
  readonly cacheService: boolean;
}

/** Reads the runner's environment. A missing or unreadable event file just means no pull request. */
export function readRunnerEnv(env: NodeJS.ProcessEnv): RunnerEnv {
  const workspace = env.GITHUB_WORKSPACE || process.cwd();
  const eventName = env.GITHUB_EVENT_NAME ?? '';
  let pullRequest: RunnerEnv['pullRequest'];
  let repositoryPrivate: boolean | undefined;
  if (env.GITHUB_EVENT_PATH) {
    try {
      const event = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8')) as {
        pull_request?: { number?: number; head?: { sha?: string } };
        number?: number;
        repository?: { private?: boolean };
      };
      if (typeof event.repository?.private === 'boolean') repositoryPrivate = event.repository.private;
      const number = event.pull_request?.number ?? event.number;
      if ((eventName === 'pull_request' || eventName === 'pull_request_target') && typeof number === 'number')
        pullRequest = { number, headSha: event.pull_request?.head?.sha ?? '' };
    } catch {
      pullRequest = undefined;
    }
  }
  return {
    workspace,
    temp: env.RUNNER_TEMP || path.join(workspace, '..', '_temp'),
    eventName,
    refName: env.GITHUB_REF_NAME ?? '',
    headRef: env.GITHUB_HEAD_REF ?? '',
    baseRef: env.GITHUB_BASE_REF ?? '',
    ...refTypeOf(env),
    sha: env.GITHUB_SHA ?? '',
    repository: env.GITHUB_REPOSITORY ?? '',
    serverUrl: (env.GITHUB_SERVER_URL || 'https://github.com').replace(/\/+$/, ''),
    apiUrl: (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, ''),
    runId: env.GITHUB_RUN_ID ?? '',
    runAttempt: env.GITHUB_RUN_ATTEMPT ?? '',
    ...(pullRequest ? { pullRequest } : {}),
    ...(repositoryPrivate !== undefined ? { repositoryPrivate } : {}),
    kubeconfig: kubeconfigSource(undefined, env),
    ...(env.DOCKER_HOST ? { dockerHost: env.DOCKER_HOST } : {}),
    dockerConfigDir: env.DOCKER_CONFIG || path.join(env.HOME ?? '', '.docker'),
    cacheService: Boolean(env.ACTIONS_RUNTIME_TOKEN && (env.ACTIONS_RESULTS_URL || env.ACTIONS_CACHE_URL)),
  };
}

/** Links to the commit and the run, when the repository is known. */
export function runLinks(r: RunnerEnv): { commitUrl?: string; runUrl?: string } {
  if (!r.repository) return {};
  const base = `${r.serverUrl}/${r.repository}`;
  const sha = r.pullRequest?.headSha || r.sha;
  return {
    ...(sha ? { commitUrl: `${base}/commit/${sha}` } : {}),
    ...(r.runId
      ? { runUrl: `${base}/actions/runs/${r.runId}${r.runAttempt ? `/attempts/${r.runAttempt}` : ''}` }
      : {}),
  };
}

/**
 * A path the runner can put an annotation on: relative to the workspace, POSIX separators.
 * `file` is relative to the deployed directory `dir` (itself relative to the workspace, or absolute);
 * a file outside the workspace keeps its absolute path.
 */
export function workspacePath(workspace: string, dir: string, file: string): string {
  const absolute = path.resolve(workspace, dir, file);
  const relative = path.relative(workspace, absolute);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return absolute;
  return relative.split(path.sep).join('/');
}

/** GITHUB_REF_TYPE, else `tag` for a GITHUB_REF under refs/tags/ (a runner older than the variable). */
function refTypeOf(env: NodeJS.ProcessEnv): { refType?: string } {
  if (env.GITHUB_REF_TYPE) return { refType: env.GITHUB_REF_TYPE };
  return env.GITHUB_REF?.startsWith('refs/tags/') ? { refType: 'tag' } : {};
}
