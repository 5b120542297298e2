// `--environment NAME` (the Action's and the GitLab component's `environment`) as every front end takes
// it: the environment looked up in the directory's spread.yaml and turned into what a deploy reads
// (the folder, context, namespace, Helm values), and the wrong-cluster guard that runs once the
// cluster is connected, before anything is built or written.
import { join, relative } from 'node:path';
import { formatSource, type Source } from '../base/source.js';
import type { KubeClient } from '../cluster/client.js';
import {
  ALL_ENVIRONMENTS,
  type Environment,
  type EnvironmentCluster,
  type EnvironmentsDeclaration,
  environmentNamed,
  normalizeServer,
  previewNamespace,
  singleCluster,
} from '../project/environments.js';
import { clusterNamed } from '../project/fleet-waves.js';
import { loadEnvironments } from '../project/load.js';

/** What the user gave beside the environment's name, which the environment must not contradict. */
export interface EnvironmentGiven {
  readonly context?: string | undefined;
  readonly namespace?: string | undefined;
  readonly helmValues?: readonly string[] | undefined;
  readonly helmSet?: Readonly<Record<string, string>> | undefined;
  /** The pull request (GitHub) or merge request (GitLab) number, for a preview environment. */
  readonly pullRequest?: number | undefined;
}

/** The cluster a deploy must reach, as the environment declares it; checked by {@link checkCluster}. */
export interface ExpectedCluster {
  readonly environment: string;
  readonly server?: string;
  readonly kubeSystemUID?: string;
  /** Where the environment's cluster is declared. */
  readonly source: Source;
  /** Where its `server:` is written; default {@link source}. */
  readonly serverSource?: Source;
  /** Where its `kubeSystemUID:` is written; default {@link source}. */
  readonly kubeSystemUIDSource?: Source;
}

/** An environment resolved for one deploy: what it reads and where it goes. */
export interface EnvironmentTarget {
  readonly environment: Environment;
  readonly cluster: EnvironmentCluster;
  /** The folder read: the deployment's directory, or the environment's `path` inside it. */
  readonly path: string;
  /** The deployment's directory, holding spread.yaml: where its health rules are read. */
  readonly projectDir: string;
  readonly context?: string;
  readonly namespace?: string;
  /** The environment's values files, then the ones given (later ones win). */
  readonly helmValues: readonly string[];
  /** The environment's `--set` values, overridden by the ones given. */
  readonly helmSet: Readonly<Record<string, string>>;
  /** Present when the environment names its cluster's server or kube-system uid. */
  readonly expect?: ExpectedCluster;
  /**
   * A preview's: its namespace is created with the deployment and deleted with it (the deploy's
   * `createNamespace`), declared at this source (spread.yaml, relative to {@link path}).
   */
  readonly createNamespace?: Source;
}

/**
 * Looks `name` up in the environments `dir`'s spread.yaml declares and resolves it for one deploy.
 *
 * @param dir the deployment's directory (holding spread.yaml).
 * @param cluster the name of one of a fleet's clusters to deploy to; absent: the environment's one.
 * @throws InputError for a project file with problems; Error for `all`, when the directory declares no
 *   environments, names none called `name`, when `given` contradicts the environment (a context or
 *   namespace of its own), or a preview has no pull request number.
 */
export function resolveEnvironment(
  dir: string,
  name: string,
  given: EnvironmentGiven,
  cluster?: string,
): EnvironmentTarget {
  if (name === ALL_ENVIRONMENTS)
    throw new Error(
      'environment all: only a plan (spread plan, the mode plan of the Action) takes every environment; this takes one',
    );
  const environment = environmentOf(requireDeclaration(dir, name), name);
  // One cluster of a fleet (a CI matrix leg), else the environment's one cluster.
  return targetOf(dir, environment, given, cluster ? clusterNamed(environment, cluster) : undefined);
}

/** The declaration of `dir`, which `--environment NAME` needs. */
export function requireDeclaration(dir: string, name: string): EnvironmentsDeclaration {
  const declaration = loadEnvironments(dir);
  if (declaration === undefined || declaration.environments.length === 0)
    throw new Error(
      `environment ${name}: ${join(dir, 'spread.yaml')} declares no environments (docs/environments.md)`,
    );
  return declaration;
}

function environmentOf(declaration: EnvironmentsDeclaration, name: string): Environment {
  const environment = environmentNamed(declaration, name);
  if (environment === undefined)
    throw new Error(
      `environment ${name} is not declared in ${declaration.file} (declared: ${declaration.environments.map((e) => e.name).join(', ')})`,
    );
  return environment;
}

/**
 * {@link resolveEnvironment} for an environment already looked up (`--environment all` resolves each),
 * on `cluster`, one of its clusters (a fleet's leg); default its one cluster.
 */
