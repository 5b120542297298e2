// The `health` section of the project file: for a GroupKind, CEL expressions saying when an object
// is current, failed or in progress (Flux's `healthCheckExprs` names). Read into compiled rules once,
// every mistake reported at spread.yaml:line at once; evaluated by the wait and by `spread list`.
import type { Source } from '../base/source.js';
import { IssueList } from '../base/source.js';
import { isMapping, type LocatedValue } from '../decode/decode.js';
import { PROJECT_FILE } from './file.js';
import { type CompiledCel, compileCel } from './health-cel.js';
import { groupKindText, kindMistake } from './rule-kinds.js';

/** The expressions of a rule, in the order they are evaluated (Flux's order). */
export const HEALTH_FIELDS = ['inProgress', 'failed', 'current'] as const;

/** One of {@link HEALTH_FIELDS}. */
export type HealthField = (typeof HEALTH_FIELDS)[number];

/** One compiled expression of a rule, with where it was written. */
export interface HealthExpression {
  readonly field: HealthField;
  readonly text: string;
  readonly source: Source;
  readonly evaluate: CompiledCel;
}

/** A health rule: for objects of one GroupKind, when they are current, failed or in progress. */
export interface HealthRule {
  /** `Kind.group` (`Rollout.argoproj.io`), or the Kind alone for the core group. */
  readonly groupKind: string;
  /** Where the rule was written: spread.yaml's line, or spread's own rules. */
  readonly source: Source;
  readonly current: HealthExpression;
  readonly failed?: HealthExpression;
  readonly inProgress?: HealthExpression;
}

/** Health rules by GroupKind (`Kind.group`). */
export type HealthRules = ReadonlyMap<string, HealthRule>;

/** What a rule says of one object: its status, the expression that decided it, and errors met. */
export interface HealthVerdict {
  readonly status: 'Current' | 'Failed' | 'InProgress';
  /** The expression that matched; none when no expression did (then InProgress). */
  readonly matched?: HealthExpression;
  /** Evaluation errors of expressions that did not match (a field the object lacks yet). */
  readonly errors: readonly string[];
}

/**
 * Evaluates a rule as Flux evaluates `healthCheckExprs`: `inProgress` first, then `failed`, then
 * `current`; the first that is true decides; none true is InProgress. An expression whose evaluation
 * errs (`status.phase` before the controller wrote a status) does not match.
 */
export function evaluateHealth(rule: HealthRule, object: Readonly<Record<string, unknown>>): HealthVerdict {
  const errors: string[] = [];
  for (const field of HEALTH_FIELDS) {
    const expression = rule[field];
    if (!expression) continue;
    const result = expression.evaluate(object);
    if (result instanceof Error) errors.push(`${field}: ${result.message}`);
    else if (result) return { status: STATUS[field], matched: expression, errors };
  }
  return { status: 'InProgress', errors };
}

const STATUS = { inProgress: 'InProgress', failed: 'Failed', current: 'Current' } as const;

