// The names a parsed CEL expression uses that its environment lacks, read from the syntax tree: an
// evaluation stops at the first short-circuit (`has(status.x) && stauts.x`), so trying the expression
// on an object never reaches what follows it. The functions are the environment's own (`env.funcs`).
import type { CelEnv, parse } from '@bufbuild/cel';
import { editDistance } from '../base/spelling.js';

type Parsed = ReturnType<typeof parse>;
type Expr = NonNullable<Parsed['expr']>;

/** What an expression may name: its variables, the environment's functions, CEL's own constants. */
export interface CelNames {
  /** The variables the environment binds (`status`). */
  readonly variables: readonly string[];
  /** What the variables are, said after their names in an error (`(the object's fields)`). */
  readonly variablesAre: string;
  /** The environment's functions and methods, as @bufbuild/cel resolves calls. */
  readonly funcs: CelEnv['funcs'];
  /** Whether a name outside the variables is one CEL resolves itself (`int`, `google.protobuf.Timestamp`). */
  readonly isConstant: (name: string) => boolean;
}

/**
 * The mistakes in an expression's names, each with its column: an identifier that is neither a
 * variable nor a variable of an enclosing macro (`exists(c, …)`) nor a CEL constant, a function the
 * environment lacks, a method called as a function (`startsWith(s, 'a')`) or the reverse, and a call
 * with a number of arguments no overload takes. Each names the likely one meant (`startsWith` for
 * `startswith`, `status` for `stauts`).
 */
export function nameErrors(parsed: Parsed, names: CelNames): string[] {
  const errors: string[] = [];
  const positions = parsed.sourceInfo?.positions ?? {};
  // A call with a target is placed at its dot (`x.f(`): its name is one further.
  const column = (node: Expr, after = 0) => {
    const at = positions[String(node.id)];
    return at === undefined ? '' : `column ${at + 1 + after}: `;
  };
  const functions = functionsOf(names.funcs);
  const visit = (node: Expr | undefined, scope: ReadonlySet<string>): void => {
    const kind = node?.exprKind;
    if (!node || !kind) return;
    switch (kind.case) {
      case 'identExpr':
      case 'selectExpr': {
        const name = outsideVariables(node, scope, names);
        if (name === 'constant') return;
        if (name) errors.push(`${column(name.node)}${unknownName(name.root, scope, names)}`);
        else if (kind.case === 'selectExpr') visit(kind.value.operand, scope);
        return;
      }
      case 'callExpr': {
        const { target, args } = kind.value;
        const qualified = target && qualifiedName(target);
        const global = qualified !== undefined && functions.has(`${qualified}.${kind.value.function}`);
        const name = global ? `${qualified}.${kind.value.function}` : kind.value.function;
        const problem = callProblem(name, !global && target !== undefined, args.length, functions);
        if (problem) errors.push(`${column(node, target ? 1 : 0)}${problem}`);
        if (!global) visit(target, scope);
        // A macro the parser left as a call holds its variables unbound (`all(x, y, p)`): said once.
        if (!(problem && MACROS.has(name))) for (const arg of args) visit(arg, scope);
        return;
      }
      case 'listExpr':
        for (const element of kind.value.elements) visit(element, scope);
        return;
      case 'structExpr':
        for (const entry of kind.value.entries) {
          if (entry.keyKind.case === 'mapKey') visit(entry.keyKind.value, scope);
          visit(entry.value, scope);
        }
        return;
      case 'comprehensionExpr': {
        const { iterVar, iterVar2, accuVar, iterRange, accuInit, loopCondition, loopStep, result } =
          kind.value;
        visit(iterRange, scope);
        visit(accuInit, scope);
        const withAccu = new Set([...scope, accuVar]);
        const inLoop = new Set([...withAccu, ...[iterVar, iterVar2].filter((v) => v !== '')]);
        visit(loopCondition, inLoop);
        visit(loopStep, inLoop);
        visit(result, withAccu);
        return;
      }
      default:
        return;
    }
  };
  visit(parsed.expr, new Set());
  return errors;
}

/**
 * A name (`x` or `a.b.c`) whose root identifier is neither a variable nor in scope: `constant` when
 * the dotted name or one of its prefixes is one CEL resolves (a type: `int`, `google.protobuf.Duration`),
 * else its root, unknown. Undefined for a variable's name or what is not a name (`f(x).y`).
 */
