// What an integration test may count on besides the API server. Against the harness's own cluster
// (scripts/cluster/up.sh) everything; against an existing cluster named by SPREAD_TEST_CONTEXT (kind,
// k3d, minikube, another harness) only the API server, so a test that needs one of the harness's own
// components passes `needs(…)` as its options and is skipped with the reason (skipped-reporter.ts lists them).
import type { TestOptions } from 'vitest';

declare module 'vitest' {
  interface TaskMeta {
    /** Why the test was skipped on an existing cluster: the harness components it needs. */
    harnessSkip?: string;
  }
}

/** The harness's own components, each with what a test does with it. */
export const HARNESS_PARTS = {
  docker: 'builds or runs images with the Docker engine of .cluster/env (DOCKER_HOST)',
  registry: 'pushes or pulls images of the registry of .cluster/env (SPREAD_REGISTRY)',
  buildkit: 'builds with the standalone BuildKit of .cluster/env (SPREAD_BUILDKIT_HOST)',
  restart: "stops or restarts the harness's API server, etcd, registry or BuildKit (their pid files)",
  audit: "counts requests in the harness API server's audit log (.cluster/logs/audit.log)",
  teamA: "deploys as the harness's spread-team-a user, limited to namespace team-a by RBAC",
  toxiproxy: "injects faults with Toxiproxy in front of the harness's API server and registry",
  act: 'runs GitHub workflows under act, whose jobs run in the Docker engine of .cluster/env',
  gitlabCiLocal: 'runs the GitLab component under gitlab-ci-local with the Docker engine of .cluster/env',
  harnessFiles: "reads the harness's own files (.cluster/env, kubeconfig contexts, PKI)",
  clusters: 'deploys to several local clusters side by side (scripts/cluster/clusters.sh)',
} as const;

/** One of the harness's own components. */
export type HarnessPart = keyof typeof HARNESS_PARTS;

/** The context of an existing cluster the suite runs against, or undefined for the harness's own. */
export const testContext: string | undefined = process.env.SPREAD_TEST_CONTEXT || undefined;

/**
 * Parts this run leaves out on purpose, from SPREAD_SKIP_PARTS (`act,gitlabCiLocal`): .ci/run runs
 * the CI runners' tests on the default Kubernetes version only, since what act and gitlab-ci-local do
 * does not depend on the cluster's version (the deploy under them is tested on every version).
 */
const skippedParts: readonly HarnessPart[] = (process.env.SPREAD_SKIP_PARTS ?? '')
  .split(',')
  .map((p) => p.trim())
  .filter((p) => p !== '')
  .map((p) => {
    if (!(p in HARNESS_PARTS))
      throw new Error(
        `SPREAD_SKIP_PARTS: unknown part ${p} (parts: ${Object.keys(HARNESS_PARTS).join(', ')})`,
      );
    return p as HarnessPart;
  });

/** Why a test needing `parts` cannot run here, or undefined when it can. */
export function missingHarness(...parts: HarnessPart[]): string | undefined {
  const left = parts.filter((p) => skippedParts.includes(p));
  if (left.length > 0)
    return `left out of this run by SPREAD_SKIP_PARTS: ${left.map((p) => HARNESS_PARTS[p]).join('; ')}`;
  if (testContext === undefined || parts.length === 0) return undefined;
  return `needs the harness (scripts/cluster/up.sh), not context ${testContext}: ${parts
    .map((p) => HARNESS_PARTS[p])
    .join('; ')}`;
}

/**
 * Options for a `describe` or `test` that needs `parts`: none on the harness's cluster; on an existing
 * cluster, skip with the reason in the task's meta (the hooks of a skipped `describe` do not run).
 */
export function needs(...parts: HarnessPart[]): TestOptions {
  const why = missingHarness(...parts);
  return why === undefined ? {} : { skip: true, meta: { harnessSkip: why } };
}
