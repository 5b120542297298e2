import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/base/logger.js';
import { cliText } from '../../src/cli/logger.js';
import { ApplyError } from '../../src/engine/apply/errors.js';
import { type DeployRequest as DeployOptions, deploy } from '../../src/frontend/deploy.js';
import { deletes } from '../../src/frontend/manage.js';
import type { DeployReport } from '../../src/report/report.js';
import { kubectl, localDeploy, uniqueName, writeDir } from './helpers.js';

// The cluster matches the directory: one test per acceptance point of the apply issue.

const ns = uniqueName('itg-apply');
const roots: string[] = [];

/** Writes a spread directory (removed after the file's tests). */
function dir(name: string, files: Record<string, string>): string {
  const root = writeDir(name, files);
  roots.push(path.dirname(root));
  return root;
}

function run(root: string, extra: Partial<DeployOptions> = {}): Promise<DeployReport> {
  return deploy(localDeploy(root, ns, { wait: false, timeoutMs: 60_000, ...extra }));
}

async function getJson(kind: string, name: string, namespace = ns) {
  return JSON.parse(
    (await kubectl(['--context', 'spread-local', '-n', namespace, 'get', kind, name, '-o', 'json'])).stdout,
  );
}

/** Asserts that `kubectl ARGS` (a get of one object) finds nothing. */
async function expectNotFound(args: string[]): Promise<void> {
  const r = await kubectl(args, { allowFail: true });
  expect(r.stderr).toMatch(/not found/);
}

/** A kubeconfig file whose one context (named `sa`, namespace `ns`) authenticates as ServiceAccount `sa` of `ns`. */
async function tokenKubeconfig(sa: string): Promise<string> {
  const token = (await kubectl(['--context', 'spread-local', '-n', ns, 'create', 'token', sa])).stdout.trim();
  const admin = await kubectl([
    '--context',
    'spread-local',
    'config',
    'view',
    '--raw',
    '--minify',
    '-o',
    'json',
  ]);
  const cluster = JSON.parse(admin.stdout).clusters[0];
  const kubeconfig = path.join(dir(`${sa}-kubeconfig`, { kubeconfig: '' }), 'kubeconfig');
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [cluster],
      users: [{ name: sa, user: { token } }],
      contexts: [{ name: sa, context: { cluster: cluster.name, user: sa, namespace: ns } }],
      'current-context': sa,
    }),
  );
  return kubeconfig;
}

