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
 * develop=dev
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
 * The branch the `environments` rules (and spread.yaml's `branches`) are matched against.
 *
 * - On `pull_request` and `pull_request_target`: the base (target) branch, because a plan previews
 *   what merging would do to the environment that branch deploys to. Never the head branch: whoever
 *   opens the pull request names it (`main`), so matching it would let a pull request deploy where
 *   that branch's pushes deploy. A pull request's deploy goes only to a declared preview
 *   ({@link shortFormChoice}, ./declared.ts).
 * - Otherwise: GITHUB_REF_NAME (the pushed branch or tag, the dispatched ref).
 */
export function branchFor(ref: RefInfo): string {
  if (isPullRequest(ref) && ref.baseRef) return ref.baseRef;
  return ref.refName;
}

/** What the short form decides for a run: the rule matching its branch, or why nothing is deployed. */
export type ShortFormChoice =
  | { readonly kind: 'context'; readonly rule: EnvironmentRule; readonly branch: string }
  | { readonly kind: 'skip'; readonly why: string };

/**
 * Where the `environments` input sends this run. A pull request's plan: its base branch's rule. A
 * pull request's deploy (and its delete on close) is skipped: it deploys only to a preview that
 * spread.yaml declares, never by a rule, which would match its head branch (named by whoever opens the
 * pull request) or its base branch (the pull request's code is not that branch's yet). Otherwise the
 * rule of the pushed branch.
 */
export function shortFormChoice(
  rules: readonly EnvironmentRule[],
  ref: RefInfo,
  mode: string,
): ShortFormChoice {
  if (isPullRequest(ref) && mode !== 'plan')
    return {
      kind: 'skip',
      why: `a pull request deploys only to a preview environment that spread.yaml declares (preview:, docs/environments.md), never through the input environments, whose rules would match its head branch "${ref.headRef}", which whoever opens the pull request names: nothing deployed`,
    };
  const branch = branchFor(ref);
  const rule = contextForBranch(rules, branch);
  if (!rule)
    return {
      kind: 'skip',
      why: `branch "${branch}" matches no line of the environments input (${rules.map((r) => r.pattern).join(', ')}): nothing deployed`,
    };
  return { kind: 'context', rule, branch };
}