function outsideVariables(
  node: Expr,
  scope: ReadonlySet<string>,
  names: CelNames,
): 'constant' | { root: string; node: Expr } | undefined {
  let root = node;
  const parts: string[] = [];
  for (;;) {
    const kind = root.exprKind;
    if (kind.case === 'selectExpr' && !kind.value.testOnly && kind.value.operand) {
      parts.unshift(kind.value.field);
      root = kind.value.operand;
    } else if (kind.case === 'identExpr') {
      parts.unshift(kind.value.name);
      break;
    } else return undefined;
  }
  const [name = ''] = parts;
  if (scope.has(name) || names.variables.includes(name)) return undefined;
  for (let i = parts.length; i > 0; i--) if (names.isConstant(parts.slice(0, i).join('.'))) return 'constant';
  return { root: name, node: root };
}

/** `a.b.c` for a chain of selects on an identifier, as the planner reads a qualified function's name. */
function qualifiedName(node: Expr): string | undefined {
  const kind = node.exprKind;
  if (kind.case === 'identExpr') return kind.value.name;
  if (kind.case !== 'selectExpr' || kind.value.testOnly || !kind.value.operand) return undefined;
  const operand = qualifiedName(kind.value.operand);
  return operand === undefined ? undefined : `${operand}.${kind.value.field}`;
}

function unknownName(name: string, scope: ReadonlySet<string>, names: CelNames): string {
  const macroVariables = [...scope].filter((v) => IDENTIFIER.test(v) && !INTERNAL.test(v));
  const meant = closest(name, [...names.variables, ...macroVariables]);
  const macros =
    macroVariables.length === 0
      ? ''
      : `, and ${macroVariables.join(', ')} of its ${macroVariables.length === 1 ? 'macro' : 'macros'}`;
  return `unknown name ${name}${meant ? ` (did you mean ${meant}?)` : ''}: an expression reads ${names.variables.join(', ')} ${names.variablesAre}${macros}`;
}

/** The argument counts of a function's overloads: called as a function, and as a method. */
interface Forms {
  readonly global: ReadonlySet<number>;
  readonly method: ReadonlySet<number>;
}

const indexes = new WeakMap<object, ReadonlyMap<string, Forms>>();

/** The environment's functions by name, computed once per environment. */
function functionsOf(funcs: CelEnv['funcs']): ReadonlyMap<string, Forms> {
  const known = indexes.get(funcs);
  if (known) return known;
  const index = new Map<string, { global: Set<number>; method: Set<number> }>();
  for (const func of funcs) {
    const forms = index.get(func.name) ?? { global: new Set(), method: new Set() };
    (func.target === undefined ? forms.global : forms.method).add(func.arguments.length);
    index.set(func.name, forms);
  }
  indexes.set(funcs, index);
  return index;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Names the parser gives its own nodes (`__not_strictly_false__`, `__result__`), which the planner handles. */
const INTERNAL = /^__.*__$/;
/** CEL's macros, which the parser expands; one left as a call was written in a shape none takes. */
const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

/**
 * Why a call resolves to no function of the environment, or undefined. Operators (`_==_`, `@in`,
 * `_[_]`) are the parser's, not names written; the planner or the environment has each.
 */
function callProblem(
  name: string,
  method: boolean,
  count: number,
  functions: ReadonlyMap<string, Forms>,
): string | undefined {
  if (!/^[A-Za-z_][A-Za-z0-9_.]*$/.test(name) || INTERNAL.test(name)) return undefined;
  const forms = functions.get(name);
  if (!forms) {
    if (MACROS.has(name)) return `${name}() is a macro: write list.${name}(x, …) with one variable`;
    const meant = closestFunction(
      name,
      [...functions.keys()].filter((f) => IDENTIFIER.test(f.replaceAll('.', '_'))),
    );
    return `unknown function ${name}()${meant ? ` (did you mean ${meant}()?)` : ''}`;
  }
  const counts = method ? forms.method : forms.global;
  if (counts.size === 0)
    return method
      ? `${name}() is a function, not a method: write ${name}(x, …)`
      : `${name}() is a method: write x.${name}(…)`;
  if (counts.has(count)) return undefined;
  const takes = [...counts].sort((a, b) => a - b);
  return `${name}() takes ${takes.join(' or ')} ${takes.length === 1 && takes[0] === 1 ? 'argument' : 'arguments'}, not ${count}`;
}

/** The function meant: the same name in another case, one ending in `.name` (`strings.quote`), or a near one. */
function closestFunction(name: string, candidates: readonly string[]): string | undefined {
  return (
    candidates.find((c) => c.toLowerCase() === name.toLowerCase()) ??
    candidates.find((c) => c.endsWith(`.${name}`)) ??
    closest(name, candidates)
  );
}

/** The candidate nearest to a name by edit distance, if at most 2 edits (and fewer than its length). */
function closest(name: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance <= 2 && distance < name.length && (!best || distance < best.distance))
      best = { name: candidate, distance };
  }
  return best?.name;
}
