import path from 'node:path';
import { inputRead } from '../base/heap.js';
import { isCoreNamespace, type KubeObject, type SourcedObject } from '../base/kube-object.js';
import { DEPLOY_ANNOTATION_KEYS, SPREAD } from '../base/labels.js';
import { traceRequests } from '../base/logger.js';
import { isDnsLabel, toDnsLabel } from '../base/names.js';
import { interruptOf } from '../base/poll.js';
import { InputError } from '../base/source.js';
import { KubeClient } from '../cluster/client.js';
import { Discovery } from '../cluster/discovery.js';
import { loadKubeconfig } from '../cluster/kubeconfig.js';
import { objectWarnings } from '../deployment/warnings.js';
import { ApplyError, explainApiError } from '../engine/apply/errors.js';
import { type ApplySet, applySetFor, labelForApplySet, readParent } from '../engine/inventory/applyset.js';
import { acquireLock, defaultHolder, leaseName } from '../engine/inventory/lock.js';
import type { ApplyOptions } from '../engine/plan/options.js';
import { planObjects, removedApiFailures } from '../engine/plan/planner.js';
import { withTemplateHash } from '../engine/wait/rc-roll.js';
import { prepareImages } from '../image/index.js';
import { type DeployReport, inputReport } from '../report/report.js';
import { isUrlFrom } from '../report/url.js';
import { FIELD_MANAGER } from './converge.js';
import { type Applied, applyStep, planReport } from './deploy-apply.js';
import {
  type DeployContext,
  type DeployOptions,
  deploymentNamespaceExists,
  type ReadStep,
  type ReportBase,
  type SettleStep,
  setFailureTarget,
} from './deploy-context.js';
import { forRecord, settleStep, type ToRecord } from './deploy-settle.js';
import { withFieldSources } from './field-source.js';
import { forApply, forSettle } from './held.js';
import { deploymentIdentity, elsewhereWarning, originConflict, sameOriginElsewhere } from './identity.js';
import { capabilitiesOf, type ReadResult, readDeployment } from './read.js';

export { FIELD_MANAGER } from './converge.js';
export { DeployError, type DeployOptions, type FailureTarget, failureTarget } from './deploy-context.js';
export { failureDescription } from './deploy-settle.js';

/**
 * The pipeline: read the directory → Entity tree → Deployment → plan (server-side dry run of every
 * object; nothing is written if any fails) → server-side apply in order → wait for the rollout. Each
 * step is a function over one {@link DeployContext}: connect, read, images, lock, plan, apply,
 * settle (wait, record, URL), and on a failed rollout, record it and roll back.
 *
 * @throws InputError (bad input; nothing written), KubeconfigError, ApplyError (plan: nothing written;
 *   apply: names what was and was not applied), DeployError wrapping a RolloutError.
 */
export async function deploy(options: DeployOptions): Promise<DeployReport> {
  const started = Date.now();
  const { logger } = options;
  // A name given explicitly is used as given or refused; only defaults (from the directory) are made
  // into labels, so that `spread history NAME` finds what `--name NAME` deployed.
  if (options.name && !isDnsLabel(options.name))
    throw new Error(
      `--name "${options.name}" is not a valid deployment name: a DNS-1123 label (lowercase letters, digits and "-", starting and ending with a letter or digit, at most 63 characters), e.g. ${toDnsLabel(options.name)}`,
    );
  const resolved = loadKubeconfig(options.kubeconfig, options.context);
  const namespace = options.namespace || resolved.namespace;
  if (!isDnsLabel(namespace))
    throw new Error(
      `namespace "${namespace}" is not a valid namespace name: a DNS-1123 label (lowercase letters, digits and "-", starting and ending with a letter or digit, at most 63 characters), e.g. ${toDnsLabel(namespace)}`,
    );
  // As many sockets as requests in flight: the agent's pool, not --concurrency, would cap them.
  const client = new KubeClient(resolved.kubeConfig, {
    onRequest: traceRequests(logger),
    maxSockets: options.concurrency,
  });
  let ctx: DeployContext | undefined;
  try {
    const discovery = await Discovery.load(client).catch((error: unknown) => {
      // The first request: whatever fails here is about reaching the cluster, so say which one.
      throw new Error(
        `cannot use the API server ${client.server.origin} of context ${resolved.context}: ${explainApiError(error)}`,
      );
    });
    ctx = {
      options,
      logger,
      started,
      resolved,
      namespace,
      client,
      discovery,
      lock: undefined,
      written: false,
    };
    const done = await readPlanApply(ctx);
    if ('report' in done) return done.report;
    return await settleStep(ctx, done.step, done.toRecord, done.applied, done.base);
  } catch (caught) {
    // A field the server refused is reported at its own line, not at its object's first.
    const error = withFieldSources(interruptOf(caught, options.signal), options.path);
    if (ctx?.deployment)
      setFailureTarget(error, { deployment: ctx.deployment, namespace, context: resolved.context });
    throw ctx?.written ? error : nothingWritten(error);
  } finally {
    try {
      await ctx?.lock?.release();
    } catch (error) {
      logger.warn(`could not release the deploy lock: ${(error as Error).message}`);
    }
    client.close();
  }
}

