// The kustomize renderer (DESIGN "Other inputs"): a folder holding kustomization.yaml is built by the
// user's own kustomize (or `kubectl kustomize`), through a wrapper kustomization that asks for origin
// annotations without editing the user's file, and every object comes back with the base or overlay
// file and line it was written in.
import { spawn } from 'node:child_process';
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
import { type PatchedObject, patchSources } from './kustomize-patches.js';
import type { Renderer, RenderRequest, RenderResult } from './render.js';

/** Options of {@link kustomizeRenderer}. */
export interface KustomizeOptions {
  /**
   * The kustomize binary: a name looked up on the environment's PATH, or a path. A `kubectl` binary
   * is run as `kubectl kustomize`. Absent or empty: `kustomize`, else `kubectl kustomize`.
   */
  readonly command?: string | undefined;
  /** Inflate the kustomizations' `helmCharts` with Helm (`--enable-helm`), as the user enables it. */
  readonly enableHelm?: boolean | undefined;
  /** The Helm binary kustomize runs for `helmCharts` (`--helm-command`); absent: kustomize's default, `helm`. */
  readonly helmCommand?: string | undefined;
  /** The environment the tool runs in (its PATH finds the binary); absent: spread's own. */
  readonly env?: NodeJS.ProcessEnv | undefined;
  /** Ends a running kustomize (SIGTERM). */
  readonly signal?: AbortSignal | undefined;
}

/** How kustomize is run: the command, the arguments before the folder, and what it says it is. */
interface Tool {
  readonly command: string;
  readonly build: readonly string[];
  /** `kustomize v5.8.2`, `kustomize v5.5.0 (kubectl v1.32.4)`. */
  readonly name: string;
}

/** What a run of a tool gave. */
interface Run {
  readonly code: number;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/** A tool that could not be started: its command and why. */
class ToolMissing extends Error {}

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
    tool ??= findTool(options);
    let found: Tool;
    try {
      found = await tool;
    } catch (e) {
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
    return build(found, request, options);
  };
}

/** Runs a command with an explicit argument list; rejects with ToolMissing when it cannot be started. */
function run(command: string, args: readonly string[], options: KustomizeOptions): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.env ? { env: options.env } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'ENOENT' || e.code === 'EACCES' ? new ToolMissing(`${command}: ${e.code}`) : e),
    );
    child.on('close', (code) =>
      resolve({ code: code ?? 1, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') }),
    );
  });
}

/** The first `vMAJOR.MINOR.PATCH…` in a version text (`v5.8.2`, `{Version:kustomize/v4.5.7 …}`). */
function versionIn(text: string): string | undefined {
  return /\bv\d+\.\d+\.\d+[^\s,}]*/.exec(text)?.[0];
}

/** Whether a command names kubectl (`kubectl`, `/usr/bin/kubectl`), which renders as `kubectl kustomize`. */
function isKubectl(command: string): boolean {
  return /^kubectl(\.exe)?$/.test(path.basename(command));
}

async function kubectlTool(command: string, options: KustomizeOptions): Promise<Tool> {
  const said = await run(command, ['version', '--client'], options);
  const kustomize = /Kustomize Version:\s*(\S+)/.exec(said.stdout.toString('utf8'))?.[1];
  const kubectl = /Client Version:\s*(\S+)/.exec(said.stdout.toString('utf8'))?.[1];
  return {
    command,
    build: ['kustomize'],
    name: `kustomize ${kustomize ?? '(version unknown)'} (kubectl${kubectl ? ` ${kubectl}` : ''})`,
  };
}

/**
 * The kustomize to run: the named one, else `kustomize` on PATH, else `kubectl kustomize`.
 *
 * @throws ToolMissing saying what was looked for when none can be started.
 */
async function findTool(options: KustomizeOptions): Promise<Tool> {
  const named = options.command?.trim() || undefined;
  const command = named ?? 'kustomize';
  try {
    if (isKubectl(command)) return await kubectlTool(command, options);
    const said = await run(command, ['version'], options);
    const version = versionIn(`${said.stdout.toString('utf8')} ${said.stderr}`);
    return { command, build: ['build'], name: `kustomize ${version ?? '(version unknown)'}` };
  } catch (e) {
    if (!(e instanceof ToolMissing)) throw e;
    if (named)
      throw new ToolMissing(
        `rendering this kustomization needs kustomize: the kustomize setting names ${named}, which cannot be run (${e.message})`,
      );
  }
  try {
    return await kubectlTool('kubectl', options);
  } catch (e) {
    if (!(e instanceof ToolMissing)) throw e;
    throw new ToolMissing(
      'rendering this kustomization needs kustomize: neither kustomize nor kubectl (kubectl kustomize) is on PATH; install kustomize, or name it with the kustomize setting',
    );
  }
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

/** Builds one folder through a wrapper kustomization in a temporary folder, removed afterwards. */
async function build(tool: Tool, request: RenderRequest, options: KustomizeOptions): Promise<RenderResult> {
  const folder = realpathSync(request.abs);
  const file = kustomizationFile(folder);
  const own = topLevelSettings(folder, file);
  // A Component builds to nothing on its own (`kustomize build` prints nothing, where a wrapper
  // listing it would fail): it is deployed only through a kustomization that lists it.
  if (own.component) {
    const at = {
      file: rootRelative({ wrapper: '', folder, dir: request.dir }, file ?? 'kustomization.yaml'),
      line: 0,
    };
    const message =
      'a kustomize Component holds no objects of its own: it is deployed through the kustomizations that list it under components:, and none here does';
    return { objects: [], issues: [{ source: at, message, severity: 'warning' }], tool: tool.name };
  }
  const wrapper = realpathSync(mkdtempSync(path.join(tmpdir(), 'spread-kustomize-')));
  try {
    const relative = path.relative(wrapper, folder).split(path.sep).join('/');
    const wrapperFile = {
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      resources: [relative],
      buildMetadata: [...new Set([...own.buildMetadata, 'originAnnotations', 'transformerAnnotations'])],
      ...(own.sortOptions !== undefined ? { sortOptions: own.sortOptions } : {}),
    };
    writeFileSync(path.join(wrapper, 'kustomization.yaml'), `${JSON.stringify(wrapperFile, null, 2)}\n`);
    const args = [...tool.build, wrapper];
    if (options.enableHelm) args.push('--enable-helm');
    if (options.enableHelm && options.helmCommand) args.push('--helm-command', options.helmCommand);
    const said = await run(tool.command, args, options);
    const paths: BuildPaths = { wrapper, folder, dir: request.dir };
    const kept: KeptMetadata = {
      originAnnotations: own.buildMetadata.includes('originAnnotations'),
      transformerAnnotations: own.buildMetadata.includes('transformerAnnotations'),
    };
    return said.code === 0
      ? rendered(said, paths, kept, file, tool)
      : failed(said, request, paths, file, tool);
  } finally {
    rmSync(wrapper, { recursive: true, force: true });
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
    const patches = patchSources(patched(object, own), transformations, files);
    if (patches.length > 0) source = { ...source, patches };
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
