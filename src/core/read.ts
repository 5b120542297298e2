// Reading a directory into its object set (input, entity and deployment stages in one call), with the
// renderers a chart or kustomization needs, for deploy, plan, status and build alike.
import { basename, resolve } from 'node:path';
import { type GroupKind, groupKindOf, type SourcedObject } from '../base/kube-object.js';
import type { Logger } from '../base/logger.js';
import { toDnsLabel } from '../base/names.js';
import { formatIssue, InputError, type InputIssue, issueText } from '../base/source.js';
import type { Discovery } from '../cluster/discovery.js';
import type { Deployment } from '../deployment/deployment.js';
import { applyGroup, deploymentOf } from '../deployment/deployment.js';
import type { Application } from '../entity/entity.js';
import { DirectoryInput } from '../input/directory.js';
import { type HelmCapabilities, helmRenderer } from '../input/helm.js';
import { type KustomizeOptions, kustomizeRenderer } from '../input/kustomize.js';
import type { Renderers } from '../input/render.js';
import { readProjectFile } from '../project/file.js';
import { type HealthRules, readHealthRules } from '../project/health.js';
import { projectErrors } from '../project/load.js';

/** How Helm charts are rendered: the settings `helm`, `helm-values` and `helm-set`. */
export interface ChartSettings {
  /** The Helm binary (3 or 4); `helm` on PATH when absent. */
  readonly helm?: string | undefined;
  /** Values files, relative to each chart's folder, in order. */
  readonly helmValues?: readonly string[] | undefined;
  /** `KEY=VALUE` values passed as `--set`, in order. */
  readonly helmSet?: Readonly<Record<string, string>> | undefined;
}

/** Options of {@link readDeployment}. */
export interface ReadOptions {
  /** Namespace for namespaced objects that name none. */
  readonly namespace: string;
  /** `namespace` was given explicitly: objects naming another namespace are errors (see DeploymentOptions). */
  readonly enforceNamespace?: boolean;
  /** The deployment's (Application's) name; the directory's name when absent. */
  readonly name?: string | undefined;
  /** Scope of a GroupKind from discovery, when a cluster is at hand. */
  readonly isNamespaced?: (gk: GroupKind) => boolean | undefined;
  /** Whether a GroupKind has a status subresource, from discovery, when a cluster is at hand. */
  readonly hasStatusSubresource?: (gk: GroupKind) => boolean | undefined;
  /** A directory with no configuration at all reads as no objects instead of an error (`--allow-empty`). */
  readonly allowEmpty?: boolean;
  /** How charts are rendered (settings `helm`, `helm-values`, `helm-set`). */
  readonly charts?: ChartSettings | undefined;
  /**
   * The cluster's Kubernetes version and API versions for a chart's `.Capabilities`, from discovery;
   * asked only when the directory holds a chart. Absent (`spread render`): Helm's defaults.
   */
  readonly capabilities?: () => Promise<HelmCapabilities | undefined>;
  /** How folders holding `kustomization.yaml` are rendered: the user's kustomize, Helm for `helmCharts`. */
  readonly kustomize?: KustomizeOptions | undefined;
  /** The renderers of kustomizations and Helm charts (see DirectoryInputOptions). */
  readonly renderers?: Renderers;
  /**
   * The deployment's directory, holding spread.yaml, when the folder read is another (an
   * environment's `path:` inside it); default the folder read.
   */
  readonly projectDir?: string | undefined;
  readonly logger: Logger;
}

/**
 * What a chart's `.Capabilities` says of the cluster, from discovery: the server's version and every
 * group/version and group/version/Kind it serves, as `helm install` reads them.
 */
export function capabilitiesOf(discovery: Discovery): () => Promise<HelmCapabilities> {
  return async () => ({
    kubeVersion: discovery.serverVersion?.gitVersion ?? '',
    apiVersions: await discovery.apiVersions(),
  });
}

/**
 * The renderers of a read: Helm for folders holding Chart.yaml, the release named after the
 * deployment and placed in its namespace.
 */
export function renderersOf(release: string, options: ReadOptions): Renderers {
  const charts = options.charts ?? {};
  return {
    helm: helmRenderer({
      ...(charts.helm ? { binary: charts.helm } : {}),
      release,
      namespace: options.namespace,
      valuesFiles: charts.helmValues ?? [],
      set: Object.entries(charts.helmSet ?? {}).map(([k, v]) => `${k}=${v}`),
      ...(options.capabilities ? { capabilities: options.capabilities } : {}),
      trace: (m) => options.logger.debug(m),
    }),
  };
}

