// The `drift` section of spread.yaml: fields that are not drift on this deployment's objects, shaped
// like Argo CD's `ignoreDifferences` (group, kind, name, namespace; jsonPointers, managedFieldsManagers),
// checked at once with every problem at its line.
import { type InputIssue, IssueList } from '../base/source.js';
import { isMapping, type LocatedValue } from '../decode/decode.js';
import { kindMistake } from './rule-kinds.js';

/**
 * One rule of `drift.ignoreDifferences`: on the objects of GroupKind `group`/`kind` (`*` for any; the
 * core group is `""`, and an omitted group, as in Argo CD, whose `group` is `omitempty` and
 * matched as a glob: "" matches the core group only), optionally only `name` and `namespace`, the fields at `jsonPointers` (RFC 6901,
 * `/spec/replicas`, `~1` for `/` in a key) and the fields whose owners are all among
 * `managedFieldsManagers` are not drift. Argo CD's `jqPathExpressions` are not taken.
 */
export interface DriftIgnoreRule {
  readonly group: string;
  readonly kind: string;
  readonly name?: string;
  readonly namespace?: string;
  readonly jsonPointers: readonly string[];
  readonly managedFieldsManagers: readonly string[];
  /** Where it is declared: `spread.yaml:12`. */
  readonly source: string;
}

/** The drift section as spread uses it. */
export interface DriftRules {
  readonly ignoreDifferences: readonly DriftIgnoreRule[];
}

const RULE_KEYS = ['group', 'kind', 'name', 'namespace', 'jsonPointers', 'managedFieldsManagers'];

/**
 * Checks the `drift` section (absent: no rules) and returns its rules, or every problem at its
 * file:line and no rules.
 */
export function parseDriftSection(section: LocatedValue | undefined): {
  rules?: DriftRules;
  issues: readonly InputIssue[];
} {
  if (section === undefined) return { rules: { ignoreDifferences: [] }, issues: [] };
  const issues = new IssueList();
  const at = (path: (string | number)[]) => section.sourceAt(path);
  if (!isMapping(section.value)) {
    issues.error(section.source, 'drift: expected a mapping with ignoreDifferences');
    return { issues: issues.issues };
  }
  for (const key of Object.keys(section.value))
    if (key !== 'ignoreDifferences')
      issues.error(
        at([key]),
        `drift: unknown key ${JSON.stringify(key)}; the section holds ignoreDifferences`,
      );
  const list = section.value.ignoreDifferences;
  const rules: DriftIgnoreRule[] = [];
  if (list !== undefined && !Array.isArray(list))
    issues.error(at(['ignoreDifferences']), 'drift.ignoreDifferences: expected a list of rules');
  for (const [i, item] of (Array.isArray(list) ? list : []).entries()) {
    const path = ['ignoreDifferences', i];
    const where = `drift.ignoreDifferences[${i}]`;
    if (!isMapping(item)) {
      issues.error(at(path), `${where}: expected a mapping (group, kind, jsonPointers…)`);
      continue;
    }
    const rule = parseRule(item, where, (...k) => at([...path, ...k]), issues);
    const line = at(path);
    if (rule) rules.push({ ...rule, source: `${line.file}:${line.line}` });
  }
  if (issues.hasErrors) return { issues: issues.issues };
  return { rules: { ignoreDifferences: rules }, issues: issues.issues };
}

function parseRule(
  item: Record<string, unknown>,
  where: string,
  at: (...path: (string | number)[]) => { file: string; line: number },
  issues: IssueList,
): Omit<DriftIgnoreRule, 'source'> | undefined {
  const before = issues.issues.length;
  for (const key of Object.keys(item)) {
    if (key === 'jqPathExpressions')
      issues.error(at(key), `${where}: jqPathExpressions are not taken; name the fields with jsonPointers`);
    else if (!RULE_KEYS.includes(key))
      issues.error(
        at(key),
        `${where}: unknown key ${JSON.stringify(key)}; a rule holds ${RULE_KEYS.join(', ')}`,
      );
  }
  const text = (key: string, required: boolean): string | undefined => {
    const v = item[key];
    if (v === undefined || v === null) {
      if (required) issues.error(at(key), `${where}: ${key} is required (\`*\` for any)`);
      return undefined;
    }
    if (typeof v !== 'string') issues.error(at(key), `${where}.${key}: expected a string`);
    return typeof v === 'string' ? v : undefined;
  };
  const list = (key: string): string[] => {
    const v = item[key];
    if (v === undefined) return [];
    if (!Array.isArray(v) || v.some((s) => typeof s !== 'string' || s === '')) {
      issues.error(at(key), `${where}.${key}: expected a list of strings`);
      return [];
    }
    return v as string[];
  };
  const group = text('group', false) ?? (item.group === undefined || item.group === null ? '' : undefined);
  const kind = text('kind', true);
  const mistake = kind === undefined || group === undefined ? undefined : kindMistake(kind, group);
  if (mistake) {
    const fix = [
      ...(mistake.kind !== kind ? [`kind: ${mistake.kind}`] : []),
      ...(mistake.group !== undefined ? [`group: ${mistake.group}`] : []),
    ];
    const omitted = item.group === undefined && mistake.group !== undefined;
    issues.error(
      at('kind'),
      `${where}: ${mistake.reason}${omitted ? ' (an omitted group is the core group, as in Argo CD)' : ''}: write ${fix.join(', ')}`,
    );
  }
  const name = text('name', false);
  const namespace = text('namespace', false);
  const jsonPointers = list('jsonPointers');
  jsonPointers.forEach((p, i) => {
    const problem = pointerProblem(p);
    if (problem) issues.error(at('jsonPointers', i), `${where}.jsonPointers: "${p}" ${problem}`);
  });
  const managedFieldsManagers = list('managedFieldsManagers');
  if (jsonPointers.length === 0 && managedFieldsManagers.length === 0 && !('jqPathExpressions' in item))
    issues.error(at('kind'), `${where}: give jsonPointers or managedFieldsManagers (what is not drift)`);
  if (issues.issues.length > before || group === undefined || kind === undefined) return undefined;
  return {
    group,
    kind,
    ...(name !== undefined ? { name } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
    jsonPointers,
    managedFieldsManagers,
  };
}

/**
 * Why `pointer` is not a JSON pointer (RFC 6901 section 3: it starts with `/`, and `~` appears only in
 * the escapes `~0`, for `~`, and `~1`, for `/`); undefined when it is one.
 */
function pointerProblem(pointer: string): string | undefined {
  if (!pointer.startsWith('/')) return 'is not a JSON pointer (it starts with /)';
  const bad = /~(?![01])(.?)/.exec(pointer);
  if (bad)
    return `is not a JSON pointer: ${bad[1] ? `~${bad[1]}` : 'a ~ at its end'} is no escape (RFC 6901: ~0 is ~ and ~1 is / in a key; a ~ itself is written ~0)`;
  return undefined;
}
