// The input of a directory by the spread convention (controllers, pods, `.ctr` containers, the objects
// folder), which also hands plain manifests and kustomize or Helm folders to their readers; the same
// directory gives the same Application wherever it is.
import type { Dirent } from 'node:fs';
import { readdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { InputError, type InputIssue, IssueList, type Trace } from '../base/source.js';
import type { DecodedValue } from '../decode/decode.js';
import { checkStringFields } from '../decode/traps.js';
import {
  buildApplication,
  type ContainerFile,
  type DirectoryContent,
  type EntityFile,
  type ObjectValue,
} from '../entity/build.js';
import type { Application, NotDeployedFile } from '../entity/entity.js';
import { CONTROLLERS, type ControllerKind, controllerOfStem } from '../entity/kinds.js';
import { PROJECT_FILE } from '../project/file.js';
import { byName, CONFIG_FILE, child, isBrokenLink, isFile, readDecoded, statOrUndefined } from './files.js';
import type { Input } from './input.js';
import { readObjectDir } from './objects-dir.js';
import { readPlainFile } from './plain.js';
import type { Renderers } from './render.js';
import { folderKind, foldersToRender, type PendingRender, renderFolders } from './rendered.js';

/**
 * Names of the objects folder, newest first: `.k2e/`, and the older `.kube/` and `rs/` (spread
 * convention). Its files are read in file-name order, not recursively.
 */
export const OBJECT_DIRS: readonly string[] = ['.k2e', '.kube', 'rs'];

const STEMS = [...CONTROLLERS.map((c) => c.stem), 'pod'].join('|');
/** `rc.yaml`, `pod.json`: the classic layout, one of each per directory. */
const CLASSIC = new RegExp(`^(${STEMS})\\.(ya?ml|json)$`);
/** `web.rc.yaml`, `db.pod.yml`: the later layout, several per directory. */
const NAMED = new RegExp(`^(.+)\\.(${STEMS})\\.(ya?ml|json)$`);

/** Options of a DirectoryInput. */
export interface DirectoryInputOptions {
  /**
   * The Application's name; default the root directory's base name. Pass it to get identical
   * results for copies of a directory under different names.
   */
  readonly name?: string;
  /**
   * Traces how the directory is read (which file is taken for what, what is skipped) and, through
   * the entity stage, how entities are built and defaulted. See {@link Trace}.
   */
  readonly trace?: Trace;
  /**
   * A directory that holds no configuration at all is an Application without entities instead of
   * an error (a deploy's `--allow-empty`, which then prunes every object of the deployment).
   */
  readonly allowEmpty?: boolean;
  /**
   * The renderers of folders holding `kustomization.yaml` (`.yml`, `Kustomization`) or `Chart.yaml`;
   * a folder of a kind with no renderer is an error at that folder.
   */
  readonly renderers?: Renderers;
}

/**
 * Reads a directory by the spread directory convention (DESIGN.md "The directory convention"):
 * controller files (`rc.*`, `deployment.*`, `statefulset.*`, `daemonset.*`, `job.*`, `cronjob.*`,
 * at most one per directory), `pod.*` (at most one), `*.ctr` containers, the objects folder
 * (`.k2e/`, `.kube/`, `rs/`), the later `NAME.rc.yaml`/`NAME.pod.yaml` layout, and subdirectories
 * recursively (hidden folders and files, and `node_modules`, skipped). Other `.yaml`/`.yml`/`.json`
 * files are plain manifests (src/input/plain.ts: deployed when they hold only Kubernetes objects,
 * listed in `Application.notDeployed` when they hold none), and a folder holding
 * `kustomization.yaml` or `Chart.yaml` goes whole to its renderer (src/input/rendered.ts, run after
 * the walk). Sources are relative to the root with POSIX separators and everything is read in sorted
 * order, so identical directories give identical Applications wherever they are.
 *
 * @throws InputError listing every problem (unreadable or non-UTF-8 files, YAML errors, convention
 *   violations, invalid entities, YAML traps), and when the directory holds no configuration at all.
 */
export class DirectoryInput implements Input {
  readonly root: string;
  private readonly options: DirectoryInputOptions;

  constructor(root: string, options: DirectoryInputOptions = {}) {
    this.root = root;
    this.options = options;
  }

  async entity(): Promise<Application> {
    const { application, issues } = await this.read();
    if (issues.some((i) => i.severity === 'error')) throw new InputError(issues);
    return application;
  }

  /**
   * {@link entity} without the throw: the Application of every file that could be read, and every
   * issue of the input (errors and warnings; its warnings are in `Application.warnings` too). A
   * reader that goes on to the deployment stage can then check the objects of the files that parse
   * beside the errors of those that do not, and report them all at once (docs/phases.md, "Waves").
   */
  async read(): Promise<DirectoryRead> {
    const issues = new IssueList();
    const root = resolve(this.root);
    const info = statOrUndefined(root);
    const name = this.options.name ?? basename(root);
    if (!info?.isDirectory()) {
      issues.error({ file: '.', line: 0 }, `${this.root} is not a directory`);
      return { application: buildApplication(name, [], issues), issues: issues.issues };
    }
    const walked: (DirectoryContent | PendingRender)[] = [];
    const trace = this.options.trace;
    // Synchronous reads on purpose: a directory of thousands of small files reads several times
    // faster without a thread-pool round trip per file (bench/RESULTS.md, "Input"), and nothing
    // else runs while the input is read. Rendering runs child processes: after the walk, together.
    readDirectory(root, '.', basename(root), walked, issues, trace);
    const pending = foldersToRender(walked.filter(isPending), trace);
    const rendered = await renderFolders(pending, this.options.renderers, issues, trace);
    // Each rendered folder takes its place in walk order; one rendered through an overlay has none.
    const dirs = walked.flatMap((w) => {
      if (!isPending(w)) return [w];
      const i = pending.indexOf(w);
      return i < 0 ? [] : [rendered[i] as DirectoryContent];
    });
    // A kustomization or chart that renders nothing is no configuration either: deploying it would
    // prune everything (kubectl apply -k fails on it too: "no objects passed to apply").
    const found = dirs.some((d) => d.entities.length + d.containers.length + d.objects.length > 0);
    if (!found && !issues.hasErrors && !this.options.allowEmpty) {
      const none = [
        ...dirs.flatMap((d) => d.notDeployed ?? []).map((f) => f.file),
        ...pending.map((p) => `${p.request.dir}/ (rendered by ${p.request.kind})`),
      ];
      issues.error(
        { file: '.', line: 0 },
        `no Kubernetes configuration in ${this.root}: expected plain manifests (YAML or JSON files of Kubernetes objects), a kustomization.yaml, a Helm chart (Chart.yaml), or the spread convention (a controller such as rc.yaml or deployment.yaml, pod.yaml, *.ctr, .k2e/)${none.length > 0 ? `; ${none.join(', ')} hold${none.length === 1 ? 's' : ''} no Kubernetes object` : ''}. To deploy nothing and prune what this deployment deployed before, give --allow-empty`,
      );
    }
    const app = buildApplication(name, dirs, issues, trace ? { trace } : {});
    app.warnings.push(...issues.warnings);
    return { application: app, issues: issues.issues };
  }
}

/** What {@link DirectoryInput.read} gives: the Application, partial when `issues` holds errors. */
export interface DirectoryRead {
  readonly application: Application;
  readonly issues: readonly InputIssue[];
}

function isPending(w: DirectoryContent | PendingRender): w is PendingRender {
  return 'request' in w;
}

/** File names that hold configuration by the convention (checked for broken links). */
const LOOKS_LIKE_CONFIG = /\.(ya?ml|json|ctr)$/;

// over 80 lines because it is one pass over a directory's entries by the convention.
function readDirectory(
  abs: string,
  rel: string,
  name: string,
  out: (DirectoryContent | PendingRender)[],
  issues: IssueList,
  trace: Trace | undefined,
  root = abs,
): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(abs, { withFileTypes: true }).sort(byName);
  } catch (e) {
    issues.error({ file: rel, line: 0 }, `cannot read directory: ${(e as Error).message}`);
    return;
  }
  const folder = folderKind(entries, (e) => isFile(join(abs, e.name), e));
  if (folder.kind === 'conflict') {
    issues.error(
      { file: rel, line: 0 },
      `holds both ${folder.markers.join(' and ')}: a folder is either a kustomization or a Helm chart; move one into a folder of its own`,
    );
    return;
  }
  if (folder.kind !== 'plain') {
    // A chart's templates/ are Go templates and a kustomization's files are its tool's to read:
    // the folder and everything below it go to the renderer.
    trace?.(
      `${rel}/: a ${folder.kind === 'helm' ? 'Helm chart' : 'kustomization'} (${folder.marker}), rendered by ${folder.kind}; its files and subfolders are not read by the convention`,
    );
    out.push({ request: { kind: folder.kind, abs, dir: rel, root }, marker: folder.marker, name });
    return;
  }
  const classic: { file: string; kind: ControllerKind | 'Pod' }[] = [];
  const named: { file: string; kind: ControllerKind | 'Pod'; stem: string }[] = [];
  const ctrs: string[] = [];
  const plainFiles: string[] = [];
  const objectDirs: string[] = [];
  const subdirs: string[] = [];
  for (const entry of entries) {
    const entryAbs = join(abs, entry.name);
    if (entry.isDirectory()) {
      if (OBJECT_DIRS.includes(entry.name)) objectDirs.push(entry.name);
      else if (!entry.name.startsWith('.') && entry.name !== 'node_modules') subdirs.push(entry.name);
      else
        trace?.(
          `${child(rel, entry.name)}/: skipped (${entry.name === 'node_modules' ? 'node_modules' : 'hidden folder'})`,
        );
      continue;
    }
    if (isBrokenLink(entryAbs, entry) && LOOKS_LIKE_CONFIG.test(entry.name)) {
      issues.error(
        { file: child(rel, entry.name), line: 0 },
        'is a symbolic link whose target does not exist',
      );
      continue;
    }
    if (!isFile(entryAbs, entry)) continue;
    const c = CLASSIC.exec(entry.name);
    if (c) {
      const kind = kindOfStem(c[1] as string);
      trace?.(`${child(rel, entry.name)}: a ${kind} file (${c[1]}.* layout)`);
      classic.push({ file: entry.name, kind });
      continue;
    }
    const n = NAMED.exec(entry.name);
    if (n) {
      const kind = kindOfStem(n[2] as string);
      trace?.(`${child(rel, entry.name)}: a ${kind} file named ${n[1]} (NAME.${n[2]}.* layout)`);
      named.push({ file: entry.name, kind, stem: n[1] as string });
      continue;
    }
    const file = child(rel, entry.name);
    if (entry.name.endsWith('.ctr') && entry.name.length > '.ctr'.length) {
      trace?.(`${file}: a container file`);
      ctrs.push(entry.name);
    } else if (entry.name.startsWith('.'))
      // Tools' own configuration (.gitlab-ci.yml, .pre-commit-config.yaml), skipped as hidden folders are.
      trace?.(`${file}: skipped (hidden file)`);
    else if (rel === '.' && entry.name === PROJECT_FILE)
      // The project file says how to deploy (src/project/), read by the front ends, not an object file.
      trace?.(`${file}: the project file (environments, health and drift rules)`);
    else if (CONFIG_FILE.test(entry.name)) plainFiles.push(entry.name);
    else if (CONFIG_FILE.test(entry.name.toLowerCase()))
      issues.warning(
        { file, line: 0 },
        'is not read: only files ending in lowercase .yaml, .yml or .json are',
      );
    else trace?.(`${file}: ignored (not a file of the convention)`);
  }

  const entityFiles: { file: string; kind: ControllerKind | 'Pod'; stem: string }[] = [];
  const classicControllers = classic.filter((f) => f.kind !== 'Pod');
  const classicPods = classic.filter((f) => f.kind === 'Pod');
  if (classicControllers.length > 1) {
    issues.error(
      { file: child(rel, classicControllers[1]?.file ?? ''), line: 0 },
      `a directory holds at most one controller, found ${classicControllers.map((f) => child(rel, f.file)).join(' and ')}; use NAME.rc.yaml names or subdirectories for several`,
    );
  } else if (classicControllers[0]) entityFiles.push({ ...classicControllers[0], stem: '' });
  if (classicPods.length > 1) {
    issues.error(
      { file: child(rel, classicPods[1]?.file ?? ''), line: 0 },
      `a directory holds at most one pod file, found ${classicPods.map((f) => child(rel, f.file)).join(' and ')}`,
    );
  } else if (classicPods[0]) entityFiles.push({ ...classicPods[0], stem: '' });
  const seen = new Map<string, string>();
  for (const f of named) {
    const key = `${f.kind === 'Pod' ? 'pod' : 'controller'}:${f.stem}`;
    const first = seen.get(key);
    if (first) {
      issues.error(
        { file: child(rel, f.file), line: 0 },
        `${child(rel, first)} and ${child(rel, f.file)} both define the ${f.kind === 'Pod' ? 'pod' : 'controller'} ${f.stem}`,
      );
      continue;
    }
    seen.set(key, f.file);
    entityFiles.push(f);
  }

  const entities: EntityFile[] = [];
  const containers: ContainerFile[] = [];
  const objects: ObjectValue[] = [];
  const read = (file: string) => readDecoded(join(abs, file), child(rel, file), issues);
  const entityValues = entityFiles.map((f) => read(f.file));
  const ctrValues = ctrs.map((f) => read(f));
  entityFiles.forEach((f, i) => {
    const value = single(entityValues[i] ?? [], child(rel, f.file), issues);
    if (!value) return;
    checkStringFields(value, 'object', issues, f.kind);
    // The lines only: the file's YAML document can be collected now, not after the whole tree is read.
    entities.push({ kind: f.kind, value: value.compact(), stem: f.stem });
  });
  ctrs.forEach((file, i) => {
    const value = single(ctrValues[i] ?? [], child(rel, file), issues);
    if (!value) return;
    checkStringFields(value, 'container', issues);
    containers.push({ value: value.compact(), stem: file.slice(0, -'.ctr'.length) });
  });

  for (const objectDir of objectDirs) readObjectDir(abs, rel, objectDir, objects, issues, trace);
  const notDeployed: NotDeployedFile[] = [];
  for (const f of plainFiles) {
    const file = child(rel, f);
    const plain = readPlainFile(join(abs, f), file, issues);
    if (!plain) continue;
    if ('notDeployed' in plain) {
      trace?.(
        `${file}: not deployed: not a file of the convention and no Kubernetes object (${plain.notDeployed.reason})`,
      );
      notDeployed.push(plain.notDeployed);
      continue;
    }
    const n = plain.entities.length + plain.objects.length;
    trace?.(`${file}: plain manifests, ${n} object${n === 1 ? '' : 's'}`);
    entities.push(...plain.entities);
    for (const o of plain.objects) objects.push({ ...o, input: 'manifests' });
  }

  out.push({
    dir: rel,
    name,
    entities,
    containers,
    objects,
    ...(notDeployed.length > 0 ? { notDeployed } : {}),
  });
  for (const sub of subdirs) readDirectory(join(abs, sub), child(rel, sub), sub, out, issues, trace, root);
}

function kindOfStem(stem: string): ControllerKind | 'Pod' {
  return stem === 'pod' ? 'Pod' : (controllerOfStem(stem) as ControllerKind);
}

/** A controller, pod or container file holds exactly one document. */
function single(values: readonly DecodedValue[], file: string, issues: IssueList): DecodedValue | undefined {
  if (issues.issues.some((i) => i.source.file === file && i.severity === 'error')) return undefined;
  if (values.length === 0) {
    issues.error({ file, line: 0 }, `${file} is empty`);
    return undefined;
  }
  if (values.length > 1) {
    issues.error(
      values[1]?.source ?? { file, line: 0 },
      `${file} holds ${values.length} documents; it must hold exactly one (put the other objects in a file of their own beside it, e.g. service.yaml, or in .k2e/)`,
    );
    return undefined;
  }
  return values[0];
}

/** Re-exported so callers of the input (and renderers) need not know the entity module. */
export type { DirectoryContent, ObjectValue };
