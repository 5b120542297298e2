import path from 'node:path';
import { isCoreNamespace, isGenerated, type KubeObject, type SourcedObject } from '../base/kube-object.js';
import { DEPLOY_ANNOTATION_KEYS, SPREAD } from '../base/labels.js';
import { type Logger, traceRequests } from '../base/logger.js';
import { isDnsLabel, toDnsLabel } from '../base/names.js';
import { optionRef } from '../base/option-ref.js';
import { InputError } from '../base/source.js';
import { KubeApiError, KubeClient } from '../cluster/client.js';
import { Discovery, objectPath } from '../cluster/discovery.js';
import { type KubeconfigSource, loadKubeconfig, type ResolvedKubeconfig } from '../cluster/kubeconfig.js';
import { objectWarnings } from '../deployment/warnings.js';
import { ApplyError, explainApiError, type ObjectFailure } from '../engine/apply/errors.js';
import {
  type ApplySet,
  applySetFor,
  findPruneCandidates,
  labelForApplySet,
  type ParentState,
  readParent,
} from '../engine/inventory/applyset.js';
import { findForeignObjects } from '../engine/inventory/foreign.js';
import {
  lastGoodRevision,
  listRevisions,
  type RevisionStatus,
  readRevision,
  recordRevision,
  recordRollback,
  revisionOfParent,
} from '../engine/inventory/history.js';
import { acquireLock, type DeployLock, defaultHolder, leaseName } from '../engine/inventory/lock.js';
import { namespaceExists } from '../engine/plan/live.js';
import type { ApplyOptions, PlannedObject } from '../engine/plan/options.js';
import { planObjects, removedApiFailures } from '../engine/plan/planner.js';
import { withTemplateHash } from '../engine/wait/rc-roll.js';
import { RolloutError, type RolloutResult, waitForRollout } from '../engine/wait/waiter.js';
import { type ImageOptions, prepareImages } from '../image/index.js';
import type { DeployReport, ObjectReport } from '../report/report.js';
import { applicationUrl, isUrlFrom, type UrlFrom, urlKindOf } from '../report/url.js';
import {
  appliedRef,
  type Converged,
  converge,
  FIELD_MANAGER,
  pruneRefs,
  rolloutRef,
  sourceRef,
  splitPrune,
} from './converge.js';
import { type ReadResult, readDeployment } from './read.js';
import { rollbackTo } from './rollback.js';

export { FIELD_MANAGER } from './converge.js';

