// The directory walk's dispatch to rendered inputs (DESIGN "Other inputs"): which folders are
// kustomizations or Helm charts, which kustomizations are left to the overlay that lists them, and
// running the renderers of src/input/render.ts after the walk, concurrently, with the results (and
// their issues) in walk order so identical directories still give identical Applications.
import type { Dirent } from 'node:fs';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { IssueList, Trace } from '../base/source.js';
import { decodeBytes, isMapping, LocatedValue } from '../decode/decode.js';
import { SourcedValue } from '../decode/sourced-value.js';
import type { DirectoryContent, EntityFile, ObjectValue } from '../entity/build.js';
import { isControllerKind } from '../entity/kinds.js';
import type { RenderedKind, Renderers, RenderRequest, RenderResult } from './render.js';

/** The file names that make a folder a kustomization, in kustomize's own order of preference. */
export const KUSTOMIZATION_FILES: readonly string[] = [
  'kustomization.yaml',
  'kustomization.yml',
  'Kustomization',
];

/** The file that makes a folder a Helm chart. */
export const CHART_FILE = 'Chart.yaml';

/** The kustomization fields whose entries may name another kustomization (a base, a component). */
const REFERENCE_FIELDS = ['resources', 'bases', 'components'] as const;

/** A folder found by the walk, to render once the walk is done. */
export interface PendingRender {
  readonly request: RenderRequest;
  /** The file that made it one: `kustomization.yaml`, `Chart.yaml`. */
  readonly marker: string;
  /** The folder's own name. */
  readonly name: string;
}

/** What a folder's entries say it is: rendered by a tool, plain, or an error (both kinds at once). */
export type FolderKind =
  | { readonly kind: RenderedKind; readonly marker: string }
  | { readonly kind: 'plain' }
  | { readonly kind: 'conflict'; readonly markers: readonly string[] };

/**
 * Whether a folder is a kustomization (`kustomization.yaml`, `kustomization.yml`, `Kustomization`)
 * or a Helm chart (`Chart.yaml`), from its entries; `isFile` says whether an entry is a file (or a
 * link to one). A folder holding both is a conflict: neither tool's reading of it is the obvious one.
 */
export function folderKind(entries: readonly Dirent[], isFile: (entry: Dirent) => boolean): FolderKind {
  const names = new Set(entries.filter(isFile).map((e) => e.name));
  const kustomization = KUSTOMIZATION_FILES.find((f) => names.has(f));
  const chart = names.has(CHART_FILE) ? CHART_FILE : undefined;
  if (kustomization && chart) return { kind: 'conflict', markers: [kustomization, chart] };
  if (kustomization) return { kind: 'kustomize', marker: kustomization };
  if (chart) return { kind: 'helm', marker: chart };
  return { kind: 'plain' };
}

/**
 * The kustomizations another kustomization of the same tree lists under `resources:`, `bases:` or
 * `components:` (a relative path resolving to it), and the charts another chart lists as a
 * `file://` dependency: those are rendered through the overlay or chart, not on their own, as
 * `kubectl apply -k overlays/prod` deploys the base once. A folder is left out only
 * when an overlay that is itself rendered reaches it, so a cycle of kustomizations (which kustomize
 * rejects) is still rendered and its error shown. Returns the folders to render, in walk order.
 */
export function foldersToRender(
  pending: readonly PendingRender[],
  trace: Trace | undefined,
): PendingRender[] {
  const byAbs = new Map<string, PendingRender>();
  for (const p of pending) byAbs.set(p.request.abs, p);
  const listed = new Map<PendingRender, { by: PendingRender; field: string }>();
  const edges = new Map<PendingRender, PendingRender[]>();
  for (const p of byAbs.values()) {
    for (const { path, field } of referencedPaths(p)) {
      const target = byAbs.get(resolve(p.request.abs, path));
      if (!target || target === p || target.request.kind !== p.request.kind) continue;
      edges.set(p, [...(edges.get(p) ?? []), target]);
      if (!listed.has(target)) listed.set(target, { by: p, field });
    }
  }
  const reached = new Set<PendingRender>();
  const stack = [...byAbs.values()].filter((p) => !listed.has(p));
  for (let p = stack.pop(); p; p = stack.pop()) {
    for (const next of edges.get(p) ?? []) {
      if (reached.has(next)) continue;
      reached.add(next);
      stack.push(next);
    }
  }
  return pending.filter((p) => {
    const by = listed.get(p);
    if (!by || !reached.has(p)) return true;
    trace?.(
      p.request.kind === 'helm'
        ? `${p.request.dir}/: a chart listed under ${by.field}: of ${by.by.request.dir}/${by.by.marker} (file://): rendered through that chart, not on its own`
        : `${p.request.dir}/: a kustomization listed under ${by.field}: of ${by.by.request.dir}/${by.by.marker}: rendered through that overlay, not on its own`,
    );
    return false;
  });
}