/** A directory read into its Application and object set. */
export interface ReadResult {
  readonly application: Application;
  readonly deployment: Deployment;
  /** The Application's name: the deployment's name. */
  readonly name: string;
  /** The objects in apply order. */
  readonly objects: readonly SourcedObject[];
  /** The apply group of an object (Namespaces 0, CRDs 1, … workloads 5, the rest 6). */
  readonly groupOf: (o: SourcedObject) => number;
  /** The project file's health rules (spread.yaml `health`), compiled; empty without them. */
  readonly health: HealthRules;
}

/**
 * The input, entity and deployment stages in one call: DirectoryInput → Application → Deployment.
 * Input warnings go to the logger with their file and line. The project file (spread.yaml) is read
 * first; its sections' errors are thrown with the directory's (the deployment stage's, a bad phase,
 * wave or `spread.rsprd.com/prune` annotation among them), all at once.
 *
 * @throws InputError with every problem of the input and the project file.
 */
export async function readDeployment(dir: string, options: ReadOptions): Promise<ReadResult> {
  // spread.yaml is the deployment's, whatever folder an environment reads.
  const project = projectOf(options.projectDir ?? dir);
  try {
    const read = await readObjects(dir, options);
    if (project.errors.length > 0) throw new InputError(project.errors);
    return { ...read, health: project.health };
  } catch (error) {
    // The directory's errors and the project file's, in one error.
    if (
      error instanceof InputError &&
      project.errors.length > 0 &&
      !error.issues.includes(project.errors[0]!)
    )
      throw new InputError([...project.errors, ...error.issues]);
    throw error;
  }
}

/**
 * The project file's health rules, which this read uses, and every error of the file: of every
 * section, so that a deploy reports all of spread.yaml's problems at once, whichever it reads.
 */
function projectOf(dir: string): { health: HealthRules; errors: InputIssue[] } {
  const file = readProjectFile(dir);
  return { health: readHealthRules(file.project?.sections.health).rules, errors: projectErrors(file) };
}

async function readObjects(dir: string, options: ReadOptions): Promise<Omit<ReadResult, 'health'>> {
  const trace = (m: string) => options.logger.debug(m);
  // A chart's release is the deployment: named as the Application will be (a DNS-1123 label).
  const release = toDnsLabel(options.name ?? basename(resolve(dir)));
  const input = await new DirectoryInput(dir, {
    ...(options.name ? { name: options.name } : {}),
    ...(options.allowEmpty ? { allowEmpty: true } : {}),
    // kustomize is the user's own binary, found once on the first kustomization.
    renderers: {
      kustomize: kustomizeRenderer(options.kustomize),
      ...renderersOf(release, options),
      ...options.renderers,
    },
    trace,
  }).read();
  const application = input.application;
  const deployment = checkedDeployment(input.issues, () =>
    deploymentOf(application, {
      namespace: options.namespace,
      ...(options.enforceNamespace ? { enforceNamespace: true } : {}),
      trace,
      ...(options.isNamespaced ? { isNamespaced: options.isNamespaced } : {}),
      ...(options.hasStatusSubresource ? { hasStatusSubresource: options.hasStatusSubresource } : {}),
    }),
  );
  // Which tool rendered what: its version decides what a chart or overlay gives.
  for (const r of application.rendered)
    options.logger.info(
      `${r.dir === '.' ? '.' : `${r.dir}/`}: ${r.objects} object${r.objects === 1 ? '' : 's'} rendered by ${r.tool}`,
    );
  for (const w of [...application.warnings, ...deployment.warnings]) {
    options.logger.warn(issueText(w), { file: w.source.file, line: w.source.line });
  }
  const objects = deployment.objects();
  return {
    application,
    deployment,
    name: application.name,
    objects,
    groupOf: (o) => {
      const gk = groupKindOf(o.object);
      return applyGroup(gk, deployment.isNamespaced(gk) ?? true);
    },
  };
}

/**
 * The deployment stage run on the input's Application even when the input has errors (a file that
 * does not parse), so that the objects of the files that do are checked too (a bad phase or wave, a
 * Namespace placed too late) and every error is thrown at once, the input's first, each once.
 *
 * @throws InputError with the input's and the deployment stage's issues, when either has an error.
 */
function checkedDeployment(inputIssues: readonly InputIssue[], build: () => Deployment): Deployment {
  const failed = inputIssues.some((i) => i.severity === 'error');
  let deployment: Deployment;
  try {
    deployment = build();
  } catch (error) {
    if (!failed || !(error instanceof InputError)) throw error;
    const seen = new Set(inputIssues.map(formatIssue));
    throw new InputError([...inputIssues, ...error.issues.filter((i) => !seen.has(formatIssue(i)))]);
  }
  if (failed) throw new InputError(inputIssues);
  return deployment;
}
