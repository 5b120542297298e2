import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { deploymentOf, render } from '../../../src/deployment/index.js';
import { Controller, type Mapping, Pod } from '../../../src/entity/index.js';
import { DirectoryInput, InputError, type InputIssue, ManifestInput } from '../../../src/input/index.js';

const good = (name: string) => `test/fixtures/good/${name}`;

/** GroupKind namespace/name @ source of every object, in apply order. */
async function summary(dir: string, name?: string): Promise<string[]> {
  const app = await new DirectoryInput(dir, name ? { name } : {}).entity();
  return deploymentOf(app, { namespace: 'ns' })
    .objects()
    .map(({ object, source }) => {
      const ns = object.metadata.namespace ? `${object.metadata.namespace}/` : '';
      return `${object.kind} ${ns}${object.metadata.name} @ ${source.file}:${source.line}`;
    });
}

describe('DirectoryInput over the good fixtures', () => {
  test.each([
    ['rc-ctr', ['ReplicationController ns/shop @ rc.yml:1']],
    ['rc-pod', ['ReplicationController ns/api @ rc.yaml:1']],
    ['pod-only', ['ConfigMap ns/solo-config @ .k2e/config.yaml:1', 'Pod ns/solo @ pod.yaml:1']],
    ['ctr-only', ['Deployment ns/web-app-service @ Web_App Service:0']],
    [
      'objects-only',
      [
        'Namespace team-a @ .k2e/a.yaml:3',
        'ClusterRole reader @ .k2e/b.json:1',
        'ConfigMap ns/one @ .k2e/a.yaml:14',
        'ServiceAccount team-a/robot @ .k2e/a.yaml:18',
      ],
    ],
    ['legacy-folders', ['ConfigMap ns/legacy @ rs/cm.yaml:1', 'Service ns/legacy @ .kube/svc.yaml:1']],
    [
      'named-layout',
      ['ReplicationController ns/web @ web.rc.yaml:1', 'Deployment ns/api @ api.deployment.yaml:1'],
    ],
    [
      'nested',
      [
        'Namespace nested @ .k2e/ns.yaml:1',
        'Service ns/db @ backend/.k2e/svc.yaml:1',
        'DaemonSet ns/agent @ agent/daemonset.yaml:1',
        'Deployment ns/frontend @ frontend/deployment.yaml:1',
        'StatefulSet ns/db @ backend/statefulset.yaml:1',
      ],
    ],
    ['jobs', ['CronJob ns/nightly @ nightly/cronjob.yaml:1', 'Job ns/migrate @ migrate/job.yaml:1']],
    ['json', ['ReplicationController ns/json-app @ rc.json:1']],
    ['crlf-bom', ['ConfigMap ns/crlf @ .k2e/cm.yaml:2', 'Pod ns/crlf @ pod.yaml:1']],
    ['anchors', ['ConfigMap ns/base @ .k2e/cms.yaml:5', 'ConfigMap ns/derived @ .k2e/cms.yaml:14']],
  ])('%s', async (fixture, expected) => {
    expect(await summary(good(fixture))).toEqual(expected);
  });

  test('the redspread mattermost example: an RC whose template has no containers gets both .ctr containers', async () => {
    const app = await new DirectoryInput('examples/mattermost').entity();
    const rc = app.entities[0] as Controller;
    expect(rc).toBeInstanceOf(Controller);
    expect(rc.type).toBe('ReplicationController');
    expect(rc.pod.containers.map((c) => [c.name, c.image.raw, c.source.file])).toEqual([
      ['app', 'mattermost/mattermost-team-edition:9.11', 'app.ctr'],
      ['db', 'postgres:16', 'db.ctr'],
    ]);
    expect(rc.objects.map((o) => `${o.object.kind} ${o.source.file}`)).toEqual([
      'Secret .k2e/secret.yaml',
      'Service .k2e/service.yaml',
    ]);
    const objects = deploymentOf(app, { namespace: 'default' }).objects();
    expect(objects.map((o) => o.object.kind)).toEqual(['Secret', 'Service', 'ReplicationController']);
    const rcObject = objects[2]?.object as unknown as { spec: { selector: unknown; template: Mapping } };
    expect(rcObject.spec.selector).toEqual({ app: 'mattermost' });
    const service = objects[1]?.object as unknown as { spec: { selector: unknown } };
    expect(service.spec.selector).toEqual(rcObject.spec.selector);
  });

  test('pod.yaml beside rc.yaml becomes the template: labels kept, selector derived, .ctr appended', async () => {
    const app = await new DirectoryInput(good('rc-pod')).entity();
    const rc = app.entities[0] as Controller;
    expect(rc.pod.source).toEqual({ file: 'pod.yaml', line: 1 });
    const object = rc.toObject() as unknown as { spec: { selector: unknown; template: Mapping } };
    expect(object.spec.selector).toEqual({ role: 'api' });
    expect(object.spec.template).toEqual({
      metadata: { labels: { role: 'api' } },
      spec: {
        containers: [
          { name: 'api', image: 'example/api:1.0' },
          { name: 'sidecar', image: 'busybox:1.36', args: ['sleep', 'infinity'] },
        ],
      },
    });
  });

  test('NAME.rc.yaml pairs with NAME.pod.yaml; each NAME is its own entity', async () => {
    const app = await new DirectoryInput(good('named-layout')).entity();
    expect(app.entities.map((e) => e.label())).toEqual([
      'Deployment api (api.deployment.yaml:1)',
      'ReplicationController web (web.rc.yaml:1)',
    ]);
    const web = app.entities[1] as Controller;
    expect(web.pod.source.file).toBe('web.pod.yaml');
  });

  test('containers alone make a default Deployment named after the directory; names from file names', async () => {
    const app = await new DirectoryInput(good('ctr-only')).entity();
    const d = app.entities[0] as Controller;
    expect(d.type).toBe('Deployment');
    expect(d.name).toBe('web-app-service');
    expect(d.pod.containers.map((c) => c.name)).toEqual(['my-worker', 'main']);
    const image = d.pod.containers[1]?.image;
    expect(image?.build).toEqual({
      contextDir: 'Web_App Service',
      declaredIn: { file: 'Web_App Service/main.ctr', line: 1 },
    });
    expect([image?.repository, image?.tag]).toEqual(['web', 'dev']);
    expect(app.images().filter((i) => i.build)).toHaveLength(1);
  });

  test('a too-long directory name is made a DNS label with a hash suffix', async () => {
    const app = await new DirectoryInput(good('long-name')).entity();
    expect(app.entities[0]?.name).toMatch(/^a{54}-[0-9a-f]{8}$/);
  });

  test('Job and CronJob templates default restartPolicy to Never, keeping an explicit one', async () => {
    const objects = deploymentOf(await new DirectoryInput(good('jobs')).entity(), {
      namespace: 'x',
    }).objects();
    const policies = objects.map((o) => JSON.stringify(o.object).match(/"restartPolicy":"(\w+)"/)?.[1]);
    expect(policies).toEqual(['OnFailure', 'Never']);
  });

  test('hidden folders and node_modules are skipped; .k2e objects attach where found', async () => {
    const app = await new DirectoryInput(good('nested')).entity();
    expect(app.objects.map((o) => o.source.file)).toEqual(['.k2e/ns.yaml']);
    const db = app.entities.find((e) => e.name === 'db');
    expect(db?.objects.map((o) => o.source.file)).toEqual(['backend/.k2e/svc.yaml']);
  });

  test('entity errors and descriptions name the chain of entities', async () => {
    const app = await new DirectoryInput('examples/mattermost').entity();
    const rc = app.entities[0] as Controller;
    expect(rc.pod.containers[0]?.describe()).toBe(
      'Container app (app.ctr:2) in ReplicationController mattermost (rc.yml:3)',
    );
    expect(rc.pod).toBeInstanceOf(Pod);
  });
});

