// The kustomize renderer (DESIGN "Other inputs"): a folder holding kustomization.yaml is built by the
// user's own kustomize (or `kubectl kustomize`), through a wrapper kustomization that asks for origin
// annotations without editing the user's file, and every object comes back with the base or overlay
// file and line it was written in.
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { IssueList, type Source } from '../base/source.js';
import { type DecodedValue, decodeBytes, decodeText, flattenLists, isMapping } from '../decode/decode.js';
import { SourcedValue } from '../decode/sourced-value.js';
import type { ObjectValue } from '../entity/build.js';
import { errorSource, kustomizationFile, kustomizeError, redactLiterals } from './kustomize-errors.js';
import { declaredMarks, markInKustomizations } from './kustomize-marks.js';
import {
  type BuildPaths,
  cutTransformations,
  generatorLine,
  type KeptMetadata,
  type Origin,
  objectDocument,
  rootRelative,
  takeOrigin,
  transformationsIn,
  transformationsOf,
} from './kustomize-origin.js';
import { annotationSources, type PatchedObject, patchSources } from './kustomize-patches.js';
import {
  findTool,
  type KustomizeOptions,
  likelyTool,
  type Run,
  run,
  type Tool,
  ToolMissing,
} from './kustomize-tool.js';
import type { Renderer, RenderRequest, RenderResult } from './render.js';

export type { KustomizeOptions } from './kustomize-tool.js';

/**
 * Makes the renderer of kustomizations. The binary and its version are found once, on the first
 * folder: `kustomize version`, or `kubectl version --client` for `kubectl kustomize`.
 *
 * Each folder is built as `kustomize build WRAPPER` where WRAPPER is a temporary kustomization
 * holding `resources: [<the folder>]` and `buildMetadata: [originAnnotations, transformerAnnotations]`
 * (which kustomization's patches ran over each object, see kustomize-patches.ts) plus the folder's own
 * `buildMetadata` and `sortOptions`. The user's file is never edited, and kustomize builds the folder
 * as `kustomize build FOLDER` would: a folder listed under `resources` gets its own loader with the
 * default load restrictor (LoadRestrictionsRootOnly, which `kubectl apply -k` uses too), so no
 * `--load-restrictor` is passed; the wrapper names no file of its own; the only settings kustomize
 * takes from the top kustomization rather than the folder's (`buildMetadata`, which it also hands
 * down to every base, and `sortOptions`) are copied from the folder's. The folder's kustomize errors
 * are issues at its kustomization file (or at the patch file they name), with kustomize's text.
 */
export function kustomizeRenderer(options: KustomizeOptions = {}): Renderer {
  let tool: Promise<Tool> | undefined;
  return async (request) => {
    // The first build runs beside the version question, with the command the setting names (or
    // `kustomize`), instead of after it: one tool start fewer in series (bench/RESULTS.md, Renderers).
    const guess = tool === undefined ? likelyTool(options) : undefined;
    tool ??= findTool(options);
    const started = start(request, options, guess);
    let found: Tool;
    try {
      found = await tool;
    } catch (e) {
      await started.end();
      if (!(e instanceof ToolMissing)) throw e;
      const kustomization = kustomizationFile(request.abs) ?? 'kustomization.yaml';
      return {
        objects: [],
        issues: [
          {
            source: {
              file: rootRelative({ wrapper: '', folder: request.abs, dir: request.dir }, kustomization),
              line: 0,
            },
            message: e.message,
            severity: 'error',
          },
        ],
        tool: 'kustomize',
      };
    }
    return finish(found, started, options);
  };
}

/** The folder's own kustomization settings that kustomize reads only from the top one, to copy into the wrapper. */
function topLevelSettings(
  folder: string,
  file: string | undefined,
): { buildMetadata: string[]; sortOptions?: unknown; component?: boolean } {
  if (!file) return { buildMetadata: [] };
  let value: unknown;
  try {
    value = decodeBytes(file, readFileSync(path.join(folder, file))).values[0]?.value;
  } catch {
    // Unreadable: kustomize says so when it reads it.
  }
  if (!isMapping(value)) return { buildMetadata: [] };
  const metadata = Array.isArray(value.buildMetadata)
    ? value.buildMetadata.filter((m): m is string => typeof m === 'string')
    : [];
  return {
    buildMetadata: metadata,
    ...(value.sortOptions !== undefined ? { sortOptions: value.sortOptions } : {}),
    ...(value.kind === 'Component' ? { component: true } : {}),
  };
}

/** One folder's build under way: its wrapper kustomization, and a run started before the tool was known. */
interface Started {
  readonly request: RenderRequest;
  readonly folder: string;
  readonly file: string | undefined;
  readonly own: ReturnType<typeof topLevelSettings>;
  /** The wrapper's folder; none for a Component, which is not built. */
  readonly wrapper?: string;
  /** The run with the likely tool, and that tool. */
  readonly early?: { readonly tool: Pick<Tool, 'command' | 'build'>; readonly said: Promise<Run> };
  /** Waits for the early run and removes the wrapper. */
  end(): Promise<void>;
}

