// The read stage: the directory read and checked against the cluster before any image is built
// (removed APIs, the URL's object, the namespace, the deployment's identity), and how its objects
// will be planned and applied. Its output, DirectoryRead, is all that later stages know of the input.

import path from 'node:path';
import { isCoreNamespace, type KubeObject, type SourcedObject } from '../../base/kube-object.js';
import { APPLYSET, DEPLOY_ANNOTATION_KEYS, SPREAD } from '../../base/labels.js';
import type { Logger } from '../../base/logger.js';
import type { DeploymentOrigin } from '../../base/origin.js';
import type { Source } from '../../base/source.js';
import { KubeApiError } from '../../cluster/client.js';
import type { Discovery } from '../../cluster/discovery.js';
import { Deployment } from '../../deployment/deployment.js';
import { recreateOf } from '../../deployment/phases.js';
import { objectWarnings } from '../../deployment/warnings.js';
import { ApplyError } from '../../engine/apply/errors.js';
import { type ApplySet, applySetFor } from '../../engine/inventory/applyset.js';
import type { ClusterPort } from '../../engine/kube-api.js';
import { removedApiFailures } from '../../engine/plan/planner.js';
import { type ApplyOptions, FIELD_MANAGER } from '../../engine/shared/options.js';
import { isUrlFrom } from '../../report/url.js';
import { checkedIdentity } from '../identity.js';
import { capabilitiesOf, type ReadResult, readDeployment } from '../read.js';
import type { DeployOptions, Run } from './options.js';

/** The directory read and checked, the deployment it names, and how its objects are applied. */
export interface DirectoryRead {
  readonly read: ReadResult;
  /** The deployment's name (given, or its origin's default). */
  readonly name: string;
  readonly set: ApplySet;
  /** Whether the deployment's namespace existed when the deploy started (else the directory creates it). */
  readonly namespaceExisted: boolean;
  readonly applyOptions: ApplyOptions;
}

/**
 * Reads the directory and checks what can be checked before an image is built: removed APIs, the
 * object named for the URL, and that the deployment's namespace exists or comes with the directory.
 */
export async function readStage(run: Run): Promise<DirectoryRead> {
  const { options, logger, discovery, namespace, context } = run;
  // Asked now, answered while the directory is read.
  const namespacePending = liveNamespace(run.api, namespace, options.signal);
  namespacePending.catch(() => {});
  const origin = originOfRun(options);
  const identityPending = checkedIdentity(run.api, namespace, { ...options, origin }, logger);
  identityPending.catch(() => {});
  // The directory is read synchronously: let the request reach the socket first, so that its
  // round trip overlaps the read instead of following it.
  await new Promise((resolve) => setImmediate(resolve));
  const identity = await identityPending;
  const name = identity.name;
  const directory = await logger.group('Read', () =>
    readDeployment(options.path, {
      namespace,
      enforceNamespace: Boolean(options.namespace),
      name,
      isNamespaced: (gk) => discovery.isNamespaced(gk),
      hasStatusSubresource: (gk) => discovery.hasStatusSubresource(gk),
      charts: options.charts,
      capabilities: capabilitiesOf(discovery),
      // A plan of an empty directory shows what a deploy with --allow-empty would prune.
      ...(options.allowEmpty ? { allowEmpty: true } : {}),
      ...(options.renderers ? { renderers: options.renderers } : {}),
      kustomize: options.kustomize,
      ...(options.projectDir ? { projectDir: options.projectDir } : {}),
      logger,
    }),
  );
  const set = applySetFor(name, namespace, origin);
  const live = await namespacePending;
  const read = ownNamespace(run, directory, set, live);
  for (const w of objectWarnings(read.objects))
    logger.warn(w.message, { file: w.source.file, line: w.source.line });
  // An API the cluster's version removed fails now, before an image is built or pushed.
  const removed = await removedApiFailures(discovery, read.objects);
  if (removed.length > 0) throw new ApplyError('plan', removed);
  const urlFrom = options.urlFrom;
  if (urlFrom && !read.objects.some((o) => isUrlFrom(o.object, urlFrom)))
    throw new Error(
      `the object named for the URL, ${urlFrom.kind}/${urlFrom.name}, is not in the directory: it holds no ${urlFrom.kind === 'service' ? 'Service' : urlFrom.kind === 'ingress' ? 'Ingress' : 'HTTPRoute'} named ${urlFrom.name}`,
    );
  logger.info(
    `${read.objects.length} object${read.objects.length === 1 ? '' : 's'} in ${name} → context ${context}, namespace ${namespace} (${path.resolve(options.path)})`,
  );
  // The deployment's namespace holds its ApplySet parent and its Lease, so it must exist or be
  // created by the directory: say so once, before any image is built, rather than once per object.
  const namespaceExisted = live.exists;
  if (!namespaceExisted && !createsNamespace(read.objects, namespace)) {
    // An environment's namespace is the environment's business, as kubectl's and Helm's are without
    // --create-namespace: only a preview's is created (createNamespace).
    const environment = options.provenance?.environment;
    throw new Error(
      `namespace "${namespace}"${environment ? ` of environment ${environment}` : ''} not found in context ${context}: create it (kubectl create namespace ${namespace}), or add a Namespace named ${namespace} to the directory`,
    );
  }
  // Another folder's deployment of the same name fails now, before an image is built.
  if (identity.conflict) throw identity.conflict;
  const elsewhere = await identity.elsewhere;
  if (elsewhere) logger.warn(elsewhere);
  return { read, name, set, namespaceExisted, applyOptions: applyOptionsOf(run, read, set) };
}

