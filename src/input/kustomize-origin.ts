// From kustomize's origin annotations back to the user's files: kustomize says where each object came
// from (`config.kubernetes.io/origin`, asked for with `buildMetadata: [originAnnotations]`), relative
// to the kustomization it built; these functions turn that into a source relative to spread's input
// root and a line, and take the annotations spread asked for off the object. No I/O.
import path from 'node:path';
import { parse } from 'yaml';
import { isMapping } from '../decode/decode.js';

/** kustomize's annotation of where an object came from (api/internal/utils/annotations.go). */
export const ORIGIN_ANNOTATION = 'config.kubernetes.io/origin';
/** kustomize's annotation listing the transformers that touched an object (`transformerAnnotations`). */
export const TRANSFORMATIONS_ANNOTATION = 'alpha.config.kubernetes.io/transformations';

/**
 * kustomize's `resource.Origin` (api/resource/origin.go): `path` for an object read from a file,
 * `configuredIn`/`configuredBy` for one a generator made (`configMapGenerator`, `helmCharts`…),
 * `repo`/`ref` when it came from a remote base (its paths are then inside that repository).
 */
export interface Origin {
  readonly path?: string;
  readonly repo?: string;
  readonly ref?: string;
  readonly configuredIn?: string;
  readonly configuredBy?: { readonly apiVersion?: string; readonly kind?: string; readonly name?: string };
}

/** Parses an origin annotation's YAML; undefined when it is not one. */
export function parseOrigin(text: string): Origin | undefined {
  let value: unknown;
  try {
    value = parsed(text);
  } catch {
    return undefined;
  }
  return originOf(value);
}

/**
 * The transformers kustomize lists on an object (its transformations annotation, asked for with
 * `buildMetadata: [transformerAnnotations]`), paths relative to the user's folder; none when absent.
 */
export function transformationsOf(object: Record<string, unknown>, paths: BuildPaths): Origin[] {
  const metadata = isMapping(object.metadata) ? object.metadata : undefined;
  const text =
    metadata && isMapping(metadata.annotations)
      ? metadata.annotations[TRANSFORMATIONS_ANNOTATION]
      : undefined;
  return transformationsIn(text, paths);
}

/** {@link transformationsOf} from the annotation's text (undefined: none). */
export function transformationsIn(text: unknown, paths: BuildPaths): Origin[] {
  let value: unknown;
  try {
    value = typeof text === 'string' ? parsed(text) : undefined;
  } catch {
    return [];
  }
  return (Array.isArray(value) ? value : []).flatMap((v) => {
    const origin = originOf(v);
    if (!origin) return [];
    return origin.configuredIn && !origin.repo
      ? [{ ...origin, configuredIn: folderRelative(paths, origin.configuredIn) }]
      : [origin];
  });
}

/**
 * The YAML library's parse of an annotation, kept by text: every object an overlay built carries the
 * same transformations text, and the objects of one file the same origin, and a parse per object
 * cost the bench's 200-object overlay a fifth of its render. Callers copy what they keep.
 */
const parsedTexts = new Map<string, unknown>();
function parsed(text: string): unknown {
  if (parsedTexts.has(text)) return parsedTexts.get(text);
  // Bounded, for a long-lived process rendering many folders.
  if (parsedTexts.size >= 4096) parsedTexts.clear();
  let value: unknown;
  try {
    value = parse(text);
  } catch (e) {
    value = e instanceof Error ? e : new Error(String(e));
  }
  parsedTexts.set(text, value);
  if (value instanceof Error) throw value;
  return value;
}

function originOf(value: unknown): Origin | undefined {
  if (!isMapping(value)) return undefined;
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const by = isMapping(value.configuredBy) ? value.configuredBy : undefined;
  const origin: Record<string, unknown> = {};
  for (const key of ['path', 'repo', 'ref', 'configuredIn'] as const) {
    const v = str(value[key]);
    if (v !== undefined) origin[key] = v;
  }
  if (by) origin.configuredBy = { apiVersion: str(by.apiVersion), kind: str(by.kind), name: str(by.name) };
  return origin as Origin;
}

