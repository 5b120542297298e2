// Where each workload kind keeps its pod template and containers (Deployment's `spec.template`, CronJob's
// `spec.jobTemplate.spec.template`…), so that entities, images and errors find containers alike.
import type { KubeObject } from './kube-object.js';

/**
 * Where the pod template is in each kind that holds one (Kubernetes API reference, workloads): the
 * controllers' `spec.template`, a CronJob's `spec.jobTemplate.spec.template`, a PodTemplate's
 * `template`; a Pod is its own template (the empty path). The pod spec is the template's `spec`.
 */
export const POD_TEMPLATE_PATHS = {
  Pod: [],
  PodTemplate: ['template'],
  ReplicationController: ['spec', 'template'],
  ReplicaSet: ['spec', 'template'],
  Deployment: ['spec', 'template'],
  StatefulSet: ['spec', 'template'],
  DaemonSet: ['spec', 'template'],
  Job: ['spec', 'template'],
  CronJob: ['spec', 'jobTemplate', 'spec', 'template'],
} as const satisfies Readonly<Record<string, readonly string[]>>;

/** The kinds of {@link POD_TEMPLATE_PATHS}. */
export type WorkloadKind = keyof typeof POD_TEMPLATE_PATHS;

/** The path of the pod template in an object of `kind` (see {@link POD_TEMPLATE_PATHS}); undefined for other kinds. */
export function podTemplatePath(kind: string): readonly string[] | undefined {
  return Object.hasOwn(POD_TEMPLATE_PATHS, kind) ? POD_TEMPLATE_PATHS[kind as WorkloadKind] : undefined;
}

/** The container lists of a pod spec (core/v1 PodSpec), in the order the kubelet starts them. */
export const CONTAINER_LISTS = ['initContainers', 'containers', 'ephemeralContainers'] as const;

/** The path of the pod spec in an object of `kind` ({@link POD_TEMPLATE_PATHS} then `spec`); undefined for other kinds. */
export function podSpecPath(kind: string): readonly string[] | undefined {
  const template = podTemplatePath(kind);
  return template && [...template, 'spec'];
}

/** Options of {@link podSpecOf}. */
export interface PodSpecOptions {
  /**
   * Also read `spec.template.spec` of kinds not in {@link POD_TEMPLATE_PATHS}, where custom workloads
   * (Argo Rollouts, OpenKruise CloneSets) keep their pod template.
   */
  readonly customKinds?: boolean;
}

/** The pod spec of `object` (a mapping, not a copy), or undefined when it has none. */
export function podSpecOf(
  object: KubeObject,
  options: PodSpecOptions = {},
): Record<string, unknown> | undefined {
  const path = podSpecPath(object.kind) ?? (options.customKinds ? ['spec', 'template', 'spec'] : undefined);
  if (!path) return undefined;
  let spec: unknown = object;
  for (const key of path) spec = isObject(spec) ? spec[key] : undefined;
  return isObject(spec) ? spec : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
