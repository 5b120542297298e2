import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { IssueList } from '../../../src/base/source.js';
import { decodeText } from '../../../src/decode/decode.js';
import { pathKey, SourcedValue } from '../../../src/decode/sourced-value.js';
import { newEntity } from '../../../src/entity/index.js';
import { DirectoryInput } from '../../../src/input/index.js';
import {
  type DecodedFile,
  declaredMarks,
  findString,
  markedImages,
  markInKustomizations,
} from '../../../src/input/kustomize-marks.js';

/**
 * Where the `&` marks of a kustomize object were written, from the files of a kustomization tree
 * given as text (the real kustomize's output is in test/integration/kustomize.itg.test.ts), and how
 * the entity stage builds them from there.
 */
const tree: Record<string, string> = {
  'kustomization.yaml': [
    'resources: [../../base]',
    'images:',
    '- name: web',
    '  newName: "&web"',
    '  newTag: v1',
    'patches:',
    '- path: sidecar.yaml',
    '- patch: |-',
    '    - op: replace',
    '      path: /spec/template/spec/containers/2/image',
    '      value: "&inline"',
    '  target: {kind: Deployment}',
    '',
  ].join('\n'),
  'sidecar.yaml': [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata: {name: web}',
    'spec:',
    '  template:',
    '    spec:',
    '      containers:',
    '      - name: sidecar',
    '        image: "&sidecar"',
    '',
  ].join('\n'),
  '../../base/kustomization.yaml': 'resources: [deployment.yaml]\nimages:\n- name: db\n  newName: "&db"\n',
  '../../base/deployment.yaml': [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata: {name: web}',
    'spec:',
    '  template:',
    '    spec:',
    '      containers:',
    '      - name: web',
    '        image: web',
    '      - name: api',
    '        image: "&api"',
    '',
  ].join('\n'),
};
const root = (p: string) => (p.startsWith('../../') ? p.slice(6) : `overlays/prod/${p}`);
const read = (p: string): DecodedFile | undefined =>
  tree[p] === undefined ? undefined : { file: root(p), documents: decodeText(root(p), tree[p]!).values };
const kustomization = (dir: string) => {
  const name = dir === '.' ? 'kustomization.yaml' : `${dir}/kustomization.yaml`;
  return tree[name] === undefined ? undefined : name;
};
const inTree = (mark: string) => markInKustomizations(mark, read, kustomization);

describe('markInKustomizations', () => {
  test.each([
    ['&web:v1', 'overlays/prod/kustomization.yaml', 4],
    ['&web', 'overlays/prod/kustomization.yaml', 4],
    ['&sidecar', 'overlays/prod/sidecar.yaml', 9],
    ['&inline', 'overlays/prod/kustomization.yaml', 8],
    // The base's own images: entry, reached through resources.
    ['&db', 'base/kustomization.yaml', 4],
  ])('%s is written at %s:%i', (mark, file, line) => {
    expect(inTree(mark)).toEqual({ file, line });
  });

  test('a mark no kustomization sets', () => {
    expect(inTree('&api')).toBeUndefined();
    expect(inTree('&webby')).toBeUndefined();
  });
});

describe('declaredMarks', () => {
  const rendered = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'prod-web' },
    spec: {
      template: {
        spec: {
          containers: [
            { name: 'web', image: '&web:v1' },
            { name: 'api', image: '&api' },
            { name: 'sidecar', image: '&sidecar' },
          ],
        },
      },
    },
  };
  const own = read('../../base/deployment.yaml')!.documents[0];
  const containers = ['spec', 'template', 'spec', 'containers'];

  test('each mark where it was written: the object file when it holds it there, else a kustomization', () => {
    const declared = declaredMarks(rendered, own, inTree);
    expect(Object.fromEntries(declared)).toEqual({
      [pathKey([...containers, 0, 'image'])]: { file: 'overlays/prod/kustomization.yaml', line: 4 },
      [pathKey([...containers, 1, 'image'])]: { file: 'base/deployment.yaml', line: 11 },
      [pathKey([...containers, 2, 'image'])]: { file: 'overlays/prod/sidecar.yaml', line: 9 },
    });
  });

  test('the image stage builds the directory of the file that declares each mark', () => {
    const value = new SourcedValue(
      rendered,
      { file: 'base/deployment.yaml', line: 1 },
      declaredMarks(rendered, own, inTree),
    );
    const issues = new IssueList();
    const deployment = newEntity('Deployment', value, { dir: 'overlays/prod' }, issues);
    expect(issues.issues).toEqual([]);
    expect(deployment?.pod.containers.map((c) => [c.name, c.image.build])).toEqual([
      [
        'web',
        { contextDir: 'overlays/prod', declaredIn: { file: 'overlays/prod/kustomization.yaml', line: 4 } },
      ],
      ['api', { contextDir: 'base', declaredIn: { file: 'base/deployment.yaml', line: 11 } }],
      [
        'sidecar',
        { contextDir: 'overlays/prod', declaredIn: { file: 'overlays/prod/sidecar.yaml', line: 9 } },
      ],
    ]);
  });

  test('a mark found nowhere is at the object, built from the rendered folder', () => {
    const lone = {
      ...rendered,
      spec: { template: { spec: { containers: [{ name: 'x', image: '&lone' }] } } },
    };
    const value = new SourcedValue(
      lone,
      { file: 'base/deployment.yaml', line: 1 },
      declaredMarks(lone, own, inTree),
    );
    const deployment = newEntity('Deployment', value, { dir: 'overlays/prod' }, new IssueList());
    expect(deployment?.pod.containers[0]?.image.build).toEqual({
      contextDir: 'overlays/prod',
      declaredIn: { file: 'base/deployment.yaml', line: 1 },
    });
  });
});

test('markedImages and findString walk every field', () => {
  expect(markedImages({ a: [{ image: '&x' }, { image: 'y' }], b: { image: '&z' } })).toEqual([
    { path: ['a', 0, 'image'], mark: '&x' },
    { path: ['b', 'image'], mark: '&z' },
  ]);
  expect(findString({ a: [1, { b: 'hit' }] }, (s) => s === 'hit')).toEqual(['a', 1, 'b']);
  expect(findString({ a: 'miss' }, (s) => s === 'hit')).toBeUndefined();
});

test("the walk hands a renderer's SourcedValue to the entity stage as it is", async () => {
  const root = mkdtempSync(path.join(tmpdir(), 'spread-marks-'));
  try {
    mkdirSync(path.join(root, 'overlays/prod'), { recursive: true });
    writeFileSync(path.join(root, 'overlays/prod/kustomization.yaml'), 'resources: [../../base]\n');
    const object = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { template: { spec: { containers: [{ name: 'web', image: '&web' }] } } },
    };
    const mark = { file: 'overlays/prod/kustomization.yaml', line: 4 };
    const declared = new Map([[pathKey(['spec', 'template', 'spec', 'containers', 0, 'image']), mark]]);
    const app = await new DirectoryInput(root, {
      renderers: {
        kustomize: async () => ({
          objects: [new SourcedValue(object, { file: 'base/deployment.yaml', line: 1 }, declared)],
          issues: [],
          tool: 'kustomize v5.8.2',
        }),
      },
    }).entity();
    expect(app.images().map((i) => i.build)).toEqual([{ contextDir: 'overlays/prod', declaredIn: mark }]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
