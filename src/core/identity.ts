/**
 * A deployment's identity: its name (given, or the default of its origin, base/origin.ts) and
 * namespace, and the check that the deployment found under that name comes from the same folder.
 * Two folders sharing one deployment would prune each other's objects, so that fails before anything
 * is built or written.
 */
import path from 'node:path';
import type { KubeObject } from '../base/kube-object.js';
import { APPLYSET, APPLYSET_PARENT_TYPE, SPREAD } from '../base/labels.js';
import type { Logger } from '../base/logger.js';
import { toDnsLabel } from '../base/names.js';
import { optionRef } from '../base/option-ref.js';
import {
  type DeploymentOrigin,
  defaultDeploymentName,
  formatOrigin,
  originOfAnnotations,
  sameOrigin,
} from '../base/origin.js';
import { METADATA_LIST_ACCEPT } from '../cluster/client.js';
import { applySetFor, type ParentState, readParent } from '../engine/inventory/applyset.js';
import type { ClusterPort } from '../engine/kube-api.js';

/** The deployment a deploy, plan or status works on, and its parent as read (before the lock). */
export interface DeploymentIdentity {
  readonly name: string;
  readonly parent: ParentState;
}

/**
 * The deployment's name: `name` when given; else the default of `origin`
 * ({@link defaultDeploymentName}), except that a directory deployed before under its folder's name
 * (spread's default before it recorded origins) keeps that name while that deployment's parent
 * records no origin or this one. Without an origin, the folder's name, as before.
 */
export async function deploymentIdentity(
  client: ClusterPort,
  namespace: string,
  options: {
    readonly name?: string | undefined;
    readonly origin?: DeploymentOrigin | undefined;
    readonly path: string;
  },
  logger: Logger,
): Promise<DeploymentIdentity> {
  const folderName = toDnsLabel(path.basename(path.resolve(options.path)));
  const read = (name: string) => readParent(client, applySetFor(name, namespace));
  if (options.name) return { name: options.name, parent: await read(options.name) };
  if (!options.origin) return { name: folderName, parent: await read(folderName) };
  const name = defaultDeploymentName(options.origin);
  const [parent, earlier] = await Promise.all([
    read(name),
    name === folderName ? undefined : read(folderName),
  ]);
  if (!parent.exists && earlier?.exists && (!earlier.origin || sameOrigin(earlier.origin, options.origin))) {
    logger.info(
      `deployment ${folderName}: the name this folder was deployed under before (the default is now ${name}, which names the folder's repository or parent folder: "${folderName}" is a common folder name); ${optionRef('name')} chooses the name`,
    );
    return { name: folderName, parent: earlier };
  }
  return { name, parent };
}

/**
 * Why deployment `name` may not be deployed from `origin`: its parent records another origin.
 * Undefined when it may (no parent yet, a parent that records no origin, the same origin, or
 * `adopt`, which takes the deployment over and records `origin`).
 */
export function originConflict(
  name: string,
  namespace: string,
  parent: ParentState,
  origin: DeploymentOrigin | undefined,
  adopt: boolean,
): Error | undefined {
  if (!origin || !parent.exists || !parent.origin || adopt || sameOrigin(parent.origin, origin))
    return undefined;
  const moved =
    origin.repository && origin.repository === parent.origin.repository
      ? `if this folder was moved or renamed from ${parent.origin.path}, `
      : 'if this folder replaces that one, ';
  return new Error(
    `deployment ${name} in namespace ${namespace} was deployed from ${formatOrigin(parent.origin)}, and this deploy comes from ${formatOrigin(origin)}: two folders deploying as one deployment prune each other's objects, so nothing was written. Give this folder a deployment of its own (${optionRef('name')} NAME), or, ${moved}take the deployment over (${optionRef('adopt')}, which records the new origin)`,
  );
}