/**
 * Where kustomize ran and what it built. spread builds a wrapper kustomization (in a temporary
 * folder) that lists the user's folder as its only resource, so kustomize's paths are relative to
 * the wrapper and start with the wrapper's path to the folder.
 */
export interface BuildPaths {
  /** The wrapper kustomization's folder, absolute with symbolic links resolved (as kustomize sees it). */
  readonly wrapper: string;
  /** The user's kustomization folder, absolute with symbolic links resolved. */
  readonly folder: string;
  /** The folder relative to the input root, POSIX separators, `.` for the root. */
  readonly dir: string;
}

/**
 * A path kustomize gave relative to the wrapper, made relative to the user's folder (POSIX), as
 * `kustomize build FOLDER` itself would have given it: `../../base/deployment.yaml`.
 */
export function folderRelative(paths: BuildPaths, kustomizePath: string): string {
  const abs = path.resolve(paths.wrapper, kustomizePath);
  return path.relative(paths.folder, abs).split(path.sep).join('/');
}

/** A path relative to the user's folder, made relative to the input root: `base/deployment.yaml`. */
export function rootRelative(paths: BuildPaths, folderPath: string): string {
  return path.posix.normalize(paths.dir === '.' ? folderPath : `${paths.dir}/${folderPath}`);
}

/** Which of spread's annotations the user asked for too (their kustomization's `buildMetadata`), and keeps. */
export interface KeptMetadata {
  readonly originAnnotations: boolean;
  readonly transformerAnnotations: boolean;
}

/**
 * Takes the origin off a rendered object: returns it (with paths relative to the user's folder), and
 * removes the annotation when only spread asked for it, else rewrites its paths to what `kustomize
 * build FOLDER` prints. The transformations annotation likewise: removed, else rewritten. An
 * `annotations` map left empty is removed, as kustomize leaves none when it adds none.
 */
export function takeOrigin(
  object: Record<string, unknown>,
  paths: BuildPaths,
  kept: KeptMetadata,
): Origin | undefined {
  const metadata = isMapping(object.metadata) ? object.metadata : undefined;
  const annotations = metadata && isMapping(metadata.annotations) ? metadata.annotations : undefined;
  if (!metadata || !annotations) return undefined;
  const text = annotations[ORIGIN_ANNOTATION];
  const parsed = typeof text === 'string' ? parseOrigin(text) : undefined;
  if (kept.originAnnotations) {
    if (typeof text === 'string' && !parsed?.repo) annotations[ORIGIN_ANNOTATION] = rewritePaths(text, paths);
  } else delete annotations[ORIGIN_ANNOTATION];
  const transformations = annotations[TRANSFORMATIONS_ANNOTATION];
  if (kept.transformerAnnotations && typeof transformations === 'string')
    annotations[TRANSFORMATIONS_ANNOTATION] = rewritePaths(transformations, paths);
  else delete annotations[TRANSFORMATIONS_ANNOTATION];
  if (Object.keys(annotations).length === 0) delete metadata.annotations;
  if (!parsed) return undefined;
  if (parsed.repo) return parsed;
  return {
    ...parsed,
    ...(parsed.path ? { path: folderRelative(paths, parsed.path) } : {}),
    ...(parsed.configuredIn ? { configuredIn: folderRelative(paths, parsed.configuredIn) } : {}),
  };
}

