// The entity stage: attaches what an input found into one Application tree by the spread convention
// (a pod into its controller, `.ctr` containers into a pod or a default Deployment, objects to their
// entity), then applies the controllers' defaults. Every problem is collected, none thrown alone.
import { identityProblem, type KubeObject, type SourcedObject } from '../base/kube-object.js';
import { toDnsLabel } from '../base/names.js';
import { formatSource, type IssueList, type Trace } from '../base/source.js';
import { isMapping, type LocatedValue } from '../decode/decode.js';
import {
  Application,
  type Container,
  Controller,
  type InputKind,
  type Mapping,
  type NotDeployedFile,
  Pod,
} from './entity.js';
import { type ControllerKind, controllerSpec } from './kinds.js';
import { newEntity } from './new-entity.js';

/**
 * A controller or Pod file found by an input. `stem` pairs a controller with its pod: `''` for the
 * classic names (`rc.yaml` with `pod.yaml`), `NAME` for the later layout (`NAME.rc.yaml` with
 * `NAME.pod.yaml`), undefined for objects of a manifest, which never pair.
 */
export interface EntityFile {
  readonly kind: ControllerKind | 'Pod';
  readonly value: LocatedValue;
  readonly stem?: string;
  /** Absent: the convention's for a stem, plain manifests without one (a rendered folder says its own). */
  readonly input?: InputKind;
}

/** A `.ctr` file: one core/v1 Container. `stem` is the file name without `.ctr`, the default container name. */
export interface ContainerFile {
  readonly value: LocatedValue;
  readonly stem: string;
}

/**
 * A decoded object with its source, without the lines of its parts; `input` absent: the
 * convention's (`.k2e/`), or its rendered folder's.
 */
export type ObjectValue = Pick<LocatedValue, 'value' | 'source'> & { readonly input?: InputKind };

/** What an input found in one directory, everything in file-name order. */
export interface DirectoryContent {
  /** The directory relative to the input root, POSIX separators, `.` for the root. */
  readonly dir: string;
  /** The directory's own name, from which default entity names are made. */
  readonly name: string;
  readonly entities: readonly EntityFile[];
  readonly containers: readonly ContainerFile[];
  /**
   * Objects of the directory's objects folder (`.k2e/`), Lists flattened. Only the value and its
   * source are needed here, so an input may drop the parsed YAML documents of these files early
   * (they are most of the memory a large directory takes).
   */
  readonly objects: readonly ObjectValue[];
  /**
   * Set when an outside tool rendered the directory (a kustomization, a Helm chart): its entities
   * and objects are the tool's output, never paired or defaulted by file names.
   */
  readonly rendered?: { readonly input: 'kustomize' | 'helm'; readonly tool: string };
  /** YAML and JSON files of the directory that hold no Kubernetes object. */
  readonly notDeployed?: readonly NotDeployedFile[];
}

/** Options of {@link buildApplication}. */
export interface BuildOptions {
  /** Traces which file became which entity, where it was attached and every default applied. */
  readonly trace?: Trace;
}

/**
 * Builds the entity tree of an Application from the directories an input read, attaching by the
 * spread convention (DESIGN.md "Attaching"):
 * - a Pod beside a controller with the same stem becomes its pod template (the pod's labels are the
 *   template's labels; the controller's own template labels are kept when the pod has none);
 * - `.ctr` containers attach to the directory's classic Pod, else its classic controller's template,
 *   else its only entity, else a default Deployment named after the directory (DNS-1123 label);
 * - objects attach to the directory's only entity, else to the Application;
 * - then the defaults of {@link finishController} are applied and every pod is checked to have
 *   containers.
 *
 * Problems go to `issues`; the caller throws them together.
 */
