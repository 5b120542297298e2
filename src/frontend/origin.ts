/**
 * Where the deployed folder comes from (base/origin.ts), as the front ends find it: the CI's
 * repository variables, else the git remote `origin`, else the absolute path. Read here once and
 * passed to the core typed (DeployOptions.origin).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { DeploymentOrigin } from '../base/origin.js';

/**
 * The origin of folder `dir`:
 * - GitHub Actions: `<host of GITHUB_SERVER_URL>/<GITHUB_REPOSITORY>`, the path relative to the git
 *   top level of `dir` (else to GITHUB_WORKSPACE);
 * - GitLab CI: `<CI_SERVER_HOST>/<CI_PROJECT_PATH>`, the path relative to the git top level (else
 *   to CI_PROJECT_DIR);
 * - elsewhere, in a git work tree with a remote `origin`: that remote without scheme, user,
 *   password, port and `.git` (`git@github.com:acme/shop.git` → `github.com/acme/shop`, the same as
 *   in CI), the path relative to the top level;
 * - else the absolute path of `dir`.
 * Never throws.
 */
export function deploymentOrigin(env: NodeJS.ProcessEnv, dir: string): DeploymentOrigin {
  const absolute = path.resolve(dir);
  const top = git(absolute, ['rev-parse', '--show-toplevel']);
  const inside = (root: string | undefined) => {
    if (!root) return undefined;
    const rel = path.relative(root, absolute);
    if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
    return rel === '' ? '.' : rel.split(path.sep).join('/');
  };
  const ci = ciRepository(env);
  if (ci) {
    const rel = inside(top) ?? inside(ci.workspace);
    if (rel) return { repository: ci.repository, path: rel };
  }
  const remote = top ? git(absolute, ['config', '--get', 'remote.origin.url']) : undefined;
  const repository = remote ? repositoryOfRemote(remote) : undefined;
  const rel = inside(top);
  if (repository && rel) return { repository, path: rel };
  return { path: absolute.split(path.sep).join('/') };
}

/** The CI's repository (host and path) and checkout folder, from GitHub's or GitLab's variables. */
function ciRepository(env: NodeJS.ProcessEnv): { repository: string; workspace?: string } | undefined {
  if (env.GITHUB_REPOSITORY) {
    const host = hostOf(env.GITHUB_SERVER_URL) ?? 'github.com';
    return {
      repository: `${host}/${env.GITHUB_REPOSITORY}`.toLowerCase(),
      ...(env.GITHUB_WORKSPACE ? { workspace: env.GITHUB_WORKSPACE } : {}),
    };
  }
  if (env.CI_PROJECT_PATH) {
    const host = env.CI_SERVER_HOST || hostOf(env.CI_SERVER_URL) || 'gitlab.com';
    return {
      repository: `${host}/${env.CI_PROJECT_PATH}`.toLowerCase(),
      ...(env.CI_PROJECT_DIR ? { workspace: env.CI_PROJECT_DIR } : {}),
    };
  }
  return undefined;
}

/**
 * A git remote URL as `host/path` (lower case), without what may hold a credential or differ
 * between clones of one repository: scheme, user and password, port, a trailing `.git` or `/`.
 * `https://x-access-token:TOKEN@github.com/Acme/Shop.git` → `github.com/acme/shop`; a local path
 * stays a path. Undefined for what it cannot read.
 */
export function repositoryOfRemote(remote: string): string | undefined {
  const trimmed = remote
    .trim()
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
  let hostPath: string | undefined;
  const scp = /^(?:[^@/]+@)?([^:/]+):(?!\/)(.+)$/.exec(trimmed);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) {
    try {
      const url = new URL(trimmed);
      hostPath = url.protocol === 'file:' ? url.pathname : `${url.hostname}${url.pathname}`;
    } catch {
      return undefined;
    }
  } else if (scp) hostPath = `${scp[1]}/${scp[2]}`;
  else if (trimmed.startsWith('/')) hostPath = trimmed;
  return hostPath
    ? hostPath
        .replace(/\/{2,}/g, '/')
        .replace(/\/+$/, '')
        .toLowerCase()
    : undefined;
}

function hostOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

function git(cwd: string, args: readonly string[]): string | undefined {
  try {
    const out = execFileSync('git', [...args], { cwd, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
    return out || undefined;
  } catch {
    return undefined;
  }
}
