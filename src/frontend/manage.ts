// The Manager operations (history, rollback, list, delete) and status as the front ends start them:
// the kubeconfig and context named, the client built here (./cluster.ts), and core's operation
// given the cluster, closed after. The CLI, the Action and the integration tests go through here.
import type { Logger } from '../base/logger.js';
import { type KubeconfigSource, loadKubeconfig } from '../cluster/kubeconfig.js';
import * as remove from '../core/delete.js';
import * as driftCore from '../core/drift.js';
import * as manage from '../core/manage.js';
import * as core from '../core/status.js';
import { clusterClient, connectClient } from './cluster.js';
import { checkCluster, type ExpectedCluster, kubeconfigServer } from './environment.js';

export type { DeleteReport } from '../core/delete.js';
export type { DriftReport, DriftResult } from '../core/drift.js';
export {
  type DeploymentSummary,
  type HistoryReport,
  NotFoundError,
  type RollbackReport,
} from '../core/manage.js';
export { type StatusReport, statusExitCode } from '../core/status.js';

/** Where the cluster is: the kubeconfig, and its context (the current one when absent). */
export interface ClusterRequest {
  readonly kubeconfig: KubeconfigSource;
  readonly context?: string | undefined;
  readonly logger: Logger;
  /** The cluster an environment declares (`--environment`): any other fails before anything is done. */
  readonly expectCluster?: ExpectedCluster | undefined;
}

/** Options `O` of a core operation with the kubeconfig and context to connect with instead of a cluster. */
export type Request<O> = Omit<O, 'cluster'> & ClusterRequest;

/** Runs `fn` with a client of the cluster of `request`, closed after (discovery is left to `fn`). */
async function withCluster<T>(
  request: ClusterRequest,
  fn: (cluster: manage.ManageCluster) => Promise<T>,
): Promise<T> {
  const resolved = loadKubeconfig(request.kubeconfig, request.context);
  const client = clusterClient(resolved, { logger: request.logger });
  try {
    if (request.expectCluster !== undefined)
      await checkCluster(
        client,
        { server: kubeconfigServer(resolved.kubeConfig), context: resolved.context },
        request.expectCluster,
      );
    return await fn({ api: client, context: resolved.context, namespace: resolved.namespace });
  } finally {
    client.close();
  }
}

/** {@link manage.history} on the cluster of `request`. */
export function history(name: string, request: Request<manage.ManageOptions>): Promise<manage.HistoryReport> {
  return withCluster(request, (cluster) => manage.history(name, { ...request, cluster }));
}

/** {@link manage.rollback} on the cluster of `request`. */
export function rollback(
  name: string,
  revision: number | undefined,
  request: Request<manage.RollbackOptions>,
): Promise<manage.RollbackReport> {
  return withCluster(request, (cluster) => manage.rollback(name, revision, { ...request, cluster }));
}

/** {@link manage.list} on the cluster of `request`. */
export function list(request: Request<manage.ManageOptions>): Promise<manage.DeploymentSummary[]> {
  return withCluster(request, (cluster) => manage.list({ ...request, cluster }));
}

/** {@link remove.deletes} on the cluster of `request`. */
export function deletes(
  name: string,
  request: Request<Parameters<typeof remove.deletes>[1]>,
): Promise<remove.DeleteReport> {
  return withCluster(request, (cluster) => remove.deletes(name, { ...request, cluster }));
}

/** Options of {@link status}: core's, with the kubeconfig and context to compare with. */
export type StatusRequest = Omit<core.StatusOptions, 'cluster'> & {
  readonly cluster?: Omit<NonNullable<core.StatusOptions['cluster']>, 'connection'> & {
    readonly kubeconfig: KubeconfigSource;
    readonly context?: string | undefined;
    /** The cluster an environment declares (`--environment`): any other fails the status. */
    readonly expectCluster?: ExpectedCluster | undefined;
  };
};

/** {@link core.status}, connected to the cluster of `request.cluster` when given. */
export async function status(request: StatusRequest): Promise<core.StatusReport> {
  if (!request.cluster) return core.status({ ...request, cluster: undefined });
  return withStatusCluster(request.cluster, request.logger, (cluster) =>
    core.status({ ...request, cluster }),
  );
}

/** Options of {@link drift}: those of {@link status}, with a cluster to compare with. */
export type DriftRequest = StatusRequest & {
  readonly cluster: NonNullable<StatusRequest['cluster']>;
  /** The folder of spread.yaml, when `path` is an environment's folder inside it. */
  readonly projectDir?: string | undefined;
  /** Compare with the directory (default) or the last deployed revision (see core's DriftOptions). */
  readonly against?: driftCore.DriftAgainst | undefined;
};

/** {@link driftCore.drift}, connected to the cluster of `request.cluster`. */
export function drift(request: DriftRequest): Promise<driftCore.DriftResult> {
  return withStatusCluster(request.cluster, request.logger, (cluster) =>
    driftCore.drift({ ...request, cluster }),
  );
}

/**
 * Runs `fn` with the comparison's cluster options, connected (discovery loaded), after checking an
 * environment's declared cluster; closed after.
 */
async function withStatusCluster<T>(
  given: NonNullable<StatusRequest['cluster']>,
  logger: Logger,
  fn: (cluster: NonNullable<core.StatusOptions['cluster']>) => Promise<T>,
): Promise<T> {
  const { kubeconfig, context, expectCluster, ...compare } = given;
  const resolved = loadKubeconfig(kubeconfig, context);
  const client = clusterClient(resolved, { logger });
  const connection = await connectClient(client, resolved, { explain: false });
  try {
    if (expectCluster !== undefined)
      await checkCluster(
        client,
        { server: kubeconfigServer(resolved.kubeConfig), context: resolved.context },
        expectCluster,
      );
    return await fn({ ...compare, connection });
  } finally {
    connection.close();
  }
}
