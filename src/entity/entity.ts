// The seed's deployable entities (Application → controller → Pod → Container → Image): the tree every
// input produces and the object set is made from, each entity with its source and attached objects.
import { type KubeObject, nameOf, type SourcedObject } from '../base/kube-object.js';
import { splitReference } from '../base/reference.js';
import { formatSource, type InputIssue, type Source } from '../base/source.js';
import { type ControllerKind, controllerSpec } from './kinds.js';

/**
 * The entity types of the hierarchy (seed "Deployable Entities"): Application → controller →
 * Pod → Container → Image. Controllers are named by their Kubernetes kind.
 */
export type EntityType = 'Application' | ControllerKind | 'Pod' | 'Container' | 'Image';

/**
 * The kind of input that produced an entity or object (DESIGN "Other inputs"): the spread
 * convention, plain manifests (files the convention does not name), a kustomization, a Helm chart.
 */
export type InputKind = 'convention' | 'manifests' | 'kustomize' | 'helm';

/** A folder an outside tool rendered, for the report: `overlays/prod`, `kustomize`, `kustomize v5.7.1`. */
export interface RenderedFolder {
  /** The folder relative to the input root, POSIX separators, `.` for the root itself. */
  readonly dir: string;
  readonly input: 'kustomize' | 'helm';
  /** Which tool rendered it, as the renderer says: `kustomize v5.7.1`, `helm v3.21.4`. */
  readonly tool: string;
  /** How many objects it gave. */
  readonly objects: number;
}

/**
 * A YAML or JSON file of the input that holds no Kubernetes object (a compose file, CI
 * configuration, a template): nothing of it is deployed, and the reports say so.
 */
export interface NotDeployedFile {
  /** Relative to the input root, POSIX separators. */
  readonly file: string;
  /** Why: `empty`, `no apiVersion or kind`, `a sequence`. */
  readonly reason: string;
}

/** An object attached at an entity's level, with the input that produced it. */
export interface AttachedObject extends SourcedObject {
  /** Absent: the spread convention (`.k2e/`). */
  readonly input?: InputKind;
}

/** A plain JSON mapping as decoded from YAML. */
export type Mapping = Record<string, unknown>;

/**
 * A node of the entity tree. Every entity knows where it was read from, its children and the
 * objects attached at its level (the `.k2e/` objects of its directory). Entities are built only
 * through `newEntity` (new-entity.ts) and `buildApplication` (build.ts), which validate them.
 */
export abstract class Entity {
  abstract readonly type: EntityType;
  /** The entity's name: metadata.name for objects, the container name, the image reference. */
  readonly name: string;
  /** File relative to the input root and line where the entity starts. */
  readonly source: Source;
  /** The entity this one is attached to; undefined for an Application and before attaching. */
  parent: Entity | undefined;
  /** Other objects (Services, Secrets…) attached at this level, in file-name order. */
  readonly objects: AttachedObject[] = [];
  /**
   * The input that produced this entity; the containers and images of a controller or Pod have
   * their owner's. Set by the input that builds it (`buildApplication`).
   */
  input: InputKind = 'convention';

  protected constructor(name: string, source: Source) {
    this.name = name;
    this.source = source;
  }

  /** The entities directly below this one. */
  abstract children(): readonly Entity[];

  /** `Container web`: the entity's type and name. */
  title(): string {
    return `${this.type} ${this.name}`;
  }

  /** `Container web (web.ctr:3)`: the entity and where it is. */
  label(): string {
    return `${this.title()} (${formatSource(this.source)})`;
  }

  /**
   * Names the entity for messages, with the entities it is attached in:
   * `Container web (web.ctr:3) in ReplicationController mattermost (rc.yml:1)`. The Application and
   * pod templates are left out, as users think of a template's containers as the controller's.
   */
  describe(): string {
    const parts = [this.label()];
    for (let p = this.parent; p; p = p.parent) {
      if (p.type === 'Application' || (p instanceof Pod && p.template)) continue;
      parts.push(p.label());
    }
    return parts.join(' in ');
  }

  /** This entity and all entities below it, depth first, in attach order. */
  *walk(): Generator<Entity> {
    yield this;
    for (const child of this.children()) yield* child.walk();
  }
}