/** Options of {@link deploy}; the front ends fill them from flags or Action inputs. */
export interface DeployOptions {
  /** The directory to deploy (DirectoryInput root). */
  readonly path: string;
  readonly kubeconfig: KubeconfigSource;
  /** kubeconfig context; the current context when absent. */
  readonly context?: string;
  /**
   * Namespace for namespaced objects that name none; the context's namespace when absent. Given, it
   * is enforced as kubectl's `-n` is: an object naming another namespace is an input error.
   */
  readonly namespace?: string;
  /** The deployment's name; the directory's name (as a DNS-1123 label) when absent. */
  readonly name?: string;
  /** `plan` checks every object with a server-side dry run and writes nothing. */
  readonly mode: 'deploy' | 'plan';
  /** Wait for the rollout after applying. */
  readonly wait: boolean;
  /** Limit of the rollout wait, in milliseconds. */
  readonly timeoutMs: number;
  readonly forceConflicts: boolean;
  /** Delete and re-create objects whose immutable fields change (`--replace`). */
  readonly replace?: boolean;
  /**
   * Take over objects that belong to another spread deployment, or that exist without spread's
   * ApplySet label (made by hand or another tool) (`--adopt`); refused otherwise.
   */
  readonly adopt?: boolean;
  /** Requests in flight at once within one apply group. */
  readonly concurrency: number;
  /** Delete objects of this deployment that the directory no longer holds (after a successful apply only). */
  readonly prune: boolean;
  /**
   * Prune CustomResourceDefinitions the directory dropped as well, with every custom resource of
   * them. Default false: a dropped CRD is kept and reported as kept, with its custom resources counted.
   */
  readonly pruneCrds?: boolean;
  /**
   * Annotations put on every object this deploy changes (e.g. the commit, run URL and time of the
   * deploy); the front end decides which. Empty or absent: none, and those an earlier deploy put on
   * are removed.
   */
  readonly annotations?: Readonly<Record<string, string>>;
  /**
   * How `&` images are built and pushed (registry, tag, build args, Docker endpoint and config). The
   * input root is the deployed path. Without `&` images Docker is never contacted.
   */
  readonly images?: Omit<ImageOptions, 'root' | 'signal'>;
  /** Allow a deploy whose input holds no object at all to prune everything (off by default). */
  readonly allowEmpty?: boolean;
  /** Recorded in the revision and named as the lock's holder: the CI run's web page. */
  readonly runUrl?: string;
  /** Recorded in the revision. */
  readonly commit?: string;
  /** How long to wait for another deploy of the same deployment to finish, in milliseconds. Default 5 minutes. */
  readonly lockTimeoutMs?: number;
  /**
   * The Lease's `leaseDurationSeconds`: how long after its holder's last renewal (every third of it)
   * another deploy takes the lock over, e.g. after the holder crashed. Whole seconds ≥ 1; default 30.
   */
  readonly lockLeaseDurationSeconds?: number;
  /** Wait for LoadBalancer Services to get an address (bounded by the timeout). Default false. */
  readonly waitLoadBalancer?: boolean;
  /** When the rollout fails, apply the previous revision again and wait for it. Default false. */
  readonly rollbackOnFailure?: boolean;
  /**
   * The object whose address is the report's `url` (`--url-from`), instead of the rule of
   * report/url.ts (Ingress, then HTTPRoute, then LoadBalancer Service). It must be in the directory.
   */
  readonly urlFrom?: UrlFrom;
  /** Revisions kept in the history. Default 10. */
  readonly historyLimit?: number;
  readonly logger: Logger;
  readonly signal?: AbortSignal;
}

/** The deploy failed after some objects were applied; `report` says what was done. */
export class DeployError extends Error {
  readonly report: DeployReport;
  override readonly cause: Error;
  constructor(cause: Error, report: DeployReport) {
    super(cause.message);
    this.name = 'DeployError';
    this.cause = cause;
    this.report = report;
  }
}

/** What every step of one deploy shares; the steps fill in `discovery` and `lock`. */
interface DeployContext {
  readonly options: DeployOptions;
  readonly logger: Logger;
  readonly started: number;
  readonly resolved: ResolvedKubeconfig;
  readonly namespace: string;
  readonly client: KubeClient;
  readonly discovery: Discovery;
  lock: DeployLock | undefined;
  /** Set when the apply starts: until then a failure has written nothing of the directory (only the Lease). */
  written: boolean;
}

