// The one constructor path of every entity (the seed's "Generic Entity constructor"): checks, a deep copy,
// defaults from the file's name, and validation, so that no entity type checks its input its own way.
import { posix } from 'node:path';
import type { KubeObject } from '../base/kube-object.js';
import { isDnsLabel, toDnsLabel } from '../base/names.js';
import { formatSource, type IssueList, type Source, type Trace } from '../base/source.js';
import { describeDocument, describeValue, isMapping, type LocatedValue } from '../decode/decode.js';
import { type Build, Container, Controller, Image, type Mapping, Pod } from './entity.js';
import { type ControllerKind, controllerSpec } from './kinds.js';

/** What the shared constructor needs besides the decoded value. */
export interface NewEntityOptions {
  /** Name given when the object has no metadata.name (or the container no name). */
  readonly defaultName?: string;
  /** Directory of the declaring file, relative to the input root: the build context of `&` images. */
  readonly dir: string;
  /** The entity this one will be attached in, for messages, e.g. `in ReplicationController x (rc.yml:1)`. */
  readonly within?: string;
  /** Where the default name comes from, for the trace: `directory web`, `file name cache.ctr`. */
  readonly defaultNameFrom?: string;
  /** Build an init container (`spec.initContainers`) rather than a container. */
  readonly init?: boolean;
  /** Traces the entity built and every default applied (see {@link Trace}). */
  readonly trace?: Trace;
}

/**
 * The one constructor path of every entity (seed "Generic Entity constructor"), doing in one place:
 * 1. nil and empty checks (the value must be a non-empty mapping);
 * 2. a deep copy (structuredClone), so entities never share state with the decoded input;
 * 3. default kind, apiVersion and metadata.name (the file's convention gives the kind, the
 *    directory or file name gives the name);
 * 4. validation of what spread relies on (kind matches the file, containers are mappings with a
 *    DNS-label name and an image).
 *
 * Problems are added to `issues` (all of them, not only the first); returns undefined when the
 * entity cannot be built.
 */