/** The `path:` and `configuredIn:` lines of kustomize's YAML, relative to the user's folder. */
function rewritePaths(text: string, paths: BuildPaths): string {
  return text.replace(
    /^(\s*(?:- )?(?:path|configuredIn): )([^\s'"].*)$/gm,
    (_, head: string, value: string) => `${head}${folderRelative(paths, value)}`,
  );
}

/** A document of a file as the decoder gives it: its value and the line it starts at. */
export interface PlacedDocument {
  readonly value: unknown;
  readonly source: { readonly line: number };
}

/**
 * The line where an object starts in the file kustomize read it from. kustomize may have renamed it
 * (`namePrefix`, `nameSuffix`), so the name matches exactly, else as the longest name of that kind
 * the rendered name contains, else the only object of that kind; 0 when none fits.
 */
export function objectLine(documents: readonly PlacedDocument[], kind: unknown, name: unknown): number {
  return objectDocument(documents, kind, name)?.source.line ?? 0;
}

/** The document {@link objectLine} finds, or undefined. */
export function objectDocument<D extends PlacedDocument>(
  documents: readonly D[],
  kind: unknown,
  name: unknown,
): D | undefined {
  const ofKind = documents.filter((d) => isMapping(d.value) && d.value.kind === kind);
  const nameOf = (d: PlacedDocument) => {
    const metadata = isMapping(d.value) && isMapping(d.value.metadata) ? d.value.metadata : undefined;
    return typeof metadata?.name === 'string' ? metadata.name : '';
  };
  if (typeof name === 'string') {
    const exact = ofKind.find((d) => nameOf(d) === name);
    if (exact) return exact;
    const within = ofKind
      .filter((d) => nameOf(d) !== '' && name.includes(nameOf(d)))
      .sort((a, b) => nameOf(b).length - nameOf(a).length)[0];
    if (within) return within;
  }
  return ofKind.length === 1 ? ofKind[0] : undefined;
}

/** The kustomization field each builtin generator is configured by. */
const GENERATOR_FIELDS: Readonly<Record<string, string>> = {
  ConfigMapGenerator: 'configMapGenerator',
  SecretGenerator: 'secretGenerator',
  HelmChartInflationGenerator: 'helmCharts',
};

/** A kustomization file decoded with lines: the line of a value at a path. */
export interface LinedKustomization {
  readonly value: unknown;
  lineAt(path: readonly (string | number)[]): number;
}

/**
 * The line of the generator entry that made an object: the `configMapGenerator`/`secretGenerator`
 * entry whose name the object's name holds (kustomize adds prefixes and a hash suffix), the only
 * `helmCharts` entry, else the field itself; 0 when the kustomization has no such field.
 */
export function generatorLine(
  kustomization: LinedKustomization,
  generator: string | undefined,
  objectName: unknown,
): number {
  const field = generator ? GENERATOR_FIELDS[generator] : undefined;
  const value = kustomization.value;
  if (!field || !isMapping(value) || !Array.isArray(value[field])) return 0;
  const entries = value[field] as unknown[];
  const nameOf = (e: unknown) => (isMapping(e) && typeof e.name === 'string' ? e.name : '');
  let best = -1;
  if (typeof objectName === 'string') {
    entries.forEach((e, i) => {
      const n = nameOf(e);
      if (n !== '' && objectName.includes(n) && (best < 0 || n.length > nameOf(entries[best]).length))
        best = i;
    });
  }
  if (best < 0 && entries.length === 1) best = 0;
  return kustomization.lineAt(best < 0 ? [field] : [field, best]);
}

/**
 * kustomize's output with every transformations annotation cut out as text, before the YAML is
 * decoded. Asked for only to learn which patches ran, it is most of the output (the bench's overlay
 * of 200 objects: 272 KB, 75 KB without), and kustomize prints it in one shape: the key at the
 * annotations' indent, `|`, then lines indented deeper. `byLine` keeps each cut text, de-indented, by
 * the line its document starts at in `text` (a document's first line, as the decoder places it).
 */
export function cutTransformations(output: string): { text: string; byLine: Map<number, string> } {
  const lines = output.split('\n');
  const kept: string[] = [];
  const byLine = new Map<number, string>();
  let docStart = 1;
  const key = /^( +)alpha\.config\.kubernetes\.io\/transformations: \|-?$/;
  const indentOf = (line: string) => line.length - line.trimStart().length;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const m = key.exec(line);
    if (!m) {
      kept.push(line);
      if (line === '---') docStart = kept.length + 1;
      continue;
    }
    const indent = (m[1] as string).length;
    const block: string[] = [];
    while (i + 1 < lines.length && indentOf(lines[i + 1] as string) > indent)
      block.push(lines[++i] as string);
    byLine.set(docStart, `${block.map((l) => l.slice(indent + 2)).join('\n')}\n`);
    // An annotations map left empty would decode as null: drop its key too.
    if (kept[kept.length - 1]?.trim() === 'annotations:' && indentOf(lines[i + 1] ?? '') <= indent - 2)
      kept.pop();
  }
  return { text: kept.join('\n'), byLine };
}
