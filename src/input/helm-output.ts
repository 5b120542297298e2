// What `helm template` prints, read back into objects with sources: the `# Source:` line of each
// document names its template file, the template's documents give the line; hooks are told apart
// from the release's objects. Pure functions, so the rules are tested without a Helm binary.
import { posix } from 'node:path';
import { type InputIssue, IssueList, type Source } from '../base/source.js';
import { type DecodedValue, decodeText, flattenLists, isMapping } from '../decode/decode.js';
import { checkStringFields } from '../decode/traps.js';
import type { ObjectValue } from '../entity/build.js';

/** Helm's annotation that makes an object a hook (Helm docs "Chart Hooks"). */
export const HOOK_ANNOTATION = 'helm.sh/hook';

/** One rendered document's place in the output: its first line and the file its `# Source:` names. */
interface DocumentSpan {
  /** 1-based line of the output where the document starts (after its `---`). */
  readonly start: number;
  /** The `# Source:` path as Helm prints it (`mychart/templates/web.yaml`), or undefined. */
  readonly source: string | undefined;
}

/** Splits Helm's output at its `---` separators and notes each document's `# Source:` path. */
export function documentSpans(text: string): DocumentSpan[] {
  const spans: { start: number; source: string | undefined }[] = [{ start: 1, source: undefined }];
  const lines = text.split(/\r?\n/);
  lines.forEach((line, i) => {
    if (/^---(\s|$)/.test(line)) spans.push({ start: i + 2, source: undefined });
    else {
      const m = /^# Source: (.+?)\s*$/.exec(line);
      const last = spans[spans.length - 1]!;
      if (m && last.source === undefined) last.source = m[1];
    }
  });
  return spans;
}

/**
 * The file a `# Source:` path names, relative to the input root: Helm prefixes every path with the
 * chart's name (Chart.yaml `name`, not the folder's), which is the chart folder `dir`
 * (`mychart/charts/db/templates/x.yaml` → `DIR/charts/db/templates/x.yaml`).
 */
export function sourceFile(helmPath: string, chartName: string, dir: string): string {
  const inChart = helmPath.startsWith(`${chartName}/`) ? helmPath.slice(chartName.length + 1) : helmPath;
  return dir === '.' ? inChart : posix.join(dir, inChart);
}

/** The top-level `kind:` lines of a template file: 1-based line and the kind written there. */
export function kindLines(template: string): { line: number; kind: string }[] {
  const out: { line: number; kind: string }[] = [];
  template.split(/\r?\n/).forEach((text, i) => {
    const m = KIND_LINE.exec(text);
    if (m) out.push({ line: i + 1, kind: m[1] ?? m[2] ?? m[3] ?? '' });
  });
  return out;
}

const KIND_LINE = /^kind:\s*(?:"([^"]*)"|'([^']*)'|([^\s#]+))\s*(?:#.*)?$/;

/** One document of a template file, as written: where it starts, its literal kind and name. */
export interface TemplateDocument {
  /** 1-based line of its first YAML line (after its `---`; blank, comment and `{{ … }}`-only lines skipped). */
  readonly start: number;
  readonly kind: string;
  /** `metadata.name` when written literally (no `{{`), else undefined. */
  readonly name: string | undefined;
}

/**
 * The documents of a template file that say their kind literally, one per top-level `kind:` line:
 * each starts at its first YAML line after the `---` before it, or at the `kind:` line itself when
 * another `kind:` line comes between (a document built by template actions).
 */