export function newEntity(
  type: ControllerKind,
  value: LocatedValue,
  options: NewEntityOptions,
  issues: IssueList,
): Controller | undefined;
export function newEntity(
  type: 'Pod',
  value: LocatedValue,
  options: NewEntityOptions,
  issues: IssueList,
): Pod | undefined;
export function newEntity(
  type: 'Container',
  value: LocatedValue,
  options: NewEntityOptions,
  issues: IssueList,
): Container | undefined;
// over 80 lines because it is one pass over every kind an entity can be read as.
export function newEntity(
  type: ControllerKind | 'Pod' | 'Container',
  value: LocatedValue,
  options: NewEntityOptions,
  issues: IssueList,
): Controller | Pod | Container | undefined {
  const where = (path: readonly (string | number)[] = []): Source => value.sourceAt(path);
  const suffix = options.within ? ` in ${options.within}` : '';
  if (!isMapping(value.value)) {
    issues.error(value.source, `expected a ${type} (a mapping), found ${describeDocument(value.value)}`);
    return undefined;
  }
  if (Object.keys(value.value).length === 0) {
    issues.error(value.source, `${type} is empty`);
    return undefined;
  }
  const copy = structuredClone(value.value);

  if (type === 'Container') return newContainer(copy, value, options, issues);

  const expectedKind = type;
  const expectedApiVersion = type === 'Pod' ? 'v1' : controllerSpec(type).apiVersion;
  if (copy.kind !== undefined && copy.kind !== expectedKind) {
    issues.error(
      where(['kind']),
      `${value.source.file} holds ${typeof copy.kind === 'string' ? `a ${copy.kind}` : describeValue(copy.kind)}; expected a ${expectedKind}${suffix}`,
    );
    return undefined;
  }
  if (copy.apiVersion !== undefined && typeof copy.apiVersion !== 'string') {
    issues.error(
      where(['apiVersion']),
      `apiVersion must be a string, found ${describeValue(copy.apiVersion)}`,
    );
    return undefined;
  }
  const meta = copy.metadata ?? {};
  if (!isMapping(meta)) {
    issues.error(where(['metadata']), `metadata must be a mapping, found ${describeValue(meta)}`);
    return undefined;
  }
  const trace = options.trace;
  const at = formatSource(value.source);
  if (copy.kind === undefined) trace?.(`${at}: kind defaulted to ${expectedKind} (the file name says so)`);
  if (copy.apiVersion === undefined) trace?.(`${at}: apiVersion defaulted to ${expectedApiVersion}`);
  // An object the server names (generateName) is left unnamed: each deploy creates one.
  const generated =
    meta.name === undefined && typeof meta.generateName === 'string' && meta.generateName !== '';
  if (meta.name === undefined && options.defaultName && !generated) {
    meta.name = options.defaultName;
    trace?.(
      `${at}: metadata.name defaulted to ${options.defaultName}${options.defaultNameFrom ? ` (from the ${options.defaultNameFrom})` : ''}`,
    );
  }
  if ((typeof meta.name !== 'string' || meta.name === '') && !generated) {
    issues.error(where(['metadata']), `${type} has no metadata.name`);
    return undefined;
  }
  // Defaults go first, so rendered objects read apiVersion, kind, metadata as kubectl writes them.
  const object: KubeObject = {
    apiVersion: expectedApiVersion,
    kind: expectedKind,
    metadata: meta as KubeObject['metadata'],
    ...copy,
  };
  object.apiVersion = (copy.apiVersion as string | undefined) ?? expectedApiVersion;
  object.kind = expectedKind;
  object.metadata = meta as KubeObject['metadata'];
  const name = generated ? `${meta.generateName}*` : (meta.name as string);
  const label = `${type} ${name} (${formatSource(value.source)})`;

  if (type === 'Pod') {
    const spec = object.spec ?? {};
    if (!isMapping(spec)) {
      issues.error(where(['spec']), `spec must be a mapping, found ${describeValue(spec)}`, label);
      return undefined;
    }
    const pod = new Pod(name, { ...object, spec: withoutContainers(spec) }, value.source, false);
    trace?.(`${at}: ${pod.title()}`);
    addContainers(pod, value, ['spec'], options, label, issues);
    return pod;
  }

  const templatePath = controllerSpec(type).templatePath;
  const template = valueAt(object, templatePath) ?? {};
  if (!isMapping(template)) {
    issues.error(where(templatePath), `${templatePath.join('.')} must be a mapping`, label);
    return undefined;
  }
  const podSpec = template.spec ?? {};
  if (!isMapping(podSpec)) {
    issues.error(where([...templatePath, 'spec']), `${templatePath.join('.')}.spec must be a mapping`, label);
    return undefined;
  }
  const podObject: Mapping = {
    metadata: structuredClone(template.metadata ?? {}),
    spec: withoutContainers(podSpec),
  };
  const pod = new Pod(name, podObject, value.sourceAt(templatePath), true);
  const controller = new Controller(type, object, value.source, pod);
  trace?.(`${at}: ${controller.title()}`);
  addContainers(pod, value, [...templatePath, 'spec'], options, label, issues);
  return controller;
}