/**
 * Read, images, lock, plan, then (a deploy) the apply, or (a plan) its report. A function of its own
 * so that what only these need (the directory's Entity tree and objects as read, every object's live
 * state and dry run) is not held through the rollout wait: of 5,000 objects, three copies. What the
 * revision records of the objects is encoded here ({@link forRecord}).
 */
async function readPlanApply(ctx: DeployContext): Promise<
  | { readonly report: DeployReport }
  | {
      readonly step: SettleStep;
      readonly toRecord: ToRecord;
      readonly applied: Applied;
      readonly base: ReportBase;
    }
> {
  const { options, namespace, resolved } = ctx;
  const step = await readStep(ctx);
  ctx.deployment = step.name;
  inputRead();
  const prepared = await imagesStep(ctx, step);
  const takeLock = lockTaker(ctx, step.name);
  if (options.mode === 'deploy' && (step.namespaceExisted || (await deploymentNamespaceExists(ctx))))
    await takeLock();
  const { previous, objects, planned } = await planStep(ctx, step, prepared.objects);
  const base = {
    deployment: step.name,
    namespace,
    context: resolved.context,
    images: prepared.images,
    ...inputReport(step.read.application),
  };
  const mayPrune = options.prune && (objects.length > 0 || options.allowEmpty === true);
  if (options.mode === 'plan')
    return { report: await planReport(ctx, step, previous, objects, planned, mayPrune, base) };
  const applied = await applyStep(ctx, step, previous, planned, mayPrune, takeLock);
  const settleStepOf = { set: step.set, applyOptions: step.applyOptions };
  const toRecord = await forRecord(ctx, settleStepOf, objects, applied);
  return { step: settleStepOf, toRecord, applied: forSettle(applied, options), base };
}

/**
 * Reads the directory and checks what can be checked before an image is built: removed APIs, the
 * object named for the URL, and that the deployment's namespace exists or comes with the directory.
 */
async function readStep(ctx: DeployContext): Promise<ReadStep> {
  const { options, logger, discovery, namespace, resolved } = ctx;
  // Asked now, answered while the directory is read.
  const namespaceAtStart = deploymentNamespaceExists(ctx);
  namespaceAtStart.catch(() => {});
  const identity = deploymentIdentity(ctx.client, namespace, options, logger);
  identity.catch(() => {});
  // The directory is read synchronously: let the request reach the socket first, so that its
  // round trip overlaps the read instead of following it.
  await new Promise((resolve) => setImmediate(resolve));
  const { name, parent } = await identity;
  // A first deploy's search for the folder's deployments elsewhere (a warning only, one list of every
  // namespace's ApplySet parents) runs beside the read rather than after it: a round trip off the path.
  const elsewhere =
    !parent.exists && options.origin
      ? sameOriginElsewhere(ctx.client, namespace, options.origin, options.signal)
      : undefined;
  const read = await logger.group('Read', () =>
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
      logger,
    }),
  );
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
    `${read.objects.length} object${read.objects.length === 1 ? '' : 's'} in ${name} → context ${resolved.context}, namespace ${namespace} (${path.resolve(options.path)})`,
  );
  // The deployment's namespace holds its ApplySet parent and its Lease, so it must exist or be
  // created by the directory: say so once, before any image is built, rather than once per object.
  const namespaceExisted = await namespaceAtStart;
  if (!namespaceExisted && !createsNamespace(read.objects, namespace))
    throw new Error(
      `namespace "${namespace}" not found in context ${resolved.context}: create it (kubectl create namespace ${namespace}), or add a Namespace named ${namespace} to the directory`,
    );
  // Another folder's deployment of the same name fails now, before an image is built.
  const conflict = originConflict(name, namespace, parent, options.origin, options.adopt === true);
  if (conflict) throw conflict;
  const found = elsewhere ? await elsewhere : [];
  if (found.length > 0) logger.warn(elsewhereWarning(name, namespace, found));
  const set = applySetFor(name, namespace, options.origin);
  return { read, name, set, namespaceExisted, applyOptions: applyOptionsOf(ctx, read, set) };
}