/** How this deploy plans and applies: spread's field manager, the options, and warnings on files. */
function applyOptionsOf(run: Run, read: ReadResult, set: ApplySet): ApplyOptions {
  const { options, logger } = run;
  // Where each object was written, by kind and name (the first, as a search would find it); not the
  // objects themselves, which these options, kept for a rollback, would otherwise hold.
  const sources = new Map<string, SourcedObject['source']>();
  for (const o of read.objects) {
    const key = `${o.object.kind}/${o.object.metadata.name}`;
    if (!sources.has(key)) sources.set(key, o.source);
  }
  return {
    fieldManager: FIELD_MANAGER,
    forceConflicts: options.forceConflicts,
    replace: options.replace ?? false,
    recreate: recreateOf,
    // Kept as they are live only when this deploy annotates: without annotations, a deploy does not
    // declare them, so server-side apply removes the ones spread set before.
    preserveAnnotations: Object.keys(options.annotations ?? {}).length > 0 ? DEPLOY_ANNOTATION_KEYS : [],
    keepUnlessChanged: [SPREAD.source],
    ownership: {
      applySetId: set.id,
      foreign: options.adopt ? 'adopt' : 'refuse',
      deployment: { name: set.name, namespace: set.namespace, ...(set.origin ? { origin: set.origin } : {}) },
    },
    onWarning: (object: KubeObject, warning: string) => {
      const source = sources.get(`${object.kind}/${object.metadata.name}`);
      logger.warn(
        `${object.kind} ${object.metadata.name}: ${warning}`,
        source ? { file: source.file, line: source.line } : undefined,
      );
    },
    concurrency: options.concurrency,
    ...(options.signal ? { signal: options.signal } : {}),
  };
}

/** The deployment's namespace as the cluster has it: absent, or present and which ApplySet claims it. */
export interface LiveNamespace {
  readonly exists: boolean;
  /** Its `applyset.kubernetes.io/part-of` label: the ApplySet it is a member of. */
  readonly partOf?: string;
}

/** Reads namespace `ns`; one the user may not read counts as existing and nobody's (as namespaceExists). */
export async function liveNamespace(
  api: ClusterPort,
  ns: string,
  signal?: AbortSignal,
): Promise<LiveNamespace> {
  try {
    const object = await api.getOrUndefined<KubeObject>(
      `/api/v1/namespaces/${encodeURIComponent(ns)}`,
      signal,
    );
    if (object === undefined) return { exists: false };
    const partOf = object.metadata.labels?.[APPLYSET.partOf];
    return partOf ? { exists: true, partOf } : { exists: true };
  } catch (error) {
    if (error instanceof KubeApiError && error.code === 403) return { exists: true };
    throw error;
  }
}

/**
 * The read with the deployment's own Namespace added (`createNamespace`, a preview's): when the
 * directory holds no Namespace of that name and the cluster has none, or has the one this deployment
 * created (its part-of label is the set's: dropping it would prune it, and everything in it). A
 * namespace that exists and is not the deployment's is used as it is.
 */
function ownNamespace(run: Run, read: ReadResult, set: ApplySet, live: LiveNamespace): ReadResult {
  const { options, namespace, discovery } = run;
  if (!options.createNamespace) return read;
  return withOwnNamespace(read, namespace, options.createNamespace.source, set, live, discovery, run.logger);
}

/**
 * `read` with the Namespace `namespace` added as one of its objects, declared at `source`, unless the
 * directory holds it already or it exists and is not the set's (then used as it is, said at info).
 * Deploy (createNamespace) and status, which must agree on it, both take it from here.
 */
export function withOwnNamespace(
  read: ReadResult,
  namespace: string,
  source: Source,
  set: ApplySet,
  live: LiveNamespace,
  discovery: Pick<Discovery, 'isNamespaced'>,
  logger: Logger,
): ReadResult {
  if (createsNamespace(read.objects, namespace)) return read;
  if (live.exists && live.partOf !== set.id) {
    logger.info(
      `namespace ${namespace} exists and is not this deployment's: deployed into as it is, not deleted with it`,
    );
    return read;
  }
  const object: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } };
  const own = Deployment.fromObjects([{ object, source }], {
    namespace,
    isNamespaced: (gk) => discovery.isNamespaced(gk),
  });
  const deployment = Deployment.merge(read.deployment, own);
  return { ...read, deployment, objects: deployment.objects() };
}

/** Whether the objects hold the core Namespace `name`. */
function createsNamespace(objects: readonly SourcedObject[], name: string): boolean {
  return objects.some((o) => isCoreNamespace(o.object) && o.object.metadata.name === name);
}

/** The deploy's origin, with the environment it deploys as (recorded on the parent: core/identity.ts). */
function originOfRun(options: DeployOptions): DeploymentOrigin | undefined {
  const environment = options.provenance?.environment;
  return options.origin && environment ? { ...options.origin, environment } : options.origin;
}
