// The CEL side of health rules: an expression compiled once (parsed, planned, its names checked
// against the environment, and tried on an object without fields so that type mistakes show when the
// project file is read), then evaluated against live objects. @bufbuild/cel evaluates; spread only binds the object.
import type * as Cel from '@bufbuild/cel';
import type * as CelExt from '@bufbuild/cel/ext';
import { type CelNames, nameErrors } from './cel-names.js';
import { type CelResultType, resultTypes } from './cel-result-type.js';

/**
 * The variables an expression sees: the object's top-level fields, as Flux's `healthCheckExprs` binds
 * them (`status.conditions…`, `metadata.generation`, `spec.replicas`). An object without a `status`
 * (its controller has not written one yet) is bound with an empty one, so `has(status.x)` answers.
 */
export const HEALTH_VARIABLES = ['apiVersion', 'kind', 'metadata', 'spec', 'status'] as const;

/** The environment expressions are planned in: {@link HEALTH_VARIABLES}, and CEL's string extensions. */
function healthEnv({ CelScalar, celEnv, mapType }: typeof Cel, { strings }: typeof CelExt) {
  return celEnv({
    variables: {
      apiVersion: CelScalar.STRING,
      kind: CelScalar.STRING,
      metadata: mapType(CelScalar.STRING, CelScalar.DYN),
      spec: mapType(CelScalar.STRING, CelScalar.DYN),
      status: mapType(CelScalar.STRING, CelScalar.DYN),
    },
    funcs: strings,
  });
}
type Env = ReturnType<typeof healthEnv>;

/** The values bound to {@link HEALTH_VARIABLES}, as the planned program takes them. */
type Bindings = Parameters<ReturnType<typeof Cel.plan<Env extends Cel.CelEnv<infer V> ? V : never>>>[0];

/**
 * @bufbuild/cel, its health environment and the `matches` check, loaded on the first compile: a
 * deploy with no health rule to compile (no spread.yaml health section, no Rollout or Certificate)
 * never runs the module's top level, which cost every deploy peak RSS and CPU time (bench/RESULTS.md,
 * "Before and after the deploy's stages (issue 40), in one run"). `require` of an ES module is
 * synchronous in Node 24, so the compile stays synchronous; the bundler runs the module's top level
 * when it is first required.
 */
let loaded:
  | { cel: typeof Cel; env: Env; names: CelNames; matches: (bindings: { pattern: string }) => unknown }
  | undefined;
function cel() {
  if (loaded) return loaded;
  // Reads as `require` of the bundle's own copy once built (scripts/build.mjs bundles every import).
  const module = require('@bufbuild/cel') as typeof Cel;
  const { celEnv, CelScalar, isCelError, parse, plan } = module;
  // `matches` on a pattern: CEL's own, so that a pattern is compiled as every evaluation compiles it (RE2).
  const matches = plan(celEnv({ variables: { pattern: CelScalar.STRING } }), parse("''.matches(pattern)"));
  const env = healthEnv(module, require('@bufbuild/cel/ext') as typeof CelExt);
  const names: CelNames = {
    variables: HEALTH_VARIABLES,
    variablesAre: "(the object's fields)",
    funcs: env.funcs,
    // A name CEL resolves without a variable (a type: `int`, `google.protobuf.Timestamp`) evaluates alone.
    isConstant: (name) => {
      try {
        return !isCelError(plan(env, parse(name))({} as Bindings));
      } catch {
        return false;
      }
    },
  };
  loaded = { cel: module, env, names, matches };
  return loaded;
}

/** A compiled expression: true or false for an object, or the evaluation's error (a field it lacks). */
export type CompiledCel = (object: Readonly<Record<string, unknown>>) => boolean | Error;

/**
 * Errors an evaluation gives for an object that lacks a field (`status.phase` before the controller
 * wrote it): expected of objects in progress, so not mistakes in the expression.
 */
const MISSING_FIELD = /field not found|no such key|index out of (bounds|range)/i;

/** Whether CEL has been loaded (by a compile) in this process. */
export function celLoaded(): boolean {
  return loaded !== undefined;
}

/**
 * Compiles a CEL expression that answers true or false for an object.
 *
 * @returns the compiled expression, or the reason it does not compile: a syntax error (with its
 *   column), a name that is not one of {@link HEALTH_VARIABLES} or a function the environment does
 *   not have (read from the tree, with its column: {@link nameErrors}), a type mistake seen on an
 *   object without fields, or a result that is not a bool.
 */
export function compileCel(text: string): CompiledCel | { error: string } {
  const { cel: celModule, env } = cel();
  const { isCelError, parse, plan } = celModule;
  let program: (bindings: Bindings) => unknown;
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(text);
    const planned = plan(env, parsed);
    program = (bindings) => planned(bindings);
  } catch (error) {
    return {
      error: `syntax error: ${(error as Error).message.replace(/^<input>:(\d+):(\d+): /, 'column $2: ')}`,
    };
  }
  // Read from the tree: an evaluation stops at a short-circuit (`has(status.x) && stauts.x`), and a
  // pattern is compiled only when `matches` runs: on an object without the field, never here.
  const mistakes = [...nameErrors(parsed, cel().names), ...patternErrors(parsed)];
  if (mistakes.length > 0) return { error: mistakes.join('; ') };
  // Typed before it is tried: `status.ready ? 1 : 2` fails on an object without fields for its
  // missing field, before its int shows.
  const notBool = notBoolResult(parsed);
  if (notBool) return { error: notBool };
  const evaluate: CompiledCel = (object) => {
    const result = program(bindingsOf(object));
    if (isCelError(result)) return new Error(result.message);
    if (typeof result !== 'boolean') return new Error(`gives ${describe(result)}, not a bool`);
    return result;
  };
  // Tried on an object without fields: what fails there for another reason than a missing field
  // fails on every object.
  const tried = evaluate({});
  if (tried instanceof Error && !MISSING_FIELD.test(tried.message)) return { error: explain(tried.message) };
  return evaluate;
}