export function buildApplication(
  name: string,
  dirs: readonly DirectoryContent[],
  issues: IssueList,
  options: BuildOptions = {},
): Application {
  const { trace } = options;
  const app = new Application(toDnsLabel(name), { file: '.', line: 0 });
  if (trace) {
    const label =
      app.name === name ? app.name : `${app.name} (from ${JSON.stringify(name)}, made a DNS-1123 label)`;
    trace(`Application ${label}`);
  }
  const incomplete = new Set<Controller | Pod>();
  for (const dir of dirs) buildDirectory(app, dir, issues, incomplete, trace);
  for (const entity of app.entities) {
    if (entity instanceof Controller) finishController(entity, trace);
    const pod = entity instanceof Controller ? entity.pod : entity;
    // An entity whose containers failed already has its errors; "no containers" would only repeat them.
    if (pod.containers.length === 0 && !incomplete.has(entity)) {
      issues.error(
        entity.source,
        'has no containers (add a .ctr file or spec.containers)',
        entity.describe(),
      );
    }
    checkContainerNames(pod, issues);
  }
  return app;
}

// over 80 lines because it is one pass over a directory's files and entities.
function buildDirectory(
  app: Application,
  dir: DirectoryContent,
  issues: IssueList,
  incomplete: Set<Controller | Pod>,
  trace: Trace | undefined,
): void {
  const controllers: Controller[] = [];
  const pods: { pod: Pod; stem: string | undefined }[] = [];
  const stems = new Map<Controller, string | undefined>();
  for (const file of dir.entities) {
    const defaultName =
      file.stem === undefined ? undefined : toDnsLabel(file.stem === '' ? dir.name : file.stem);
    const defaultNameFrom =
      file.stem === '' ? `directory name ${dir.name}` : `file name ${file.value.source.file}`;
    const options = {
      dir: dir.dir,
      ...(defaultName ? { defaultName, defaultNameFrom } : {}),
      ...(trace ? { trace } : {}),
    };
    const before = issues.issues.length;
    const input = dir.rendered?.input ?? file.input ?? (file.stem === undefined ? 'manifests' : 'convention');
    if (file.kind === 'Pod') {
      const pod = newEntity('Pod', file.value, options, issues);
      if (pod) pod.input = input;
      if (pod) pods.push({ pod, stem: file.stem });
      if (pod && issues.issues.length > before) incomplete.add(pod);
    } else {
      const controller = newEntity(file.kind, file.value, options, issues);
      if (controller) {
        controller.input = input;
        controllers.push(controller);
        stems.set(controller, file.stem);
        if (issues.issues.length > before) incomplete.add(controller);
      }
    }
  }

  const top: (Controller | Pod)[] = [...controllers];
  let classicPod: Pod | undefined;
  for (const { pod, stem } of pods) {
    const owner = stem === undefined ? undefined : controllers.find((c) => stems.get(c) === stem);
    if (stem === '') classicPod = pod;
    if (owner) {
      useAsTemplate(owner, pod, issues);
      trace?.(`${formatSource(pod.source)}: ${pod.title()} became the pod template of ${owner.label()}`);
      if (incomplete.has(pod)) incomplete.add(owner);
    } else top.push(pod);
  }

  if (dir.containers.length > 0) {
    const classic = controllers.find((c) => stems.get(c) === '');
    let target: Pod | undefined = classicPod ?? classic?.pod;
    // Entities of plain manifests beside .ctr files never take them: the 2016 layouts keep their meaning.
    const candidates = top.filter((e) => e.input === 'convention');
    if (!target && candidates.length === 1) {
      const only = candidates[0] as Controller | Pod;
      target = only instanceof Controller ? only.pod : only;
    }
    if (!target && candidates.length === 0) {
      const appsDeployment = defaultAppsDeployment(dir);
      top.push(appsDeployment);
      target = appsDeployment.pod;
      trace?.(
        `${dir.dir}: no controller or pod beside the .ctr files: default Deployment ${appsDeployment.name} created (named after the directory ${dir.name})`,
      );
    }
    if (!target) {
      for (const entity of top) incomplete.add(entity);
      issues.error(
        dir.containers[0]?.value.source ?? { file: dir.dir, line: 0 },
        `cannot tell which of ${candidates.map((e) => e.label()).join(', ')} the .ctr containers of ${dir.dir} belong to; move them beside one entity per directory`,
      );
    } else {
      const owner = target.parent instanceof Controller ? target.parent : target;
      const where =
        target.parent instanceof Controller ? `the pod template of ${owner.label()}` : owner.label();
      for (const file of dir.containers) {
        const container = newEntity(
          'Container',
          file.value,
          {
            dir: dir.dir,
            defaultName: toDnsLabel(file.stem, 'container'),
            defaultNameFrom: `file name ${file.value.source.file}`,
            within: owner.describe(),
            ...(trace ? { trace } : {}),
          },
          issues,
        );
        if (container) {
          target.attach(container);
          trace?.(`${formatSource(container.source)}: ${container.title()} attached to ${where}`);
        } else incomplete.add(owner);
      }
    }
  }

  if (dir.rendered) {
    const objects = dir.entities.length + dir.objects.length;
    app.rendered.push({ dir: dir.dir, ...dir.rendered, objects });
  }
  for (const entity of top) app.attach(entity);
  const holder = top.length === 1 ? (top[0] as Controller | Pod) : app;
  app.notDeployed.push(...(dir.notDeployed ?? []));
  for (const value of dir.objects) {
    const sourced = sourcedObject(value, issues);
    if (!sourced) continue;
    const input = dir.rendered?.input ?? value.input;
    const object = input ? { ...sourced, input } : sourced;
    holder.objects.push(object);
    trace?.(
      `${formatSource(object.source)}: ${object.object.kind} ${object.object.metadata.name} attached to ${holder === app ? `Application ${app.name}` : holder.label()}`,
    );
  }
}

