// Several local clusters side by side for the tests of environments and fleets: `ensureClusters(n)`
// runs scripts/cluster/clusters.sh (idempotent: a second call only checks health) and says how to
// reach each cluster. Tests that use it pass `needs('clusters')`.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { clusterDir, parseClusterEnv } from './env.js';
import { kubectl, ROOT } from './helpers.js';

const run = promisify(execFile);

/** One local cluster: its context in {@link LocalClusters.kubeconfig}, API server and kube-system uid. */
export interface LocalCluster {
  readonly context: string;
  readonly server: string;
  readonly kubeSystemUID: string;
}

/** The clusters side by side: one kubeconfig naming them all (the admin user), cluster 1 first. */
export interface LocalClusters {
  readonly kubeconfig: string;
  readonly clusters: readonly LocalCluster[];
}

/** Starts (or checks) `count` local clusters; cluster 1 is up.sh's, the others clusters.sh's. */
export async function ensureClusters(count: number): Promise<LocalClusters> {
  await run('bash', [path.join(ROOT, 'scripts/cluster/clusters.sh'), String(count)], {
    env: { ...process.env, SPREAD_CLUSTER_DIR: clusterDir() },
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: { stderr?: string }) => {
    throw new Error(`scripts/cluster/clusters.sh ${count} failed:\n${error.stderr ?? String(error)}`);
  });
  const env = parseClusterEnv(readFileSync(path.join(clusterDir(), 'clusters.env'), 'utf8'));
  const kubeconfig = env.SPREAD_CLUSTERS_KUBECONFIG ?? path.join(clusterDir(), 'clusters.kubeconfig');
  const clusters: LocalCluster[] = [];
  for (let n = 1; n <= count; n++) {
    const context = n === 1 ? 'spread-local' : `spread-local-${n}`;
    const server = (n === 1 ? process.env.SPREAD_API_SERVER : env[`SPREAD_API_SERVER_${n}`]) ?? '';
    const { stdout } = await kubectl([
      '--kubeconfig',
      kubeconfig,
      '--context',
      context,
      'get',
      'namespace',
      'kube-system',
      '-o',
      'jsonpath={.metadata.uid}',
    ]);
    clusters.push({ context, server, kubeSystemUID: stdout.trim() });
  }
  return { kubeconfig, clusters };
}