/** A namespaced CRD of kind Widget in `group`, serving `versions` (the first stored), with spec.size and the `extra` properties. */
function crdYaml(group: string, versions: string[], ...extra: string[]): string {
  const props = ['size: {type: integer}', ...extra].join(`\n${' '.repeat(14)}`);
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.${group}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
${versions
  .map(
    (v, i) => `  - name: ${v}
    served: true
    storage: ${i === 0}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              ${props}
`,
  )
  .join('')}`;
}

const deployment = (container: string, extra = '') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: ${container}
        image: registry.example/web:1
${extra}`;

beforeAll(async () => {
  await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
});
afterAll(async () => {
  await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
    allowFail: true,
  });
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

describe('server-side apply makes the cluster equal to the directory', () => {
  test('a container renamed in deployment.yaml: exactly one container, with the new name', async () => {
    await run(dir('web', { 'deployment.yaml': deployment('old') }));
    const r = await run(dir('web', { 'deployment.yaml': deployment('new') }));
    expect(r.objects.find((o) => o.kind === 'Deployment')?.action).toBe('configured');
    const live = await getJson('deployment', 'web');
    expect(live.spec.template.spec.containers.map((c: { name: string }) => c.name)).toEqual(['new']);
  });

  test('a container renamed in a .ctr file beside rc.yaml: exactly one container, with the new name', async () => {
    const rc =
      'apiVersion: v1\nkind: ReplicationController\nmetadata:\n  name: legacy\nspec:\n  replicas: 1\n  template:\n    metadata:\n      labels: {app: legacy}\n';
    await run(dir('legacy', { 'rc.yaml': rc, 'web.ctr': 'name: old\nimage: registry.example/web:1\n' }));
    await run(dir('legacy', { 'rc.yaml': rc, 'web.ctr': 'name: new\nimage: registry.example/web:1\n' }));
    const live = await getJson('rc', 'legacy');
    expect(live.spec.template.spec.containers.map((c: { name: string }) => c.name)).toEqual(['new']);
  });

  test('a removed port disappears from a Service and a container; TCP and UDP on one port both stay', async () => {
    const svc = (ports: string) =>
      `apiVersion: v1\nkind: Service\nmetadata:\n  name: dns\nspec:\n  selector: {app: web}\n  ports:\n${ports}`;
    const both =
      '  - {name: dns-udp, port: 53, protocol: UDP}\n  - {name: dns-tcp, port: 53, protocol: TCP}\n  - {name: extra, port: 8080}\n';
    const withPort =
      '        ports:\n        - {containerPort: 53, protocol: UDP}\n        - {containerPort: 53, protocol: TCP}\n        - {containerPort: 8080}\n';
    await run(dir('web', { 'deployment.yaml': deployment('new', withPort), '.k2e/svc.yaml': svc(both) }));
    let live = await getJson('service', 'dns');
    expect(live.spec.ports).toHaveLength(3);
    const lessPort =
      '        ports:\n        - {containerPort: 53, protocol: UDP}\n        - {containerPort: 53, protocol: TCP}\n';
    await run(
      dir('web', {
        'deployment.yaml': deployment('new', lessPort),
        '.k2e/svc.yaml': svc(
          '  - {name: dns-udp, port: 53, protocol: UDP}\n  - {name: dns-tcp, port: 53, protocol: TCP}\n',
        ),
      }),
    );
    live = await getJson('service', 'dns');
    expect(
      live.spec.ports.map((p: { protocol: string; port: number }) => `${p.port}/${p.protocol}`).sort(),
    ).toEqual(['53/TCP', '53/UDP']);
    const dep = await getJson('deployment', 'web');
    expect(
      dep.spec.template.spec.containers[0].ports
        .map((p: { containerPort: number; protocol: string }) => `${p.containerPort}/${p.protocol}`)
        .sort(),
    ).toEqual(['53/TCP', '53/UDP']);
  });

  test('a LoadBalancer Service redeployed with a changed label keeps its clusterIP and nodePorts', async () => {
    const lb = (tier: string) =>
      `apiVersion: v1\nkind: Service\nmetadata:\n  name: front\n  labels: {tier: ${tier}}\nspec:\n  type: LoadBalancer\n  selector: {app: web}\n  ports:\n  - {name: http, port: 80}\n`;
    await run(dir('lb', { '.k2e/lb.yaml': lb('a') }));
    const before = await getJson('service', 'front');
    const r = await run(dir('lb', { '.k2e/lb.yaml': lb('b') }));
    expect(r.objects.find((o) => o.name === 'front')?.action).toBe('configured');
    const after = await getJson('service', 'front');
    expect(after.metadata.labels.tier).toBe('b');
    expect(after.spec.clusterIP).toBe(before.spec.clusterIP);
    expect(after.spec.ports[0].nodePort).toBe(before.spec.ports[0].nodePort);
    expect(after.status).toEqual(before.status);
  });
});

describe('prune', () => {
  test("a file deleted from .k2e/ is pruned; a hand-made object and another deployment's objects survive", async () => {
    const cm = (name: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata: {a: b}\n`;
    await run(dir('alpha', { '.k2e/one.yaml': cm('alpha-one'), '.k2e/two.yaml': cm('alpha-two') }));
    await run(dir('beta', { '.k2e/one.yaml': cm('beta-one') }));
    const r = await run(dir('alpha', { '.k2e/one.yaml': cm('alpha-one') }));
    expect(r.objects.filter((o) => o.action === 'pruned').map((o) => o.name)).toEqual(['alpha-two']);
    // Created again by hand, without the part-of label: no later prune touches it.
    await kubectl(['--context', 'spread-local', '-n', ns, 'create', 'configmap', 'alpha-two']);
    const again = await run(dir('alpha', { '.k2e/one.yaml': cm('alpha-one') }));
    expect(again.objects.filter((o) => o.action === 'pruned')).toEqual([]);
    for (const name of ['alpha-one', 'alpha-two', 'beta-one']) {
      expect(
        (
          await kubectl(['--context', 'spread-local', '-n', ns, 'get', 'configmap', name, '-o', 'name'])
        ).stdout.trim(),
      ).toBe(`configmap/${name}`);
    }
  });

  test('a user who may not list a kind: the plan reads with GETs, and prune says what it could not check', async () => {
    // A ServiceAccount that may get, create, patch and delete ConfigMaps but not list them, and may not
    // read its Namespace either.
    const sa = 'no-list';
    const rbac = [
      `apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: ${sa}, namespace: ${ns}}`,
      `---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: ${sa}, namespace: ${ns}}\nrules:`,
      '- {apiGroups: [""], resources: [configmaps], verbs: [get, create, patch, delete]}',
      '- {apiGroups: [""], resources: [secrets], verbs: [get, list, create, patch, update, delete]}',
      '- {apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, create, update, patch, delete]}',
      `---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: ${sa}, namespace: ${ns}}`,
      `roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: ${sa}}`,
      `subjects: [{kind: ServiceAccount, name: ${sa}, namespace: ${ns}}]`,
    ].join('\n');
    await kubectl(['--context', 'spread-local', 'create', 'namespace', ns], { allowFail: true });
    await kubectl(['--context', 'spread-local', 'apply', '-f', '-'], { input: rbac });
    const kubeconfig = await tokenKubeconfig(sa);
    const cm = (i: number) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: nolist-${i}\ndata: {a: b}\n`;
    const files = (n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`.k2e/cm-${i}.yaml`, cm(i)]));
    const warnings: string[] = [];
    const as = (root: string) =>
      deploy({
        ...localDeploy(root, ns, { wait: false }),
        kubeconfig: { paths: [kubeconfig] },
        context: sa,
        logger: { ...silentLogger, warn: (m: string) => warnings.push(m) },
      });
    // Nine of a kind: the plan would LIST them, is refused, and reads each with a GET instead.
    const first = await as(dir('nolist', files(9)));
    expect(first.objects.filter((o) => o.action === 'created')).toHaveLength(9);
    const second = await as(dir('nolist', files(8)));
    expect(second.objects.filter((o) => o.action === 'pruned')).toEqual([]);
    expect(warnings).toContainEqual(
      `cannot list configmaps in ${ns} (no list right): objects of it that the directory dropped are not pruned`,
    );
    // Not pruned, and not hidden: it is still there.
    const left = await kubectl([
      '--context',
      'spread-local',
      '-n',
      ns,
      'get',
      'configmap',
      'nolist-8',
      '-o',
      'name',
    ]);
    expect(left.stdout.trim()).toBe('configmap/nolist-8');
    // Deleting the deployment would leave its ConfigMaps without a record: refused, nothing deleted.
    const refused = await deletes('nolist', {
      kubeconfig: { paths: [kubeconfig] },
      context: sa,
      namespace: ns,
      logger: silentLogger,
    }).catch((e: Error) => e);
    expect(String(refused)).toMatch(/cannot list configmaps in .* \(no list right\).*nothing was deleted/);
    const parent = await kubectl([
      '--context',
      'spread-local',
      '-n',
      ns,
      'get',
      'secret',
      'spread.nolist',
      '-o',
      'name',
    ]);
    expect(parent.stdout.trim()).toBe('secret/spread.nolist');
  });

  test('an input that parses to zero objects is an error, and nothing is pruned', async () => {
    const empty = dir('alpha', { 'README.md': 'nothing here\n' });
    await expect(run(empty)).rejects.toThrow();
    expect(
      (
        await kubectl(['--context', 'spread-local', '-n', ns, 'get', 'configmap', 'alpha-one', '-o', 'name'])
      ).stdout.trim(),
    ).toBe('configmap/alpha-one');
  });

  test('--allow-empty: an empty directory plans, then prunes, every object of the deployment', async () => {
    const other = dir('emptied', {
      '.k2e/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: emptied-one\ndata: {a: b}\n',
    });
    await run(other);
    const empty = dir('emptied', { 'README.md': 'nothing here\n' });
    const planned = await run(empty, { mode: 'plan', allowEmpty: true });
    expect(planned.objects.map((o) => `${o.kind}/${o.name} ${o.action}`)).toEqual([
      'ConfigMap/emptied-one prune',
    ]);
    const deployed = await run(empty, { allowEmpty: true });
    expect(deployed.objects.map((o) => `${o.kind}/${o.name} ${o.action}`)).toEqual([
      'ConfigMap/emptied-one pruned',
    ]);
    await expectNotFound(['--context', 'spread-local', '-n', ns, 'get', 'configmap', 'emptied-one']);
  });
});

