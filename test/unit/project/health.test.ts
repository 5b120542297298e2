import { describe, expect, test } from 'vitest';
import { decodeText } from '../../../src/decode/decode.js';
import { evaluateHealth, type HealthRule, readHealthRules } from '../../../src/project/health.js';

/** The `health` section of a spread.yaml holding `text`, read into rules. */
function rulesOf(text: string) {
  const document = decodeText('spread.yaml', text).values[0];
  return readHealthRules(document?.at(['health']));
}

const WIDGET = `health:
  Widget.example.com:
    current: status.phase == 'Ready'
    failed: status.phase == 'Failed' || (has(status.retries) && status.retries > 3)
    inProgress: has(status.observedGeneration) && status.observedGeneration < metadata.generation
`;

describe('readHealthRules', () => {
  test('a rule per GroupKind, each expression compiled with its line', () => {
    const { rules, issues } = rulesOf(WIDGET);
    expect(issues.issues).toEqual([]);
    const rule = rules.get('Widget.example.com');
    expect(rule?.source).toEqual({ file: 'spread.yaml', line: 3 });
    expect(rule?.current).toMatchObject({
      field: 'current',
      text: "status.phase == 'Ready'",
      source: { line: 3 },
    });
    expect(rule?.failed?.source.line).toBe(4);
    expect(rule?.inProgress?.source.line).toBe(5);
  });

  test('no section: no rules, no issue', () => {
    expect(rulesOf('drift: {}\n').rules.size).toBe(0);
  });

  test('a matches() pattern RE2 rejects is an error when read, at its line, all at once; RE2-only syntax passes', () => {
    const { rules, issues } = rulesOf(`health:
  Widget.example.com:
    current: has(status.phase) && status.phase.matches('^(Ready|Done)$')
    failed: has(status.message) && status.message.matches('error(?=:)')
    inProgress: matches(status.reason, '(a)\\1') || status.reason.matches('[')
  Gadget.example.com:
    current: status.name.matches('(?P<id>[[:alpha:]]+)\\z')
`);
    expect(issues.issues.map((i) => [i.source.line, i.object, i.message])).toEqual([
      [
        4,
        'health rule Widget.example.com',
        expect.stringMatching(
          /^failed: column 47: invalid regular expression "error\(\?=:\)" in matches\(\) \(RE2 syntax, as CEL reads it\): error parsing regexp: invalid or unsupported Perl syntax: `\(\?=`/,
        ),
      ],
      [
        5,
        'health rule Widget.example.com',
        expect.stringMatching(
          /^inProgress: column 1: matches\(\) is a method: write x\.matches\(…\); column \d+: invalid regular expression "\(a\)\\\\1" .*invalid escape sequence: `\\1`; column \d+: invalid regular expression "\[" .*missing closing \]/,
        ),
      ],
    ]);
    // The RE2-only pattern compiles, and is evaluated as RE2 reads it.
    const gadget = rules.get('Gadget.example.com')!;
    expect(evaluateHealth(gadget, { status: { name: 'abc' } }).status).toBe('Current');
  });

  test('a name or function the environment lacks is an error when read, even after a short-circuit, naming the one meant', () => {
    // Evaluation stops at `has(status.phase)` on an object without fields: only the tree sees the rest.
    const { rules, issues } = rulesOf(`health:
  Database.example.com:
    current: has(status.phase) && status.phase == 'Ready'
    failed: has(status.phase) && stauts.phase == 'Failed'
    inProgress: has(status.phase) && status.phase.startswith('Prov')
  Widget.example.com:
    current: "status.phase == 'x' || nosuchvar"
    failed: has(status.x) && startsWith(status.x, 'a')
    inProgress: has(status.x) && status.x.startsWith()
  Gadget.example.com:
    current: has(status.x) && status.x.lowerascii() != '' && status.items.all(item, has(item.ok) && itme.ok)
    failed: status.items.all(i, j, j.failed)
`);
    expect(issues.issues.map((i) => [i.source.line, i.object, i.message])).toEqual([
      [
        4,
        'health rule Database.example.com',
        "failed: column 22: unknown name stauts (did you mean status?): an expression reads apiVersion, kind, metadata, spec, status (the object's fields): has(status.phase) && stauts.phase == 'Failed'",
      ],
      [
        5,
        'health rule Database.example.com',
        "inProgress: column 35: unknown function startswith() (did you mean startsWith()?): has(status.phase) && status.phase.startswith('Prov')",
      ],
      [
        7,
        'health rule Widget.example.com',
        "current: column 24: unknown name nosuchvar: an expression reads apiVersion, kind, metadata, spec, status (the object's fields): status.phase == 'x' || nosuchvar",
      ],
      [
        8,
        'health rule Widget.example.com',
        "failed: column 18: startsWith() is a method: write x.startsWith(…): has(status.x) && startsWith(status.x, 'a')",
      ],
      [
        9,
        'health rule Widget.example.com',
        'inProgress: column 27: startsWith() takes 1 argument, not 0: has(status.x) && status.x.startsWith()',
      ],
      [
        11,
        'health rule Gadget.example.com',
        "current: column 27: unknown function lowerascii() (did you mean lowerAscii()?); column 88: unknown name itme (did you mean item?): an expression reads apiVersion, kind, metadata, spec, status (the object's fields), and item of its macro: has(status.x) && status.x.lowerascii() != '' && status.items.all(item, has(item.ok) && itme.ok)",
      ],
      [
        12,
        'health rule Gadget.example.com',
        'failed: column 14: all() is a macro: write list.all(x, …) with one variable: status.items.all(i, j, j.failed)',
      ],
    ]);
    expect(rules.size).toBe(0);
  });

  test("CEL's own names pass: a macro's variable, type names, qualified functions, both forms of size", () => {
    const { rules, issues } = rulesOf(`health:
  Widget.example.com:
    current: status.items.exists(c, c.type == 'Ready' && status.items.all(d, d.name != c.name || d == c))
    failed: has(status.x) && type(status.x) == string && strings.quote(status.x) != '' && size(status.x) == status.x.size()
    inProgress: has(status.t) && timestamp(status.t) > timestamp('2020-01-01T00:00:00Z') && int(status.n) > 0
  Gadget.example.com:
    current: type(status.t) == google.protobuf.Timestamp || status.items.map(i, i.ok, i.name).size() > 0
`);
    expect(issues.issues).toEqual([]);
    expect([...rules.keys()]).toEqual(['Widget.example.com', 'Gadget.example.com']);
  });

  test('a result that is not a bool is an error at its line, even where the object lacks the field it reads', () => {
    // `status.ready ? 1 : 2` fails on an object without fields for `status.ready`, before its int shows:
    // only the expression's type says it never gives a bool.
    const { rules, issues } = rulesOf(`health:
  Widget.example.com:
    current: "status.ready ? 1 : 2"
    failed: "has(status.phase) ? status.phase == 'Failed' : 'unknown'"
    inProgress: status.items.map(i, i.ready)
  Gadget.example.com:
    current: "status.ready ? status.phase == 'Ready' : false"
    failed: status.items.exists_one(i, i.failed) || status.reason
`);
    expect(issues.issues.map((i) => [i.source.line, i.object, i.message])).toEqual([
      [3, 'health rule Widget.example.com', 'current: gives an int, not a bool: status.ready ? 1 : 2'],
      [
        4,
        'health rule Widget.example.com',
        "failed: may give a string, not a bool: has(status.phase) ? status.phase == 'Failed' : 'unknown'",
      ],
      [
        5,
        'health rule Widget.example.com',
        'inProgress: gives a list, not a bool: status.items.map(i, i.ready)',
      ],
    ]);
    // A value read from the object may be a bool: only evaluation knows, as in the API server's CEL (dyn).
    expect([...rules.keys()]).toEqual(['Gadget.example.com']);
  });

  test('a GroupKind that names no object is an error at its line naming the one meant', () => {
    const { rules, issues } = rulesOf(`health:
  deployment.apps:
    current: 'true'
  Deployment:
    current: 'true'
  rollout.argoproj.io:
    current: 'true'
  Configmap:
    current: 'true'
  Deployment.example.com:
    current: 'true'
`);
    expect(issues.issues.map((i) => [i.source.line, i.message])).toEqual([
      [
        3,
        'health: "deployment.apps": kinds are case-sensitive: "deployment" names no object; the built-in kind is Deployment: write Deployment.apps',
      ],
      [5, 'health: "Deployment": Deployment is not in the core group but in apps: write Deployment.apps'],
      [
        7,
        'health: "rollout.argoproj.io": kinds are case-sensitive and start upper-case: "rollout" names no object: write Rollout.argoproj.io',
      ],
      [
        9,
        'health: "Configmap": kinds are case-sensitive: "Configmap" names no object; the built-in kind is ConfigMap: write ConfigMap',
      ],
    ]);
    // A custom resource may share a built-in kind's name in its own group.
    expect([...rules.keys()]).toEqual(['Deployment.example.com']);
  });

  test('every mistake at its line, naming the GroupKind, all at once', () => {
    const { rules, issues } = rulesOf(`health:
  Widget.example.com:
    current: status.conditions.exists(c, c.type == 'Ready' &&
    failed: phase == 'Failed'
  Gadget.example.com:
    current: status.size()
    failed: nosuch(status)
    inProgress: status.startsWith('x')
  Other.example.com:
    failed: status.phase == 'Failed'
    ready: status.phase == 'Ready'
  argoproj.io/Rollout:
    current: 'true'
  Bad.example.com: true
  Empty.example.com:
    current: ''
`);
    expect(rules.size).toBe(0);
    expect(issues.issues.map((i) => [i.source.line, i.object, i.message])).toEqual([
      [3, 'health rule Widget.example.com', expect.stringMatching(/^current: syntax error: .*exists/)],
      [
        4,
        'health rule Widget.example.com',
        expect.stringMatching(
          /^failed: column 1: unknown name phase: an expression reads apiVersion, kind, metadata, spec, status/,
        ),
      ],
      [6, 'health rule Gadget.example.com', 'current: gives an int, not a bool: status.size()'],
      [
        7,
        'health rule Gadget.example.com',
        expect.stringMatching(/^failed: column 1: unknown function nosuch\(\): nosuch\(status\)$/),
      ],
      [
        8,
        'health rule Gadget.example.com',
        expect.stringMatching(/^inProgress: found no matching overload for 'startsWith'/),
      ],
      [
        11,
        'health rule Other.example.com',
        'unknown field "ready": a rule holds inProgress, failed, current',
      ],
      [10, 'health rule Other.example.com', expect.stringMatching(/has no `current` expression/)],
      // A mapping's line is its first entry's.
      [
        13,
        undefined,
        'health: "argoproj.io/Rollout" is not a GroupKind: write Kind.group (Rollout.argoproj.io), as ApplySet annotations do',
      ],
      [14, 'health rule Bad.example.com', expect.stringMatching(/is not a mapping/)],
      [16, 'health rule Empty.example.com', 'current: is not a CEL expression (a string)'],
    ]);
    expect(issues.issues.every((i) => i.source.file === 'spread.yaml' && i.severity === 'error')).toBe(true);
  });
});

