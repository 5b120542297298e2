import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { deploymentOf } from '../../../src/deployment/index.js';
import { Controller } from '../../../src/entity/index.js';
import { DirectoryInput, type ObjectValue } from '../../../src/input/index.js';
import type { Renderers, RenderRequest, RenderResult } from '../../../src/input/render.js';
import { errorsOf } from './input-errors.js';

const fixture = (name: string) => `test/fixtures/rendered/${name}`;

/** A renderer that records what it was asked and answers `answer(request)` (default: one ConfigMap named after the folder). */
function fake(answer?: (r: RenderRequest) => Partial<RenderResult>, delay?: (r: RenderRequest) => number) {
  const calls: RenderRequest[] = [];
  const renderer = async (request: RenderRequest): Promise<RenderResult> => {
    calls.push(request);
    if (delay) await new Promise((r) => setTimeout(r, delay(request)));
    const name = request.dir === '.' ? 'root' : request.dir.replaceAll('/', '-');
    const base: RenderResult = {
      objects: [
        {
          value: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${request.kind}-${name}` } },
          source: { file: request.dir === '.' ? 'out.yaml' : `${request.dir}/out.yaml`, line: 1 },
        },
      ],
      issues: [],
      tool: `${request.kind} v0-fake`,
    };
    return { ...base, ...answer?.(request) };
  };
  return { renderer, calls };
}

function both() {
  const kustomize = fake();
  const helm = fake();
  const renderers: Renderers = { kustomize: kustomize.renderer, helm: helm.renderer };
  const calls = () => [...kustomize.calls, ...helm.calls].map((c) => `${c.kind} ${c.dir}`).sort();
  return { renderers, calls, kustomize, helm };
}

describe('the walk hands kustomizations and charts to their renderers', () => {
  test.each([
    [
      'overlay',
      ['kustomize overlays/prod'],
      [
        'overlays/prod/',
        'base/: a kustomization listed under resources: of overlays/prod/kustomization.yaml: rendered through that overlay, not on its own',
      ],
    ],
    [
      'two-overlays',
      ['kustomize overlays/prod', 'kustomize overlays/staging'],
      [
        'base/: a kustomization listed under resources: of overlays/prod/kustomization.yaml',
        'components/debug/: a kustomization listed under components: of overlays/staging/kustomization.yaml',
      ],
    ],
    [
      'root-kustomization',
      ['kustomize .'],
      [
        './: a kustomization (kustomization.yml), rendered by kustomize; its files and subfolders are not read by the convention',
      ],
    ],
    ['chart', ['helm .'], ['./: a Helm chart (Chart.yaml), rendered by helm']],
    ['cycle', ['kustomize a', 'kustomize b'], []],
    [
      'chart-file-dependency',
      ['helm shop'],
      [
        'common/: a chart listed under dependencies: of shop/Chart.yaml (file://): rendered through that chart',
      ],
    ],
    ['mixed', ['helm chart', 'kustomize config/overlays/prod'], ['web/deployment.yaml: a Deployment file']],
  ])('%s', async (name, expected, traced) => {
    const { renderers, calls } = both();
    const trace: string[] = [];
    await new DirectoryInput(fixture(name), { renderers, trace: (m) => trace.push(m) }).entity();
    expect(calls()).toEqual(expected);
    for (const line of traced) expect(trace.some((t) => t.startsWith(line))).toBe(true);
  });

  test('a request names the folder, absolute and relative, and the input root', async () => {
    const { renderers, kustomize } = both();
    await new DirectoryInput(fixture('mixed'), { renderers }).entity();
    expect(kustomize.calls).toEqual([
      {
        kind: 'kustomize',
        abs: resolve(fixture('mixed/config/overlays/prod')),
        dir: 'config/overlays/prod',
        root: resolve(fixture('mixed')),
      },
    ]);
  });

  test('nothing inside a chart is read by the convention: its Go templates are not YAML errors', async () => {
    const { renderers } = both();
    const app = await new DirectoryInput(fixture('chart'), { renderers }).entity();
    expect(app.objects.map((o) => `${o.object.metadata.name} ${o.source.file}`)).toEqual([
      'helm-root out.yaml',
    ]);
  });

  test('the objects are attached at the folder level, the tool recorded, beside convention entities', async () => {
    const { renderers } = both();
    const app = await new DirectoryInput(fixture('mixed'), { renderers }).entity();
    expect(app.entities.map((e) => e.label())).toEqual(['Deployment web (web/deployment.yaml:1)']);
    expect(app.entities[0]?.objects.map((o) => o.source.file)).toEqual(['web/.k2e/svc.yaml']);
    expect(app.objects.map((o) => o.object.metadata.name)).toEqual([
      'helm-chart',
      'kustomize-config-overlays-prod',
    ]);
    expect(app.rendered).toEqual([
      { dir: 'chart', input: 'helm', tool: 'helm v0-fake', objects: 1 },
      { dir: 'config/overlays/prod', input: 'kustomize', tool: 'kustomize v0-fake', objects: 1 },
    ]);
  });

  test('a rendered controller is an entity: its "&" image is built from the rendered folder', async () => {
    const deployment: ObjectValue = {
      value: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web' },
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: { containers: [{ name: 'web', image: '&web' }] },
          },
        },
      },
      source: { file: 'chart/templates/deployment.yaml', line: 2 },
    };
    const helm = fake(() => ({ objects: [deployment] }));
    const app = await new DirectoryInput(fixture('mixed'), {
      renderers: { helm: helm.renderer, kustomize: fake().renderer },
    }).entity();
    const web = app.entities.find((e) => e.source.file.startsWith('chart/')) as Controller;
    expect(web).toBeInstanceOf(Controller);
    expect(web.pod.containers[0]?.image.build).toEqual({
      contextDir: 'chart',
      declaredIn: { file: 'chart/templates/deployment.yaml', line: 2 },
    });
  });

  test('results keep walk order whatever order the renderers finish in', async () => {
    const slowFirst = fake(undefined, (r) => (r.dir === 'a' ? 30 : 0));
    const app = await new DirectoryInput(fixture('cycle'), {
      renderers: { kustomize: slowFirst.renderer },
    }).entity();
    expect(app.rendered.map((r) => r.dir)).toEqual(['a', 'b']);
    expect(app.objects.map((o) => o.object.metadata.name)).toEqual(['kustomize-a', 'kustomize-b']);
  });

  test('at most four renderers run at once', async () => {
    let running = 0;
    let most = 0;
    const counting = async (r: RenderRequest): Promise<RenderResult> => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 10));
      running--;
      return { objects: [], issues: [], tool: `${r.kind} v0` };
    };
    const root = mkdtempSync(join(tmpdir(), 'spread-renders-'));
    for (let i = 0; i < 9; i++) {
      mkdirSync(join(root, `chart-${i}`));
      writeFileSync(join(root, `chart-${i}`, 'Chart.yaml'), `apiVersion: v2\nname: c${i}\nversion: 0.1.0\n`);
    }
    try {
      // Charts that render nothing are no configuration unless allowed.
      const app = await new DirectoryInput(root, {
        renderers: { helm: counting },
        allowEmpty: true,
      }).entity();
      expect(app.rendered.map((f) => f.dir)).toEqual(Array.from({ length: 9 }, (_, i) => `chart-${i}`));
      expect(most).toBe(4);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test('two overlays of one base: the duplicate error names both, each through its overlay', async () => {
    const kustomize = fake(() => ({
      objects: [
        {
          value: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared' } },
          source: { file: 'base/configmap.yaml', line: 1 },
        },
      ],
    }));
    const app = await new DirectoryInput(fixture('two-overlays'), {
      renderers: { kustomize: kustomize.renderer },
    }).entity();
    const errors = await errorsOf(Promise.resolve().then(() => deploymentOf(app, { namespace: 'default' })));
    expect(errors).toEqual([
      'base/configmap.yaml:1: ConfigMap default/shared is defined twice: base/configmap.yaml:1 (through overlays/prod/) and base/configmap.yaml:1 (through overlays/staging/)',
    ]);
  });
});

describe('rendered folders that cannot be rendered', () => {
  test.each([
    [
      'both',
      { kustomize: fake().renderer, helm: fake().renderer },
      [
        '.:0: holds both Kustomization and Chart.yaml: a folder is either a kustomization or a Helm chart; move one into a folder of its own',
      ],
    ],
    [
      'chart',
      { kustomize: fake().renderer },
      ['.:0: is a Helm chart (Chart.yaml) and no Helm renderer was given: rendering it needs helm (3 or 4)'],
    ],
    [
      'mixed',
      {},
      [
        'chart:0: is a Helm chart (Chart.yaml) and no Helm renderer was given: rendering it needs helm (3 or 4)',
        'config/overlays/prod:0: is a kustomization (kustomization.yaml) and no kustomize renderer was given: rendering it needs kustomize, or kubectl (kubectl kustomize)',
      ],
    ],
    [
      'mixed',
      {
        helm: async () => Promise.reject(new Error('spawn helm EACCES')),
        kustomize: fake(() => ({
          objects: [],
          issues: [
            {
              source: { file: 'config/base/configmap.yaml', line: 3 },
              message: 'kustomize: bad patch',
              severity: 'error' as const,
            },
          ],
        })).renderer,
      },
      [
        'chart:0: rendering with helm failed: spawn helm EACCES',
        'config/base/configmap.yaml:3: kustomize: bad patch',
      ],
    ],
  ])('%s', async (name, renderers: Renderers, expected) => {
    expect(await errorsOf(new DirectoryInput(fixture(name), { renderers }).entity())).toEqual(expected);
  });

  test('a kustomization that renders no object is no configuration: an error, unless --allow-empty', async () => {
    // Deploying it would prune every object of the deployment; kubectl apply -k fails on it too.
    const kustomize = fake(() => ({ objects: [] }));
    const renderers: Renderers = { kustomize: kustomize.renderer };
    const errors = await errorsOf(new DirectoryInput(fixture('overlay'), { renderers }).entity());
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^\.:0: no Kubernetes configuration in .*overlays\/prod\/ \(rendered by kustomize\)/,
    );
    const app = await new DirectoryInput(fixture('overlay'), { renderers, allowEmpty: true }).entity();
    expect(app.rendered.map((r) => r.dir)).toEqual(['overlays/prod']);
  });

  test('a renderer warning reaches the Application', async () => {
    const helm = fake(() => ({
      issues: [
        { source: { file: 'templates/hook.yaml', line: 1 }, message: 'a hook', severity: 'warning' as const },
      ],
    }));
    const app = await new DirectoryInput(fixture('chart'), { renderers: { helm: helm.renderer } }).entity();
    expect(app.warnings.map((w) => w.message)).toEqual(['a hook']);
  });
});
