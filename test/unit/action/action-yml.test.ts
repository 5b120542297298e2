// action.yml read the way the runners read it. GitHub's runner (actions/runner, src/Runner.Worker/
// action_yaml.json) and act (its action schema, the same rules) evaluate `${{ … }}` only in a few
// places of an action's metadata; anywhere else the action fails to load ("expressions are not allowed
// here" in act, "Unrecognized named-value" in GitHub's runner) before it runs a line.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the fixtures are GitHub Actions expressions, not templates
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/**
 * Where the runner evaluates expressions in action metadata, as dotted paths (`*` one key, `**` any
 * depth): input defaults, a composite action's output values and steps, a Docker action's args and
 * env, and the pre/post conditions.
 */
const EXPRESSION_PLACES = [
  'inputs.*.default',
  'outputs.*.value',
  'runs.steps.**',
  'runs.args.*',
  'runs.env.*',
  'runs.pre-if',
  'runs.post-if',
];

const INPUT_KEYS = new Set(['description', 'required', 'default', 'deprecationMessage']);

function allowed(keys: readonly string[]): boolean {
  return EXPRESSION_PLACES.some((place) => {
    const parts = place.split('.');
    for (let i = 0; i < parts.length; i++) {
      if (parts[i] === '**') return keys.length > i;
      if (i >= keys.length || (parts[i] !== '*' && parts[i] !== keys[i])) return false;
    }
    return keys.length === parts.length;
  });
}

/**
 * Problems of action metadata text, as `action.yml:LINE: message`: a YAML error, an expression where
 * the runner allows none, an input without a description or with a default that is not a string,
 * an input key the runner does not know.
 */
function checkActionYaml(text: string, file = 'action.yml'): string[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const at = (node: Node | null | undefined) =>
    `${file}:${node?.range ? lines.linePos(node.range[0]).line : 0}`;
  const problems = doc.errors.map((e) => `${file}:${lines.linePos(e.pos[0]).line}: ${e.message}`);
  if (problems.length > 0) return problems;

  const walk = (node: unknown, keys: string[]): void => {
    if (isMap(node) || isSeq(node)) {
      node.items.forEach((item, index) => {
        if (isMap(node)) {
          const pair = item as { key: unknown; value: unknown };
          walk(pair.value, [...keys, String(isScalar(pair.key) ? pair.key.value : pair.key)]);
        } else walk(item, [...keys, String(index)]);
      });
    } else if (
      isScalar(node) &&
      typeof node.value === 'string' &&
      node.value.includes('${{') &&
      !allowed(keys)
    )
      problems.push(`${at(node)}: ${keys.join('.')}: expressions are not allowed here`);
  };
  walk(doc.contents, []);

  const inputs = doc.get('inputs');
  if (isMap(inputs)) {
    for (const pair of inputs.items) {
      const name = String(isScalar(pair.key) ? pair.key.value : pair.key);
      const input = pair.value;
      if (!isMap(input)) {
        problems.push(`${at(pair.key as Node)}: inputs.${name}: expected a mapping`);
        continue;
      }
      for (const key of input.items)
        if (isScalar(key.key) && !INPUT_KEYS.has(String(key.key.value)))
          problems.push(`${at(key.key)}: inputs.${name}.${key.key.value}: not a key of an action input`);
      const description = input.get('description', true);
      if (!isScalar(description) || typeof description.value !== 'string' || description.value.trim() === '')
        problems.push(`${at(input)}: inputs.${name}: no description`);
      const dflt = input.get('default', true);
      if (!isScalar(dflt) || typeof dflt.value !== 'string')
        problems.push(`${at(dflt ?? input)}: inputs.${name}: the default is not a string`);
    }
  }
  return problems;
}

describe('checkActionYaml', () => {
  test.each<[string, string, string[]]>([
    [
      'an expression in a description (the defect act found)',
      "inputs:\n  kubeconfig:\n    description: 'Example: ${{ secrets.KUBECONFIG }}'\n    default: ''\n",
      ['action.yml:3: inputs.kubeconfig.description: expressions are not allowed here'],
    ],
    [
      'an expression in a default is evaluated',
      "inputs:\n  token:\n    description: the token\n    default: '${{ github.token }}'\n",
      [],
    ],
    [
      "an expression in the action's name or an output description",
      "name: x ${{ github.sha }}\noutputs:\n  o:\n    description: '${{ x }}'\n",
      [
        'action.yml:1: name: expressions are not allowed here',
        'action.yml:4: outputs.o.description: expressions are not allowed here',
      ],
    ],
    [
      "a composite action's steps and output values are evaluated",
      "outputs:\n  o:\n    description: d\n    value: '${{ steps.a.outputs.o }}'\nruns:\n  using: composite\n  steps:\n    - run: echo ${{ inputs.a }}\n      shell: bash\n",
      [],
    ],
    [
      'an expression in runs.main',
      "runs:\n  using: node24\n  main: '${{ env.X }}'\n",
      ['action.yml:3: runs.main: expressions are not allowed here'],
    ],
    [
      'an input without a description, a default that is a boolean, an unknown key',
      'inputs:\n  a:\n    default: true\n  b:\n    description: b\n    default: x\n    type: string\n',
      [
        'action.yml:3: inputs.a: no description',
        'action.yml:3: inputs.a: the default is not a string',
        'action.yml:7: inputs.b.type: not a key of an action input',
      ],
    ],
    [
      'an input without a default',
      'inputs:\n  a:\n    description: a\n',
      ['action.yml:3: inputs.a: the default is not a string'],
    ],
    [
      'broken YAML',
      'inputs:\n  a: [\n',
      ['action.yml:3: Flow sequence in block collection must be sufficiently indented and end with a ]'],
    ],
  ])('%s', (_name, text, problems) => {
    expect(checkActionYaml(text)).toEqual(problems);
  });
});

describe("the project's action.yml", () => {
  const text = readFileSync(path.join(ROOT, 'action.yml'), 'utf8');
  const action = parseDocument(text).toJS() as {
    inputs: Record<string, unknown>;
    runs: { using: string; main: string };
  };

  test('loads as the runner loads it: expressions only where allowed, every input described with a string default', () => {
    expect(checkActionYaml(text)).toEqual([]);
  });

  test('runs the committed bundle with Node 24', () => {
    expect(action.runs.using).toBe('node24');
    expect(existsSync(path.join(ROOT, action.runs.main))).toBe(true);
  });
});