export function targetOf(
  dir: string,
  environment: Environment,
  given: EnvironmentGiven,
  cluster: EnvironmentCluster = singleCluster(environment),
): EnvironmentTarget {
  const at = formatSource(cluster.source);
  const context = agree('context', given.context, cluster.context, environment.name, at);
  const declared = previewOf(environment, given.pullRequest) ?? cluster.namespace ?? environment.namespace;
  const namespace = agree('namespace', given.namespace, declared, environment.name, at);
  const expect =
    cluster.server !== undefined || cluster.kubeSystemUID !== undefined
      ? {
          environment: environment.name,
          source: cluster.source,
          ...(cluster.server !== undefined ? { server: cluster.server } : {}),
          ...(cluster.kubeSystemUID !== undefined ? { kubeSystemUID: cluster.kubeSystemUID } : {}),
          ...(cluster.serverSource ? { serverSource: cluster.serverSource } : {}),
          ...(cluster.kubeSystemUIDSource ? { kubeSystemUIDSource: cluster.kubeSystemUIDSource } : {}),
        }
      : undefined;
  const path = environment.path === undefined || environment.path === '.' ? dir : join(dir, environment.path);
  // Where the preview is declared, as every source of the deploy: relative to the folder read.
  const previewAt = {
    file: relative(path, join(dir, environment.source.file)),
    line: environment.source.line,
  };
  return {
    environment,
    cluster,
    path,
    projectDir: dir,
    ...(context !== undefined ? { context } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
    helmValues: [...environment.helmValues, ...(cluster.helmValues ?? []), ...(given.helmValues ?? [])],
    helmSet: { ...environment.helmSet, ...cluster.helmSet, ...(given.helmSet ?? {}) },
    ...(expect !== undefined ? { expect } : {}),
    ...(environment.preview !== undefined ? { createNamespace: previewAt } : {}),
  };
}

function previewOf(environment: Environment, pullRequest: number | undefined): string | undefined {
  if (environment.preview === undefined) return undefined;
  if (pullRequest === undefined)
    throw new Error(
      `environment ${environment.name} is a preview per pull request, and this run has no pull request number (a pull_request or merge request pipeline gives it)`,
    );
  return previewNamespace(environment.preview, pullRequest);
}

/** The given value or the declared one; both, differing, is an error (as kubectl's namespace rule). */
function agree(
  what: string,
  given: string | undefined,
  declared: string | undefined,
  environment: string,
  at: string,
): string | undefined {
  if (given && declared && given !== declared)
    throw new Error(
      `${what} ${given} contradicts environment ${environment}, whose ${what} is ${declared} (${at}): give one or the other`,
    );
  return given || declared;
}

/** The API server of the kubeconfig's current context, as written there. */
export function kubeconfigServer(kubeConfig: {
  getCurrentCluster(): { readonly server: string } | null;
}): string {
  return kubeConfig.getCurrentCluster()?.server ?? '';
}

/**
 * The half of the wrong-cluster guard that needs no request: the kubeconfig's server against the
 * declared one (a fleet checks every cluster's before its first wave writes).
 *
 * @throws Error `wrong cluster: …`, as {@link checkCluster}.
 */
export function checkServer(
  reached: { readonly server: string; readonly context: string },
  expected: ExpectedCluster,
): void {
  if (expected.server === undefined) return;
  if (normalizeServer(expected.server) === normalizeServer(reached.server)) return;
  throw new Error(
    `wrong cluster: environment ${expected.environment} is server ${expected.server} (${formatSource(expected.serverSource ?? expected.source)}), but context ${reached.context} reaches server ${reached.server}; nothing was written, nothing built`,
  );
}

/**
 * The wrong-cluster guard: fails unless the cluster reached is the one the environment declares, by
 * its API server URL (the kubeconfig's, normalised) and/or its `kube-system` Namespace's uid (read
 * from the cluster, so a second URL of the same cluster passes and a recreated cluster does not).
 * Runs before anything is built or written; the error names both clusters.
 *
 * @throws Error `wrong cluster: …`.
 */
export async function checkCluster(
  client: KubeClient,
  reached: { readonly server: string; readonly context: string },
  expected: ExpectedCluster,
  signal?: AbortSignal,
): Promise<void> {
  const problems: string[] = [];
  const want: string[] = [];
  const got: string[] = [];
  if (expected.server !== undefined) {
    want.push(`server ${expected.server} (${formatSource(expected.serverSource ?? expected.source)})`);
    got.push(`server ${reached.server}`);
    if (normalizeServer(expected.server) !== normalizeServer(reached.server)) problems.push('server');
  }
  if (expected.kubeSystemUID !== undefined) {
    const ns = await client
      .getOrUndefined<{ metadata?: { uid?: string } }>('/api/v1/namespaces/kube-system', signal)
      .catch((error: unknown) => {
        throw new Error(
          `environment ${expected.environment} names its cluster's kube-system uid, and context ${reached.context} cannot read the kube-system Namespace to compare (${(error as Error).message}); nothing was written, nothing built`,
        );
      });
    const uid = ns?.metadata?.uid ?? 'none (no kube-system namespace)';
    want.push(
      `kube-system uid ${expected.kubeSystemUID} (${formatSource(expected.kubeSystemUIDSource ?? expected.source)})`,
    );
    got.push(`kube-system uid ${uid}`);
    if (uid !== expected.kubeSystemUID) problems.push('kube-system uid');
  }
  if (problems.length === 0) return;
  throw new Error(
    `wrong cluster: environment ${expected.environment} is ${want.join(', ')}, but context ${reached.context} reaches ${got.join(', ')}; nothing was written, nothing built`,
  );
}
