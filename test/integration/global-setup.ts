// vitest globalSetup of the integration project: makes sure the local cluster, Docker engine and
// registry run (starting them with scripts/cluster/up.sh when a quick health check fails), then loads
// .cluster/env into process.env so tests and the processes they start see KUBECONFIG, DOCKER_HOST,
// DOCKER_CONFIG, SPREAD_REGISTRY… It returns no teardown: the environment stays up for the next run
// (stop it with `npm run cluster:down`). With SPREAD_TEST_CONTEXT, the run uses that context of an existing
// cluster instead and starts nothing (existing-cluster.ts).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { type ClusterEnv, clusterDir, loadClusterEnv, readClusterEnv, repoRoot } from './env.js';
import { useExistingCluster } from './existing-cluster.js';
import { testContext } from './harness.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** What .cluster/env sets (also copied into process.env). */
    clusterEnv: ClusterEnv;
  }
}

const COMPONENTS = [
  'etcd',
  'dockerd',
  'registry',
  'buildkitd',
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'kwok',
];

/** A component started by up.sh runs: its pid file names a live process with the recorded start time. */
function componentRunning(name: string): boolean {
  const run = join(clusterDir(), 'run');
  try {
    const pid = readFileSync(join(run, `${name}.pid`), 'utf8').trim();
    const start = readFileSync(join(run, `${name}.start`), 'utf8').trim();
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] !== 'Z' && fields[19] === start;
  } catch {
    return false;
  }
}

function get(
  req: typeof httpRequest | typeof httpsRequest,
  url: string,
  options: Record<string, unknown>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const r = req(url, { ...options, timeout: 3000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    r.on('timeout', () => r.destroy(new Error(`timeout: ${url}`)));
    r.on('error', reject);
    r.end();
  });
}

/** A quick check (well under a second when all is up) that everything up.sh starts is healthy. */
async function healthy(): Promise<string | undefined> {
  let env: ClusterEnv;
  try {
    env = readClusterEnv();
  } catch (e) {
    return (e as Error).message;
  }
  // A cluster left up from a run of another version is restarted by up.sh on the one asked for.
  const wanted = process.env.SPREAD_KUBE_VERSION;
  if (wanted && env.SPREAD_KUBE_VERSION !== wanted)
    return `it runs Kubernetes ${env.SPREAD_KUBE_VERSION}, SPREAD_KUBE_VERSION asks for ${wanted}`;
  const down = COMPONENTS.filter((c) => !componentRunning(c));
  if (down.length > 0) return `not running: ${down.join(', ')}`;
  const pki = join(clusterDir(), 'pki');
  try {
    const readyz = await get(httpsRequest, `${env.SPREAD_API_SERVER}/readyz`, {
      ca: readFileSync(join(pki, 'ca.crt')),
      cert: readFileSync(join(pki, 'admin.crt')),
      key: readFileSync(join(pki, 'admin.key')),
    });
    if (readyz.body !== 'ok') return `kube-apiserver /readyz: ${readyz.status} ${readyz.body}`;
    const ping = await get(httpRequest, 'http://docker/_ping', {
      socketPath: env.DOCKER_HOST.replace(/^unix:\/\//, ''),
    });
    if (ping.body !== 'OK') return `dockerd /_ping: ${ping.status} ${ping.body}`;
    const registry = await get(httpRequest, `http://${env.SPREAD_REGISTRY}/v2/`, {});
    if (registry.status !== 401) return `registry /v2/ without credentials: ${registry.status}, expected 401`;
  } catch (e) {
    return (e as Error).message;
  }
  return undefined;
}

/** Runs scripts/cluster/up.sh with its output streamed to stderr; rejects when it fails. */
function clusterUp(): Promise<void> {
  const script = join(repoRoot, 'scripts', 'cluster', 'up.sh');
  return new Promise((resolve, reject) => {
    // The components up.sh starts write to their own log files, so the pipes close when up.sh exits.
    const child = spawn('bash', [script], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(process.stderr, { end: false });
    child.stderr.pipe(process.stderr, { end: false });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${script} failed (${signal ?? `exit code ${code}`}); see its output above`));
    });
  });
}

export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  if (testContext !== undefined) {
    const { env, cleanup } = await useExistingCluster(testContext);
    project.provide('clusterEnv', env);
    return cleanup;
  }
  const problem = await healthy();
  if (problem !== undefined) {
    const started = Date.now();
    process.stderr.write(
      `[integration] local cluster not ready (${problem}); running scripts/cluster/up.sh\n`,
    );
    await clusterUp();
    process.stderr.write(`[integration] cluster up in ${((Date.now() - started) / 1000).toFixed(1)}s\n`);
  }
  if (!existsSync(join(clusterDir(), 'env')))
    throw new Error('scripts/cluster/up.sh did not write .cluster/env');
  project.provide('clusterEnv', loadClusterEnv());
  return undefined;
}
