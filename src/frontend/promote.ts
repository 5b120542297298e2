// `spread promote` as the front ends start it: both environments resolved from spread.yaml as
// `--environment` resolves them (context, namespace, folder, Helm values, the cluster each must be), both
// clusters checked, the source read for its revisions and the target deployed by core's promote.
import { defaultDeploymentName } from '../base/origin.js';
import type { KubeClient } from '../cluster/client.js';
import { type KubeconfigSource, loadKubeconfig, type ResolvedKubeconfig } from '../cluster/kubeconfig.js';
import { type DeployOptions, nothingWritten } from '../core/deploy/index.js';
import { type PromoteReport, promote as promoteTo } from '../core/promote.js';
import type { ImageOptions } from '../image/options.js';
import { PROJECT_FILE } from '../project/file.js';
import { checkoutOf } from './ci.js';
import { clusterClient, connectClient } from './cluster.js';
import { checkCluster, type EnvironmentTarget, kubeconfigServer, resolveEnvironment } from './environment.js';
import { deploymentOrigin } from './origin.js';

export { type PromoteReport, PromotionRefused } from '../core/promote.js';

/** Options of {@link promote}. */
export interface PromoteRequest {
  /** The deployment's directory, holding spread.yaml. */
  readonly dir: string;
  /** The environment promoted from; absent: the `after:` of {@link to}. */
  readonly from?: string | undefined;
  readonly to: string;
  /** The deployment's name in both environments; absent: the default of the directory (as deploy's). */
  readonly name?: string | undefined;
  /** Reaches the target (and the source, unless {@link fromKubeconfig}). */
  readonly kubeconfig: KubeconfigSource;
  readonly fromKubeconfig?: KubeconfigSource | undefined;
  /**
   * The CI's commit (GITHUB_SHA / CI_COMMIT_SHA), used only when `dir` is not in a git work tree: there
   * the real HEAD and the uncommitted changes are read (ci.ts checkoutOf).
   */
  readonly commit: string | undefined;
  /** The process's environment, for the deployments' origins (CI's repository variables). */
  readonly env: NodeJS.ProcessEnv;
  readonly registry?: Pick<ImageOptions, 'dockerConfigDir' | 'insecureRegistries'>;
  /** The target deploy's own settings: wait, timeout, prune, lock, annotations… */
  readonly deploy: Omit<
    DeployOptions,
    'cluster' | 'path' | 'namespace' | 'name' | 'origin' | 'charts' | 'mode' | 'images' | 'commit'
  >;
}

/**
 * The environments promoted from and to, as spread.yaml in `dir` declares them (each resolved as
 * `--environment` resolves it: frontend/environment.ts).
 *
 * @throws what resolveEnvironment throws; Error when the target has no `after:` and no `from` is given,
 *   or names itself.
 */
export function promotionTargets(
  dir: string,
  from: string | undefined,
  to: string,
): { from: EnvironmentTarget; to: EnvironmentTarget } {
  const target = resolveEnvironment(dir, to, {});
  const sourceName = from || target.environment.after;
  if (!sourceName)
    throw new Error(
      `environment ${to} declares no after: in ${PROJECT_FILE}, so the environment to promote from is not known: name it (--from, or the input from)`,
    );
  if (sourceName === to) throw new Error(`cannot promote environment ${to} to itself`);
  return { from: resolveEnvironment(dir, sourceName, {}), to: target };
}

/**
 * Promotes as spread.yaml declares: reads the source environment's revisions from its cluster, then
 * connects to the target's and runs core's promote (core/promote.ts).
 *
 * @throws what {@link promotionPlaces} throws; KubeconfigError; PromotionRefused; what deploy throws.
 */
export async function promote(request: PromoteRequest): Promise<PromoteReport> {
  const targets = promotionTargets(request.dir, request.from, request.to);
  const { logger, signal } = request.deploy;
  const source = loadKubeconfig(request.fromKubeconfig ?? request.kubeconfig, targets.from.context);
  const sourceClient = clusterClient(source, { logger });
  const target = loadKubeconfig(request.kubeconfig, targets.to.context);
  // One deployment, one name in every environment: the directory's, as deploy --environment names it.
  const origin = deploymentOrigin(request.env, request.dir);
  // What the directory holds, not what the CI says the run was for: the job may have moved or edited it.
  const checkout = checkoutOf(request.dir, request.commit);
  try {
    const cluster = await connectClient(
      clusterClient(target, { logger, maxSockets: request.deploy.concurrency }),
      target,
    ).catch((error: unknown) => {
      throw nothingWritten(error);
    });
    try {
      // Both clusters are the ones declared, before a revision is read or anything written.
      await guard(sourceClient, source, targets.from, signal);
      await guard(cluster.client, target, targets.to, signal);
      return await promoteTo({
        from: {
          environment: targets.from.environment.name,
          api: sourceClient,
          context: source.context,
          namespace: targets.from.namespace ?? source.namespace,
          deployment: request.name ?? defaultDeploymentName(origin),
        },
        environment: targets.to.environment.name,
        commit: checkout.commit,
        uncommitted: checkout.uncommitted,
        ...(request.registry ? { registry: request.registry } : {}),
        to: {
          ...request.deploy,
          mode: 'deploy',
          path: targets.to.path,
          projectDir: targets.to.projectDir,
          ...(targets.to.namespace ? { namespace: targets.to.namespace } : {}),
          ...(request.name ? { name: request.name } : {}),
          origin,
          charts: { helmValues: targets.to.helmValues, helmSet: targets.to.helmSet },
          cluster,
        },
      });
    } finally {
      cluster.close();
    }
  } finally {
    sourceClient.close();
  }
}

/** The wrong-cluster guard (frontend/environment.ts) for one side, when its environment names its cluster. */
async function guard(
  client: KubeClient,
  resolved: ResolvedKubeconfig,
  target: EnvironmentTarget,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (!target.expect) return;
  await checkCluster(
    client,
    { server: kubeconfigServer(resolved.kubeConfig), context: resolved.context },
    target.expect,
    signal,
  ).catch((error: unknown) => {
    throw nothingWritten(error);
  });
}
