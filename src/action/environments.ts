// The Action's `environments` input: which kubeconfig context a branch deploys to, by glob rules matched
// as GitHub's branch filters match them.
import picomatch from 'picomatch';

/**
 * The `environments` input: which kubeconfig context a branch deploys to.
 *
 * One rule a line, `PATTERN=CONTEXT`, first match wins:
 *
 * ```
 * main=production
 * release/*=staging
 * feature/**=preview
 * ```
 *
 * Patterns are globs over the branch name, matched by picomatch (the glob rules of GitHub's branch
 * filters): `*` matches any run of characters except `/`, `**` any run including `/` (`release/**`
 * also matches `release`), `?` one character except `/`; `[abc]`, `{a,b}` and a leading `!` as in
 * shell globs; a leading `.` in a segment is matched like any other character. Blank lines and lines
 * starting with `#` are ignored. A branch no rule matches is not deployed (the step ends with a notice).
 */

/** One `PATTERN=CONTEXT` line. */
export interface EnvironmentRule {
  /** The branch glob, e.g. `release/*`. */
  readonly pattern: string;
  /** The kubeconfig context a matching branch deploys to. */
  readonly context: string;
}

/**
 * Parses the `environments` input.
 * @throws Error naming the line (1-based) when it is not `PATTERN=CONTEXT` with both sides non-empty.
 */
export function parseEnvironments(text: string): EnvironmentRule[] {
  const rules: EnvironmentRule[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const eq = line.indexOf('=');
    const pattern = eq < 0 ? '' : line.slice(0, eq).trim();
    const context = eq < 0 ? '' : line.slice(eq + 1).trim();
    if (!pattern || !context)
      throw new Error(`line ${index + 1}: expected BRANCH=CONTEXT (e.g. main=production), got "${line}"`);
    rules.push({ pattern, context });
  });
  return rules;
}

/** Whether `branch` matches the glob `pattern` (see the module's rules). */
export function matchBranch(pattern: string, branch: string): boolean {
  return picomatch.isMatch(branch, pattern, { dot: true });
}

/** The first rule matching `branch`, or undefined. */
export function contextForBranch(
  rules: readonly EnvironmentRule[],
  branch: string,
): EnvironmentRule | undefined {
  return rules.find((r) => matchBranch(r.pattern, branch));
}

/** What the workflow run is about, from the runner's GITHUB_* variables. */
export interface RefInfo {
  /** GITHUB_EVENT_NAME, e.g. `push`, `pull_request`. */
  readonly eventName: string;
  /** GITHUB_REF_NAME: the branch or tag of a push; `<n>/merge` on a pull request. */
  readonly refName: string;
  /** GITHUB_HEAD_REF: a pull request's source branch. */
  readonly headRef: string;
  /** GITHUB_BASE_REF: a pull request's target branch. */
  readonly baseRef: string;
  /** GITHUB_REF_TYPE (`branch` or `tag`), else `tag` when GITHUB_REF is `refs/tags/…`; absent: unknown. */
  readonly refType?: string;
}

/** Whether the run is a pull request's (`pull_request`, `pull_request_target`). */
export function isPullRequest(ref: Pick<RefInfo, 'eventName'>): boolean {
  return ref.eventName === 'pull_request' || ref.eventName === 'pull_request_target';
}

/**
 * The branch the `environments` rules are matched against.
 *
 * - On `pull_request` and `pull_request_target` in mode `plan`: the base (target) branch, because the
 *   plan previews what merging would do to the environment that branch deploys to.
 * - On those events in mode `deploy` or `delete`: the head (source) branch, so rules like
 *   `feature/*=preview` give pull requests preview environments.
 * - Otherwise: GITHUB_REF_NAME (the pushed branch or tag, the dispatched ref).
 */
export function branchFor(ref: RefInfo, mode: string): string {
  if (isPullRequest(ref)) {
    const branch = mode === 'plan' ? ref.baseRef : ref.headRef;
    if (branch) return branch;
  }
  return ref.refName;
}
