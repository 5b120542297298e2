import path from 'node:path';
import type { KubeconfigSource } from '../cluster/kubeconfig.js';

/**
 * The kubeconfig the CLI uses, kubectl's rule: `--kubeconfig`, else `$KUBECONFIG` (a list joined by
 * the path delimiter, merged), else the in-cluster service account when running in a Pod with no
 * home, else `~/.kube/config`.
 */
export function kubeconfigSource(flag: string | undefined, env: NodeJS.ProcessEnv): KubeconfigSource {
  if (flag) return { paths: [flag] };
  const list = (env.KUBECONFIG ?? '').split(path.delimiter).filter(Boolean);
  if (list.length > 0) return { paths: list };
  if (env.KUBERNETES_SERVICE_HOST && !env.HOME) return { inCluster: true };
  return { paths: [path.join(env.HOME ?? '', '.kube', 'config')] };
}