function newContainer(
  copy: Mapping,
  value: LocatedValue,
  options: NewEntityOptions,
  issues: IssueList,
): Container | undefined {
  const within = options.within ? ` in ${options.within}` : '';
  const nameOf = typeof copy.name === 'string' ? copy.name : options.defaultName;
  const label = `${options.init ? 'init ' : ''}Container ${nameOf ? `${nameOf} ` : ''}(${formatSource(value.source)})${within}`;
  if (copy.kind !== undefined || copy.apiVersion !== undefined) {
    issues.error(
      value.sourceAt(copy.kind !== undefined ? ['kind'] : ['apiVersion']),
      `a .ctr file holds one core/v1 Container, which has no kind or apiVersion; found ${typeof copy.kind === 'string' ? `a ${copy.kind}` : 'an object'}`,
      label,
    );
    return undefined;
  }
  const at = formatSource(value.source);
  if (copy.name === undefined && options.defaultName) {
    // Name first, as containers are usually written.
    const rest = { ...copy };
    for (const k of Object.keys(copy)) delete copy[k];
    Object.assign(copy, { name: options.defaultName }, rest);
    options.trace?.(
      `${at}: container name defaulted to ${options.defaultName}${options.defaultNameFrom ? ` (from the ${options.defaultNameFrom})` : ''}`,
    );
  }
  if (copy.name === undefined || copy.name === null) {
    issues.error(value.source, 'container has no name', label);
    return undefined;
  }
  if (typeof copy.name !== 'string' || !isDnsLabel(copy.name)) {
    const shown = typeof copy.name === 'string' ? copy.name : describeValue(copy.name);
    issues.error(
      value.sourceAt(['name']),
      `container name ${shown} is not a DNS-1123 label (lowercase letters, digits and '-', at most 63)`,
      label,
    );
    return undefined;
  }
  const image = copy.image;
  const imageSource = value.sourceAt(['image']);
  if (typeof image !== 'string' || image.trim() === '') {
    const anchor = value.anchorAt(['image']);
    if (anchor) {
      issues.error(
        imageSource,
        `image is empty: YAML read &${anchor} as an anchor, not a value; quote it: image: "&${anchor}"`,
        label,
      );
    } else if (image === undefined || image === null || image === '') {
      issues.error(imageSource, 'image is missing', label);
    } else {
      issues.error(imageSource, `image must be a string, found ${describeValue(image)}`, label);
    }
    return undefined;
  }
  if (image === '&') {
    issues.error(imageSource, 'image "&" marks a build but names no image; write e.g. "&web"', label);
    return undefined;
  }
  if (/\s/.test(image)) {
    issues.error(imageSource, `image ${JSON.stringify(image)} holds whitespace`, label);
    return undefined;
  }
  const build = image.startsWith('&') ? buildOf(value, imageSource, options.dir) : undefined;
  const container = new Container(
    copy,
    value.source,
    new Image(image, imageSource, build),
    options.init === true,
  );
  if (options.trace) {
    options.trace(`${at}: ${container.title()}`);
    options.trace(
      `${formatSource(imageSource)}: Image ${image}${build ? ` marked for building from ${build.contextDir === '.' ? 'the root directory' : `${build.contextDir}/`}` : ''}`,
    );
  }
  return container;
}

/**
 * What building a marked image needs: the directory of the file that declares the mark, which is the
 * entity's own, or (a rendered object) the file that set the image, such as an overlay's kustomization.
 */
function buildOf(container: LocatedValue, imageSource: Source, dir: string): Build {
  const declared = container.declaredAt(['image']);
  return { contextDir: declared ? posix.dirname(declared.file) : dir, declaredIn: imageSource };
}

/**
 * Makes Container entities of a pod spec's `initContainers` and `containers` and attaches them to
 * `pod`; init containers are entities too, so their `&` images are built and pinned.
 */
function addContainers(
  pod: Pod,
  value: LocatedValue,
  specPath: readonly string[],
  options: NewEntityOptions,
  within: string,
  issues: IssueList,
): void {
  for (const field of ['initContainers', 'containers'] as const) {
    const list = valueAt(value.value, [...specPath, field]);
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) {
      issues.error(value.sourceAt([...specPath, field]), `${field} must be a sequence`, within);
      continue;
    }
    list.forEach((_, i) => {
      const item = value.at([...specPath, field, i]);
      if (!item) {
        issues.error(value.sourceAt([...specPath, field, i]), `${field}[${i}] is empty`, within);
        return;
      }
      // Containers written inline in a pod spec need their own name (Kubernetes API: name is required).
      const container = newEntity(
        'Container',
        item,
        {
          dir: options.dir,
          within,
          ...(field === 'initContainers' ? { init: true } : {}),
          ...(options.trace ? { trace: options.trace } : {}),
        },
        issues,
      );
      if (container) pod.attach(container);
    });
  }
}

function withoutContainers(spec: Mapping): Mapping {
  const copy = structuredClone(spec);
  delete copy.containers;
  return copy;
}

function valueAt(value: unknown, path: readonly string[]): unknown {
  let at: unknown = value;
  for (const key of path) {
    if (!isMapping(at)) return undefined;
    at = at[key];
  }
  return at;
}

/** The default name of an entity read from `name` (a directory or `NAME.rc.yaml` stem): a DNS-1123 label. */
export function defaultNameOf(name: string): string {
  return toDnsLabel(name);
}
