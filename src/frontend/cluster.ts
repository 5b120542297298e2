// Connecting to the cluster, for every front end: the kubeconfig loaded (its context, exec
// credentials, TLS), the client built, and discovery loaded with the first request. core/ and
// engine/ receive the result; only the front ends build the real client.
import { type Logger, traceRequests } from '../base/logger.js';
import { KubeClient } from '../cluster/client.js';
import { Discovery } from '../cluster/discovery.js';
import { type KubeconfigSource, loadKubeconfig, type ResolvedKubeconfig } from '../cluster/kubeconfig.js';
import type { DeployCluster } from '../core/deploy/index.js';
import { explainApiError } from '../engine/apply/errors.js';

/** A connected cluster; `close()` ends its sockets. */
export interface ClusterConnection extends DeployCluster {
  readonly client: KubeClient;
  close(): void;
}

/** The kubeconfig's context, as loaded, and a client of its API server (not contacted yet). */
export function clusterClient(
  resolved: ResolvedKubeconfig,
  options: { readonly logger: Logger; readonly maxSockets?: number },
): KubeClient {
  return new KubeClient(resolved.kubeConfig, {
    onRequest: traceRequests(options.logger),
    ...(options.maxSockets !== undefined ? { maxSockets: options.maxSockets } : {}),
  });
}

/**
 * Loads discovery through `client` (the first request): whatever fails then is about reaching the
 * cluster, so the error says which API server and context (unless `explain: false`: `spread status`
 * shows the API's own error). Closes the client when it fails.
 */
export async function connectClient(
  client: KubeClient,
  resolved: ResolvedKubeconfig,
  { explain = true }: { readonly explain?: boolean } = {},
): Promise<ClusterConnection> {
  try {
    const discovery = await Discovery.load(client).catch((error: unknown) => {
      if (!explain) throw error;
      throw new Error(
        `cannot use the API server ${client.server.origin} of context ${resolved.context}: ${explainApiError(error)}`,
      );
    });
    return {
      api: client,
      client,
      discovery,
      context: resolved.context,
      namespace: resolved.namespace,
      close: () => client.close(),
    };
  } catch (error) {
    client.close();
    throw error;
  }
}

/** {@link loadKubeconfig}, {@link clusterClient} and {@link connectClient} in one. */
export async function connect(
  source: KubeconfigSource,
  context: string | undefined,
  options: { readonly logger: Logger; readonly maxSockets?: number },
): Promise<ClusterConnection> {
  const resolved = loadKubeconfig(source, context);
  return connectClient(clusterClient(resolved, options), resolved);
}
