// The integration suite against an existing cluster (kind, k3d, minikube, a second harness): the
// context SPREAD_TEST_CONTEXT of KUBECONFIG (or ~/.kube/config) is copied, self-contained, into a
// temporary kubeconfig under the name the tests use (spread-local), and the environment .cluster/env
// would give is set from it and the cached binaries. Tests needing more than the API server skip (harness.ts).
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse, stringify } from 'yaml';
import { type ClusterEnv, helmBinaries, kustomizeBinary, repoRoot } from './env.js';

const run = promisify(execFile);

/** The context name every test deploys to; the copied context is renamed to it. */
const TEST_CONTEXT_NAME = 'spread-local';

/** SPREAD_KUBECTL, else the harness's cached kubectl of the pinned version, else `kubectl` on PATH. */
function findKubectl(env: NodeJS.ProcessEnv): string {
  if (env.SPREAD_KUBECTL) return env.SPREAD_KUBECTL;
  const versions = readFileSync(path.join(repoRoot, 'scripts/cluster/versions.sh'), 'utf8');
  const pinned = env.SPREAD_KUBE_VERSION || /SPREAD_KUBE_VERSION:=([^}]+)\}/.exec(versions)?.[1];
  const cache = env.SPREAD_CACHE || path.join(env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'spread');
  const cached = path.join(cache, 'bin', `kubernetes-${pinned}`, 'kubectl');
  return existsSync(cached) ? cached : 'kubectl';
}

async function kubectlOut(kubectl: string, args: string[], kubeconfig: string): Promise<string> {
  try {
    const { stdout } = await run(kubectl, args, { env: { ...process.env, KUBECONFIG: kubeconfig } });
    return stdout;
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(`${kubectl} ${args.join(' ')} (KUBECONFIG=${kubeconfig}): ${err.stderr || err.message}`);
  }
}

/** Links each existing binary into `bin` (on the tests' PATH, as .cluster/env's SPREAD_BIN_DIR is). */
function linkBinaries(bin: string, binaries: Record<string, string>): void {
  mkdirSync(bin, { recursive: true });
  for (const [name, target] of Object.entries(binaries))
    if (existsSync(target)) symlinkSync(target, path.join(bin, name));
}

/**
 * Points the run at context `context`: writes the temporary kubeconfig, checks the API server answers,
 * sets process.env as .cluster/env would (no Docker engine, registry or BuildKit: those are the
 * harness's) and returns it with a function removing the temporary files.
 */
export async function useExistingCluster(context: string): Promise<{ env: ClusterEnv; cleanup: () => void }> {
  const source = process.env.KUBECONFIG || path.join(homedir(), '.kube', 'config');
  const kubectl = findKubectl(process.env);
  const view = ['config', 'view', '--raw', '--minify', '--flatten', '--context', context];
  const config = parse(await kubectlOut(kubectl, view, source));
  const entry = config?.contexts?.[0];
  if (!entry) throw new Error(`SPREAD_TEST_CONTEXT=${context}: no such context in KUBECONFIG=${source}`);
  entry.name = TEST_CONTEXT_NAME;
  entry.context.namespace = 'default';
  config['current-context'] = TEST_CONTEXT_NAME;
  const dir = mkdtempSync(path.join(tmpdir(), 'spread-itg-cluster-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, stringify(config), { mode: 0o600 });
  const version = JSON.parse(await kubectlOut(kubectl, ['version', '-o', 'json'], kubeconfig));
  const gitVersion: string = version.serverVersion?.gitVersion ?? '';
  const bin = path.join(dir, 'bin');
  const helm = helmBinaries(process.env);
  linkBinaries(bin, { kubectl, helm: helm.helm4, kustomize: kustomizeBinary(process.env) });
  const env: ClusterEnv = {
    KUBECONFIG: kubeconfig,
    DOCKER_HOST: '',
    DOCKER_CONFIG: path.join(dir, 'docker'),
    SPREAD_REGISTRY: '',
    SPREAD_KUBECTL: kubectl,
    SPREAD_HELM: helm.helm4,
    SPREAD_HELM3: helm.helm3,
    SPREAD_KUBE_VERSION: gitVersion,
    SPREAD_API_SERVER: config.clusters?.[0]?.cluster?.server ?? '',
    SPREAD_BIN_DIR: bin,
    KUBECACHEDIR: path.join(dir, 'kube-cache'),
    PATH: `${bin}:${process.env.PATH ?? ''}`,
  };
  // A directory that does not exist: a test reading the harness's pid files or audit log by mistake
  // fails instead of reaching the harness's cluster in .cluster/.
  env.SPREAD_CLUSTER_DIR = path.join(dir, 'no-harness');
  // Empty values stay out of process.env: the CLI reads SPREAD_REGISTRY (its registry setting) and
  // refuses an empty one.
  for (const [key, value] of Object.entries(env)) if (value !== '') process.env[key] = value;
  process.stderr.write(
    `[integration] existing cluster: context ${context} of ${source}, Kubernetes ${gitVersion} at ${env.SPREAD_API_SERVER}\n`,
  );
  return { env, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
