// The fleet keys of spread.yaml's environments (src/project/fleet-waves.ts): waves in order, "the
// rest", at most N at once, soak times, per-cluster Helm values, and every problem at its line.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { environmentNamed, readEnvironments } from '../../../src/project/environments.js';
import { readProjectFile } from '../../../src/project/file.js';
import { fleetWaves } from '../../../src/project/fleet-waves.js';

function read(text: string) {
  const dir = mkdtempSync(join(tmpdir(), 'spread-fleet-'));
  writeFileSync(join(dir, 'spread.yaml'), text);
  const project = readProjectFile(dir);
  expect(project.issues).toEqual([]);
  const section = project.project?.sections.environments;
  if (section === undefined) throw new Error('no environments section');
  return readEnvironments(section);
}

const FLEET = `environments:
  production:
    namespace: web
    helmSet: { replicas: 2 }
    clusters:
      - { name: eu-1, context: prod-eu-1, helmSet: { region: eu-west-1 } }
      - { name: eu-2, context: prod-eu-2, helmSet: { region: eu-west-2 }, helmValues: eu.yaml }
      - { name: us-1, context: prod-us-1 }
      - { name: us-2, context: prod-us-2 }
    waves:
      - name: canary
        clusters: [eu-1]
        soak: 1m30s
      - name: rest
        maxParallel: 2
`;

const lines = (issues: readonly { source: { line: number }; message: string }[]) =>
  issues.map((i) => `${i.source.line}: ${i.message}`);