/** How this deploy plans and applies: spread's field manager, the options, and warnings on files. */
function applyOptionsOf(ctx: DeployContext, read: ReadResult, set: ApplySet): ApplyOptions {
  const { options, logger } = ctx;
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

function imagesStep(ctx: DeployContext, step: ReadStep) {
  const { options, logger } = ctx;
  return logger.group('Images', () =>
    prepareImages(
      step.read.application,
      step.read.objects,
      {
        ...options.images,
        // A plan writes nothing, not even to a registry: it pins what the registry already holds
        // and names the images the deploy would build.
        ...(options.mode === 'plan' ? { build: false, push: false, plan: true } : {}),
        root: options.path,
        signal: options.signal,
        // Every object is checked (server-side dry run) with the references the builds will push
        // before the first build: a broken manifest then costs seconds and pushes nothing.
        ...(options.mode === 'deploy'
          ? {
              beforeBuild: async (objects: SourcedObject[]) =>
                void (await planStep(ctx, step, objects, 'Check before building')),
            }
          : {}),
      },
      logger,
    ),
  );
}

/**
 * Takes the deploy's Lease into `ctx.lock`. The lock comes before anything is read for the plan, so
 * two deploys never plan on the same state. A namespace the deploy itself creates cannot hold the
 * Lease yet: then the lock is taken right after the Namespaces are applied (a first deploy only).
 */
function lockTaker(ctx: DeployContext, name: string): () => Promise<void> {
  const { options, logger } = ctx;
  return async () => {
    ctx.lock = await acquireLock(ctx.client, name, ctx.namespace, {
      holder: defaultHolder(options.runUrl),
      ...(options.lockTimeoutMs !== undefined ? { lockTimeoutMs: options.lockTimeoutMs } : {}),
      ...(options.lockLeaseDurationSeconds !== undefined
        ? { leaseDurationSeconds: options.lockLeaseDurationSeconds }
        : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      onWait: (holder) =>
        logger.info(`waiting for ${holder}, which is deploying ${name} (Lease ${leaseName(name)})`),
      onRenewFailed: (error) =>
        logger.warn(
          `could not renew the deploy lock (Lease ${leaseName(name)}), retrying: ${explainApiError(error)}`,
        ),
    });
  };
}

/** Reads the ApplySet parent and plans the labelled objects against it. */
async function planStep(
  ctx: DeployContext,
  step: ReadStep,
  prepared: readonly SourcedObject[],
  title = 'Plan',
) {
  const { client, discovery, options, logger, namespace } = ctx;
  const { set } = step;
  const previous = await readParent(client, set);
  if (previous.exists && previous.tooling && !previous.tooling.startsWith('spread/')) {
    throw new Error(
      `the ApplySet parent secret/${set.parentName} in ${namespace} is managed by ${previous.tooling}, not spread; choose another --name`,
    );
  }
  // Checked again under the lock: another folder may have deployed since the read.
  const conflict = originConflict(set.name, namespace, previous, options.origin, options.adopt === true);
  if (conflict) throw conflict;
  const objects = prepared.map((o) => ({ ...o, object: withTemplateHash(labelForApplySet(o, set)) }));
  const planned = await logger.group(title, () =>
    planObjects(client, discovery, objects, {
      ...step.applyOptions,
      // A plan (a pull request's check) dry-runs everything: admission policies and CRD schemas
      // may have changed since the last deploy, and only a dry run shows that.
      ...(options.mode === 'deploy' ? { fingerprints: previous.fingerprints } : {}),
    }),
  );
  return {
    previous,
    objects,
    planned: options.mode === 'deploy' ? planned.map((p) => forApply(p, options)) : planned,
  };
}

/** Whether the objects hold the core Namespace `name`. */
function createsNamespace(objects: readonly SourcedObject[], name: string): boolean {
  return objects.some((o) => isCoreNamespace(o.object) && o.object.metadata.name === name);
}

/**
 * A failure before the apply (reading the cluster, building or pushing an image, the lock, an
 * interrupt) with `nothing was applied` added to its first line, so that every failed deploy says
 * what it applied, as a failed apply does. Errors that already say so (a failed plan, bad input) are
 * left as they are.
 */
function nothingWritten(error: unknown): unknown {
  if (
    !(error instanceof Error) ||
    error instanceof InputError ||
    /nothing was (written|deployed|applied)/.test(error.message)
  )
    return error;
  const [first, ...rest] = error.message.split('\n');
  error.message = [`${first}; nothing was applied`, ...rest].join('\n');
  return error;
}