/**
 * Writes the wrapper kustomization of one folder in a temporary folder and, given the likely tool,
 * starts kustomize on it. {@link Started.end} removes the wrapper once kustomize is done with it.
 */
function start(
  request: RenderRequest,
  options: KustomizeOptions,
  guess: Pick<Tool, 'command' | 'build'> | undefined,
): Started {
  const folder = realpathSync(request.abs);
  const file = kustomizationFile(folder);
  const own = topLevelSettings(folder, file);
  // A Component builds to nothing on its own (`kustomize build` prints nothing, where a wrapper
  // listing it would fail): it is deployed only through a kustomization that lists it.
  if (own.component) return { request, folder, file, own, end: async () => {} };
  const wrapper = realpathSync(mkdtempSync(path.join(tmpdir(), 'spread-kustomize-')));
  const relative = path.relative(wrapper, folder).split(path.sep).join('/');
  const wrapperFile = {
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    resources: [relative],
    buildMetadata: [...new Set([...own.buildMetadata, 'originAnnotations', 'transformerAnnotations'])],
    ...(own.sortOptions !== undefined ? { sortOptions: own.sortOptions } : {}),
  };
  writeFileSync(path.join(wrapper, 'kustomization.yaml'), `${JSON.stringify(wrapperFile, null, 2)}\n`);
  const said = guess ? run(guess.command, buildArgs(guess, wrapper, options), options) : undefined;
  said?.catch(() => {});
  return {
    request,
    folder,
    file,
    own,
    wrapper,
    ...(guess && said ? { early: { tool: guess, said } } : {}),
    end: async () => {
      await said?.catch(() => {});
      rmSync(wrapper, { recursive: true, force: true });
    },
  };
}

function buildArgs(tool: Pick<Tool, 'build'>, wrapper: string, options: KustomizeOptions): string[] {
  const args = [...tool.build, wrapper];
  if (options.enableHelm) args.push('--enable-helm');
  if (options.enableHelm && options.helmCommand) args.push('--helm-command', options.helmCommand);
  return args;
}

/** Builds one folder through its wrapper kustomization (the early run when it used this tool), then removes it. */
async function finish(tool: Tool, started: Started, options: KustomizeOptions): Promise<RenderResult> {
  const { request, folder, file, own, wrapper, early } = started;
  if (wrapper === undefined) {
    const at = {
      file: rootRelative({ wrapper: '', folder, dir: request.dir }, file ?? 'kustomization.yaml'),
      line: 0,
    };
    const message =
      'a kustomize Component holds no objects of its own: it is deployed through the kustomizations that list it under components:, and none here does';
    return { objects: [], issues: [{ source: at, message, severity: 'warning' }], tool: tool.name };
  }
  try {
    const same =
      early !== undefined &&
      early.tool.command === tool.command &&
      early.tool.build.join(' ') === tool.build.join(' ');
    const said = same
      ? await early.said
      : await run(tool.command, buildArgs(tool, wrapper, options), options);
    const paths: BuildPaths = { wrapper, folder, dir: request.dir };
    const kept: KeptMetadata = {
      originAnnotations: own.buildMetadata.includes('originAnnotations'),
      transformerAnnotations: own.buildMetadata.includes('transformerAnnotations'),
    };
    return said.code === 0
      ? rendered(said, paths, kept, file, tool)
      : failed(said, request, paths, file, tool);
  } finally {
    await started.end();
  }
}

/** kustomize's output, each object with its source; kustomize's stderr, if any, a warning at the folder. */
function rendered(
  said: Run,
  paths: BuildPaths,
  kept: KeptMetadata,
  file: string | undefined,
  tool: Tool,
): RenderResult {
  const issues = new IssueList();
  const here: Source = { file: rootRelative(paths, file ?? 'kustomization.yaml'), line: 0 };
  // The transformations annotation spread asked for is cut out before decoding (most of the output).
  const cut = kept.transformerAnnotations ? undefined : cutTransformations(said.stdout.toString('utf8'));
  const decoded = cut
    ? decodeText(`${here.file} (${tool.name} output)`, cut.text)
    : decodeBytes(`${here.file} (${tool.name} output)`, said.stdout);
  issues.add(decoded.issues);
  const values = flattenLists(decoded.values, issues);
  const files = new FileLines(paths);
  const objects: ObjectValue[] = [];
  const inKustomizations = (mark: string) =>
    markInKustomizations(
      mark,
      (p) => files.decoded(p),
      (dir) => files.kustomization(dir),
    );
  for (const v of values) {
    const object = v.value as Record<string, unknown>;
    const transformations = cut
      ? transformationsIn(cut.byLine.get(v.source.line), paths)
      : transformationsOf(object, paths);
    const origin = takeOrigin(object, paths, kept);
    let { source, own } = sourceOf(origin, object, paths, files, here);
    const target = patched(object, own);
    const patches = patchSources(target, transformations, files);
    if (patches.length > 0) source = { ...source, patches };
    const annotations = annotationSources(target, own, transformations, files, here);
    if (Object.keys(annotations).length > 0) source = { ...source, annotations };
    // Each object answers for the lines of its marks, which the image stage builds and names.
    objects.push(new SourcedValue(object, source, declaredMarks(object, own, inKustomizations)));
  }
  const stderr = said.stderr.trim();
  if (stderr) issues.warning(here, `${tool.name}: ${redactLiterals(stderr)}`);
  return { objects, issues: issues.issues, tool: tool.name };
}