describe('determinism', () => {
  const temp = mkdtempSync(join(tmpdir(), 'spread-input-'));
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  test.each(['nested', 'objects-only', 'ctr-only', 'rc-pod'])(
    '%s renders byte-identically twice and from a copy at another path',
    async (fixture) => {
      const renderDir = async (dir: string) =>
        render(deploymentOf(await new DirectoryInput(dir, { name: fixture }).entity(), { namespace: 'ns' }));
      const first = await renderDir(good(fixture));
      expect(await renderDir(good(fixture))).toBe(first);
      const copy = join(temp, 'elsewhere', fixture);
      cpSync(good(fixture), copy, { recursive: true });
      expect(await renderDir(copy)).toBe(first);
      expect(first.length).toBeGreaterThan(0);
    },
  );
});

describe('ManifestInput', () => {
  test('a multi-document manifest gives entities for workloads and objects for the rest', async () => {
    const temp = mkdtempSync(join(tmpdir(), 'spread-manifest-'));
    try {
      const file = join(temp, 'all.yaml');
      const { writeFileSync } = await import('node:fs');
      writeFileSync(
        file,
        [
          'apiVersion: v1',
          'kind: Service',
          'metadata: {name: web}',
          '---',
          'apiVersion: apps/v1',
          'kind: Deployment',
          'metadata: {name: web}',
          'spec:',
          '  selector: {matchLabels: {app: web}}',
          '  template:',
          '    metadata: {labels: {app: web}}',
          '    spec:',
          '      containers:',
          '        - name: web',
          '          image: "&web"',
          '',
        ].join('\n'),
      );
      const app = await new ManifestInput(file).entity();
      expect(app.name).toBe('all');
      expect(app.entities.map((e) => e.label())).toEqual(['Deployment web (all.yaml:5)']);
      expect(app.objects.map((o) => o.object.kind)).toEqual([]);
      expect(app.entities[0]?.objects.map((o) => o.object.kind)).toEqual(['Service']);
      expect(app.images()[0]?.build).toEqual({ contextDir: '.', declaredIn: { file: 'all.yaml', line: 15 } });
      expect(deploymentOf(app, { namespace: 'ns' }).size).toBe(2);
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  });
});

describe('broken symbolic links', () => {
  test('a configuration file behind a missing target is an error, never silently left out', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'spread-links-')), 'app');
    mkdirSync(join(root, '.k2e'), { recursive: true });
    writeFileSync(join(root, '.k2e', 'a.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n');
    symlinkSync(join(root, 'gone.yaml'), join(root, '.k2e', 'b.yaml'));
    symlinkSync(join(root, 'gone.ctr'), join(root, 'web.ctr'));
    const error = await new DirectoryInput(root).entity().catch((e) => e);
    expect(error).toBeInstanceOf(InputError);
    expect(error.issues.map((i: InputIssue) => `${i.source.file}: ${i.message}`)).toEqual([
      'web.ctr: is a symbolic link whose target does not exist',
      '.k2e/b.yaml: is a symbolic link whose target does not exist',
    ]);
  });
});

describe('files in .k2e/ that are not read', () => {
  test('a subdirectory and an upper-case extension are warnings, so their objects never vanish silently', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'spread-k2e-')), 'app');
    mkdirSync(join(root, '.k2e', 'prod'), { recursive: true });
    writeFileSync(join(root, '.k2e', 'a.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n');
    writeFileSync(
      join(root, '.k2e', 'prod', 'b.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n',
    );
    writeFileSync(join(root, '.k2e', 'C.YAML'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n');
    writeFileSync(join(root, '.k2e', 'notes.txt'), 'not configuration\n');
    const app = await new DirectoryInput(root).entity();
    expect(app.warnings.map((i) => `${i.source.file}: ${i.message}`)).toEqual([
      '.k2e/C.YAML: is not read: only files ending in lowercase .yaml, .yml or .json are',
      '.k2e/prod: is a directory inside .k2e/, whose subdirectories are not read: its objects are not deployed (move them into .k2e/ itself)',
    ]);
    expect(deploymentOf(app, { namespace: 'ns' }).size).toBe(1);
  });
});
