import type { Logger } from '../base/logger.js';
import type { DeploymentOrigin } from '../base/origin.js';
import type { Discovery } from '../cluster/discovery.js';
import type { KubeconfigSource, ResolvedKubeconfig } from '../cluster/kubeconfig.js';
import type { ApplySet } from '../engine/inventory/applyset.js';
import type { DeployLock } from '../engine/inventory/lock.js';
import type { ClusterPort } from '../engine/kube-api.js';
import { namespaceExists } from '../engine/plan/live.js';
import type { ApplyOptions } from '../engine/plan/options.js';
import type { ImageOptions } from '../image/index.js';
import type { KustomizeOptions } from '../input/kustomize.js';
import type { Renderers } from '../input/render.js';
import type { DeployReport } from '../report/report.js';
import type { UrlFrom } from '../report/url.js';
import type { ChartSettings, ReadResult } from './read.js';

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
  /**
   * The deployment's name; when absent, the default of `origin` (base/origin.ts
   * defaultDeploymentName), or the directory's name (as a DNS-1123 label) without one.
   */
  readonly name?: string;
  /**
   * Where the directory comes from (repository and path, else its absolute path; the front end reads
   * it from the CI's variables or git). Recorded on the ApplySet parent; a deployment of the same
   * name recorded from another origin fails the deploy before anything is written, unless `adopt`.
   * Absent: nothing is recorded or compared.
   */
  readonly origin?: DeploymentOrigin;
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
  /**
   * The cluster to use instead of a KubeClient built from `kubeconfig` (which still names the
   * context and the default namespace): the unit tests' in-memory API server.
   */
  readonly cluster?: ClusterPort;
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
  /** The renderers of kustomizations and Helm charts in the input (see DirectoryInputOptions). */
  readonly renderers?: Renderers;
  /** How Helm charts in the directory are rendered (settings `helm`, `helm-values`, `helm-set`). */
  readonly charts?: ChartSettings;
  /** How kustomizations are rendered (see ReadOptions.kustomize). */
  readonly kustomize?: KustomizeOptions | undefined;
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

/** The deployment a failed deploy or plan was of, known once its directory was read. */
export interface FailureTarget {
  readonly deployment: string;
  readonly namespace: string;
  readonly context: string;
}

const failureTargets = new WeakMap<object, FailureTarget>();

/**
 * The deployment `error` (thrown by {@link deploy}) was about, when the failure came after the
 * directory was read (a plan the server refused): what the Action needs to replace the deployment's
 * pull request comment. Undefined for earlier failures (bad input, an unknown context).
 */
export function failureTarget(error: unknown): FailureTarget | undefined {
  return typeof error === 'object' && error !== null ? failureTargets.get(error) : undefined;
}

/** Records which deployment `error` is about (see {@link failureTarget}). */
export function setFailureTarget(error: unknown, target: FailureTarget): void {
  if (typeof error === 'object' && error !== null) failureTargets.set(error, target);
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
export interface DeployContext {
  readonly options: DeployOptions;
  readonly logger: Logger;
  readonly started: number;
  readonly resolved: ResolvedKubeconfig;
  readonly namespace: string;
  readonly client: ClusterPort;
  readonly discovery: Discovery;
  lock: DeployLock | undefined;
  /** Set when the apply starts: until then a failure has written nothing of the directory (only the Lease). */
  written: boolean;
  /** The deployment's name, once the directory was read. */
  deployment?: string;
}

/** The directory read and checked, the deployment it names, and how its objects are applied. */
export interface ReadStep {
  readonly read: ReadResult;
  readonly name: string;
  readonly set: ApplySet;
  readonly namespaceExisted: boolean;
  readonly applyOptions: ApplyOptions;
}

/** What the rollout wait, the record and a rollback after a failed rollout need of the {@link ReadStep}. */
export type SettleStep = Pick<ReadStep, 'set' | 'applyOptions'>;

export type ReportBase = Pick<
  DeployReport,
  'deployment' | 'namespace' | 'context' | 'images' | 'notDeployed' | 'rendered'
>;

/** Whether the deployment's namespace exists now. */
export function deploymentNamespaceExists(ctx: DeployContext): Promise<boolean> {
  return namespaceExists(ctx.client, ctx.namespace, ctx.options.signal);
}