/**
 * The deployments recorded from `origin` in namespaces other than `namespace` (`namespace/name`),
 * from one metadata-only list of the ApplySet parents of all namespaces. Empty when none are, or when
 * listing all namespaces is not allowed.
 */
export async function sameOriginElsewhere(
  client: ClusterPort,
  namespace: string,
  origin: DeploymentOrigin,
  signal?: AbortSignal,
): Promise<string[]> {
  try {
    const list = await client.request<{ items: Pick<KubeObject, 'metadata'>[] }>({
      method: 'GET',
      path: '/api/v1/secrets',
      query: { fieldSelector: `type=${APPLYSET_PARENT_TYPE}`, labelSelector: APPLYSET.id },
      accept: METADATA_LIST_ACCEPT,
      ...(signal ? { signal } : {}),
    });
    return list.body.items
      .filter((p) => p.metadata.namespace !== namespace)
      .filter((p) => {
        const recorded = originOfAnnotations(p.metadata.annotations);
        return recorded !== undefined && sameOrigin(recorded, origin) && !otherEnvironment(recorded, origin);
      })
      .map((p) => `${p.metadata.namespace}/${p.metadata.annotations?.[SPREAD.deployment] ?? p.metadata.name}`)
      .sort();
  } catch {
    return [];
  }
}

/** Whether two deployments of one folder are two of its declared environments (both on purpose). */
function otherEnvironment(a: DeploymentOrigin, b: DeploymentOrigin): boolean {
  return a.environment !== undefined && b.environment !== undefined && a.environment !== b.environment;
}

/**
 * What a first deploy of a folder already deployed in other namespaces logs: a second deployment is
 * made here (two environments in one cluster do that on purpose), and if the context's namespace
 * changed instead, `-n` reaches the one there.
 */
export function elsewhereWarning(name: string, namespace: string, elsewhere: readonly string[]): string {
  const [first] = elsewhere;
  const [ns = '', other = ''] = (first ?? '').split('/');
  return `this folder is also deployed as ${elsewhere.join(', ')}; this deploy makes a new deployment ${name} in namespace ${namespace}, and the other keeps its objects. If the namespace changed (the context's), deploy to the old one with ${optionRef('namespace')} ${ns}, or remove that deployment (spread delete ${other} -n ${ns})`;
}

/** The deployment a deploy works on, with what the read stage reports of it once the directory is read. */
export interface CheckedIdentity extends DeploymentIdentity {
  /** Why this folder may not deploy it (another folder's deployment of that name), thrown after the read. */
  readonly conflict: Error | undefined;
  /** A first deploy's warning that the folder is deployed in other namespaces too, once listed. */
  readonly elsewhere: Promise<string | undefined>;
}

/**
 * The deploy's identity in one call: {@link deploymentIdentity}, its {@link originConflict}, and for a
 * first deploy of a folder with an origin the search for its deployments elsewhere, started now so
 * that its round trip runs beside the directory's read (a warning only: a failed list gives none).
 */
export async function checkedIdentity(
  client: ClusterPort,
  namespace: string,
  options: {
    readonly name?: string | undefined;
    readonly origin?: DeploymentOrigin | undefined;
    readonly path: string;
    readonly adopt?: boolean | undefined;
    readonly signal?: AbortSignal | undefined;
    /** A preview's namespace (one per pull request): other deployments of the folder are expected. */
    readonly createNamespace?: unknown;
  },
  logger: Logger,
): Promise<CheckedIdentity> {
  const { name, parent } = await deploymentIdentity(client, namespace, options, logger);
  const origin = options.origin;
  const elsewhere =
    !parent.exists && origin && !options.createNamespace
      ? sameOriginElsewhere(client, namespace, origin, options.signal).then((found) =>
          found.length > 0 ? elsewhereWarning(name, namespace, found) : undefined,
        )
      : Promise.resolve(undefined);
  elsewhere.catch(() => {});
  const conflict = originConflict(name, namespace, parent, origin, options.adopt === true);
  return { name, parent, conflict, elsewhere };
}