/** The directory read and checked, the deployment it names, and how its objects are applied. */
interface ReadStep {
  readonly read: ReadResult;
  readonly name: string;
  readonly set: ApplySet;
  readonly namespaceExisted: boolean;
  readonly applyOptions: ApplyOptions;
}

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
    const step = await readStep(ctx);
    const prepared = await imagesStep(ctx, step);
    const takeLock = lockTaker(ctx, step.name);
    if (options.mode === 'deploy' && (step.namespaceExisted || (await deploymentNamespaceExists(ctx))))
      await takeLock();
    const { previous, objects, planned } = await planStep(ctx, step, prepared.objects);
    const base = { deployment: step.name, namespace, context: resolved.context, images: prepared.images };
    const mayPrune = options.prune && (objects.length > 0 || options.allowEmpty === true);
    if (options.mode === 'plan')
      return await planReport(ctx, step, previous, objects, planned, mayPrune, base);
    const applied = await applyStep(ctx, step, previous, planned, mayPrune, takeLock);
    return await settleStep(ctx, step, objects, applied, base);
  } catch (error) {
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

function deploymentNamespaceExists(ctx: DeployContext): Promise<boolean> {
  return namespaceExists(ctx.client, ctx.namespace, ctx.options.signal);
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
  // The directory is read synchronously: let the request reach the socket first, so that its
  // round trip overlaps the read instead of following it.
  await new Promise((resolve) => setImmediate(resolve));
  const read = await logger.group('Read', () =>
    readDeployment(options.path, {
      namespace,
      enforceNamespace: Boolean(options.namespace),
      name: options.name,
      isNamespaced: (gk) => discovery.isNamespaced(gk),
      hasStatusSubresource: (gk) => discovery.hasStatusSubresource(gk),
      // A plan of an empty directory shows what a deploy with --allow-empty would prune.
      ...(options.allowEmpty ? { allowEmpty: true } : {}),
      logger,
    }),
  );
  for (const w of objectWarnings(read.objects))
    logger.warn(w.message, { file: w.source.file, line: w.source.line });
  // An API the cluster's version removed fails now, before an image is built or pushed.
  const removed = await removedApiFailures(discovery, read.objects);
  if (removed.length > 0) throw new ApplyError('plan', removed);
  const name = read.name;
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
  const set = applySetFor(name, namespace);
  return { read, name, set, namespaceExisted, applyOptions: applyOptionsOf(ctx, read, set) };
}

/** How this deploy plans and applies: spread's field manager, the options, and warnings on files. */
function applyOptionsOf(ctx: DeployContext, read: ReadResult, set: ApplySet): ApplyOptions {
  const { options, logger } = ctx;
  return {
    fieldManager: FIELD_MANAGER,
    forceConflicts: options.forceConflicts,
    replace: options.replace ?? false,
    // Kept as they are live only when this deploy annotates: without annotations, a deploy does not
    // declare them, so server-side apply removes the ones spread set before.
    preserveAnnotations: Object.keys(options.annotations ?? {}).length > 0 ? DEPLOY_ANNOTATION_KEYS : [],
    keepUnlessChanged: [SPREAD.source],
    ownership: { applySetId: set.id, foreign: options.adopt ? 'adopt' : 'refuse' },
    onWarning: (object: KubeObject, warning: string) => {
      const o = read.objects.find(
        (x) => x.object.metadata.name === object.metadata.name && x.object.kind === object.kind,
      );
      logger.warn(
        `${object.kind} ${object.metadata.name}: ${warning}`,
        o ? { file: o.source.file, line: o.source.line } : undefined,
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
    });
  };
}

/** Reads the ApplySet parent and plans the labelled objects against it. */
async function planStep(ctx: DeployContext, step: ReadStep, prepared: readonly SourcedObject[]) {
  const { client, discovery, options, logger, namespace } = ctx;
  const { set } = step;
  const previous = await readParent(client, set);
  if (previous.exists && previous.tooling && !previous.tooling.startsWith('spread/')) {
    throw new Error(
      `the ApplySet parent secret/${set.parentName} in ${namespace} is managed by ${previous.tooling}, not spread; choose another --name`,
    );
  }
  const objects = prepared.map((o) => ({ ...o, object: withTemplateHash(labelForApplySet(o, set)) }));
  const planned = await logger.group('Plan', () =>
    planObjects(client, discovery, objects, {
      ...step.applyOptions,
      // A plan (a pull request's check) dry-runs everything: admission policies and CRD schemas
      // may have changed since the last deploy, and only a dry run shows that.
      ...(options.mode === 'deploy' ? { fingerprints: previous.fingerprints } : {}),
    }),
  );
  return { previous, objects, planned };
}

type ReportBase = Pick<DeployReport, 'deployment' | 'namespace' | 'context' | 'images'>;

/** `spread plan`'s report: the plan, and what a deploy would prune or keep. */
async function planReport(
  ctx: DeployContext,
  step: ReadStep,
  previous: ParentState,
  objects: readonly SourcedObject[],
  planned: readonly PlannedObject[],
  mayPrune: boolean,
  base: ReportBase,
): Promise<DeployReport> {
  const { client, discovery, options, logger } = ctx;
  const { set } = step;
  const decision = mayPrune
    ? await splitPrune(
        client,
        await findPruneCandidates(client, discovery, set, previous, objects, {
          onForbidden: (what) =>
            logger.warn(
              `cannot list ${what} (no list right): objects of it that the directory dropped would not be pruned`,
            ),
        }),
        objects,
        {
          pruneCrds: options.pruneCrds ?? false,
          foreign: (ns) => findForeignObjects(client, discovery, ns, set),
        },
      )
    : { pruned: [], kept: [], notes: new Map() };
  return {
    ...base,
    mode: 'plan',
    objects: [...planned.map(plannedRef), ...pruneRefs(decision, 'plan')],
    rollout: [],
    durationMs: Date.now() - ctx.started,
  };
}

/** What the apply did, and whether the deploy changed nothing at all. */
interface Applied {
  readonly converged: Converged;
  readonly reported: ObjectReport[];
  /** The deployment's revision before this deploy. */
  readonly revisionBefore: number | undefined;
  /** Nothing changed: the current revision again, no new one recorded. */
  readonly unchanged: boolean;
  /** When nothing was to change: the read of the current revision, started beside the converge. */
  readonly revisionBeforeRead: ReturnType<typeof readRevision> | undefined;
}

/** Annotates what changes, checks annotation conflicts, and converges: apply, prune, parent. */
async function applyStep(
  ctx: DeployContext,
  step: ReadStep,
  previous: ParentState,
  planned: readonly PlannedObject[],
  mayPrune: boolean,
  takeLock: () => Promise<void>,
): Promise<Applied> {
  const { options, logger } = ctx;
  // The deploy's annotations (commit, run URL, time) go on what this deploy changes only, so an
  // unchanged object stays unchanged and records the deploy that last changed it.
  const plan = options.annotations ? planned.map((p) => annotate(p, options.annotations!)) : planned;
  // The dry run sent the live values of these annotations; the apply sends new ones. Where another
  // manager owns one (an object re-created from a `kubectl get` export), only the apply would
  // conflict: find that now, while nothing is written.
  if (options.annotations && !options.forceConflicts) {
    const conflicts = annotationConflicts(plan, options.annotations, FIELD_MANAGER);
    if (conflicts.length > 0) throw new ApplyError('plan', conflicts);
  }
  // The parent read above, under the lock: the plan wrote nothing since.
  const revisionBefore = revisionOfParent(previous.object);
  // A deploy that changes nothing needs that revision's status at the end; converging writes no
  // revision, so it is read now, alongside, rather than as one more round trip afterwards.
  const revisionBeforeRead =
    revisionBefore !== undefined && plan.every((p) => p.action === 'unchanged')
      ? readRevision(ctx.client, step.set, revisionBefore)
      : undefined;
  revisionBeforeRead?.catch(() => {});
  ctx.written = true;
  const converged = await converge(ctx.client, ctx.discovery, step.set, previous, plan, {
    apply: step.applyOptions,
    groupOf: step.read.groupOf,
    prune: mayPrune,
    pruneCrds: options.pruneCrds ?? false,
    logger,
    ...(ctx.lock ? { lock: ctx.lock } : {}),
    ...(plan.every((p) => p.action === 'unchanged') ? { keepFingerprints: previous.fingerprints } : {}),
    recordFingerprints: true,
    afterGroup: async () => {
      if (!ctx.lock && (await deploymentNamespaceExists(ctx))) await takeLock();
    },
  });
  const reported = [...converged.applied.map(appliedRef), ...pruneRefs(converged, 'deploy')];
  // A deploy that changed nothing is the current revision again; it records no new one (unless
  // that revision's rollout had failed and now succeeds).
  const unchanged =
    revisionBefore !== undefined && reported.every((o) => o.action === 'unchanged' || o.action === 'kept');
  return { converged, reported, revisionBefore, unchanged, revisionBeforeRead };
}

/** Waits for the rollout, records the revision and finds the URL; a failed rollout goes to {@link failedRollout}. */
async function settleStep(
  ctx: DeployContext,
  step: ReadStep,
  objects: readonly SourcedObject[],
  applied: Applied,
  base: ReportBase,
): Promise<DeployReport> {
  const { client, options } = ctx;
  const { converged, reported, revisionBefore, unchanged } = applied;
  let rollout: RolloutResult[];
  try {
    rollout = await settle(client, converged, options);
  } catch (error) {
    if (!(error instanceof RolloutError)) throw error;
    return failedRollout(ctx, step, objects, applied, base, error);
  }
  const revision =
    unchanged &&
    (await (applied.revisionBeforeRead ?? readRevision(client, step.set, revisionBefore!)))?.status !==
      'failed'
      ? { revision: revisionBefore }
      : await record(client, step.set, objects, options);
  const url = await findUrl(client, converged, options);
  return {
    ...base,
    mode: 'deploy',
    ...revision,
    ...(url ? { url } : {}),
    objects: reported,
    rollout: rollout.map(rolloutRef),
    durationMs: Date.now() - ctx.started,
  };
}

/**
 * The rollout failed: the cluster now holds this object set, so it is a revision, marked failed (as
 * Helm records a failed release), so that history shows it and a rollback goes back from it. With
 * `rollbackOnFailure`, the newest revision before it whose rollout did not fail is applied again.
 *
 * @throws DeployError, always: the rollout's error (and the rollback's outcome).
 */
async function failedRollout(
  ctx: DeployContext,
  step: ReadStep,
  objects: readonly SourcedObject[],
  applied: Applied,
  base: ReportBase,
  error: RolloutError,
): Promise<never> {
  const { client, options, logger } = ctx;
  const { revisionBefore } = applied;
  const recorded = applied.unchanged
    ? {}
    : await record(client, step.set, objects, options, {
        status: 'failed',
        description: failureDescription(error),
      });
  const failed: DeployReport = {
    ...base,
    mode: 'deploy' as const,
    ...recorded,
    objects: applied.reported,
    rollout: error.results.map(rolloutRef),
    durationMs: Date.now() - ctx.started,
  };
  // Back to the newest revision before this deploy whose rollout did not fail.
  const below = recorded.revision ?? (revisionBefore === undefined ? undefined : revisionBefore + 1);
  const target =
    below === undefined
      ? undefined
      : lastGoodRevision(
          await listRevisions(client, step.set).catch(() => [
            { revision: revisionBefore ?? 0, status: 'deployed' as const },
          ]),
          below,
        );
  if (options.rollbackOnFailure && target === undefined && revisionBefore !== undefined)
    logger.warn('the rollout failed, and no earlier revision succeeded: nothing to roll back to');
  if (!options.rollbackOnFailure || target === undefined) throw new DeployError(error, failed);
  // The rollout's error is the deploy's error, printed once by the front end at the end.
  logger.warn(`the rollout failed; rolling back to revision ${target}`);
  const now = await logger
    .group(`Roll back to revision ${target}`, () => rollBackAfterFailure(ctx, step, target, error, failed))
    .catch((rollbackError: unknown) => {
      if (rollbackError instanceof DeployError) throw rollbackError;
      // Both failures in one error, printed once by the front end, with the deploy's report.
      throw new DeployError(
        new Error(
          `${error.message}\nthe rollback to revision ${target} failed too: ${(rollbackError as Error).message}`,
        ),
        failed,
      );
    });
  throw new DeployError(new Error(`${error.message}\nrolled back to revision ${target}`), {
    ...failed,
    // The deployment's revision now: the rollback's.
    ...(now !== undefined ? { revision: now } : {}),
    rolledBackTo: target,
  });
}

/**
 * `--rollback-on-failure`: {@link rollbackTo} the target with this deploy's apply options (ownership
 * checked as in a deploy: an object made by hand since the revision was current is not taken over,
 * unless `--adopt`). Answers the revision the rollback recorded (undefined when recording failed,
 * which only warns).
 *
 * @throws DeployError when the revision is gone; the rollback's RolloutError or ApplyError.
 */
async function rollBackAfterFailure(
  ctx: DeployContext,
  step: ReadStep,
  target: number,
  error: RolloutError,
  failed: DeployReport,
): Promise<number | undefined> {
  const { client, options, logger } = ctx;
  const stored = await readRevision(client, step.set, target);
  if (!stored)
    throw new DeployError(new Error(`${error.message}\nrevision ${target} to roll back to is gone`), failed);
  const keep = options.historyLimit ?? 10;
  const back = await rollbackTo({
    client,
    discovery: ctx.discovery,
    set: step.set,
    stored,
    target,
    apply: step.applyOptions,
    ...(options.wait
      ? {
          wait: {
            timeoutMs: options.timeoutMs,
            ...(options.waitLoadBalancer ? { waitLoadBalancer: true } : {}),
          },
        }
      : {}),
    logger,
    ...(ctx.lock ? { lock: ctx.lock } : {}),
    ...(options.runUrl ? { runUrl: options.runUrl } : {}),
    keep,
    describeFailure: failureDescription,
  });
  if (back.failure) throw back.failure.error;
  // Recording is not the rollback: a failure to record only warns, as after a deploy.
  const recordedBack = await recordRollback(client, step.set, stored, target, {
    ...(options.runUrl ? { runUrl: options.runUrl } : {}),
    keep,
  }).catch((recordError: unknown) => {
    logger.warn(`rolled back, but the revision was not recorded: ${(recordError as Error).message}`);
    return undefined;
  });
  logger.info(`rolled back to revision ${target}`);
  return recordedBack?.revision;
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

/**
 * A failed revision's description: `rollout failed: ` and the first object named in the error
 * (its pod's reason), at most 200 characters.
 */
export function failureDescription(error: RolloutError): string {
  const [head, first] = error.message.split('\n');
  const why = `${(head ?? '').replace(/:$/, '')}: ${(first ?? '').trim()}`.replace(/: $/, '');
  return why.length > 200 ? `${why.slice(0, 199)}…` : why;
}

/** Whether the objects hold the core Namespace `name`. */
function createsNamespace(objects: readonly SourcedObject[], name: string): boolean {
  return objects.some((o) => isCoreNamespace(o.object) && o.object.metadata.name === name);
}

/** Waits for the rollout (only with `wait`); the wait also replaces the pods of changed ReplicationControllers. */
async function settle(
  client: KubeClient,
  converged: Converged,
  options: DeployOptions,
): Promise<RolloutResult[]> {
  if (!options.wait) return [];
  const { logger } = options;
  return logger.group('Wait', () =>
    waitForRollout(client, converged.applied, {
      timeoutMs: options.timeoutMs,
      onProgress: (line) => logger.info(line),
      ...(options.waitLoadBalancer ? { waitLoadBalancer: true } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    }),
  );
}

/**
 * The application's URL after the rollout (report/url.ts), from the objects as stored: a
 * LoadBalancer Service read again (its address may have come during the wait), an HTTPRoute's parent
 * Gateways read for the scheme. A failed read only warns: the deploy happened.
 */
async function findUrl(
  client: KubeClient,
  converged: Converged,
  options: DeployOptions,
): Promise<string | undefined> {
  try {
    const live = await Promise.all(
      converged.applied.map(async (a) => {
        const spec = a.live.spec as { type?: string } | undefined;
        if (urlKindOf(a.live) !== 'service' || spec?.type !== 'LoadBalancer') return a.live;
        const path = objectPath(a.resource, a.live.metadata.namespace, a.live.metadata.name);
        return (await client.getOrUndefined<KubeObject>(path, options.signal)) ?? a.live;
      }),
    );
    const gateways = new Map<string, KubeObject | undefined>();
    for (const o of live) {
      if (urlKindOf(o) !== 'httproute') continue;
      for (const ref of (o.spec as { parentRefs?: { kind?: string; namespace?: string; name?: string }[] })
        ?.parentRefs ?? []) {
        if ((ref.kind ?? 'Gateway') !== 'Gateway' || !ref.name) continue;
        const key = `${ref.namespace ?? o.metadata.namespace}/${ref.name}`;
        if (gateways.has(key)) continue;
        const [ns, gname] = key.split('/');
        gateways.set(
          key,
          await client
            .getOrUndefined<KubeObject>(
              `/apis/gateway.networking.k8s.io/v1/namespaces/${ns}/gateways/${gname}`,
              options.signal,
            )
            .catch(() => undefined),
        );
      }
    }
    const found = applicationUrl(live, {
      ...(options.urlFrom ? { from: options.urlFrom } : {}),
      gateway: (ns, gname) => gateways.get(`${ns}/${gname}`),
    });
    if (found) options.logger.info(`URL ${found.url} (${found.object})`);
    else if (options.urlFrom)
      options.logger.warn(
        `the object named for the URL, ${options.urlFrom.kind}/${options.urlFrom.name}, has no host or address yet: no URL`,
      );
    return found?.url;
  } catch (error) {
    options.logger.warn(`could not read where the application answers: ${(error as Error).message}`);
    return undefined;
  }
}

/**
 * Records the deployed object set as a new revision (marked failed after a failed rollout); a
 * failure to record only warns (the deploy happened).
 */
async function record(
  client: KubeClient,
  set: ReturnType<typeof applySetFor>,
  objects: readonly SourcedObject[],
  options: DeployOptions,
  outcome: { status?: RevisionStatus; description?: string } = {},
): Promise<{ revision?: number }> {
  try {
    const r = await recordRevision(
      client,
      set,
      {
        objects: objects.map((o) => o.object),
        ...(options.commit ? { commit: options.commit } : {}),
        ...(options.runUrl ? { runUrl: options.runUrl } : {}),
        ...outcome,
      },
      { keep: options.historyLimit ?? 10 },
    );
    options.logger.info(`revision ${r.revision} recorded${r.status === 'failed' ? ' as failed' : ''}`);
    return { revision: r.revision };
  } catch (error) {
    const why = error instanceof KubeApiError ? `${error.code} ${error.message}` : (error as Error).message;
    options.logger.warn(`deployed, but the revision was not recorded: ${why}`);
    return {};
  }
}

/**
 * The planned updates whose new deploy annotations another field manager owns with another value: the
 * server-side apply would fail with a conflict on them (Kubernetes "Server-Side Apply", Conflicts).
 */
function annotationConflicts(
  plan: readonly PlannedObject[],
  annotations: Readonly<Record<string, string>>,
  fieldManager: string,
): ObjectFailure[] {
  const failures: ObjectFailure[] = [];
  for (const p of plan) {
    if (p.action !== 'update' || !p.live) continue;
    const live = p.live.metadata.annotations ?? {};
    const entries = (p.live.metadata.managedFields ?? []) as {
      manager?: string;
      fieldsV1?: { 'f:metadata'?: { 'f:annotations'?: Record<string, unknown> } };
    }[];
    for (const [key, value] of Object.entries(annotations)) {
      if (live[key] === value) continue;
      const owner = entries.find(
        (e) =>
          e.manager !== fieldManager &&
          // A manager spread takes over (--adopt) hands its fields to spread before the apply.
          !p.takesOver?.includes(e.manager ?? '') &&
          e.fieldsV1?.['f:metadata']?.['f:annotations']?.[`f:${key}`] !== undefined,
      );
      if (owner)
        failures.push({
          object: p,
          message: `conflict with "${owner.manager}": it owns the annotation ${key}, which spread sets on every object it changes (another manager's copy, e.g. an object re-created from an export); use ${optionRef('force-conflicts')} to take it over`,
        });
    }
  }
  return failures;
}

function annotate(p: PlannedObject, annotations: Readonly<Record<string, string>>): PlannedObject {
  if (p.action === 'unchanged') return p;
  const metadata = {
    ...p.object.metadata,
    annotations: { ...p.object.metadata.annotations, ...annotations },
  };
  return { ...p, object: { ...p.object, metadata } };
}

function plannedRef(p: PlannedObject): ObjectReport {
  return {
    ...sourceRef(p),
    action: p.action,
    ...(p.changes ? { changes: p.changes } : {}),
    ...(isGenerated(p.object)
      ? { note: 'generateName: each deploy creates a new one; those of earlier deploys are pruned' }
      : {}),
    ...(p.takesOver
      ? {
          note: `takes over the fields of ${p.takesOver.join(', ')}: those the directory does not declare are removed`,
        }
      : {}),
    // A replace's reason is its immutable-field error, not a check still to come.
    ...(p.deferred && p.action !== 'replace' ? { deferred: p.deferred } : {}),
  };
}