/**
 * Makes `pod` (from `pod.yaml`) the pod template of `controller`. The pod's labels and annotations
 * win; the controller's own template labels and annotations are kept when the pod has none, and its
 * containers when the pod has none.
 */
function useAsTemplate(controller: Controller, pod: Pod, issues: IssueList): void {
  const current = controller.pod;
  if (current.containers.length > 0 && pod.containers.length > 0) {
    issues.error(
      pod.source,
      `both ${formatSource(controller.source)} (its pod template) and ${formatSource(pod.source)} define containers; keep them in one place`,
      controller.describe(),
    );
  }
  const templateMeta = isMapping(current.object.metadata) ? current.object.metadata : {};
  const podMeta = mappingField(pod.object, 'metadata');
  for (const key of ['labels', 'annotations']) {
    if (!isMapping(podMeta[key]) && isMapping(templateMeta[key]))
      podMeta[key] = structuredClone(templateMeta[key]);
  }
  if (pod.containers.length === 0) for (const container of current.containers) pod.attach(container);
  if (pod.initContainers.length === 0) for (const container of current.initContainers) pod.attach(container);
  controller.setTemplate(pod);
}

/**
 * The default Deployment of a directory that holds only containers (spread convention): named
 * after the directory (DNS-1123 label), one replica by the API default.
 */
function defaultAppsDeployment(dir: DirectoryContent): Controller {
  const name = toDnsLabel(dir.name);
  const object: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, spec: {} };
  const source = { file: dir.dir, line: 0 };
  return new Controller(
    'Deployment',
    object,
    source,
    new Pod(name, { metadata: {}, spec: {} }, source, true),
  );
}

/**
 * Selector and template defaults (Kubernetes requires a selector matching the template labels for
 * ReplicationController and apps/v1 workloads):
 * - ReplicationController: `spec.selector` from the template labels, or the template labels from
 *   the selector; when neither exists, `app: <name>` on both;
 * - Deployment, StatefulSet, DaemonSet: the same with `spec.selector.matchLabels` (a selector with
 *   only `matchExpressions` is left alone);
 * - Job, CronJob: the API generates the selector; `restartPolicy` defaults to `Never`, since the
 *   API's pod default `Always` is invalid in a Job.
 */
