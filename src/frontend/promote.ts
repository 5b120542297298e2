// `spread promote` as the front ends start it: spread.yaml's environments read, each environment turned
// into where its deployment is (context, namespace, folder, Helm values), the source cluster reached for
// its revisions and the target connected for the deploy, then core's promote. CLI, Action and tests.
import path from 'node:path';
import { defaultDeploymentName } from '../base/origin.js';
import { InputError } from '../base/source.js';
import { type KubeconfigSource, loadKubeconfig } from '../cluster/kubeconfig.js';
import { type DeployOptions, nothingWritten } from '../core/deploy/index.js';
import { type PromoteReport, promote as promoteTo } from '../core/promote.js';
import type { ImageOptions } from '../image/options.js';
import { type Environment, environmentNamed, readEnvironments } from '../project/environments.js';
import { PROJECT_FILE, readProjectFile } from '../project/file.js';
import { clusterClient, connectClient } from './cluster.js';
import { deploymentOrigin } from './origin.js';

export { type PromoteReport, PromotionRefused } from '../core/promote.js';

/** Options of {@link promote}. */
export interface PromoteRequest {
  /** The deployment's directory, holding spread.yaml. */
  readonly dir: string;
  /** The environment promoted from; absent: the `after:` of {@link to}. */
  readonly from?: string | undefined;
  readonly to: string;
  /** The deployment's name in both environments; absent: the default of each environment's folder. */
  readonly name?: string | undefined;
  /** Reaches the target (and the source, unless {@link fromKubeconfig}). */
  readonly kubeconfig: KubeconfigSource;
  readonly fromKubeconfig?: KubeconfigSource | undefined;
  /** The checked-out commit (the front end's CI context). */
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

/** Where an environment's deployment is and how its folder renders. */
export interface EnvironmentPlace {
  readonly environment: string;
  readonly context?: string | undefined;
  readonly namespace?: string | undefined;
  /** The folder deployed, the directory joined with the environment's `path`. */
  readonly path: string;
  readonly charts: {
    readonly helmValues: readonly string[];
    readonly helmSet: Readonly<Record<string, string>>;
  };
}

/**
 * The environments promoted from and to, as spread.yaml in `dir` declares them.
 *
 * @throws InputError (spread.yaml's problems, at their lines); Error when it declares no environments,
 *   names neither environment, or the target has no `after:` and no `from` is given.
 */
export function promotionPlaces(
  dir: string,
  from: string | undefined,
  to: string,
): { from: EnvironmentPlace; to: EnvironmentPlace } {
  const project = readProjectFile(dir);
  if (project.issues.some((i) => i.severity === 'error')) throw new InputError(project.issues);
  const section = project.project?.sections.environments;
  if (!section)
    throw new Error(
      `spread promote needs the environments of the deployment: ${path.join(dir, PROJECT_FILE)} declares none (docs/environments.md)`,
    );
  const read = readEnvironments(section);
  if (!read.declaration) throw new InputError(read.issues);
  const names = read.declaration.environments.map((e) => e.name);
  const named = (name: string, role: string): Environment => {
    const found = environmentNamed(read.declaration!, name);
    if (!found)
      throw new Error(
        `the environment promoted ${role}, ${name}, is not declared in ${PROJECT_FILE}: it declares ${names.join(', ')}`,
      );
    return found;
  };
  const target = named(to, 'to');
  const sourceName = from ?? target.after;
  if (!sourceName)
    throw new Error(
      `${to} declares no after: in ${PROJECT_FILE}, so the environment to promote from is not known: name it (--from, or the input from)`,
    );
  if (sourceName === to) throw new Error(`cannot promote ${to} to itself`);
  return { from: placeOf(dir, named(sourceName, 'from')), to: placeOf(dir, target) };
}

/** An environment's place; one cluster only (a promotion to a fleet is not built yet). */
function placeOf(dir: string, env: Environment): EnvironmentPlace {
  if (env.clusters.length > 1)
    throw new Error(
      `${env.name} lists ${env.clusters.length} clusters: spread promote deploys to one cluster per environment`,
    );
  const cluster = env.clusters[0];
  const namespace = cluster?.namespace ?? env.namespace;
  return {
    environment: env.name,
    ...(cluster?.context ? { context: cluster.context } : {}),
    ...(namespace ? { namespace } : {}),
    path: path.join(dir, env.path ?? '.'),
    charts: { helmValues: env.helmValues, helmSet: env.helmSet },
  };
}

/**
 * Promotes as spread.yaml declares: reads the source environment's revisions from its cluster, then
 * connects to the target's and runs core's promote (core/promote.ts).
 *
 * @throws what {@link promotionPlaces} throws; KubeconfigError; PromotionRefused; what deploy throws.
 */
export async function promote(request: PromoteRequest): Promise<PromoteReport> {
  const places = promotionPlaces(request.dir, request.from, request.to);
  const { logger } = request.deploy;
  const source = loadKubeconfig(request.fromKubeconfig ?? request.kubeconfig, places.from.context);
  const sourceClient = clusterClient(source, { logger });
  const target = loadKubeconfig(request.kubeconfig, places.to.context);
  const originOf = (place: EnvironmentPlace) => deploymentOrigin(request.env, place.path);
  try {
    const cluster = await connectClient(
      clusterClient(target, { logger, maxSockets: request.deploy.concurrency }),
      target,
    ).catch((error: unknown) => {
      throw nothingWritten(error);
    });
    try {
      return await promoteTo({
        from: {
          environment: places.from.environment,
          api: sourceClient,
          context: source.context,
          namespace: places.from.namespace ?? source.namespace,
          deployment: request.name ?? defaultDeploymentName(originOf(places.from)),
        },
        environment: places.to.environment,
        commit: request.commit,
        ...(request.registry ? { registry: request.registry } : {}),
        to: {
          ...request.deploy,
          mode: 'deploy',
          path: places.to.path,
          ...(places.to.namespace ? { namespace: places.to.namespace } : {}),
          ...(request.name ? { name: request.name } : {}),
          origin: originOf(places.to),
          charts: places.to.charts,
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
