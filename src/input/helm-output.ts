// What `helm template` prints, read back into objects with sources: the `# Source:` line of each
// document names its template file, the template's `kind:` lines give the line; hooks are told apart
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
    const m = /^kind:\s*(?:"([^"]*)"|'([^']*)'|([^\s#]+))\s*(?:#.*)?$/.exec(text);
    if (m) out.push({ line: i + 1, kind: m[1] ?? m[2] ?? m[3] ?? '' });
  });
  return out;
}

/**
 * The line of each object rendered from one template file, by this rule: when the file has as many
 * top-level `kind:` lines as it rendered objects and each says the object's kind literally, the k-th
 * object is at the k-th line; otherwise an object is at the only `kind:` line naming its kind
 * literally (every object of a `range` loop shares it), and at 0 (unknown) when there is none (a
 * `kind:` from a value) or several.
 */
export function linesOfKinds(template: string, kinds: readonly string[]): number[] {
  const lines = kindLines(template);
  if (lines.length === kinds.length && lines.every((l, k) => l.kind === kinds[k]))
    return lines.map((l) => l.line);
  return kinds.map((kind) => {
    const same = lines.filter((l) => l.kind === kind);
    return same.length === 1 ? same[0]!.line : 0;
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
 * Gives each object the line of its template file by {@link linesOfKinds}; `read` returns a file's
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
    const kinds = indexes.map((i) => kindOf(objects[i]!.value));
    const lines = linesOfKinds(text, kinds);
    indexes.forEach((i, k) => {
      const o = objects[i]!;
      out[i] = { value: o.value, source: { file, line: lines[k] ?? 0 } };
    });
  }
  return out;
}

function kindOf(value: unknown): string {
  return isMapping(value) && typeof value.kind === 'string' ? value.kind : '';
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