/** The object as a patch matches it: its kind and its names as written in its base and as rendered. */
function patched(object: Record<string, unknown>, own: DecodedValue | undefined): PatchedObject {
  const nameOf = (v: unknown) =>
    isMapping(v) && isMapping(v.metadata) && typeof v.metadata.name === 'string'
      ? v.metadata.name
      : undefined;
  const metadata = isMapping(object.metadata) ? object.metadata : {};
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    names: [nameOf(own?.value), nameOf(object)].filter((n): n is string => n !== undefined),
    namespace: metadata.namespace,
    ...(isMapping(metadata.labels) ? { labels: metadata.labels } : {}),
    ...(isMapping(metadata.annotations) ? { annotations: metadata.annotations } : {}),
  };
}

/**
 * The source of one rendered object (its file and line, else the generator's entry, else the
 * folder's kustomization), and the document it was read from when there is one.
 */
function sourceOf(
  origin: Origin | undefined,
  object: Record<string, unknown>,
  paths: BuildPaths,
  files: FileLines,
  here: Source,
): { source: Source; own?: DecodedValue | undefined } {
  // A remote base's files are not on this machine: the folder's kustomization lists it.
  if (!origin || origin.repo) return { source: here };
  const metadata = isMapping(object.metadata) ? object.metadata : {};
  if (origin.path) {
    const own = objectDocument(files.documents(origin.path), object.kind, metadata.name);
    return { source: { file: rootRelative(paths, origin.path), line: own?.source.line ?? 0 }, own };
  }
  if (origin.configuredIn) {
    const kustomization = files.documents(origin.configuredIn)[0];
    const line = kustomization ? generatorLine(kustomization, origin.configuredBy?.kind, metadata.name) : 0;
    return { source: { file: rootRelative(paths, origin.configuredIn), line } };
  }
  return { source: here };
}

/** The decoded documents of the files objects came from, each read once per folder. */
class FileLines {
  private readonly cache = new Map<string, DecodedValue[]>();
  constructor(private readonly paths: BuildPaths) {}

  /**
   * The documents of a file (a path relative to the folder), Lists flattened, their sources relative
   * to the input root; none when it cannot be read.
   */
  documents(relative: string): DecodedValue[] {
    let documents = this.cache.get(relative);
    if (!documents) {
      try {
        const bytes = readFileSync(path.resolve(this.paths.folder, relative));
        const decoded = decodeBytes(rootRelative(this.paths, relative), bytes);
        documents = flattenLists(decoded.values, new IssueList());
      } catch {
        documents = [];
      }
      this.cache.set(relative, documents);
    }
    return documents;
  }

  /** {@link documents} for the marks' search: undefined when the file cannot be read. */
  decoded(relative: string): { file: string; documents: DecodedValue[] } | undefined {
    const documents = this.documents(relative);
    return documents.length > 0 ? { file: rootRelative(this.paths, relative), documents } : undefined;
  }

  /** The kustomization file of a folder (relative to the rendered folder), relative to it too. */
  kustomization(dir: string): string | undefined {
    const name = kustomizationFile(path.resolve(this.paths.folder, dir));
    return name === undefined ? undefined : dir === '.' ? name : `${dir}/${name}`;
  }
}

/**
 * A failed build: kustomize's error as it printed it for `kustomize build FOLDER` (the wrapper's own
 * part of the message left out), at the file it names: the patch or resource file of the innermost
 * kustomization it was reading, else that kustomization, else the folder's.
 */
function failed(
  said: Run,
  request: RenderRequest,
  paths: BuildPaths,
  file: string | undefined,
  tool: Tool,
): RenderResult {
  const message = kustomizeError(said.stderr, paths) || `exit code ${said.code}`;
  const source = errorSource(said.stderr, paths, file);
  return {
    objects: [],
    issues: [{ source, message: `${tool.name} build ${request.dir} failed: ${message}`, severity: 'error' }],
    tool: tool.name,
  };
}
