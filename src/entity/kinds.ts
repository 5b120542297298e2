// The controller kinds the directory convention reads (rc.* and the modern workloads): each one's file
// stem, default apiVersion, pod template path and selector style, in one table.
import { POD_TEMPLATE_PATHS } from '../base/workload.js';
/** The controller kinds spread reads by the directory convention (rc.* and the modern workloads). */
export type ControllerKind =
  | 'ReplicationController'
  | 'Deployment'
  | 'StatefulSet'
  | 'DaemonSet'
  | 'Job'
  | 'CronJob';

/** How spread finds and defaults a controller kind. */
export interface ControllerSpec {
  readonly kind: ControllerKind;
  /** The apiVersion set when a file of the convention leaves it out. */
  readonly apiVersion: string;
  /** File stem of the convention: `rc` for `rc.yaml`, `NAME.rc.yaml`. */
  readonly stem: string;
  /** Where the PodTemplateSpec sits in the object (Kubernetes API reference of each kind). */
  readonly templatePath: readonly string[];
  /**
   * How the label selector is written: `map` for ReplicationController (`spec.selector` is a
   * map[string]string), `matchLabels` for apps/v1 kinds (`spec.selector.matchLabels`), `none` where
   * the API generates it (Job, CronJob).
   */
  readonly selector: 'map' | 'matchLabels' | 'none';
}

/** The controller kinds, in the order spread documents them. */
export const CONTROLLERS: readonly ControllerSpec[] = [
  {
    kind: 'ReplicationController',
    apiVersion: 'v1',
    stem: 'rc',
    templatePath: POD_TEMPLATE_PATHS.ReplicationController,
    selector: 'map',
  },
  {
    kind: 'Deployment',
    apiVersion: 'apps/v1',
    stem: 'deployment',
    templatePath: POD_TEMPLATE_PATHS.Deployment,
    selector: 'matchLabels',
  },
  {
    kind: 'StatefulSet',
    apiVersion: 'apps/v1',
    stem: 'statefulset',
    templatePath: POD_TEMPLATE_PATHS.StatefulSet,
    selector: 'matchLabels',
  },
  {
    kind: 'DaemonSet',
    apiVersion: 'apps/v1',
    stem: 'daemonset',
    templatePath: POD_TEMPLATE_PATHS.DaemonSet,
    selector: 'matchLabels',
  },
  {
    kind: 'Job',
    apiVersion: 'batch/v1',
    stem: 'job',
    templatePath: POD_TEMPLATE_PATHS.Job,
    selector: 'none',
  },
  {
    kind: 'CronJob',
    apiVersion: 'batch/v1',
    stem: 'cronjob',
    templatePath: POD_TEMPLATE_PATHS.CronJob,
    selector: 'none',
  },
];

/** The spec of a controller kind, by kind. */
export function controllerSpec(kind: ControllerKind): ControllerSpec {
  const spec = CONTROLLERS.find((c) => c.kind === kind);
  if (!spec) throw new Error(`unknown controller kind ${kind}`);
  return spec;
}

/** The controller kind whose file stem is `stem` (`rc` → ReplicationController), if any. */
export function controllerOfStem(stem: string): ControllerKind | undefined {
  return CONTROLLERS.find((c) => c.stem === stem)?.kind;
}

/** True for a kind spread treats as a controller entity. */
export function isControllerKind(kind: unknown): kind is ControllerKind {
  return CONTROLLERS.some((c) => c.kind === kind);
}
