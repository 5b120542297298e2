import path from 'node:path';
import { type AppliedObject, applyObjects, type PlannedObject, planObjects } from '../cluster/apply.js';
import {
  applySetFor,
  deleteObjects,
  findPruneCandidates,
  labelForApplySet,
  type PruneCandidate,
  parentObject,
  readParent,
  SPREAD,
  writeParent,
} from '../cluster/applyset.js';
import { KubeClient } from '../cluster/client.js';
import { Discovery } from '../cluster/discovery.js';
import { type KubeconfigSource, loadKubeconfig } from '../cluster/kubeconfig.js';
import { RolloutError, type RolloutResult, waitForRollout } from '../cluster/wait.js';
import { formatGroupKind, groupKindOf, type SourcedObject } from '../deployment/kube-object.js';
import { formatSource } from '../input/source.js';
import type { DeployReport, ObjectReport, RolloutReport } from '../report/report.js';
import type { Logger } from './logger.js';
import { readDeployment } from './read.js';

/** spread's server-side apply field manager. */
export const FIELD_MANAGER = 'spread';

/** Options of {@link deploy}; the front ends fill them from flags or Action inputs. */
export interface DeployOptions {
  /** The directory to deploy (DirectoryInput root). */
  readonly path: string;
  readonly kubeconfig: KubeconfigSource;
  /** kubeconfig context; the current context when absent. */
  readonly context?: string;
  /** Namespace for namespaced objects that name none; the context's namespace when absent. */
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
  /** Requests in flight at once within one apply group. */
  readonly concurrency: number;
  /** Delete objects of this deployment that the directory no longer holds (after a successful apply only). */
  readonly prune: boolean;
  /** Allow a deploy whose input holds no object at all to prune everything (off by default). */
  readonly allowEmpty?: boolean;
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

/**
 * The pipeline: read the directory → Entity tree → Deployment → plan (server-side dry run of every
 * object; nothing is written if any fails) → server-side apply in order → wait for the rollout.
 *
 * @throws InputError (bad input; nothing written), KubeconfigError, ApplyError (plan: nothing written;
 *   apply: names what was and was not applied), DeployError wrapping a RolloutError.
 */
export async function deploy(options: DeployOptions): Promise<DeployReport> {
  const started = Date.now();
  const { logger } = options;
  const resolved = loadKubeconfig(options.kubeconfig, options.context);
  const namespace = options.namespace || resolved.namespace;
  const client = new KubeClient(resolved.kubeConfig);
  try {
    const discovery = await Discovery.load(client);
    const read = await logger.group('Read', () =>
      readDeployment(options.path, {
        namespace,
        name: options.name,
        isNamespaced: (gk) => discovery.isNamespaced(gk),
        logger,
      }),
    );
    const name = read.name;
    logger.info(
      `${read.objects.length} objects in ${name} → context ${resolved.context}, namespace ${namespace} (${path.resolve(options.path)})`,
    );
    const applyOptions = {
      fieldManager: FIELD_MANAGER,
      forceConflicts: options.forceConflicts,
      concurrency: options.concurrency,
      signal: options.signal,
    };
    const set = applySetFor(name, namespace);
    const previous = await readParent(client, set);
    if (previous.exists && previous.tooling && !previous.tooling.startsWith('spread/')) {
      throw new Error(
        `the ApplySet parent secret/${set.parentName} in ${namespace} is managed by ${previous.tooling}, not spread; choose another --name`,
      );
    }
    const objects = read.objects.map((o) => ({
      ...o,
      object: labelForApplySet(o, set, formatSource(o.source)),
    }));
    const plan = await logger.group('Plan', () => planObjects(client, discovery, objects, applyOptions));
    const mayPrune = options.prune && (objects.length > 0 || options.allowEmpty === true);
    const base = { deployment: name, namespace, context: resolved.context };
    if (options.mode === 'plan') {
      const candidates = mayPrune ? await findPruneCandidates(client, discovery, set, previous, objects) : [];
      return {
        ...base,
        mode: 'plan',
        objects: [...plan.map(planned), ...candidates.map((c) => prunedRef(c, 'prune'))],
        rollout: [],
        durationMs: Date.now() - started,
      };
    }
    const groupKinds = (list: readonly SourcedObject[]) =>
      list.map((o) => formatGroupKind(groupKindOf(o.object)));
    const namespaces = (list: readonly SourcedObject[]) => list.map((o) => o.object.metadata.namespace ?? '');
    // The parent first lists the union of what it held and what this deploy applies, so that an
    // interrupted deploy still knows every object it may have created (kubectl's order too).
    const parentBefore = parentObject(
      set,
      [...previous.groupKinds, ...groupKinds(objects)],
      [...previous.namespaces, ...namespaces(objects)],
    );
    const parentNamespaceIsNew = plan.some(
      (p) => p.object.kind === 'Namespace' && p.object.metadata.name === namespace && p.action === 'create',
    );
    if (!parentNamespaceIsNew) await writeParent(client, parentBefore, FIELD_MANAGER);
    const applied = await logger.group('Apply', () =>
      applyObjects(client, discovery, plan, read.groupOf, applyOptions, (a) => {
        logger.info(`${describe(a)} ${a.action}`);
      }),
    );
    if (parentNamespaceIsNew) await writeParent(client, parentBefore, FIELD_MANAGER);
    let pruned: PruneCandidate[] = [];
    if (mayPrune) {
      pruned = await logger.group('Prune', async () => {
        const candidates = (await findPruneCandidates(client, discovery, set, previous, objects)).filter(
          // A Namespace that still holds objects of this deployment is kept.
          (c) =>
            !(
              c.object.kind === 'Namespace' &&
              objects.some((o) => o.object.metadata.namespace === c.object.metadata.name)
            ),
        );
        await deleteObjects(client, candidates);
        for (const c of candidates)
          logger.info(`${c.object.kind.toLowerCase()}/${c.object.metadata.name} pruned`);
        return candidates;
      });
      await writeParent(client, parentObject(set, groupKinds(objects), namespaces(objects)), FIELD_MANAGER);
    }
    const reported = [...applied.map(done), ...pruned.map((c) => prunedRef(c, 'pruned'))];
    let rollout: RolloutResult[] = [];
    if (options.wait) {
      try {
        rollout = await logger.group('Wait', () =>
          waitForRollout(client, applied, {
            timeoutMs: options.timeoutMs,
            onProgress: (line) => logger.info(line),
            signal: options.signal,
          }),
        );
      } catch (error) {
        if (error instanceof RolloutError) {
          const report = {
            ...base,
            mode: 'deploy' as const,
            objects: reported,
            rollout: error.results.map(rolled),
            durationMs: Date.now() - started,
          };
          throw new DeployError(error, report);
        }
        throw error;
      }
    }
    return {
      ...base,
      mode: 'deploy',
      objects: reported,
      rollout: rollout.map(rolled),
      durationMs: Date.now() - started,
    };
  } finally {
    client.close();
  }
}

function ref(o: SourcedObject): Omit<ObjectReport, 'action'> {
  const m = o.object.metadata;
  return {
    apiVersion: o.object.apiVersion,
    kind: o.object.kind,
    ...(m.namespace ? { namespace: m.namespace } : {}),
    name: m.name ?? '',
    source: formatSource(o.source),
  };
}

function planned(p: PlannedObject): ObjectReport {
  return { ...ref(p), action: p.action };
}

function done(a: AppliedObject): ObjectReport {
  return { ...ref(a), action: a.action };
}

function prunedRef(c: PruneCandidate, action: 'prune' | 'pruned'): ObjectReport {
  const m = c.object.metadata;
  return {
    apiVersion: c.object.apiVersion,
    kind: c.object.kind,
    ...(m.namespace ? { namespace: m.namespace } : {}),
    name: m.name ?? '',
    action,
    source: m.annotations?.[SPREAD.source] ?? '',
  };
}

function rolled(r: RolloutResult): RolloutReport {
  const m = r.object.object.metadata;
  return {
    kind: r.object.object.kind,
    ...(m.namespace ? { namespace: m.namespace } : {}),
    name: m.name ?? '',
    ready: r.ready,
    message: r.message,
    durationMs: r.durationMs,
  };
}

function describe(a: AppliedObject): string {
  const r = ref(a);
  return `${r.kind.toLowerCase()}/${r.name}${r.namespace ? ` -n ${r.namespace}` : ''}`;
}
