import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { actionText } from '../../../src/action/logger.js';
import { phraseOptions } from '../../../src/base/option-ref.js';
import { flagSpelling } from '../../../src/frontend/settings.js';
import {
  environmentForBranch,
  environmentNamed,
  normalizeServer,
  previewEnvironment,
  previewNamespace,
  readEnvironments,
  singleCluster,
} from '../../../src/project/environments.js';
import { readProjectFile } from '../../../src/project/file.js';
import { loadEnvironments } from '../../../src/project/load.js';

function read(text: string) {
  const dir = mkdtempSync(join(tmpdir(), 'spread-envs-'));
  writeFileSync(join(dir, 'spread.yaml'), text);
  const project = readProjectFile(dir);
  expect(project.issues).toEqual([]);
  const section = project.project?.sections.environments;
  if (section === undefined) throw new Error('no environments section');
  return readEnvironments(section);
}

const UID_A = '0b6f2f8e-3c1a-4e5b-9d7c-1a2b3c4d5e6f';

const THREE = `environments:
  preview:
    context: dev
    preview: true
    namespace: web
  staging:
    context: cluster-a
    namespace: web
    server: https://127.0.0.1:6443/
    kubeSystemUID: ${UID_A}
    branches: [main]
    path: overlays/staging
    helmValues: values-staging.yaml
    helmSet: { replicaCount: 1, ingress.enabled: true }
  production:
    after: staging
    branches: ["release/**"]
    clusters:
      - { name: eu, context: prod-eu, namespace: web-eu }
`;

describe('readEnvironments', () => {
  test('a declaration gives typed environments in declaration order', () => {
    const { declaration, issues } = read(THREE);
    expect(issues).toEqual([]);
    const [preview, staging, production] = declaration?.environments ?? [];
    expect(preview).toMatchObject({
      name: 'preview',
      index: 0,
      preview: { namespace: 'web-pr-{pr}' },
      clusters: [{ name: 'dev', context: 'dev' }],
    });
    expect(preview?.namespace).toBeUndefined();
    expect(staging).toEqual({
      name: 'staging',
      index: 1,
      source: { file: 'spread.yaml', line: 7 },
      namespace: 'web',
      clusters: [
        {
          name: 'cluster-a',
          context: 'cluster-a',
          server: 'https://127.0.0.1:6443/',
          kubeSystemUID: UID_A,
          serverSource: { file: 'spread.yaml', line: 9 },
          kubeSystemUIDSource: { file: 'spread.yaml', line: 10 },
          source: { file: 'spread.yaml', line: 7 },
        },
      ],
      path: 'overlays/staging',
      helmValues: ['values-staging.yaml'],
      helmSet: { replicaCount: '1', 'ingress.enabled': 'true' },
      branches: ['main'],
    });
    expect(production).toMatchObject({
      index: 2,
      after: 'staging',
      clusters: [{ name: 'eu', context: 'prod-eu', namespace: 'web-eu', source: { line: 19 } }],
    });
  });

  test('an environment with nothing set deploys to the current context', () => {
    const { declaration } = read('environments:\n  staging:\n');
    expect(declaration?.environments[0]).toMatchObject({
      name: 'staging',
      clusters: [{ name: 'staging' }],
      helmValues: [],
      branches: [],
    });
  });

  test.each([
    ['environments: [a]', [[1, 'environments is a mapping of environment name to its settings']]],
    [
      'environments:\n  Prod: {}',
      [[2, 'Prod: is not a DNS label (lowercase letters, digits and -, at most 63)']],
    ],
    [
      'environments:\n  all: {}',
      [[2, 'all: "all" is reserved: `--environment all` means every environment']],
    ],
    ['environments:\n  a: 3', [[2, 'a: is not a mapping of settings (context, namespace, path, branches…)']]],
    [
      'environments:\n  a:\n    replicas: 3',
      [
        [
          3,
          'a: unknown field "replicas": an environment holds context, namespace, server, kubeSystemUID, clusters, path, helmValues, helmSet, branches, after, preview, waves',
        ],
      ],
    ],
    [
      'environments:\n  a:\n    namespace: Web_1\n    server: 127.0.0.1:6443\n    kubeSystemUID: abc',
      [
        [3, 'a: namespace Web_1 is not a DNS label (lowercase letters, digits and -, at most 63)'],
        [4, 'a: server 127.0.0.1:6443 is not an http(s):// URL'],
        [5, "a: kubeSystemUID abc is not a uid (the kube-system Namespace's metadata.uid, lowercase)"],
      ],
    ],
    [
      'environments:\n  production:\n    after: staging\n  staging: {}',
      [[3, 'production: after: "staging" is not an environment declared before this one']],
    ],
    [
      'environments:\n  a:\n    path: ../other\n    branches: [1]\n    helmSet: { a: [1] }',
      [
        [3, "a: path ../other is a folder inside the deployment's directory (relative, without ..)"],
        [4, 'a: branches is a list of non-empty strings'],
        [5, 'a: helmSet is a mapping of KEY: scalar value (Helm --set)'],
      ],
    ],
    [
      'environments:\n  a:\n    context: x\n    clusters:\n      - context: b\n      - context: b\n      - context: true',
      [
        [3, 'a: context: goes inside each entry of clusters: when the environment lists its clusters'],
        [6, 'a: cluster "b" is listed twice (entries 1 and 2)'],
        [7, 'a: clusters.2.context is a non-empty string (quote true)'],
      ],
    ],
    [
      'environments:\n  a: {}\n  pr:\n    after: a\n    preview: { namespace: web }',
      [
        [4, 'pr: a preview environment is not promoted to: drop after:'],
        [5, 'pr: a preview namespace holds {pr}, the pull request number'],
      ],
    ],
  ])('%j: every problem at its line', (text, expected) => {
    const { declaration, issues } = read(text);
    expect(declaration).toBeUndefined();
    expect(issues.map((i) => [i.source.line, i.object ? `${i.object}: ${i.message}` : i.message])).toEqual(
      expected,
    );
  });
});

