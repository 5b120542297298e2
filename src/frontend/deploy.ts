// The deploy as the front ends start it: the kubeconfig and context named, the cluster connected
// (./cluster.ts), then core's deploy (core/deploy/index.ts) given that cluster, and closed after.
// The CLI, the Action and the integration tests go through here.
import { interruptOf } from '../base/poll.js';
import { type KubeconfigSource, loadKubeconfig } from '../cluster/kubeconfig.js';
import {
  checkDeploymentName,
  checkNamespaceName,
  type DeployOptions,
  deploy as deployTo,
  nothingWritten,
} from '../core/deploy/index.js';
import { kustomizeAhead } from '../input/ahead.js';
import type { DeployReport } from '../report/report.js';
import { type ClusterConnection, clusterClient, connectClient } from './cluster.js';
import { checkCluster, type ExpectedCluster, kubeconfigServer } from './environment.js';

export { DeployError, type FailureTarget, failureTarget } from '../core/deploy/index.js';

/** {@link DeployOptions} with the kubeconfig and context to connect with instead of a connected cluster. */
export type DeployRequest = Omit<DeployOptions, 'cluster'> & {
  readonly kubeconfig: KubeconfigSource;
  /** kubeconfig context; the current context when absent. */
  readonly context?: string;
  /** The cluster an environment declares (`--environment`): any other fails before anything is built. */
  readonly expectCluster?: ExpectedCluster;
};

/**
 * Connects to the cluster of `request.kubeconfig` and `request.context` and deploys (or plans) there.
 * As many sockets as requests in flight: the agent's pool, not `concurrency`, would cap them.
 *
 * @throws KubeconfigError; an Error naming the API server when it cannot be reached; what core's
 *   deploy throws.
 */
export async function deploy(request: DeployRequest): Promise<DeployReport> {
  const { kubeconfig, context, expectCluster, ...options } = request;
  checkDeploymentName(options.name);
  // An overlay deployed by itself is built while the cluster is connected and the identity read.
  const ahead = options.renderers?.kustomize ? undefined : kustomizeAhead(options.path, options.kustomize);
  try {
    return await connectAndDeploy(kubeconfig, context, expectCluster, {
      ...options,
      ...(ahead ? { renderers: { ...options.renderers, kustomize: ahead.kustomize } } : {}),
    });
  } finally {
    await ahead?.close();
  }
}

async function connectAndDeploy(
  kubeconfig: KubeconfigSource,
  context: string | undefined,
  expectCluster: ExpectedCluster | undefined,
  options: Omit<DeployOptions, 'cluster'>,
): Promise<DeployReport> {
  const resolved = loadKubeconfig(kubeconfig, context);
  checkNamespaceName(options.namespace || resolved.namespace);
  const client = clusterClient(resolved, { logger: options.logger, maxSockets: options.concurrency });
  let cluster: ClusterConnection;
  try {
    cluster = await connectClient(client, resolved);
  } catch (error) {
    throw nothingWritten(interruptOf(error, options.signal));
  }
  try {
    if (expectCluster !== undefined)
      await checkCluster(
        cluster.client,
        { server: kubeconfigServer(resolved.kubeConfig), context: resolved.context },
        expectCluster,
        options.signal,
      ).catch((error: unknown) => {
        throw nothingWritten(error);
      });
    return await deployTo({ ...options, cluster });
  } finally {
    cluster.close();
  }
}
