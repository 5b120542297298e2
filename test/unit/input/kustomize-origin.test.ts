import { describe, expect, test } from 'vitest';
import { decodeText } from '../../../src/decode/decode.js';
import { errorSource, kustomizeError, redactLiterals } from '../../../src/input/kustomize-errors.js';
import {
  type BuildPaths,
  cutTransformations,
  folderRelative,
  generatorLine,
  objectLine,
  parseOrigin,
  rootRelative,
  takeOrigin,
} from '../../../src/input/kustomize-origin.js';

/**
 * The mapping from kustomize's origin annotations (as `kustomize build` of spread's wrapper
 * kustomization prints them) back to the user's files; the runs of the real kustomize are in
 * test/integration/kustomize.itg.test.ts.
 */
const paths: BuildPaths = {
  wrapper: '/tmp/spread-kustomize-x',
  folder: '/repo/deploy/overlays/prod',
  dir: 'deploy/overlays/prod',
};
const wrapperToFolder = '../../repo/deploy/overlays/prod';

const withOrigin = (origin: string, more: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'prod-web', annotations: { 'config.kubernetes.io/origin': origin, ...more } },
});

describe('origin paths', () => {
  test.each([
    [
      `${wrapperToFolder}/../../base/deployment.yaml`,
      '../../base/deployment.yaml',
      'deploy/base/deployment.yaml',
    ],
    [`${wrapperToFolder}/patch.yaml`, 'patch.yaml', 'deploy/overlays/prod/patch.yaml'],
    [
      `${wrapperToFolder}/kustomization.yaml`,
      'kustomization.yaml',
      'deploy/overlays/prod/kustomization.yaml',
    ],
  ])('%s is %s from the folder, %s from the root', (given, fromFolder, fromRoot) => {
    expect(folderRelative(paths, given)).toBe(fromFolder);
    expect(rootRelative(paths, fromFolder)).toBe(fromRoot);
  });

  test('the input root itself', () => {
    expect(rootRelative({ ...paths, dir: '.' }, '../base/x.yaml')).toBe('../base/x.yaml');
    expect(rootRelative({ ...paths, dir: '.' }, 'x.yaml')).toBe('x.yaml');
  });
});

describe('takeOrigin', () => {
  const none = { originAnnotations: false, transformerAnnotations: false };

  test('the annotation spread asked for is removed, and the annotations map with it when left empty', () => {
    const object = withOrigin(`path: ${wrapperToFolder}/../../base/cm.yaml\n`);
    expect(takeOrigin(object, paths, none)).toEqual({ path: '../../base/cm.yaml' });
    expect(object.metadata).toEqual({ name: 'prod-web' });
  });

  test("the user's own annotations stay", () => {
    const object = withOrigin(`path: ${wrapperToFolder}/cm.yaml\n`, { team: 'a' });
    takeOrigin(object, paths, none);
    expect(object.metadata.annotations).toEqual({ team: 'a' });
  });

  test('asked for by the user too: kept, with the paths `kustomize build FOLDER` prints', () => {
    const object = withOrigin(
      `configuredIn: ${wrapperToFolder}/../../base/kustomization.yaml\nconfiguredBy:\n  apiVersion: builtin\n  kind: ConfigMapGenerator\n`,
      {
        'alpha.config.kubernetes.io/transformations': `- configuredIn: ${wrapperToFolder}/kustomization.yaml\n  configuredBy:\n    apiVersion: builtin\n    kind: PrefixTransformer\n`,
      },
    );
    const origin = takeOrigin(object, paths, { originAnnotations: true, transformerAnnotations: true });
    expect(origin).toEqual({
      configuredIn: '../../base/kustomization.yaml',
      configuredBy: { apiVersion: 'builtin', kind: 'ConfigMapGenerator', name: undefined },
    });
    expect(object.metadata.annotations).toEqual({
      'config.kubernetes.io/origin':
        'configuredIn: ../../base/kustomization.yaml\nconfiguredBy:\n  apiVersion: builtin\n  kind: ConfigMapGenerator\n',
      'alpha.config.kubernetes.io/transformations':
        '- configuredIn: kustomization.yaml\n  configuredBy:\n    apiVersion: builtin\n    kind: PrefixTransformer\n',
    });
  });

  test('a remote base keeps its repository path', () => {
    const object = withOrigin(
      'path: examples/helloWorld/deployment.yaml\nrepo: https://github.com/org/repo\nref: v1\n',
    );
    expect(takeOrigin(object, paths, none)).toEqual({
      path: 'examples/helloWorld/deployment.yaml',
      repo: 'https://github.com/org/repo',
      ref: 'v1',
    });
  });

  test('no annotation, or not one kustomize wrote', () => {
    expect(takeOrigin({ kind: 'ConfigMap', metadata: { name: 'a' } }, paths, none)).toBeUndefined();
    expect(parseOrigin('[unclosed')).toBeUndefined();
    expect(parseOrigin('- a list')).toBeUndefined();
  });
});