export function finishController(controller: Controller, trace?: Trace): void {
  const spec = controllerSpec(controller.type);
  const object = controller.object;
  const objSpec = mappingField(object, 'spec');
  const podMeta = mappingField(controller.pod.object, 'metadata');
  const podSpec = controller.pod.object.spec as Mapping;
  const at = `${formatSource(controller.source)}: ${controller.title()}`;
  const labels =
    isMapping(podMeta.labels) && Object.keys(podMeta.labels).length > 0 ? podMeta.labels : undefined;
  if (spec.selector === 'none') {
    if (podSpec.restartPolicy === undefined) {
      podSpec.restartPolicy = 'Never';
      trace?.(`${at}: restartPolicy defaulted to Never (a ${controller.type} pod may not use Always)`);
    }
    return;
  }
  let selector: Mapping | undefined;
  if (spec.selector === 'map') {
    selector =
      isMapping(objSpec.selector) && Object.keys(objSpec.selector).length > 0 ? objSpec.selector : undefined;
  } else {
    const sel = objSpec.selector;
    if (isMapping(sel) && sel.matchExpressions !== undefined && !isMapping(sel.matchLabels)) return;
    selector =
      isMapping(sel) && isMapping(sel.matchLabels) && Object.keys(sel.matchLabels).length > 0
        ? sel.matchLabels
        : undefined;
  }
  const chosen = selector ?? labels ?? { app: controller.name };
  if (trace) {
    const text = formatLabels(chosen);
    if (!labels && !selector) trace(`${at}: selector and template labels defaulted to ${text}`);
    else if (!labels) trace(`${at}: template labels defaulted to ${text} (from the selector)`);
    else if (!selector) trace(`${at}: selector defaulted to ${text} (from the template labels)`);
  }
  if (!labels) podMeta.labels = structuredClone(chosen);
  if (!selector) {
    const value =
      spec.selector === 'map'
        ? structuredClone(chosen)
        : { ...(isMapping(objSpec.selector) ? objSpec.selector : {}), matchLabels: structuredClone(chosen) };
    setBefore(objSpec, 'selector', value, 'template');
  }
}

function formatLabels(labels: Mapping): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(',');
}

/** The mapping at `object[key]`, created empty when missing or not a mapping. */
function mappingField(object: Mapping, key: string): Mapping {
  const value = object[key];
  if (isMapping(value)) return value;
  const created: Mapping = {};
  object[key] = created;
  return created;
}

/** Sets `key`, placing it before `before` when new, so rendered objects read as kubectl users write them. */
function setBefore(object: Mapping, key: string, value: unknown, before: string): void {
  if (key in object || !(before in object)) {
    object[key] = value;
    return;
  }
  const entries = Object.entries(object);
  for (const k of Object.keys(object)) delete object[k];
  for (const [k, v] of entries) {
    if (k === before) object[key] = value;
    object[k] = v;
  }
}

/** Container names are unique across a pod's init containers and containers (core/v1 PodSpec validation). */
function checkContainerNames(pod: Pod, issues: IssueList): void {
  const seen = new Map<string, Container>();
  for (const c of [...pod.initContainers, ...pod.containers]) {
    const first = seen.get(c.name);
    if (first) {
      issues.error(
        c.source,
        `container name ${c.name} is already used by ${formatSource(first.source)}; container names must be unique in a pod`,
        c.describe(),
      );
    } else seen.set(c.name, c);
  }
}

/**
 * Checks what every object must have (apiVersion, kind, metadata.name or generateName, per the
 * Kubernetes API conventions) and pairs it with its source. The object is the decoded value itself,
 * not a copy: the entity stage only reads attached objects, and the Deployment (src/deployment)
 * copies them before it changes anything (a second copy showed in `spread render` of the CRD bundle:
 * bench/RESULTS.md, "Deploy, by hand", issue 19 sixth part).
 */
export function sourcedObject(value: ObjectValue, issues: IssueList): SourcedObject | undefined {
  const problem = identityProblem(value.value);
  if (problem) {
    issues.error(value.source, problem);
    return undefined;
  }
  return { object: value.value as KubeObject, source: value.source };
}