describe('where objects come from', () => {
  test('a moved or renamed file changes no object; the next real change records the new file', async () => {
    const cm = (v: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: moved\ndata: {k: "${v}"}\n`;
    await run(dir('moved', { '.k2e/a.yaml': cm('1') }));
    const before = await getJson('configmap', 'moved');
    const renamed = dir('moved', { '.k2e/b.yaml': cm('1') });
    const planned = await run(renamed, { mode: 'plan' });
    expect(planned.objects.map((o) => `${o.name} ${o.action} ${o.source}`)).toEqual([
      'moved unchanged .k2e/b.yaml:1',
    ]);
    const deployed = await run(renamed);
    expect(deployed.objects.map((o) => o.action)).toEqual(['unchanged']);
    const after = await getJson('configmap', 'moved');
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.metadata.annotations['spread.rsprd.com/source']).toBe('.k2e/a.yaml');
    const changed = dir('moved', { '.k2e/b.yaml': cm('2') });
    const plan2 = await run(changed, { mode: 'plan' });
    expect(plan2.objects[0]?.changes?.map((c) => c.path)).toEqual(['data.k']);
    expect((await run(changed)).objects.map((o) => o.action)).toEqual(['configured']);
    expect((await getJson('configmap', 'moved')).metadata.annotations['spread.rsprd.com/source']).toBe(
      '.k2e/b.yaml',
    );
  });
});

describe('first deploys and bad input', () => {
  test('CRD + custom resource + Namespace + objects in it, all in one first deploy', async () => {
    const group = `${uniqueName('w')}.example.com`;
    const target = uniqueName('itg-crd');
    const crd = crdYaml(group, ['v1']);
    const files = {
      '.k2e/0-crd.yaml': crd,
      '.k2e/1-ns.yaml': `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${target}\n`,
      '.k2e/2-widget.yaml': `apiVersion: ${group}/v1\nkind: Widget\nmetadata:\n  name: w1\n  namespace: ${target}\nspec: {size: 3}\n`,
      '.k2e/3-cm.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c1\n  namespace: ${target}\ndata: {a: b}\n`,
    };
    try {
      // The deployment's namespace is the one its objects name: an explicit other one is an error.
      const r = await run(dir('crd', files), { namespace: target });
      expect(r.objects.map((o) => `${o.kind}:${o.action}`).sort()).toEqual(
        [
          'ConfigMap:created',
          'CustomResourceDefinition:created',
          'Namespace:created',
          'Widget:created',
        ].sort(),
      );
      const w = await getJson(`widgets.${group}`, 'w1', target);
      expect(w.spec.size).toBe(3);
      // The CRD unchanged (no wait for it, no new discovery) and a custom resource changed.
      const root = dir('crd-again', {
        ...files,
        '.k2e/2-widget.yaml': files['.k2e/2-widget.yaml'].replace('size: 3', 'size: 4'),
      });
      const again = await run(root, { name: 'crd', namespace: target });
      expect(Object.fromEntries(again.objects.map((o) => [o.kind, o.action]))).toEqual({
        ConfigMap: 'unchanged',
        CustomResourceDefinition: 'unchanged',
        Namespace: 'unchanged',
        Widget: 'configured',
      });
      expect((await getJson(`widgets.${group}`, 'w1', target)).spec.size).toBe(4);
    } finally {
      await kubectl(['--context', 'spread-local', 'delete', 'namespace', target, '--wait=false'], {
        allowFail: true,
      });
      await kubectl(['--context', 'spread-local', 'delete', 'crd', `widgets.${group}`, '--wait=false'], {
        allowFail: true,
      });
    }
  });

  test("an explicit namespace that contradicts an object's own: an error naming file and line, nothing written (as kubectl -n)", async () => {
    const root = dir('nsclash', {
      '.k2e/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fine\ndata: {a: b}\n',
      '.k2e/other.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: elsewhere\n  namespace: kube-public\ndata: {a: b}\n`,
    });
    for (const mode of ['plan', 'deploy'] as const) {
      const error = await run(root, { mode }).catch((e) => e);
      expect(error.message).toContain(
        `.k2e/other.yaml:1: ConfigMap elsewhere: its namespace kube-public does not match the namespace ${ns} given explicitly; drop its metadata.namespace, or deploy to kube-public`,
      );
    }
    await expectNotFound(['--context', 'spread-local', '-n', ns, 'get', 'configmap', 'fine']);
    await expectNotFound(['--context', 'spread-local', '-n', 'kube-public', 'get', 'configmap', 'elsewhere']);
  });

  test('a deployment namespace that does not exist and that the directory does not create: one error, nothing written', async () => {
    const missing = uniqueName('itg-nons');
    const files = {
      '.k2e/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata: {a: b}\n',
      '.k2e/other.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\ndata: {a: b}\n',
    };
    const root = dir('nons', files);
    for (const mode of ['deploy', 'plan'] as const) {
      const error = await run(root, { namespace: missing, mode }).catch((e) => e);
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(ApplyError);
      expect(error.message).toBe(
        `namespace "${missing}" not found in context spread-local: create it (kubectl create namespace ${missing}), or add a Namespace named ${missing} to the directory; nothing was applied`,
      );
    }
    await expectNotFound(['--context', 'spread-local', 'get', 'namespace', missing]);
    await expectNotFound(['--context', 'spread-local', '-n', ns, 'get', 'configmap', 'in-other']);
  });

  test('a deployment namespace the directory creates: deployed, its parent in it, then a no-op', async () => {
    const target = uniqueName('itg-ownns');
    const files = {
      '.k2e/ns.yaml': `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${target}\n`,
      '.k2e/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata: {a: b}\n',
    };
    try {
      const root = dir('ownns', files);
      const first = await run(root, { namespace: target });
      expect(first.objects.map((o) => `${o.kind}:${o.action}`).sort()).toEqual([
        'ConfigMap:created',
        'Namespace:created',
      ]);
      const parent = await getJson('secret', `spread.${path.basename(root)}`, target);
      expect(parent.metadata.labels['applyset.kubernetes.io/id']).toMatch(/^applyset-/);
      const again = await run(root, { namespace: target });
      expect(again.objects.map((o) => o.action)).toEqual(['unchanged', 'unchanged']);
    } finally {
      await kubectl(['--context', 'spread-local', 'delete', 'namespace', target, '--wait=false'], {
        allowFail: true,
      });
    }
  });

  test('a custom resource in a version its CRD in the directory does not serve: a plan error, nothing written', async () => {
    const group = `${uniqueName('v')}.example.com`;
    const files = {
      '.k2e/0-crd.yaml': crdYaml(group, ['v1']),
      '.k2e/1-cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: unserved-cm\ndata: {a: b}\n',
      '.k2e/2-widget.yaml': `apiVersion: ${group}/v9\nkind: Widget\nmetadata:\n  name: w9\nspec: {size: 1}\n`,
    };
    const error = await run(dir('unserved', files)).catch((e) => e);
    expect(error).toBeInstanceOf(ApplyError);
    expect(error.failures).toHaveLength(1);
    expect(error.message).toContain(
      `/w9 (.k2e/2-widget.yaml:1): its CustomResourceDefinition widgets.${group} (.k2e/0-crd.yaml) does not serve version v9 (it serves v1)`,
    );
    await expectNotFound(['--context', 'spread-local', 'get', 'crd', `widgets.${group}`]);
    await expectNotFound(['--context', 'spread-local', '-n', ns, 'get', 'configmap', 'unserved-cm']);
  });

  test('a CRD gains a field and a custom resource uses it, in one deploy: checked against the new schema', async () => {
    const group = `${uniqueName('f')}.example.com`;
    const widget = (extra: string) =>
      `apiVersion: ${group}/v1\nkind: Widget\nmetadata:\n  name: wf\nspec: {size: 1${extra}}\n`;
    try {
      const first = await run(
        dir('field', { '.k2e/0-crd.yaml': crdYaml(group, ['v1']), '.k2e/1-widget.yaml': widget('') }),
      );
      expect(first.objects.map((o) => o.action)).toEqual(['created', 'created']);
      const files = {
        '.k2e/0-crd.yaml': crdYaml(group, ['v1'], 'color: {type: string}'),
        '.k2e/1-widget.yaml': widget(', color: red'),
      };
      const planned = await run(dir('field', files), { mode: 'plan' });
      expect(Object.fromEntries(planned.objects.map((o) => [o.kind, o.action]))).toEqual({
        CustomResourceDefinition: 'update',
        Widget: 'update',
      });
      expect(planned.objects.find((o) => o.kind === 'Widget')?.deferred).toBe(
        'its CRD changes in this deploy',
      );
      const second = await run(dir('field', files));
      expect(Object.fromEntries(second.objects.map((o) => [o.kind, o.action]))).toEqual({
        CustomResourceDefinition: 'configured',
        Widget: 'configured',
      });
      expect((await getJson(`widgets.${group}`, 'wf')).spec).toEqual({ size: 1, color: 'red' });
      // A bad value for the new field is still refused, before anything after the CRD is written.
      const bad = {
        '.k2e/0-crd.yaml': crdYaml(group, ['v1'], 'color: {type: string}', 'shade: {type: integer}'),
        '.k2e/1-widget.yaml': widget(', color: red, shade: dark'),
      };
      const error = await run(dir('field', bad)).catch((e) => e);
      expect(error).toBeInstanceOf(ApplyError);
      expect(error.message).toMatch(
        /Widget\..*\/wf \(\.k2e\/1-widget\.yaml:5\): .*\.spec\.shade: expected numeric/,
      );
      expect((await getJson(`widgets.${group}`, 'wf')).spec).toEqual({ size: 1, color: 'red' });
    } finally {
      await kubectl(['--context', 'spread-local', 'delete', 'crd', `widgets.${group}`, '--wait=false'], {
        allowFail: true,
      });
    }
  });

  test('custom resources of a changing CRD are checked against it even when fingerprinted; a CRD is never --replaced', async () => {
    const group = `${uniqueName('s')}.example.com`;
    const widget = `apiVersion: ${group}/v1\nkind: Widget\nmetadata:\n  name: ws\nspec: {size: 1}\n`;
    const files = (crd: string) => ({ '.k2e/0-crd.yaml': crd, '.k2e/1-widget.yaml': widget });
    try {
      await run(dir('schema', files(crdYaml(group, ['v1']))));
      // size becomes a string: the unchanged, fingerprinted Widget no longer fits.
      const stringly = crdYaml(group, ['v1']).replace('size: {type: integer}', 'size: {type: string}');
      const error = await run(dir('schema', files(stringly))).catch((e) => e);
      expect(error).toBeInstanceOf(ApplyError);
      expect(error.message).toMatch(/Widget\..*\/ws \(\.k2e\/1-widget\.yaml:5\): .*spec\.size/);
      // A scope change is immutable; --replace would delete every Widget with the CRD, so it is refused.
      const cluster = crdYaml(group, ['v1']).replace('scope: Namespaced', 'scope: Cluster');
      const refused = await run(dir('schema', files(cluster)), { replace: true, mode: 'plan' }).catch(
        (e) => e,
      );
      expect(refused).toBeInstanceOf(ApplyError);
      expect(cliText(refused.message)).toContain(
        '--replace does not re-create a CustomResourceDefinition, since deleting it deletes every custom resource of it',
      );
      expect((await getJson(`widgets.${group}`, 'ws')).spec.size).toBe(1);
    } finally {
      await kubectl(['--context', 'spread-local', 'delete', 'crd', `widgets.${group}`, '--wait=false'], {
        allowFail: true,
      });
    }
  });

  test('a user without get on Namespaces deploys a new CRD with a namespaced custom resource', async () => {
    const group = `${uniqueName('r')}.example.com`;
    const sa = uniqueName('no-ns-get');
    const rbac = [
      `apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: ${sa}, namespace: ${ns}}`,
      `---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: ${sa}}\nrules:`,
      '- {apiGroups: [apiextensions.k8s.io], resources: [customresourcedefinitions], verbs: [get, list, watch, create, patch, delete]}',
      `---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: ${sa}}`,
      `roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ${sa}}`,
      `subjects: [{kind: ServiceAccount, name: ${sa}, namespace: ${ns}}]`,
      `---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: ${sa}, namespace: ${ns}}\nrules:`,
      `- {apiGroups: ["${group}"], resources: [widgets], verbs: [get, list, watch, create, patch, delete]}`,
      '- {apiGroups: [""], resources: [secrets], verbs: [get, list, create, patch, delete]}',
      '- {apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, create, update, delete]}',
      `---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: ${sa}, namespace: ${ns}}`,
      `roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: ${sa}}`,
      `subjects: [{kind: ServiceAccount, name: ${sa}, namespace: ${ns}}]`,
    ].join('\n');
    await kubectl(['--context', 'spread-local', 'apply', '-f', '-'], { input: rbac });
    try {
      const kubeconfig = await tokenKubeconfig(sa);
      const files = {
        '.k2e/0-crd.yaml': crdYaml(group, ['v1']),
        '.k2e/1-widget.yaml': `apiVersion: ${group}/v1\nkind: Widget\nmetadata:\n  name: wr\nspec: {size: 2}\n`,
      };
      const r = await deploy({
        ...localDeploy(dir('no-ns-get', files), ns, { wait: false }),
        kubeconfig: { paths: [kubeconfig] },
        context: sa,
      });
      expect(r.objects.map((o) => `${o.kind}:${o.action}`)).toEqual([
        'CustomResourceDefinition:created',
        'Widget:created',
      ]);
      expect((await getJson(`widgets.${group}`, 'wr')).spec.size).toBe(2);
    } finally {
      await kubectl(['--context', 'spread-local', 'delete', 'crd', `widgets.${group}`, '--wait=false'], {
        allowFail: true,
      });
      await kubectl(['--context', 'spread-local', 'delete', 'clusterrole,clusterrolebinding', sa], {
        allowFail: true,
      });
    }
  });

  test('a Namespace dropped from the directory while objects stay in it: kept, in plan and deploy alike, and still tracked', async () => {
    const target = uniqueName('itg-keepns');
    const ns = `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${target}\n`;
    const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata: {a: b}\n';
    try {
      await run(dir('keepns', { '.k2e/ns.yaml': ns, '.k2e/cm.yaml': cm }), { namespace: target });
      const dropped = dir('keepns', { '.k2e/cm.yaml': cm });
      const planned = await run(dropped, { namespace: target, mode: 'plan' });
      expect(planned.objects.map((o) => `${o.kind} ${o.action}`)).toEqual([
        'ConfigMap unchanged',
        'Namespace keep',
      ]);
      expect(planned.objects[1]?.note).toBe('objects of this deployment are still in it');
      const infos: string[] = [];
      const deployed = await run(dropped, {
        namespace: target,
        logger: { ...silentLogger, info: (m: string) => infos.push(m) },
      });
      expect(deployed.objects.map((o) => `${o.kind} ${o.action}`)).toEqual([
        'ConfigMap unchanged',
        'Namespace kept',
      ]);
      expect(infos).toContain(
        `namespace/${target} kept: the directory dropped it, but objects of this deployment are still in it`,
      );
      const parent = await getJson('secret', 'spread.keepns', target);
      expect(parent.metadata.annotations['applyset.kubernetes.io/contains-group-kinds']).toBe(
        'ConfigMap,Namespace',
      );
      expect((await getJson('namespace', target)).status.phase).toBe('Active');
    } finally {
      await kubectl(['--context', 'spread-local', 'delete', 'namespace', target, '--wait=false'], {
        allowFail: true,
      });
    }
  });

  test('a CRD dropped from the directory is kept with its custom resources, counted in plan and deploy; --prune-crds deletes it', async () => {
    const group = `${uniqueName('keep')}.example.com`;
    const widget = (name: string) =>
      `apiVersion: ${group}/v1\nkind: Widget\nmetadata:\n  name: ${name}\nspec: {size: 1}\n`;
    const crdName = `widgets.${group}`;
    try {
      await run(
        dir('keepcrd', { '.k2e/0-crd.yaml': crdYaml(group, ['v1']), '.k2e/1-w.yaml': widget('ours') }),
      );
      // A custom resource somebody else made, which deleting the CRD would delete too.
      await kubectl(['--context', 'spread-local', '-n', ns, 'apply', '-f', '-'], { input: widget('theirs') });
      const dropped = dir('keepcrd', {
        '.k2e/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keepcrd\n',
      });
      const planned = await run(dropped, { mode: 'plan' });
      const row = (r: DeployReport, kind: string) => r.objects.find((o) => o.kind === kind);
      expect(row(planned, 'Widget')?.action).toBe('prune');
      expect(row(planned, 'CustomResourceDefinition')).toMatchObject({
        action: 'keep',
        // Two in the cluster, but `ours` goes with this prune anyway.
        note: 'a CRD is pruned only when asked for, since deleting it deletes its 1 custom resource',
      });
      const deployed = await run(dropped);
      expect(row(deployed, 'Widget')?.action).toBe('pruned');
      expect(row(deployed, 'CustomResourceDefinition')?.action).toBe('kept');
      await getJson('widget', 'theirs');
      expect((await getJson('crd', crdName)).metadata.name).toBe(crdName);
      // Still tracked, so a later deploy can still prune it when asked to.
      const parent = await getJson('secret', 'spread.keepcrd');
      expect(parent.metadata.annotations['applyset.kubernetes.io/contains-group-kinds']).toContain(
        'CustomResourceDefinition.apiextensions.k8s.io',
      );
      const asked = await run(dropped, { mode: 'plan', pruneCrds: true });
      expect(row(asked, 'CustomResourceDefinition')).toMatchObject({
        action: 'prune',
        note: 'deletes 1 custom resource with it',
      });
      const pruned = await run(dropped, { pruneCrds: true });
      expect(row(pruned, 'CustomResourceDefinition')?.action).toBe('pruned');
      // The CRD's finalizer deletes its custom resources first, then the CRD.
      await kubectl(['--context', 'spread-local', 'wait', '--for=delete', `crd/${crdName}`, '--timeout=60s']);
      await expectNotFound(['--context', 'spread-local', 'get', 'crd', crdName]);
    } finally {
      await kubectl(['--context', 'spread-local', 'delete', 'crd', crdName, '--ignore-not-found'], {
        allowFail: true,
      });
    }
  });

  test('a hand-made Namespace in the directory is refused, so it is never pruned with what it holds', async () => {
    const hand = uniqueName('itg-handns');
    await kubectl(['--context', 'spread-local', 'create', 'namespace', hand]);
    await kubectl([
      '--context',
      'spread-local',
      '-n',
      hand,
      'create',
      'configmap',
      'precious',
      '--from-literal=x=1',
    ]);
    try {
      const files = { '.k2e/ns.yaml': `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${hand}\n` };
      for (const mode of ['plan', 'deploy'] as const) {
        const error = await run(dir('handns', files), { mode }).catch((e) => e);
        expect(error).toBeInstanceOf(ApplyError);
        expect(error.message).toMatch(
          new RegExp(`Namespace ${hand} \\(\\.k2e/ns\\.yaml:1\\): exists, but no spread deployment owns it`),
        );
      }
      const live = await getJson('namespace', hand);
      expect(live.metadata.labels?.['applyset.kubernetes.io/part-of']).toBeUndefined();
    } finally {
      await kubectl(['--context', 'spread-local', 'delete', 'namespace', hand, '--wait=false'], {
        allowFail: true,
      });
    }
  });

  test('an invalid object among 20 valid ones: non-zero, its file and line named, the cluster unchanged', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 20; i++) {
      files[`.k2e/cm-${String(i).padStart(2, '0')}.yaml`] =
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: twenty-${i}\ndata: {a: b}\n`;
    }
    files['.k2e/cm-07.yaml'] +=
      '---\n# the bad one\napiVersion: v1\nkind: Service\nmetadata:\n  name: bad\nspec:\n  ports:\n  - port: 80\n    protocl: TCP\n';
    const error = await run(dir('twenty', files)).catch((e) => e);
    expect(error).toBeInstanceOf(ApplyError);
    expect(error.failures).toHaveLength(1);
    // The refused field's own line (`protocl: TCP`), not the Service's first line (8).
    expect(error.message).toMatch(/\.k2e\/cm-07\.yaml:15\)/);
    expect(error.message).toMatch(/protocl/);
    const cms = await kubectl(['--context', 'spread-local', '-n', ns, 'get', 'configmap', '-o', 'name']);
    expect(cms.stdout).not.toMatch(/twenty-/);
  });

  test('several invalid objects that exist: every failure listed, in the same order on every run', async () => {
    const files = (bad: boolean) => {
      const out: Record<string, string> = {};
      for (let i = 0; i < 12; i++) {
        const extra = bad && i % 4 === 1 ? `bogus${i}: x\n` : '';
        out[`.k2e/cm-${String(i).padStart(2, '0')}.yaml`] =
          `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: order-${i}\ndata: {a: b}\n${extra}`;
      }
      return out;
    };
    // They exist with the deploy annotations, so the plan sends copies that keep the live values.
    const at = { annotations: { 'spread.rsprd.com/deployed-at': '2026-11-30T10:00:00Z' } };
    await run(dir('order', files(false)), at);
    const messages: string[] = [];
    for (let i = 0; i < 3; i++) {
      const error = await run(dir('order', files(true)), at).catch((e) => e);
      expect(error).toBeInstanceOf(ApplyError);
      expect(
        error.failures.map(
          (f: { object: { object: { metadata: { name: string } } } }) => f.object.object.metadata.name,
        ),
      ).toEqual(['order-1', 'order-5', 'order-9']);
      messages.push(error.message);
    }
    expect(new Set(messages).size).toBe(1);
  });

  test('a selector change is a clear error naming the field and the object', async () => {
    await run(dir('web', { 'deployment.yaml': deployment('new') }));
    const changed = deployment('new')
      .replace('matchLabels: {app: web}', 'matchLabels: {app: web, v: "2"}')
      .replace('labels: {app: web}', 'labels: {app: web, v: "2"}');
    const error = await run(dir('web', { 'deployment.yaml': changed })).catch((e) => e);
    expect(error).toBeInstanceOf(ApplyError);
    // At spec.selector's line (7), not the object's first line.
    expect(error.message).toMatch(/Deployment\.apps .*web \(deployment\.yaml:7\)/);
    expect(error.message).toMatch(/spec\.selector/);
    expect(error.message).toMatch(/immutable/);
  });
});

describe('taking over from client-side kubectl apply', () => {
  test('kubectl apply, then spread (refused, then --adopt), then a container renamed: exactly the new container', async () => {
    const name = 'csa';
    const manifest = deployment('first')
      .replace(/name: web\n/, `name: ${name}\n`)
      .replace(/app: web/g, 'app: csa');
    await kubectl(['--context', 'spread-local', '-n', ns, 'apply', '-f', '-'], { input: manifest });
    const before = await getJson('deployment', name);
    // Not spread's: refused in the plan, untouched, until --adopt takes it over.
    const refused = await run(dir(name, { 'deployment.yaml': manifest })).catch((e) => e);
    expect(refused).toBeInstanceOf(ApplyError);
    // The core names options by key; the CLI spells them as its flags (the Action as its inputs).
    expect(cliText(refused.message)).toContain(
      `/${name} (deployment.yaml:1): exists, but no spread deployment owns it (no applyset.kubernetes.io/part-of label: made by hand or by another tool, or the label was removed); taking it over would make a later deploy without it delete it. Adopt it to take it over (--adopt; with --force-conflicts where another manager owns its fields)`,
    );
    // Untouched by spread (the deployment controller may still write its status and its revision
    // annotation meanwhile, so resourceVersion and annotations may move).
    const after = await getJson('deployment', name);
    expect(after.metadata.generation).toBe(before.metadata.generation);
    expect(after.metadata.labels).toEqual(before.metadata.labels);
    const keys = Object.keys({ ...after.metadata.labels, ...after.metadata.annotations });
    expect(keys.filter((k) => /spread|applyset/.test(k))).toEqual([]);
    await run(dir(name, { 'deployment.yaml': manifest }), { adopt: true });
    await run(dir(name, { 'deployment.yaml': manifest.replace('name: first', 'name: second') }));
    const live = await getJson('deployment', name);
    expect(live.spec.template.spec.containers.map((c: { name: string }) => c.name)).toEqual(['second']);
    const withFields = JSON.parse(
      (
        await kubectl([
          '--context',
          'spread-local',
          '-n',
          ns,
          'get',
          'deployment',
          name,
          '-o',
          'json',
          '--show-managed-fields',
        ])
      ).stdout,
    );
    const managers = withFields.metadata.managedFields.map((m: { manager: string }) => m.manager);
    expect(managers).not.toContain('kubectl-client-side-apply');
  });
});

describe('immutable fields and ReplicationController rollouts', () => {
  // Alone, and after an object of an earlier apply group (which once made the deploy dry-run the
  // replaced object again, and fail on its immutable field).
  test.each([
    ['alone', 'resel', {}],
    [
      'beside a ConfigMap applied first',
      'reselcm',
      { '.k2e/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: reselcm\ndata: {a: b}\n' },
    ],
  ])('a selector change with --replace re-creates the object (%s)', async (_, name, extra) => {
    const base = deployment('new')
      .replace(/name: web\n/, `name: ${name}\n`)
      .replace(/app: web/g, `app: ${name}`);
    await run(dir(name, { 'deployment.yaml': base, ...extra }));
    const before = await getJson('deployment', name);
    const changed = base
      .replace(`matchLabels: {app: ${name}}`, `matchLabels: {app: ${name}, v: "2"}`)
      .replace(`labels: {app: ${name}}`, `labels: {app: ${name}, v: "2"}`);
    const r = await run(dir(name, { 'deployment.yaml': changed, ...extra }), { replace: true });
    expect(r.objects.find((o) => o.kind === 'Deployment')).toMatchObject({
      action: 'configured',
      replaced: true,
    });
    const after = await getJson('deployment', name);
    expect(after.metadata.uid).not.toBe(before.metadata.uid);
    expect(after.spec.selector.matchLabels).toEqual({ app: name, v: '2' });
  });

  test('a bare Pod whose spec changes: refused with the --replace hint; --replace re-creates it', async () => {
    const pod = (value: string) =>
      `apiVersion: v1\nkind: Pod\nmetadata:\n  name: barepod\nspec:\n  containers:\n  - name: c\n    image: busybox:1\n    env: [{name: V, value: "${value}"}]\n`;
    await run(dir('barepod', { 'pod.yaml': pod('1') }));
    const before = await getJson('pod', 'barepod');
    const refused = await run(dir('barepod', { 'pod.yaml': pod('2') })).catch((e) => e);
    expect(refused).toBeInstanceOf(ApplyError);
    expect(cliText(refused.message)).toMatch(
      /pod updates may not change fields.*\(use --replace to delete and re-create the object\)/s,
    );
    const r = await run(dir('barepod', { 'pod.yaml': pod('2') }), { replace: true });
    expect(r.objects.find((o) => o.kind === 'Pod')).toMatchObject({ action: 'configured', replaced: true });
    const after = await getJson('pod', 'barepod');
    expect(after.metadata.uid).not.toBe(before.metadata.uid);
    expect(after.spec.containers[0].env).toEqual([{ name: 'V', value: '2' }]);
  });

  test('an RC pod template change replaces every pod, never fewer than replicas-1 Ready', async () => {
    const rc = (image: string) =>
      `apiVersion: v1\nkind: ReplicationController\nmetadata:\n  name: roll\nspec:\n  replicas: 3\n  selector: {app: roll}\n  template:\n    metadata:\n      labels: {app: roll}\n    spec:\n      containers:\n      - name: web\n        image: ${image}\n`;
    await run(dir('roll', { 'rc.yaml': rc('registry.example/web:1') }), { wait: true });
    const podsNow = async () =>
      JSON.parse(
        (
          await kubectl([
            '--context',
            'spread-local',
            '-n',
            ns,
            'get',
            'pods',
            '-l',
            'app=roll',
            '-o',
            'json',
          ])
        ).stdout,
      ).items as {
        metadata: { name: string; deletionTimestamp?: string };
        spec: { containers: { image: string }[] };
        status: { conditions?: { type: string; status: string }[] };
      }[];
    const oldPods = (await podsNow()).map((p) => p.metadata.name);
    expect(oldPods).toHaveLength(3);
    let minReady = 3;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const ready = (await podsNow()).filter(
          (p) =>
            !p.metadata.deletionTimestamp &&
            p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        ).length;
        minReady = Math.min(minReady, ready);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    try {
      await run(dir('roll', { 'rc.yaml': rc('registry.example/web:2') }), { wait: true });
    } finally {
      watching = false;
      await watcher;
    }
    const pods = (await podsNow()).filter((p) => !p.metadata.deletionTimestamp);
    expect(pods).toHaveLength(3);
    for (const p of pods) {
      expect(oldPods).not.toContain(p.metadata.name);
      expect(p.spec.containers[0]!.image).toBe('registry.example/web:2');
    }
    expect(minReady).toBeGreaterThanOrEqual(2);
  });
});

describe("the deploy's annotations", () => {
  test('go on changed objects only: a redeploy from another commit changes nothing', async () => {
    const cm = (v: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: noted\ndata: {v: "${v}"}\n`;
    const other = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: still\ndata: {v: "1"}\n';
    const ann = (commit: string) => ({
      'spread.rsprd.com/commit': commit,
      'spread.rsprd.com/deployed-at': new Date().toISOString(),
    });
    await run(dir('noted', { '.k2e/a.yaml': cm('1'), '.k2e/b.yaml': other }), { annotations: ann('c1') });
    const again = await run(dir('noted', { '.k2e/a.yaml': cm('1'), '.k2e/b.yaml': other }), {
      annotations: ann('c2'),
    });
    expect(again.objects.map((o) => o.action)).toEqual(['unchanged', 'unchanged']);
    const changed = await run(dir('noted', { '.k2e/a.yaml': cm('2'), '.k2e/b.yaml': other }), {
      annotations: ann('c3'),
    });
    expect(Object.fromEntries(changed.objects.map((o) => [o.name, o.action]))).toEqual({
      noted: 'configured',
      still: 'unchanged',
    });
    expect((await getJson('configmap', 'noted')).metadata.annotations['spread.rsprd.com/commit']).toBe('c3');
    expect((await getJson('configmap', 'still')).metadata.annotations['spread.rsprd.com/commit']).toBe('c1');
  });
});

describe('objects of another deployment', () => {
  test('are refused in the plan, naming the owner; --adopt takes them over', async () => {
    const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\ndata: {a: b}\n';
    await run(dir('owner', { '.k2e/cm.yaml': cm }));
    const error = await run(dir('intruder', { '.k2e/cm.yaml': cm })).catch((e) => e);
    expect(error).toBeInstanceOf(ApplyError);
    expect(error.message).toMatch(/nothing was written/);
    expect(error.message).toMatch(
      new RegExp(
        `ConfigMap ${ns}/shared \\(\\.k2e/cm\\.yaml:1\\): belongs to another deployment \\(spread deployment ${ns}/owner\\)`,
      ),
    );
    const adopted = await run(dir('intruder', { '.k2e/cm.yaml': cm }), { adopt: true });
    expect(adopted.objects.map((o) => o.action)).toEqual(['configured']);
  });
});