describe('objectLine', () => {
  const file = decodeText(
    'base/all.yaml',
    [
      'apiVersion: v1',
      'kind: Service',
      'metadata: {name: web}',
      '---',
      'apiVersion: v1',
      'kind: Service',
      'metadata: {name: web-api}',
      '---',
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: {name: web}',
      '',
    ].join('\n'),
  ).values;

  test.each([
    ['Service', 'web', 1],
    ['Service', 'web-api', 5],
    // namePrefix and nameSuffix: the longest name the rendered one holds.
    ['Service', 'prod-web-api-v2', 5],
    ['Service', 'prod-web', 1],
    // renamed beyond recognition, but the only Deployment of the file.
    ['Deployment', 'other', 9],
    ['ConfigMap', 'web', 0],
  ])('%s %s starts at line %i', (kind, name, line) => {
    expect(objectLine(file, kind, name)).toBe(line);
  });
});

describe('generatorLine', () => {
  const kustomization = decodeText(
    'base/kustomization.yaml',
    [
      'resources: [deployment.yaml]',
      'configMapGenerator:',
      '- name: web',
      '  literals: [A=1]',
      '- name: web-extra',
      '  literals: [B=2]',
      'secretGenerator:',
      '- name: creds',
      '  literals: [C=3]',
      'helmCharts:',
      '- name: redis',
      '  releaseName: cache',
      '',
    ].join('\n'),
  ).values[0]!;

  test.each([
    ['ConfigMapGenerator', 'prod-web-89g4tffbfk', 3],
    ['ConfigMapGenerator', 'prod-web-extra-5hk2dbd7c9', 5],
    // No entry fits: the field's list (its first line).
    ['ConfigMapGenerator', 'unrelated', 3],
    ['SecretGenerator', 'creds-2m8f7c5b6d', 8],
    // A chart's objects are named by the chart, not by the entry: its only entry.
    ['HelmChartInflationGenerator', 'cache-master', 11],
    ['SomePlugin', 'x', 0],
  ])('%s object %s: line %i', (generator, name, line) => {
    expect(generatorLine(kustomization, generator, name)).toBe(line);
  });
});

describe("kustomize's errors", () => {
  const folder = '/repo/deploy/overlays/prod';
  const wrapper = '/tmp/spread-kustomize-x';
  const stderr = `Error: accumulating resources: accumulation err='accumulating resources from '${wrapperToFolder}': '${folder}' must resolve to a file': recursed accumulation of path '${folder}': trouble configuring builtin PatchTransformer with config: \`\npath: replicas.yaml\n\`: unable to parse SM or JSON patch from [path: "replicas.yaml"]\n`;

  test("the wrapper's part of the message is left out", () => {
    expect(kustomizeError(stderr, { folder, wrapper })).toBe(
      'trouble configuring builtin PatchTransformer with config: `\npath: replicas.yaml\n`: unable to parse SM or JSON patch from [path: "replicas.yaml"]',
    );
    expect(kustomizeError('Error: something else\n', { folder, wrapper })).toBe('something else');
  });

  test('an error is at the kustomization of the folder when it names no file that exists', () => {
    expect(errorSource(stderr, paths, 'kustomization.yaml')).toEqual({
      file: 'deploy/overlays/prod/kustomization.yaml',
      line: 0,
    });
  });
});

test("generator literals in kustomize's errors are redacted (they may be a Secret's)", () => {
  expect(
    redactLiterals(
      'loading KV pairs: literal sources [password=s3cr3t-value bad]: invalid literal source bad, expected key=value',
    ),
  ).toBe(
    'loading KV pairs: literal sources [password=<redacted> bad]: invalid literal source bad, expected key=value',
  );
  expect(
    redactLiterals(
      'trouble configuring builtin SecretGenerator with config: `\nliterals:\n- token=abc=def\nname: db\n`',
    ),
  ).toBe(
    'trouble configuring builtin SecretGenerator with config: `\nliterals:\n- token=<redacted>\nname: db\n`',
  );
  expect(redactLiterals('patch:\n- op: replace\n')).toBe('patch:\n- op: replace\n');
});

describe('cutTransformations', () => {
  const annotation = (indent: string) =>
    `${indent}alpha.config.kubernetes.io/transformations: |\n${indent}  - configuredIn: ../prod/kustomization.yaml\n${indent}    configuredBy:\n${indent}      kind: PatchTransformer\n`;
  test("each document's annotation is cut out and kept by the line its document starts at", () => {
    const output = `apiVersion: v1\nkind: Service\nmetadata:\n  annotations:\n${annotation('    ')}    config.kubernetes.io/origin: |\n      path: base/svc.yaml\n  name: web\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  annotations:\n${annotation('    ')}  name: settings\n`;
    const { text, byLine } = cutTransformations(output);
    expect(text).toBe(
      'apiVersion: v1\nkind: Service\nmetadata:\n  annotations:\n    config.kubernetes.io/origin: |\n      path: base/svc.yaml\n  name: web\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n',
    );
    const cut = '- configuredIn: ../prod/kustomization.yaml\n  configuredBy:\n    kind: PatchTransformer\n';
    expect([...byLine]).toEqual([
      [1, cut],
      [9, cut],
    ]);
  });
});
