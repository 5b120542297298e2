// Which kubeconfig files a front end reads when none is given as content: kubectl's loading rules
// (--kubeconfig, $KUBECONFIG merged, in-cluster, ~/.kube/config), so spread and kubectl agree.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { KubeconfigSource } from '../cluster/kubeconfig.js';

/**
 * The kubeconfig of the environment, for every front end (the CLI, and the Action when its
 * `kubeconfig` input is empty): kubectl's rule (client-go's clientcmd loading rules): `--kubeconfig`
 * (which must exist), else `$KUBECONFIG` (a list joined by the path delimiter, merged, the first
 * file to set a value winning; files that do not exist are skipped, duplicates read once), else the
 * in-cluster service account when running in a Pod with no home, else `~/.kube/config`. When no file
 * of `$KUBECONFIG` exists, all are kept, so that the error of loadKubeconfig names them all.
 */
export function kubeconfigSource(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  exists: (file: string) => boolean = existsSync,
): KubeconfigSource {
  if (flag) return { paths: [flag] };
  const list = [...new Set((env.KUBECONFIG ?? '').split(path.delimiter).filter(Boolean))];
  const present = list.filter((file) => exists(file));
  if (present.length > 0) return { paths: present };
  if (list.length > 0) return { paths: list };
  if (env.KUBERNETES_SERVICE_HOST && !env.HOME) return { inCluster: true };
  return { paths: [path.join(env.HOME ?? '', '.kube', 'config')] };
}