/** What building an image marked with `&` needs (seed "Build"): the Docker context and where it was asked for. */
export interface Build {
  /** The Docker build context: the directory of the declaring file, relative to the input root (`.` for the root). */
  readonly contextDir: string;
  /** The file and line of the `image: "&…"` that asked for the build. */
  readonly declaredIn: Source;
}

/**
 * A container's image (seed "Image"). `raw` is the `image` field as written; an image marked for
 * building starts with `&` (spread convention) and carries {@link build}. The reference is split
 * only by Docker's reference grammar at the top level (registry host, repository, tag, digest) without
 * normalising (no `docker.io/library/` added); the image stage owns full parsing and pinning.
 */
export class Image extends Entity {
  readonly type = 'Image' as const;
  /** The `image` field as written, `&` included. */
  readonly raw: string;
  /** The reference without the build mark: `registry/name:tag@digest` as written. */
  readonly reference: string;
  /** The registry host when the first path component names one (has `.` or `:`, or is `localhost`). */
  readonly registry: string | undefined;
  /** The repository path without registry, tag and digest, e.g. `mattermost/mattermost-team-edition`. */
  readonly repository: string;
  readonly tag: string | undefined;
  /** `algorithm:hex` after `@`. */
  readonly digest: string | undefined;
  /** Set when the image is built from source (`&` mark). */
  readonly build: Build | undefined;

  constructor(raw: string, source: Source, build: Build | undefined) {
    super(raw, source);
    this.raw = raw;
    this.build = build;
    this.reference = raw.startsWith('&') ? raw.slice(1) : raw;
    const parts = splitReference(this.reference);
    this.digest = parts.digest;
    this.tag = parts.tag;
    this.registry = parts.domain;
    this.repository = parts.path;
  }

  children(): readonly Entity[] {
    return [];
  }
}

/**
 * A core/v1 Container: from a `.ctr` file or a pod spec's `containers`, or (with {@link init}) an
 * init container from a pod spec's `initContainers`, so that its `&` image is built and pinned too.
 */
export class Container extends Entity {
  readonly type = 'Container' as const;
  /** The container as authored (a deep copy), name defaulted; `image` as written. */
  readonly object: Mapping;
  readonly image: Image;
  /** True for an init container (`spec.initContainers`), which runs to completion before the others. */
  readonly init: boolean;

  constructor(object: Mapping, source: Source, image: Image, init = false) {
    super(String(object.name), source);
    this.object = object;
    this.image = image;
    this.init = init;
    image.parent = this;
  }

  /** `Container web`; `init Container migrate` for an init container. */
  override title(): string {
    return this.init ? `init ${super.title()}` : super.title();
  }

  children(): readonly Entity[] {
    return [this.image];
  }

  /** A copy of the container object, as it goes into a pod spec. */
  toObject(): Mapping {
    return structuredClone(this.object);
  }
}

/**
 * A Pod: either a Pod object of its own (`pod.yaml` with no controller, a Pod in a manifest) or
 * a controller's pod template. Its containers are entities; the rest of the spec is kept as written.
 */
export class Pod extends Entity {
  readonly type = 'Pod' as const;
  /**
   * The Pod object (for a template: `{metadata, spec}`) without `spec.containers`; its
   * `spec.initContainers`, when written, only keeps its place: {@link spec} fills it from
   * {@link initContainers}.
   */
  readonly object: Mapping;
  readonly containers: Container[] = [];
  /** The init containers (`spec.initContainers`), in order. */
  readonly initContainers: Container[] = [];
  /** True when the pod is a controller's template rather than an object of its own. */
  template: boolean;

  constructor(name: string, object: Mapping, source: Source, template: boolean) {
    super(name, source);
    this.object = object;
    this.template = template;
  }

  /** The init containers, then the containers. */
  children(): readonly Entity[] {
    return this.initContainers.length > 0 ? [...this.initContainers, ...this.containers] : this.containers;
  }

  /** Attaches a container at the end of `spec.containers`, or of `spec.initContainers` for an init container. */
  attach(container: Container): void {
    container.parent = this;
    (container.init ? this.initContainers : this.containers).push(container);
  }

  /** The pod's labels (metadata.labels), if any. */
  get labels(): Record<string, string> | undefined {
    const meta = this.object.metadata as Mapping | undefined;
    return meta?.labels as Record<string, string> | undefined;
  }

