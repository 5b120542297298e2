// Which overlay patches changed a rendered object: kustomize's transformations annotation names the
// kustomization whose patch transformers ran, and each of its patch entries is matched against the
// object (a target selector, else the kind and name of the patch's documents), as kustomize does.
import { describe, expect, test } from 'vitest';
import { decodeText } from '../../../src/decode/decode.js';
import type { Origin } from '../../../src/input/kustomize-origin.js';
import { annotationSources, patchSources } from '../../../src/input/kustomize-patches.js';

/** Files of an overlay beside its base, relative to the rendered folder `prod` (the input root's `prod/`). */
const FILES: Record<string, string> = {
  'kustomization.yaml': `resources: [../base]
namePrefix: prod-
patches:
- path: replicas.yaml
- path: ops.yaml
  target: {kind: Service, name: web}
- patch: |-
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: worker
    spec:
      replicas: 5
patchesStrategicMerge:
- memory.yaml
`,
  'replicas.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n',
  'ops.yaml': '- op: replace\n  path: /spec/ports/0/port\n  value: 8080\n',
  'memory.yaml':
    '# both\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: other}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {paused: false}\n',
};
const files = {
  documents: (relative: string) =>
    FILES[relative] === undefined ? [] : decodeText(`prod/${relative}`, FILES[relative]).values,
};
const ran = (kind: string): Origin => ({
  configuredIn: 'kustomization.yaml',
  configuredBy: { apiVersion: 'builtin', kind },
});
const patchers = [ran('PatchTransformer'), ran('PatchStrategicMergeTransformer'), ran('PrefixTransformer')];

describe('patchSources', () => {
  test('a Deployment named in two patch files: each at the document naming it, in the order kustomize applies them', () => {
    const web = { apiVersion: 'apps/v1', kind: 'Deployment', names: ['web', 'prod-web'] };
    expect(patchSources(web, patchers, files)).toEqual([
      { file: 'prod/memory.yaml', line: 6 },
      { file: 'prod/replicas.yaml', line: 1 },
    ]);
  });

  test('a target selector picks the Service; an inline patch is placed at its entry', () => {
    const service = { apiVersion: 'v1', kind: 'Service', names: ['web', 'prod-web'] };
    expect(patchSources(service, patchers, files)).toEqual([{ file: 'prod/ops.yaml', line: 1 }]);
    const worker = { apiVersion: 'apps/v1', kind: 'Deployment', names: ['worker', 'prod-worker'] };
    expect(patchSources(worker, patchers, files)).toEqual([{ file: 'prod/kustomization.yaml', line: 7 }]);
  });

  test('no patch transformer ran over the object, or none names it: no patches', () => {
    const web = { apiVersion: 'apps/v1', kind: 'Deployment', names: ['web', 'prod-web'] };
    expect(patchSources(web, [ran('PrefixTransformer')], files)).toEqual([]);
    const other = { apiVersion: 'v1', kind: 'Secret', names: ['web', 'prod-web'] };
    expect(patchSources(other, patchers, files)).toEqual([]);
  });

  test("a target's label selector is checked against the object's labels (equality terms)", () => {
    const tree = {
      documents: (relative: string) =>
        relative === 'kustomization.yaml'
          ? decodeText(
              'prod/kustomization.yaml',
              'patches:\n- path: ops.yaml\n  target:\n    kind: Deployment\n    labelSelector: tier=web,!legacy\n',
            ).values
          : files.documents(relative),
    };
    const web = (labels: Record<string, string>) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      names: ['web'],
      labels,
    });
    expect(patchSources(web({ tier: 'web' }), patchers, tree)).toEqual([{ file: 'prod/ops.yaml', line: 1 }]);
    expect(patchSources(web({ tier: 'db' }), patchers, tree)).toEqual([]);
    expect(patchSources(web({ tier: 'web', legacy: 'yes' }), patchers, tree)).toEqual([]);
  });
});

describe('annotationSources', () => {
  // An overlay `prod` setting commonAnnotations over a base `base`, whose own document sets one too.
  const OVERLAY: Record<string, string> = {
    'kustomization.yaml': `resources: [../base]
commonAnnotations:
  spread.rsprd.com/wave: "x1"
  team: shop
`,
    '../base/kustomization.yaml': 'resources: [cm.yaml]\ncommonAnnotations:\n  team: base\n  owner: base\n',
    '../base/cm.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    spread.rsprd.com/phase: before\n',
  };
  const overlay = {
    documents: (relative: string) =>
      OVERLAY[relative] === undefined
        ? []
        : decodeText(`prod/${relative}`.replace('prod/../', ''), OVERLAY[relative]).values,
  };
  const cm = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    names: ['c'],
    // owner: a patch of the overlay changed the base's value, which is then not where it is set.
    annotations: {
      'spread.rsprd.com/phase': 'before',
      'spread.rsprd.com/wave': 'x1',
      team: 'shop',
      owner: 'patched',
    },
  };
  const own = overlay.documents('../base/cm.yaml')[0];
  const folder = { file: 'prod/kustomization.yaml', line: 0 };
  const annotators: Origin[] = [
    {
      configuredIn: '../base/kustomization.yaml',
      configuredBy: { apiVersion: 'builtin', kind: 'AnnotationsTransformer' },
    },
    {
      configuredIn: 'kustomization.yaml',
      configuredBy: { apiVersion: 'builtin', kind: 'AnnotationsTransformer' },
    },
  ];

  test("each at its line in the kustomization whose value the object has; the base's own annotation is not one", () => {
    expect(annotationSources(cm, own, annotators, overlay, folder)).toEqual({
      'spread.rsprd.com/wave': { file: 'prod/kustomization.yaml', line: 3 },
      team: { file: 'prod/kustomization.yaml', line: 4 },
    });
  });

  test('without transformations from kustomize: what the own document lacks, at the folder, line 0', () => {
    expect(annotationSources(cm, own, [], overlay, folder)).toEqual({
      'spread.rsprd.com/wave': folder,
      team: folder,
      owner: folder,
    });
    // A generated object has no own document to compare with: nothing is guessed.
    expect(annotationSources(cm, undefined, [], overlay, folder)).toEqual({});
  });
});
