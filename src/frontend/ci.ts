// What the CI says about a run (its commit and the run's web page), read the same way by the CLI and the
// Action, and the per-deploy annotations spread writes from it.
import { execFileSync } from 'node:child_process';
import { SPREAD } from '../base/labels.js';

/** What the CI system says about the run: shared by the CLI and the Action (front ends only). */
export interface CiContext {
  /** Full commit SHA: GITHUB_SHA, CI_COMMIT_SHA, else `git rev-parse HEAD` in `dir`. */
  readonly commit?: string;
  /** The run's web page: GitHub Actions run, or GitLab job/pipeline. */
  readonly runUrl?: string;
}

/** spread's per-deploy annotation keys. */
export const DEPLOY_ANNOTATIONS = {
  commit: SPREAD.commit,
  runUrl: SPREAD.runUrl,
  time: SPREAD.deployedAt,
} as const;

/**
 * Reads the CI context from GitHub Actions' and GitLab CI's predefined variables, falling back to
 * git for the commit. Never throws: what cannot be found is left out.
 */
export function ciContext(env: NodeJS.ProcessEnv, dir: string): CiContext {
  let commit = env.GITHUB_SHA || env.CI_COMMIT_SHA || undefined;
  if (!commit) {
    try {
      commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim();
    } catch {
      commit = undefined;
    }
  }
  let runUrl: string | undefined;
  if (env.GITHUB_RUN_ID && env.GITHUB_REPOSITORY) {
    runUrl = `${env.GITHUB_SERVER_URL ?? 'https://github.com'}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`;
  } else if (env.CI_JOB_URL || env.CI_PIPELINE_URL) {
    runUrl = env.CI_JOB_URL || env.CI_PIPELINE_URL;
  }
  return { ...(commit ? { commit } : {}), ...(runUrl ? { runUrl } : {}) };
}

/** What is checked out in a deployment's directory, as promote compares it with a revision's commit. */
export interface Checkout {
  /** `git rev-parse HEAD` in a git work tree; else GITHUB_SHA / CI_COMMIT_SHA; undefined when unknown. */
  readonly commit?: string;
  /** `git status --porcelain` lines in the directory (changed, staged, untracked files), but `.spread/`. */
  readonly uncommitted: readonly string[];
}

/**
 * The directory's checkout: in a git work tree, its real HEAD and uncommitted changes (the CI's
 * variables name the commit the run was started for, not what the directory holds after the job's own
 * steps); outside one, `ciCommit` (GITHUB_SHA / CI_COMMIT_SHA). Never throws.
 */
export function checkoutOf(dir: string, ciCommit: string | undefined): Checkout {
  const git = (args: string[]) =>
    execFileSync('git', args, { cwd: dir, stdio: ['ignore', 'pipe', 'ignore'] }).toString();
  try {
    if (git(['rev-parse', '--is-inside-work-tree']).trim() === 'true') {
      const commit = git(['rev-parse', 'HEAD']).trim();
      // .spread/ is the GitLab job's own output (reports, the npm package): never configuration.
      const uncommitted = git(['status', '--porcelain', '--', '.', ':(exclude).spread'])
        .split('\n')
        .filter((l) => l.trim() !== '');
      return { ...(commit ? { commit } : {}), uncommitted };
    }
  } catch {
    // Not a git work tree, git missing, or no commit yet: the CI's variables.
  }
  return { ...(ciCommit ? { commit: ciCommit } : {}), uncommitted: [] };
}

/** The annotations of one deploy: commit, run URL (when known) and the time, ISO 8601 UTC. */
export function deployAnnotations(ci: CiContext, now: Date): Record<string, string> {
  return {
    ...(ci.commit ? { [DEPLOY_ANNOTATIONS.commit]: ci.commit } : {}),
    ...(ci.runUrl ? { [DEPLOY_ANNOTATIONS.runUrl]: ci.runUrl } : {}),
    [DEPLOY_ANNOTATIONS.time]: now.toISOString(),
  };
}
