// What a deploy is given (its options and the cluster the front end connected) and what every stage
// reads of it (Run). The stages' own types live with them: read.ts, images.ts, plan.ts, apply.ts,
// settle.ts; how a failed deploy says what it was of, in failure.ts.
import type { Logger } from '../../base/logger.js';
import { isDnsLabel, toDnsLabel } from '../../base/names.js';
import type { DeploymentOrigin } from '../../base/origin.js';
import type { Source } from '../../base/source.js';
import type { Discovery } from '../../cluster/discovery.js';
import type { PromotedFrom } from '../../engine/inventory/provenance.js';
import type { ClusterPort } from '../../engine/kube-api.js';
import type { ImageOptions } from '../../image/index.js';
import type { KustomizeOptions } from '../../input/kustomize.js';
import type { Renderers } from '../../input/render.js';
import type { DeployReport } from '../../report/report.js';
import type { UrlFrom } from '../../report/url.js';
import type { ChartSettings } from '../read.js';

/**
 * The cluster a deploy works on, connected by the front end (src/frontend/cluster.ts): the API, what
 * it serves (discovery, loaded once), and the kubeconfig context's name and namespace.
 */
export interface DeployCluster {
  readonly api: ClusterPort;
  readonly discovery: Discovery;
  /** The kubeconfig context's name, for the report and messages. */
  readonly context: string;
  /** The context's namespace: the deployment's unless `namespace` is given. */
  readonly namespace: string;
}

/** Options of {@link deploy}; the front ends fill them from flags or Action inputs. */
export interface DeployOptions {
  /** The directory to deploy (DirectoryInput root). */
  readonly path: string;
  /**
   * The deployment's directory, holding spread.yaml (its health rules), when {@link path} is another
   * (an environment's `path:` inside it); default {@link path}.
   */
  readonly projectDir?: string | undefined;
  /** The cluster, connected by the front end. */
  readonly cluster: DeployCluster;
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
  /**
   * Where the revision comes from, recorded in it (engine/inventory/provenance.ts): the environment
   * deployed to, and for a promotion the revision it deploys again. The markers' digests are recorded
   * from the image stage.
   */
  readonly provenance?: { readonly environment?: string; readonly promotedFrom?: PromotedFrom };
  /**
   * A promotion's images (core/promote.ts): each `&` marker pinned to this reference, nothing built
   * or pushed, the image stage skipped. A marker in the directory without a reference here is an error.
   */
  readonly pinnedMarks?: ReadonlyMap<string, string>;
  /**
   * The deployment's namespace is one of its objects (a preview environment's, docs/environments.md):
   * a Namespace of that name is added to the objects when the directory holds none, so it is created
   * by server-side apply, labelled part of the deployment's ApplySet, and deleted with everything in it
   * by `spread delete`. `source` is where the environment declares it (spread.yaml, relative to
   * {@link path} as every source is). Not added when the namespace exists and is not the deployment's
   * (made by hand or another tool): it is then used as it is, and kept by a delete.
   */
  readonly createNamespace?: { readonly source: Source };
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

/**
 * What every stage of one deploy reads and none changes: the options, the cluster, the deployment's
 * namespace and when the deploy started.
 */
export interface Run {
  readonly options: DeployOptions;
  readonly logger: Logger;
  readonly api: ClusterPort;
  readonly discovery: Discovery;
  readonly context: string;
  readonly namespace: string;
  readonly started: number;
}

/** The {@link Run} of `options`, its name and namespace checked (the front end checked them already). */
export function startRun(options: DeployOptions): Run {
  const started = Date.now();
  checkDeploymentName(options.name);
  const { api, discovery, context } = options.cluster;
  const namespace = checkNamespaceName(options.namespace || options.cluster.namespace);
  return { options, logger: options.logger, api, discovery, context, namespace, started };
}

/**
 * A name given explicitly is used as given or refused; only defaults (from the directory) are made
 * into labels, so that `spread history NAME` finds what `--name NAME` deployed.
 *
 * @throws Error when `name` is not a DNS-1123 label.
 */
export function checkDeploymentName(name: string | undefined): void {
  if (name && !isDnsLabel(name))
    throw new Error(
      `--name "${name}" is not a valid deployment name: a DNS-1123 label (lowercase letters, digits and "-", starting and ending with a letter or digit, at most 63 characters), e.g. ${toDnsLabel(name)}`,
    );
}

/** @returns `namespace`. @throws Error when it is not a DNS-1123 label. */
export function checkNamespaceName(namespace: string): string {
  if (!isDnsLabel(namespace))
    throw new Error(
      `namespace "${namespace}" is not a valid namespace name: a DNS-1123 label (lowercase letters, digits and "-", starting and ending with a letter or digit, at most 63 characters), e.g. ${toDnsLabel(namespace)}`,
    );
  return namespace;
}

/** What every report of this deploy or plan says of its input: deployment, context, images, files. */
export type ReportBase = Pick<
  DeployReport,
  | 'deployment'
  | 'namespace'
  | 'context'
  | 'environment'
  | 'promotedFrom'
  | 'images'
  | 'notDeployed'
  | 'rendered'
>;