/** A GroupKind as a key of the section: `Kind` or `Kind.group`, as ApplySet annotations write them. */
const GROUP_KIND = /^[A-Z][A-Za-z0-9]*(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Reads the `health` section: a mapping of GroupKind (`Certificate.cert-manager.io`) to a rule with
 * `current` (required), `failed` and `inProgress`, each a CEL expression compiled now. Every problem
 * is an error at spread.yaml:line naming the GroupKind, all of them at once.
 *
 * @param section the section as the project file read it; absent: no rules.
 */
export function readHealthRules(section: LocatedValue | undefined): {
  rules: HealthRules;
  issues: IssueList;
} {
  const issues = new IssueList();
  const rules = new Map<string, HealthRule>();
  if (section === undefined) return { rules, issues };
  if (!isMapping(section.value)) {
    issues.error(section.source, 'health: is not a mapping of GroupKind (Kind.group) to a rule');
    return { rules, issues };
  }
  for (const key of Object.keys(section.value)) {
    const at = { file: PROJECT_FILE, line: section.lineAt([key]) };
    const slash = /^([a-z0-9.-]+)\/([A-Z][A-Za-z0-9]*)$/.exec(key);
    const dot = key.indexOf('.');
    const [kind, group] = dot < 0 ? [key, ''] : [key.slice(0, dot), key.slice(dot + 1)];
    const mistake = slash ? undefined : kindMistake(kind, group);
    if (mistake) {
      issues.error(
        at,
        `health: ${JSON.stringify(key)}: ${mistake.reason}: write ${groupKindText(mistake.kind, mistake.group ?? group)}`,
      );
      continue;
    }
    if (!GROUP_KIND.test(key)) {
      issues.error(
        at,
        `health: ${JSON.stringify(key)} is not a GroupKind: write Kind.group${slash ? ` (${slash[2]}.${slash[1]})` : ''}, as ApplySet annotations do`,
      );
      continue;
    }
    const rule = readRule(key, section.at([key]), issues);
    if (rule) rules.set(key, rule);
  }
  return { rules, issues };
}

/** One rule of the section, or undefined with its problems added to `issues`. */
function readRule(
  groupKind: string,
  value: LocatedValue | undefined,
  issues: IssueList,
): HealthRule | undefined {
  const source = { file: PROJECT_FILE, line: value?.source.line ?? 0 };
  if (!value || !isMapping(value.value)) {
    issues.error(
      source,
      `is not a mapping of ${HEALTH_FIELDS.join(', ')} to CEL expressions`,
      `health rule ${groupKind}`,
    );
    return undefined;
  }
  const fields = value.value;
  let ok = true;
  for (const key of Object.keys(fields))
    if (!(HEALTH_FIELDS as readonly string[]).includes(key)) {
      issues.error(
        { file: PROJECT_FILE, line: value.lineAt([key]) },
        `unknown field ${JSON.stringify(key)}: a rule holds ${HEALTH_FIELDS.join(', ')}`,
        `health rule ${groupKind}`,
      );
      ok = false;
    }
  if (fields.current === undefined) {
    issues.error(
      source,
      'has no `current` expression: a rule says at least when the object is current',
      `health rule ${groupKind}`,
    );
    ok = false;
  }
  const compiled: Partial<Record<HealthField, HealthExpression>> = {};
  // In the file's order, so that its errors read top to bottom.
  for (const field of HEALTH_FIELDS.filter((f) => f in fields).sort(
    (a, b) => value.lineAt([a]) - value.lineAt([b]),
  )) {
    const expression = compileExpression(
      groupKind,
      field,
      fields[field],
      { file: PROJECT_FILE, line: value.lineAt([field]) },
      issues,
    );
    if (expression) compiled[field] = expression;
    else ok = false;
  }
  if (!ok || !compiled.current) return undefined;
  return {
    groupKind,
    source,
    current: compiled.current,
    ...(compiled.failed ? { failed: compiled.failed } : {}),
    ...(compiled.inProgress ? { inProgress: compiled.inProgress } : {}),
  };
}

/** One expression compiled, or undefined with its error added to `issues`. */
function compileExpression(
  groupKind: string,
  field: HealthField,
  text: unknown,
  source: Source,
  issues: IssueList,
): HealthExpression | undefined {
  if (typeof text !== 'string' || text.trim() === '') {
    issues.error(source, `${field}: is not a CEL expression (a string)`, `health rule ${groupKind}`);
    return undefined;
  }
  const compiled = compileCel(text);
  if (typeof compiled !== 'function') {
    issues.error(source, `${field}: ${compiled.error}: ${text.trim()}`, `health rule ${groupKind}`);
    return undefined;
  }
  return { field, text: text.trim(), source, evaluate: compiled };
}

/**
 * A rule from its expressions' texts, for rules spread ships itself.
 *
 * @throws Error when an expression does not compile (a mistake in spread, caught by its tests).
 */
export function healthRule(
  groupKind: string,
  texts: { readonly current: string; readonly failed?: string; readonly inProgress?: string },
  source: Source,
): HealthRule {
  const issues = new IssueList();
  const compiled: Partial<Record<HealthField, HealthExpression>> = {};
  for (const field of HEALTH_FIELDS) {
    const text = texts[field];
    if (text === undefined) continue;
    const expression = compileExpression(groupKind, field, text, source, issues);
    if (expression) compiled[field] = expression;
  }
  if (issues.hasErrors || !compiled.current) throw new Error(issues.issues.map((i) => i.message).join('; '));
  return {
    groupKind,
    source,
    current: compiled.current,
    ...(compiled.failed ? { failed: compiled.failed } : {}),
    ...(compiled.inProgress ? { inProgress: compiled.inProgress } : {}),
  };
}
