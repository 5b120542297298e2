/**
 * A deployment's identity: its name (given, or the default of its origin, base/origin.ts) and
 * namespace, and the check that the deployment found under that name comes from the same folder.
 * Two folders sharing one deployment would prune each other's objects, so that fails before anything
 * is built or written.
 */
import path from 'node:path';
import type { Logger } from '../base/logger.js';
import { toDnsLabel } from '../base/names.js';
import { optionRef } from '../base/option-ref.js';
import { type DeploymentOrigin, defaultDeploymentName, formatOrigin, sameOrigin } from '../base/origin.js';
import type { KubeClient } from '../cluster/client.js';
import { applySetFor, type ParentState, readParent } from '../engine/inventory/applyset.js';

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
  client: KubeClient,
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