/**
 * The local paths a kustomization lists as resources, bases and components, or a chart as
 * `file://` dependencies (Helm vendors those into the chart that lists them); unreadable files list
 * none (the tool reports them).
 */
function referencedPaths(p: PendingRender): { path: string; field: string }[] {
  let value: unknown;
  try {
    value = decodeBytes(p.marker, readFileSync(resolve(p.request.abs, p.marker))).values[0]?.value;
  } catch {
    return [];
  }
  if (!isMapping(value)) return [];
  if (p.request.kind === 'helm') {
    const dependencies = Array.isArray(value.dependencies) ? value.dependencies : [];
    return dependencies.flatMap((d) =>
      isMapping(d) && typeof d.repository === 'string' && d.repository.startsWith('file://')
        ? [{ path: d.repository.slice('file://'.length), field: 'dependencies' }]
        : [],
    );
  }
  const paths: { path: string; field: string }[] = [];
  for (const field of REFERENCE_FIELDS) {
    const list = value[field];
    if (!Array.isArray(list)) continue;
    for (const entry of list) {
      // A remote base (`github.com/…`, `https://…`) never resolves to a folder of the tree.
      if (typeof entry === 'string' && !entry.includes('://')) paths.push({ path: entry, field });
    }
  }
  return paths;
}

/**
 * Runs the renderer of each folder, concurrently, and turns each result into the folder's content:
 * controllers and Pods become entities (so their `&` images are built, as in a manifest: never
 * paired or defaulted by file names), every other object is attached at the folder's level. The
 * renderers' issues are added to `issues` in walk order. A folder of a kind with no renderer is an
 * error at that folder; so is a renderer's own failure.
 */
export async function renderFolders(
  pending: readonly PendingRender[],
  renderers: Renderers | undefined,
  issues: IssueList,
  trace: Trace | undefined,
): Promise<DirectoryContent[]> {
  const results = await inPool(pending, RENDERS_AT_ONCE, (p) => renderOne(p, renderers));
  return pending.map((p, i) => {
    const result = results[i] as RenderResult | string;
    const { dir } = p.request;
    if (typeof result === 'string') {
      issues.error({ file: dir, line: 0 }, result);
      return { dir, name: p.name, entities: [], containers: [], objects: [] };
    }
    issues.add(result.issues);
    const content = renderedContent(p, result);
    trace?.(
      `${dir}/: ${content.entities.length + content.objects.length} objects rendered by ${result.tool}`,
    );
    return content;
  });
}

/**
 * How many renderers run at once: each is a child process (kustomize, helm) of a few hundred
 * milliseconds of CPU, and a monorepo may hold dozens of charts on a 2-core CI runner.
 */
const RENDERS_AT_ONCE = 4;

/** `work` over `items`, at most `limit` at a time, results in the items' order. */
async function inPool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** The renderer's result, or the message of the error at the folder. */
async function renderOne(p: PendingRender, renderers: Renderers | undefined): Promise<RenderResult | string> {
  const renderer = renderers?.[p.request.kind];
  if (!renderer) {
    return p.request.kind === 'kustomize'
      ? `is a kustomization (${p.marker}) and no kustomize renderer was given: rendering it needs kustomize, or kubectl (kubectl kustomize)`
      : `is a Helm chart (${p.marker}) and no Helm renderer was given: rendering it needs helm (3 or 4)`;
  }
  try {
    return await renderer(p.request);
  } catch (e) {
    return `rendering with ${p.request.kind} failed: ${(e as Error).message}`;
  }
}

/** Whether a file (relative to the input root) lies outside a folder (`.` holds everything). */
function outside(file: string, dir: string): boolean {
  return dir !== '.' && !file.startsWith(`${dir}/`);
}

function renderedContent(p: PendingRender, result: RenderResult): DirectoryContent {
  const entities: EntityFile[] = [];
  const objects: ObjectValue[] = [];
  const { dir } = p.request;
  for (const rendered of result.objects) {
    const o = outside(rendered.source.file, dir)
      ? { value: rendered.value, source: { ...rendered.source, via: dir } }
      : rendered;
    const kind = isMapping(o.value) ? o.value.kind : undefined;
    if (isControllerKind(kind) || kind === 'Pod')
      // A renderer's SourcedValue keeps where its parts were declared (an overlay's image marks).
      entities.push({
        kind,
        value:
          rendered instanceof SourcedValue
            ? rendered.placed(o.source)
            : LocatedValue.placedAt(o.value, o.source),
      });
    else objects.push(o);
  }
  return {
    dir: p.request.dir,
    name: p.name,
    entities,
    containers: [],
    objects,
    rendered: { input: p.request.kind, tool: result.tool },
  };
}
