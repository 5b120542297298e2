import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { deploymentOf } from '../../../src/deployment/index.js';
import { type Controller, Pod } from '../../../src/entity/index.js';
import { readContext } from '../../../src/image/context.js';
import { DirectoryInput } from '../../../src/input/index.js';
import { errorsOf } from './input-errors.js';

const fixture = (name: string) => `test/fixtures/plain/${name}`;

/** `Kind name @ file:line [input]` of every object, in apply order. */
async function objectsOf(name: string): Promise<string[]> {
  const app = await new DirectoryInput(fixture(name)).entity();
  // The input of each object by its source: an entity's own, or the attached object's.
  const inputs = new Map<string, string>();
  for (const e of app.walk()) {
    if (e instanceof Pod && e.template) continue;
    inputs.set(`${e.source.file}:${e.source.line}`, e.input);
    for (const o of e.objects) inputs.set(`${o.source.file}:${o.source.line}`, o.input ?? 'convention');
  }
  return deploymentOf(app, { namespace: 'ns' })
    .objects()
    .map(({ object, source }) => {
      const at = `${source.file}:${source.line}`;
      return `${object.kind} ${object.metadata.name} @ ${at} [${inputs.get(at)}]`;
    });
}

describe('plain manifests: files the convention does not name', () => {
  test.each([
    [
      'four',
      [
        'ConfigMap shop @ configmap.yaml:1 [manifests]',
        'Service shop @ service.yaml:1 [manifests]',
        'Deployment shop @ deployment.yaml:1 [convention]',
        'Ingress shop @ ingress.yaml:1 [manifests]',
      ],
    ],
    [
      'kinds',
      [
        'ConfigMap one @ list.json:5 [manifests]',
        'ConfigMap two @ list.json:6 [manifests]',
        'ServiceAccount web @ web.yaml:2 [manifests]',
        'Service web @ web.yaml:24 [manifests]',
        'Deployment web @ web.yaml:7 [manifests]',
        'Job worker @ worker/worker.yaml:1 [manifests]',
      ],
    ],
    [
      'beside-convention',
      [
        'ReplicationController app @ rc.yaml:1 [convention]',
        'Deployment ctr-only @ ctr-only:0 [convention]',
        'Deployment extra @ extra-deployment.yaml:1 [manifests]',
        'CronJob nightly @ ctr-only/cron.yaml:1 [manifests]',
      ],
    ],
  ])('%s', async (name, expected) => {
    expect(await objectsOf(name)).toEqual(expected);
  });

  test.each([
    ['four', [{ file: 'docker-compose.yml', reason: 'no apiVersion or kind' }]],
    [
      'kinds',
      [
        { file: 'config.template.json', reason: 'no apiVersion or kind' },
        { file: 'empty.yaml', reason: 'empty' },
        { file: 'package.json', reason: 'no apiVersion or kind' },
        { file: 'tasks.yaml', reason: 'a sequence' },
        { file: 'worker/values.yaml', reason: 'no apiVersion or kind' },
      ],
    ],
    ['beside-convention', []],
  ])('%s: the files holding no object are listed as not deployed', async (name, expected) => {
    const app = await new DirectoryInput(fixture(name)).entity();
    expect(app.notDeployed).toEqual(expected);
  });

  test('hidden files are skipped as hidden folders are, said in the trace; upper-case extensions warned', async () => {
    const trace: string[] = [];
    const app = await new DirectoryInput(fixture('kinds'), { trace: (m) => trace.push(m) }).entity();
    expect(trace).toContain('.gitlab-ci.yml: skipped (hidden file)');
    expect(trace).toContain('web.yaml: plain manifests, 3 objects');
    expect(trace).toContain(
      'tasks.yaml: not deployed: not a file of the convention and no Kubernetes object (a sequence)',
    );
    expect(app.notDeployed.map((f) => f.file)).not.toContain('.gitlab-ci.yml');
    expect(app.warnings.map((w) => `${w.source.file}: ${w.message}`)).toEqual([
      'NOTES.YAML: is not read: only files ending in lowercase .yaml, .yml or .json are',
    ]);
  });

  test('an "&" image in a plain manifest is built from the folder of its file', async () => {
    const app = await new DirectoryInput(fixture('kinds')).entity();
    const web = app.entities.find((e) => e.name === 'web') as Controller;
    expect(web.input).toBe('manifests');
    expect(web.pod.containers[0]?.image.build).toEqual({
      contextDir: '.',
      declaredIn: { file: 'web.yaml', line: 22 },
    });
    expect(app.images().filter((i) => i.build)).toHaveLength(1);
  });

  test('k8s/deployment-web.yaml with image "&web" builds k8s/, the folder of its file', async () => {
    const root = mkdtempSync(join(tmpdir(), 'spread-plain-'));
    mkdirSync(join(root, 'k8s'));
    writeFileSync(
      join(root, 'k8s/deployment-web.yaml'),
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n        - name: web\n          image: "&web"\n',
    );
    try {
      const app = await new DirectoryInput(root).entity();
      expect(app.images().map((i) => [i.raw, i.build])).toEqual([
        ['&web', { contextDir: 'k8s', declaredIn: { file: 'k8s/deployment-web.yaml', line: 14 } }],
      ]);
      expect(app.manifestFiles()).toEqual(['k8s/deployment-web.yaml']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test('plain manifests are left out of the build context, as rc.yaml is; other files are sent', async () => {
    const app = await new DirectoryInput(fixture('kinds')).entity();
    expect(app.manifestFiles()).toEqual(['list.json', 'web.yaml', 'worker/worker.yaml']);
    const context = await readContext(fixture('kinds'), { configFiles: app.manifestFiles() });
    expect(context.entries.map((e) => e.path)).toEqual([
      '.gitlab-ci.yml',
      'Dockerfile',
      'NOTES.YAML',
      'README.md',
      'config.template.json',
      'empty.yaml',
      'package.json',
      'tasks.yaml',
      'worker',
      'worker/values.yaml',
    ]);
  });

  test('.ctr files attach by the convention only: a plain Deployment beside them never takes them', async () => {
    const app = await new DirectoryInput(fixture('beside-convention')).entity();
    const rc = app.entities.find((e) => e.name === 'app') as Controller;
    expect(rc.pod.containers.map((c) => c.name)).toEqual(['app']);
    const extra = app.entities.find((e) => e.name === 'extra') as Controller;
    expect(extra.pod.containers.map((c) => c.name)).toEqual(['extra']);
  });
});

describe('plain manifests that are errors', () => {
  test.each([
    [
      'bad-mixed',
      [
        'app.yaml:6: document 2 is not a Kubernetes object (no apiVersion) but document 1 is: a file of plain manifests holds only objects (give it apiVersion and kind, or move it to a file of its own, which is then not deployed)',
        'compose-and-object.yaml:1: document 1 is not a Kubernetes object (no apiVersion or kind) but document 2 is: a file of plain manifests holds only objects (give it apiVersion and kind, or move it to a file of its own, which is then not deployed)',
      ],
    ],
    ['bad-parse', [expect.stringMatching(/^svc\.yaml:[67]: /)]],
    [
      'nothing',
      [
        `.:0: no Kubernetes configuration in ${fixture('nothing')}: expected plain manifests (YAML or JSON files of Kubernetes objects), a kustomization.yaml, a Helm chart (Chart.yaml), or the spread convention (a controller such as rc.yaml or deployment.yaml, pod.yaml, *.ctr, .k2e/); docker-compose.yml holds no Kubernetes object. To deploy nothing and prune what this deployment deployed before, give --allow-empty`,
      ],
    ],
  ])('%s', async (name, expected) => {
    expect(await errorsOf(new DirectoryInput(fixture(name)).entity())).toEqual(expected);
  });

  test('--allow-empty: a folder of files holding no object is an empty Application that still lists them', async () => {
    const app = await new DirectoryInput(fixture('nothing'), { allowEmpty: true }).entity();
    expect(app.entities).toEqual([]);
    expect(app.notDeployed).toEqual([{ file: 'docker-compose.yml', reason: 'no apiVersion or kind' }]);
  });
});