describe('looking environments up', () => {
  const declaration = read(THREE).declaration;
  if (declaration === undefined) throw new Error('unreachable');

  test.each([
    ['main', 'staging'],
    ['release/1.2', 'production'],
    ['feature/x', undefined],
  ])('a push of %s deploys to %s (previews are never a branch target)', (branch, name) => {
    expect(environmentForBranch(declaration, branch)?.name).toBe(name);
  });

  test('by name, the preview, its namespace, its one cluster', () => {
    expect(environmentNamed(declaration, 'production')?.index).toBe(2);
    expect(environmentNamed(declaration, 'qa')).toBeUndefined();
    const preview = previewEnvironment(declaration);
    expect(preview?.name).toBe('preview');
    expect(previewNamespace(preview?.preview ?? { namespace: '' }, 42)).toBe('web-pr-42');
    expect(singleCluster(declaration.environments[1] as never).context).toBe('cluster-a');
  });

  test("a fleet environment is refused by a one-cluster command, pointing to each front end's cluster setting", () => {
    const fleet = read('environments:\n  p:\n    clusters: [{ context: a }, { context: b }]\n').declaration;
    let message = '';
    try {
      singleCluster(fleet?.environments[0] as never);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(actionText(message)).toBe(
      'environment p is a fleet of 2 clusters (a, b); this takes one: name it with the input cluster (deploy and plan take one cluster of a fleet)',
    );
    expect(phraseOptions(message, flagSpelling)).toMatch(/name it with --cluster \(/);
  });
});

describe('loadEnvironments and normalizeServer', () => {
  test('a directory without the section has none; a bad section throws every issue', () => {
    const dir = mkdtempSync(join(tmpdir(), 'spread-envs-'));
    expect(loadEnvironments(dir)).toBeUndefined();
    writeFileSync(join(dir, 'spread.yaml'), 'environments:\n  A: {}\n  b: { path: /x }\n');
    expect(() => loadEnvironments(dir)).toThrow(
      /spread.yaml:2: A: is not a DNS label[\s\S]*spread.yaml:3: b: path/,
    );
    writeFileSync(join(dir, 'spread.yaml'), 'environments:\n  b: { context: x }\n');
    expect(loadEnvironments(dir)?.environments[0]?.clusters[0]?.context).toBe('x');
  });

  test("every section's errors at once, each at its line, in the order of the file", () => {
    const dir = mkdtempSync(join(tmpdir(), 'spread-envs-'));
    writeFileSync(
      join(dir, 'spread.yaml'),
      [
        'environments:',
        '  staging: { context: x, colour: blue }',
        'health:',
        '  Widget.example.com: { current: "true", colour: "x" }',
        'drift:',
        '  ignoreEverything: true',
        '',
      ].join('\n'),
    );
    let message = '';
    try {
      loadEnvironments(dir);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/3 errors/);
    expect(message).toMatch(
      /spread\.yaml:2: .*colour[\s\S]*spread\.yaml:4: .*Widget[\s\S]*spread\.yaml:6: .*ignoreEverything/,
    );
  });

  // YAML 1.1 (kubectl's, for objects) reads on/yes/no/y/n as booleans; spread.yaml is read as YAML 1.2's
  // core schema, as editors read it, so these stay the strings written.
  test('on:, yes, no, y and n stay strings (YAML 1.2 core schema), as keys and as values', () => {
    const dir = mkdtempSync(join(tmpdir(), 'spread-envs-'));
    writeFileSync(
      join(dir, 'spread.yaml'),
      [
        'environments:',
        '  staging:',
        '    context: x',
        '    helmSet:',
        '      on: push',
        '      yes: no',
        '      feature.y: n',
        '      replicas: 2',
        '      enabled: true',
        '',
      ].join('\n'),
    );
    expect(loadEnvironments(dir)?.environments[0]?.helmSet).toEqual({
      on: 'push',
      yes: 'no',
      'feature.y': 'n',
      replicas: '2',
      enabled: 'true',
    });
  });

  test.each([
    ['https://API.example.com:443/', 'https://api.example.com'],
    ['https://127.0.0.1:6443', 'https://127.0.0.1:6443'],
    ['http://h:80/k8s/', 'http://h/k8s'],
    [' not a url ', 'not a url'],
  ])('%s compares as %s', (server, normal) => {
    expect(normalizeServer(server)).toBe(normal);
  });
});