  /** The pod spec with its containers and init containers (the latter where they were written). */
  spec(): Mapping {
    const spec = structuredClone((this.object.spec as Mapping | undefined) ?? {});
    if (this.initContainers.length > 0) spec.initContainers = this.initContainers.map((c) => c.toObject());
    return { ...spec, containers: this.containers.map((c) => c.toObject()) };
  }

  /** The PodTemplateSpec for a controller: labels and annotations kept, name and namespace dropped. */
  toTemplate(): Mapping {
    const meta = (this.object.metadata as Mapping | undefined) ?? {};
    const templateMeta: Mapping = {};
    for (const [k, v] of Object.entries(meta)) {
      if (k !== 'name' && k !== 'namespace' && k !== 'generateName') templateMeta[k] = structuredClone(v);
    }
    // An empty metadata is left out rather than rendered as `metadata: {}`.
    return Object.keys(templateMeta).length > 0
      ? { metadata: templateMeta, spec: this.spec() }
      : { spec: this.spec() };
  }

  /** The Pod object with its containers. */
  toObject(): KubeObject {
    const copy = structuredClone(this.object) as KubeObject;
    copy.spec = this.spec();
    return copy;
  }
}

/** A workload controller (seed "Replication Controller", extended to the modern kinds). */
export class Controller extends Entity {
  readonly type: ControllerKind;
  /**
   * The controller object as authored, defaults applied. Its pod template as written is kept only for
   * key order: {@link toObject} replaces it with {@link pod}'s.
   */
  readonly object: KubeObject;
  /** The pod template; its containers are this controller's containers. */
  pod: Pod;

  constructor(kind: ControllerKind, object: KubeObject, source: Source, pod: Pod) {
    super(nameOf(object), source);
    this.type = kind;
    this.object = object;
    this.pod = pod;
    pod.parent = this;
    pod.template = true;
  }

  children(): readonly Entity[] {
    return [this.pod];
  }

  /** Replaces the pod template (a `pod.yaml` beside the controller becomes its template). */
  setTemplate(pod: Pod): void {
    this.pod.parent = undefined;
    this.pod = pod;
    pod.parent = this;
    pod.template = true;
  }

  /** The controller object with its pod template filled in from {@link pod}. */
  toObject(): KubeObject {
    const copy = structuredClone(this.object);
    const path = controllerSpec(this.type).templatePath;
    let at: Mapping = copy;
    for (const key of path.slice(0, -1)) {
      const next = at[key];
      at[key] = typeof next === 'object' && next !== null ? next : {};
      at = at[key] as Mapping;
    }
    at[path[path.length - 1] as string] = this.pod.toTemplate();
    return copy;
  }
}

/**
 * The root of the tree (seed "Application", like a docker-compose file): the entities that deploy
 * together and the objects attached at the top.
 */
export class Application extends Entity {
  readonly type = 'Application' as const;
  /** Controllers and Pods, in directory then file-name order. */
  readonly entities: (Controller | Pod)[] = [];
  /** Warnings found while reading the input (errors are thrown instead). */
  readonly warnings: InputIssue[] = [];
  /** The folders rendered by kustomize or Helm, in walk order. */
  readonly rendered: RenderedFolder[] = [];
  /** The YAML and JSON files that hold no Kubernetes object, in walk order. */
  readonly notDeployed: NotDeployedFile[] = [];

  constructor(name: string, source: Source) {
    super(name, source);
  }

  children(): readonly Entity[] {
    return this.entities;
  }

  /** Attaches a controller or Pod. */
  attach(entity: Controller | Pod): void {
    entity.parent = this;
    this.entities.push(entity);
  }

  /**
   * The files of plain manifests it was read from (relative to the input root), sorted: the image
   * stage leaves them out of build contexts, as it leaves out the convention's own files.
   */
  manifestFiles(): string[] {
    const files = new Set<string>();
    for (const e of this.walk()) {
      if (e.input === 'manifests' && (e instanceof Controller || (e instanceof Pod && !e.template)))
        files.add(e.source.file);
      for (const o of e.objects) if (o.input === 'manifests') files.add(o.source.file);
    }
    return [...files].sort();
  }

  /** Every image of the application, those marked for building included, in entity order. */
  images(): Image[] {
    return [...this.walk()].filter((e): e is Image => e instanceof Image);
  }
}