/** The types of the variables, as {@link healthEnv} declares them. */
const VARIABLE_TYPES: ReadonlyMap<string, ReadonlySet<CelResultType>> = new Map(
  HEALTH_VARIABLES.map((name) => [
    name,
    new Set([name === 'apiVersion' || name === 'kind' ? 'string' : 'map']),
  ]),
);

/**
 * Why an expression's result is not a bool, read from its syntax tree: a type it can give that is
 * neither bool nor one only evaluation knows (`dyn`, a field of the object). As the API server's CEL
 * and Flux's `healthCheckExprs` require a bool (or dyn) output type when the expression is compiled.
 */
function notBoolResult(parsed: ReturnType<typeof Cel.parse>): string | undefined {
  const types = resultTypes(parsed.expr, VARIABLE_TYPES);
  const wrong = [...types].filter((t) => t !== 'bool' && t !== 'dyn');
  if (wrong.length === 0) return undefined;
  const named = wrong.map(article).join(' or ');
  return types.size > wrong.length ? `may give ${named}, not a bool` : `gives ${named}, not a bool`;
}

function article(type: CelResultType): string {
  if (type === 'null') return 'null';
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

/**
 * The errors of the constant patterns of `matches` calls (`s.matches('…')`, `matches(s, '…')`) in a
 * parsed expression, each with its column: compiled as CEL compiles them, with RE2 (the CEL spec's
 * regular expressions), which rejects what JavaScript accepts (lookaround `(?=`, backreferences
 * `\1`, possessive `a++`, `\Z`) and accepts what it rejects (`(?P<name>…)`, `[[:alpha:]]`, `\z`).
 * A pattern that is not a constant is compiled only when evaluated.
 */
function patternErrors(parsed: ReturnType<typeof Cel.parse>): string[] {
  const { cel: celModule, matches } = cel();
  const errors: string[] = [];
  const positions = parsed.sourceInfo?.positions ?? {};
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object' || node instanceof Uint8Array) return;
    const call = node as { $typeName?: string; function?: string; target?: unknown; args?: unknown[] };
    if (call.$typeName === 'cel.expr.Expr.Call' && call.function === 'matches') {
      const pattern = (call.target ? call.args?.[0] : call.args?.[1]) as
        | {
            id?: bigint;
            exprKind?: { case?: string; value?: { constantKind?: { case?: string; value?: unknown } } };
          }
        | undefined;
      const constant =
        pattern?.exprKind?.case === 'constExpr' ? pattern.exprKind.value?.constantKind : undefined;
      if (constant?.case === 'stringValue' && typeof constant.value === 'string') {
        const result = matches({ pattern: constant.value });
        const at = positions[String(pattern?.id ?? '')];
        if (celModule.isCelError(result))
          errors.push(
            `${at === undefined ? '' : `column ${at + 1}: `}invalid regular expression ${JSON.stringify(constant.value)} in matches() (RE2 syntax, as CEL reads it): ${result.message}`,
          );
      }
    }
    for (const value of Object.values(node)) visit(value);
  };
  visit(parsed.expr);
  return errors;
}

/** A CEL error's message, with the variables named when it is an unknown name. */
function explain(message: string): string {
  if (/unresolved attribute/.test(message))
    return `${message}: an expression reads ${HEALTH_VARIABLES.join(', ')} (the object's fields)`;
  return message;
}

function describe(value: unknown): string {
  if (typeof value === 'bigint') return 'an int';
  if (typeof value === 'number') return 'a double';
  if (typeof value === 'string') return 'a string';
  if (value === null) return 'null';
  return 'a value';
}

/** The object's top-level fields as CEL values, those of {@link HEALTH_VARIABLES} always bound. */
function bindingsOf(object: Readonly<Record<string, unknown>>): Bindings {
  const bound: Record<string, unknown> = {};
  for (const name of HEALTH_VARIABLES) {
    const value = object[name];
    bound[name] =
      value === undefined || value === null
        ? name === 'apiVersion' || name === 'kind'
          ? ''
          : new Map()
        : celValue(value);
  }
  return bound as Bindings;
}

/**
 * A JSON value as CEL sees it: mappings as maps, and whole numbers as ints (Kubernetes' integer
 * fields, so that `status.readyReplicas == spec.replicas` and `observedGeneration == 2` compare ints,
 * as in the API server's own CEL).
 */
function celValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(celValue);
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (value !== null && typeof value === 'object')
    return new Map(Object.entries(value).map(([k, v]) => [k, celValue(v)]));
  return value;
}
