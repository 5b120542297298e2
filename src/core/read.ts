import { type GroupKind, groupKindOf, type SourcedObject } from '../base/kube-object.js';
import type { Logger } from '../base/logger.js';
import { issueText } from '../base/source.js';
import type { Deployment } from '../deployment/deployment.js';
import { applyGroup, deploymentOf } from '../deployment/deployment.js';
import type { Application } from '../entity/entity.js';
import { DirectoryInput } from '../input/directory.js';
import { type KustomizeOptions, kustomizeRenderer } from '../input/kustomize.js';
import type { Renderers } from '../input/render.js';

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
  /** How folders holding `kustomization.yaml` are rendered: the user's kustomize, Helm for `helmCharts`. */
  readonly kustomize?: KustomizeOptions | undefined;
  /** The renderers of kustomizations and Helm charts (see DirectoryInputOptions). */
  readonly renderers?: Renderers;
  readonly logger: Logger;
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
}

/**
 * The input, entity and deployment stages in one call: DirectoryInput → Application → Deployment.
 * Input warnings go to the logger with their file and line.
 *
 * @throws InputError with every problem of the input.
 */
export async function readDeployment(dir: string, options: ReadOptions): Promise<ReadResult> {
  const trace = (m: string) => options.logger.debug(m);
  const application = await new DirectoryInput(dir, {
    ...(options.name ? { name: options.name } : {}),
    ...(options.allowEmpty ? { allowEmpty: true } : {}),
    // kustomize is the user's own binary, found once on the first kustomization.
    renderers: { kustomize: kustomizeRenderer(options.kustomize), ...options.renderers },
    trace,
  }).entity();
  const deployment = deploymentOf(application, {
    namespace: options.namespace,
    ...(options.enforceNamespace ? { enforceNamespace: true } : {}),
    trace,
    ...(options.isNamespaced ? { isNamespaced: options.isNamespaced } : {}),
    ...(options.hasStatusSubresource ? { hasStatusSubresource: options.hasStatusSubresource } : {}),
  });
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