describe('fleet declaration', () => {
  test('waves in order; the last without clusters: holds the rest; per-cluster values', () => {
    const { declaration, issues } = read(FLEET);
    expect(issues).toEqual([]);
    const production = environmentNamed(declaration!, 'production')!;
    expect(production.waves?.map((w) => [w.name, w.clusters, w.maxParallel, w.soakMs])).toEqual([
      ['canary', ['eu-1'], undefined, 90_000],
      ['rest', ['eu-2', 'us-1', 'us-2'], 2, undefined],
    ]);
    expect(production.waves?.map((w) => w.source.line)).toEqual([11, 14]);
    expect(production.clusters.map((c) => [c.name, c.helmSet, c.helmValues])).toEqual([
      ['eu-1', { region: 'eu-west-1' }, undefined],
      ['eu-2', { region: 'eu-west-2' }, ['eu.yaml']],
      ['us-1', undefined, undefined],
      ['us-2', undefined, undefined],
    ]);
  });

  test('without waves: one wave of every cluster, in their order', () => {
    const { declaration } = read(FLEET.replace(/ {4}waves:[\s\S]*$/, ''));
    const production = environmentNamed(declaration!, 'production')!;
    expect(production.waves).toBeUndefined();
    expect(fleetWaves(production).map((w) => [w.name, w.clusters])).toEqual([
      ['all', ['eu-1', 'eu-2', 'us-1', 'us-2']],
    ]);
  });

  test.each([
    [
      'a cluster in no wave, an unknown one, one twice',
      `      - { name: canary, clusters: [eu-1, eu-9] }
      - { name: rest, clusters: [eu-1, eu-2, us-1] }
`,
      [
        '11: cluster "eu-9" is not one of the environment\'s clusters (eu-1, eu-2, us-1, us-2)',
        '11: cluster us-2 is in no wave: name it in one, or leave clusters: out of the last wave (the rest)',
        '12: cluster "eu-1" is in wave canary already: a cluster is in one wave',
      ],
    ],
    [
      'a wave before the last without clusters, a bad name, maxParallel and soak',
      `      - { name: Canary, maxParallel: 0, soak: soon }
      - { name: rest, colour: blue }
`,
      [
        '11: a wave has a name: a DNS label (lowercase letters, digits and -), e.g. canary',
        '11: a wave names its clusters (only the last wave may leave clusters: out, for the rest)',
        '11: maxParallel is a whole number ≥ 1',
        '11: soak "soon" is not a duration (e.g. 90s, 5m, 1m30s)',
        '12: unknown field "colour": a wave holds name, clusters, maxParallel, soak',
      ],
    ],
    [
      "a wave named as the report stage, one as another wave's batch of maxParallel",
      `      - { name: fleet-report, clusters: [eu-1] }
      - { name: rest-2, clusters: [eu-2] }
      - { name: rest, maxParallel: 1 }
`,
      [
        "11: wave name fleet-report is the fleet's report job in GitLab's child pipeline: rename the wave",
        "12: wave name rest-2 is also wave rest's batch 2 of 2 (maxParallel: a stage per batch in GitLab's child pipeline): rename the wave",
      ],
    ],
    [
      'a wave named twice',
      `      - { name: canary, clusters: [eu-1] }
      - { name: canary }
`,
      ['12: wave "canary" is listed twice'],
    ],
  ])('%s: every error at its line', (_what, waves, expected) => {
    const text = FLEET.replace(/( {4}waves:\n)[\s\S]*$/, `$1${waves}`);
    const { declaration, issues } = read(text);
    expect(declaration).toBeUndefined();
    expect(lines(issues)).toEqual(expected);
  });

  test.each([
    [
      'a cluster without context',
      FLEET.replace('{ name: us-1, context: prod-us-1 }', '{ name: us-1 }'),
      [
        '8: cluster "us-1" names no context: in a fleet each cluster names its kubeconfig context, or every cluster deploys to the current context, the same place',
      ],
    ],
    [
      'two clusters with the same context and namespace',
      FLEET.replace('context: prod-us-2', 'context: prod-us-1'),
      [
        '9: cluster "us-2" is the same place as cluster "us-1" (context prod-us-1, namespace web): a fleet deploys each place once',
      ],
    ],
  ])('a fleet deploys each place once: %s is an error at its line', (_what, text, expected) => {
    const { declaration, issues } = read(text);
    expect(declaration).toBeUndefined();
    expect(lines(issues)).toEqual(expected);
  });

  // A GitLab variable left unexpanded in spread.yaml.
  const TOKEN = ['$', '{CI_JOB_TOKEN}'].join('');
  test('cluster names are DNS labels, a context standing for a missing name too: all errors at their lines', () => {
    const text = FLEET.replace('name: eu-1,', 'name: "eu 1",')
      .replace('name: eu-2,', `name: "${TOKEN}",`)
      .replace('name: us-1,', 'name: Us_1,')
      .replace('{ name: us-2, context: prod-us-2 }', '{ context: "acme/infra:eu" }')
      .replace(/ {4}waves:[\s\S]*$/, '');
    const { declaration, issues } = read(text);
    expect(declaration).toBeUndefined();
    expect(lines(issues)).toEqual([
      '6: cluster name "eu 1" is not a DNS label (lowercase letters, digits and -, at most 63): it names the cluster\'s CI job and report artifact',
      `7: cluster name "${TOKEN}" is not a DNS label (lowercase letters, digits and -, at most 63): it names the cluster's CI job and report artifact`,
      '8: cluster name "Us_1" is not a DNS label (lowercase letters, digits and -, at most 63): it names the cluster\'s CI job and report artifact',
      '9: cluster of context "acme/infra:eu" needs a name: (a DNS label, e.g. eu-1): the context is not one, and the cluster\'s name goes into CI job and artifact names',
    ]);
  });

  test('a cluster without name whose context is a DNS label takes the context as its name', () => {
    const text = FLEET.replace('{ name: us-2, context: prod-us-2 }', '{ context: prod-us-2 }');
    expect(read(text).issues).toEqual([]);
  });

  test('the same context in two namespaces is two places', () => {
    const text = FLEET.replace('context: prod-us-2 }', 'context: prod-us-1, namespace: web-2 }');
    expect(read(text).issues).toEqual([]);
  });
});