describe('evaluateHealth: inProgress, then failed, then current, as Flux evaluates healthCheckExprs', () => {
  const rule = rulesOf(WIDGET).rules.get('Widget.example.com') as HealthRule;
  const widget = (status?: object, generation = 2) => ({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w', generation },
    spec: {},
    ...(status ? { status } : {}),
  });
  test.each([
    ['current', widget({ phase: 'Ready', observedGeneration: 2 }), 'Current', 'current'],
    ['failed', widget({ phase: 'Failed' }), 'Failed', 'failed'],
    ['failed by an int comparison', widget({ phase: 'Pending', retries: 4 }), 'Failed', 'failed'],
    [
      'inProgress wins over current',
      widget({ phase: 'Ready', observedGeneration: 1 }),
      'InProgress',
      'inProgress',
    ],
    ['nothing matches: in progress', widget({ phase: 'Pending' }), 'InProgress', undefined],
    [
      'no status yet: in progress, the missing field an error not a failure',
      widget(),
      'InProgress',
      undefined,
    ],
  ])('%s', (_name, object, status, matched) => {
    const verdict = evaluateHealth(rule, object);
    expect(verdict.status).toBe(status);
    expect(verdict.matched?.field).toBe(matched);
  });

  test('an expression that errs on an object does not match, and the error is kept', () => {
    const verdict = evaluateHealth(rule, widget());
    expect(verdict.errors).toEqual(['failed: field not found: phase', 'current: field not found: phase']);
  });
});