export function templateDocuments(template: string): TemplateDocument[] {
  const lines = template.split(/\r?\n/);
  const docs: TemplateDocument[] = [];
  // The first YAML line of the current `---` segment not yet claimed by a document; 0 when none.
  let open = 0;
  let segment: number[] = [];
  lines.forEach((text, i) => {
    if (/^---(\s|$)/.test(text)) {
      segment = [];
      open = 0;
      return;
    }
    if (open === 0 && !/^\s*($|#|\{\{.*\}\}\s*$)/.test(text)) open = i + 1;
    const m = KIND_LINE.exec(text);
    if (!m) return;
    const start = open > 0 && segment.length === 0 ? open : i + 1;
    segment.push(docs.length);
    docs.push({ start, kind: m[1] ?? m[2] ?? m[3] ?? '', name: undefined });
  });
  // Each document's literal name: `metadata:` then `  name: x`, or `metadata: {name: x, …}`.
  return docs.map((d, k) => {
    const end = (docs[k + 1]?.start ?? lines.length + 1) - 1;
    return { ...d, name: literalName(lines.slice(d.start - 1, end)) };
  });
}

function literalName(lines: readonly string[]): string | undefined {
  const at = lines.findIndex((l) => /^metadata:/.test(l));
  if (at < 0) return undefined;
  const flow = /^metadata:\s*\{.*?\bname:\s*["']?([^"',}\s]+)/.exec(lines[at] as string);
  let name = flow?.[1];
  for (let i = at + 1; name === undefined && i < lines.length; i++) {
    const line = lines[i] as string;
    if (/^\S/.test(line)) break;
    name = /^ {1,4}name:\s*["']?([^"'\s#]+)/.exec(line)?.[1];
  }
  return name === undefined || name.includes('{{') ? undefined : name;
}

/**
 * The line of each object rendered from one template file: the start of its document (see
 * {@link templateDocuments}). Among the documents of the object's kind, the one of its literal name;
 * else, when the file rendered as many objects of that kind as it has documents of it, the k-th
 * (Helm sorts its output by kind, keeping each kind's objects in the template's order); else the
 * only one of its kind (every object of a `range` loop shares it); else 0 (unknown: a `kind:` from a
 * value, two documents of a kind one of which a condition left out).
 */
export function linesOfObjects(
  template: string,
  objects: readonly { readonly kind: string; readonly name: string | undefined }[],
): number[] {
  const docs = templateDocuments(template);
  const seen = new Map<string, number>();
  return objects.map((o) => {
    const same = docs.filter((d) => d.kind === o.kind);
    const k = seen.get(o.kind) ?? 0;
    seen.set(o.kind, k + 1);
    const named = same.filter((d) => d.name !== undefined && d.name === o.name);
    if (named.length === 1) return named[0]!.start;
    const count = objects.filter((x) => x.kind === o.kind).length;
    if (count === same.length) return same[k]!.start;
    return same.length === 1 ? same[0]!.start : 0;
  });
}

/** What {@link readHelmOutput} made of Helm's output. */
export interface HelmOutput {
  /** The release's objects, with `# Source:` files relative to the input root (lines 0 until {@link placeLines}). */
  readonly objects: ObjectValue[];
  /** Objects annotated `helm.sh/hook`, left out of the release's objects. */
  readonly hooks: ObjectValue[];
  readonly issues: InputIssue[];
}

/**
 * Reads `helm template`'s output: every document decoded as kubectl reads YAML (`kind: List`
 * flattened, YAML traps refused), each object's source the file its `# Source:` line names (see
 * {@link sourceFile}; the chart folder itself when a document has none), hooks apart.
 */
export function readHelmOutput(text: string, chartName: string, dir: string): HelmOutput {
  const spans = documentSpans(text);
  const fileAt = (line: number): string => {
    let span = spans[0]!;
    for (const s of spans) if (s.start <= line) span = s;
    return span.source ? sourceFile(span.source, chartName, dir) : dir;
  };
  // Problems found in the output are placed at the template that printed them: its output's lines
  // mean nothing to the user.
  const place = (i: InputIssue): InputIssue => ({
    ...i,
    source: { file: fileAt(i.source.line), line: 0 },
    message: `${i.message} (in the output of helm template, line ${i.source.line})`,
  });
  const decoded = decodeText('helm template', text);
  const issues = new IssueList();
  issues.add(decoded.issues.map(place));
  const local = new IssueList();
  const values: DecodedValue[] = flattenLists(decoded.values, local);
  for (const v of values) checkStringFields(v, 'object', local);
  issues.add(local.issues.map(place));
  const objects: ObjectValue[] = [];
  const hooks: ObjectValue[] = [];
  for (const v of values) {
    const source: Source = { file: fileAt(v.source.line), line: 0 };
    const object = { value: v.value, source };
    (isHook(v.value) ? hooks : objects).push(object);
  }
  return { objects, hooks, issues: issues.issues };
}

/** Whether an object is a Helm hook (annotated `helm.sh/hook`). */
export function isHook(value: unknown): boolean {
  if (!isMapping(value) || !isMapping(value.metadata)) return false;
  const annotations = value.metadata.annotations;
  return isMapping(annotations) && annotations[HOOK_ANNOTATION] !== undefined;
}

/**
 * Gives each object the line of its template file by {@link linesOfObjects}; `read` returns a file's
 * text (relative to the input root), undefined when it is not on disk (a packaged subchart, a
 * dependency fetched into a temporary copy): then the line stays 0.
 */
export function placeLines(
  objects: readonly ObjectValue[],
  read: (file: string) => string | undefined,
): ObjectValue[] {
  const byFile = new Map<string, number[]>();
  objects.forEach((o, i) => {
    const list = byFile.get(o.source.file) ?? [];
    list.push(i);
    byFile.set(o.source.file, list);
  });
  const out = [...objects];
  for (const [file, indexes] of byFile) {
    const text = read(file);
    if (text === undefined) continue;
    const lines = linesOfObjects(
      text,
      indexes.map((i) => identityOf(objects[i]!.value)),
    );
    indexes.forEach((i, k) => {
      const o = objects[i]!;
      out[i] = { value: o.value, source: { file, line: lines[k] ?? 0 } };
    });
  }
  return out;
}

function identityOf(value: unknown): { kind: string; name: string | undefined } {
  if (!isMapping(value)) return { kind: '', name: undefined };
  const name = isMapping(value.metadata) ? value.metadata.name : undefined;
  return {
    kind: typeof value.kind === 'string' ? value.kind : '',
    name: typeof name === 'string' ? name : undefined,
  };
}

/**
 * The template file and line a failed `helm template` names in its error
 * (`Error: template: mychart/templates/web.yaml:12:3: executing …`, `parse error at
 * (mychart/templates/web.yaml:7)`, `YAML parse error on mychart/templates/web.yaml`), relative to
 * the input root; undefined when the error names none.
 */
export function errorSource(stderr: string, chartName: string, dir: string): Source | undefined {
  const escaped = chartName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`(?:^|[\\s(])(${escaped}/[^\\s:()]+?\\.(?:ya?ml|tpl|txt|json))(?::(\\d+))?`, 'm');
  const m = re.exec(stderr);
  if (!m) return undefined;
  return { file: sourceFile(m[1]!, chartName, dir), line: m[2] ? Number(m[2]) : 0 };
}
