// The types a parsed CEL expression can give, read from its syntax tree, for the check that a health
// expression is a bool. @bufbuild/cel 0.6.1 has a checker (`check`, `outputType`), but does not export
// it and it types only constants and names ("Unsupported expression kind: callExpr"), so this reads the
// few node kinds a result's type follows from, and says `dyn` where only evaluation would know.
import type { parse } from '@bufbuild/cel';

/** A CEL type as far as the result check needs it; `dyn` when the tree does not say. */
export type CelResultType =
  | 'bool'
  | 'int'
  | 'uint'
  | 'double'
  | 'string'
  | 'bytes'
  | 'null'
  | 'list'
  | 'map'
  | 'duration'
  | 'timestamp'
  | 'dyn';

type Expr = NonNullable<ReturnType<typeof parse>['expr']>;

/** The return types of the functions and operators of CEL's standard library and its strings extension. */
const RETURNS: Readonly<Record<string, CelResultType>> = {
  ...Object.fromEntries(
    [
      '_&&_',
      '_||_',
      '!_',
      '_==_',
      '_!=_',
      '_<_',
      '_<=_',
      '_>_',
      '_>=_',
      '@in',
      '@not_strictly_false',
      'matches',
      'startsWith',
      'endsWith',
      'contains',
      'bool',
    ].map((f) => [f, 'bool']),
  ),
  ...Object.fromEntries(
    [
      'size',
      'int',
      'indexOf',
      'lastIndexOf',
      'getFullYear',
      'getMonth',
      'getDayOfYear',
      'getDayOfMonth',
      'getDate',
      'getDayOfWeek',
      'getHours',
      'getMinutes',
      'getSeconds',
      'getMilliseconds',
    ].map((f) => [f, 'int']),
  ),
  ...Object.fromEntries(
    [
      'string',
      'lowerAscii',
      'upperAscii',
      'replace',
      'substring',
      'trim',
      'charAt',
      'format',
      'join',
      'reverse',
      'strings.quote',
    ].map((f) => [f, 'string']),
  ),
  double: 'double',
  uint: 'uint',
  bytes: 'bytes',
  split: 'list',
  duration: 'duration',
  timestamp: 'timestamp',
};

/** Arithmetic keeps its operands' type when both have the same one (`1 + 2` is an int). */
const ARITHMETIC = new Set(['_+_', '_-_', '_*_', '_/_', '_%_', '-_']);

/**
 * The types an expression can give: one, or several for a conditional whose branches differ
 * (`x ? true : 'no'`), `dyn` for a value read from the object (`status.ready`) or a call whose type
 * only evaluation knows.
 *
 * @param names the types of the names in scope: the variables, and the macros' own inside them.
 */
export function resultTypes(
  expr: Expr | undefined,
  names: ReadonlyMap<string, ReadonlySet<CelResultType>>,
): ReadonlySet<CelResultType> {
  const kind = expr?.exprKind;
  switch (kind?.case) {
    case 'constExpr':
      return new Set([constantType(kind.value.constantKind.case)]);
    case 'identExpr':
      return names.get(kind.value.name) ?? DYN;
    case 'selectExpr':
      return kind.value.testOnly ? new Set(['bool']) : DYN;
    case 'listExpr':
      return new Set(['list']);
    case 'structExpr':
      return kind.value.messageName === '' ? new Set(['map']) : DYN;
    case 'comprehensionExpr': {
      const { accuVar, accuInit, iterVar, iterVar2, result } = kind.value;
      const inner = new Map(names);
      for (const name of [iterVar, iterVar2]) if (name) inner.set(name, DYN);
      inner.set(accuVar, resultTypes(accuInit, names));
      return resultTypes(result, inner);
    }
    case 'callExpr':
      return callTypes(kind.value, names);
    default:
      return DYN;
  }
}

const DYN: ReadonlySet<CelResultType> = new Set(['dyn']);

function callTypes(
  call: { function: string; args: Expr[] },
  names: ReadonlyMap<string, ReadonlySet<CelResultType>>,
): ReadonlySet<CelResultType> {
  if (call.function === '_?_:_')
    return new Set([...resultTypes(call.args[1], names), ...resultTypes(call.args[2], names)]);
  const known = RETURNS[call.function];
  if (known) return new Set([known]);
  if (ARITHMETIC.has(call.function)) {
    const operands = call.args.map((a) => resultTypes(a, names));
    const types = new Set(operands.flatMap((o) => [...o]));
    const [type] = types;
    if (types.size === 1 && type && ['int', 'uint', 'double', 'string', 'bytes', 'list'].includes(type))
      return types;
  }
  return DYN;
}

function constantType(constant: string | undefined): CelResultType {
  switch (constant) {
    case 'boolValue':
      return 'bool';
    case 'int64Value':
      return 'int';
    case 'uint64Value':
      return 'uint';
    case 'doubleValue':
      return 'double';
    case 'stringValue':
      return 'string';
    case 'bytesValue':
      return 'bytes';
    case 'nullValue':
      return 'null';
    default:
      return 'dyn';
  }
}
