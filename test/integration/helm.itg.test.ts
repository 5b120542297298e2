// Helm charts through `spread deploy` (the CLI, dist/cli/index.js) against the local cluster, with
// Helm 4 and Helm 3 (test/integration/env.ts helmBinaries): the fixture chart test/fixtures/helm/shop
// (crds/, a vendored dependency, values per environment, a hook), .Capabilities compared with what
// `helm install --dry-run=server` reads from the cluster, template errors, pruning a dropped template,
// dependencies fetched from a chart repository served on loopback, and an image marked & in a value.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { helmBinaries } from './env.js';
import { needs } from './harness.js';
import { copyDir, kubectl, ROOT, runNode, uniqueName } from './helpers.js';

const exec = promisify(execFile);
const HELM = helmBinaries();
const SHOP = path.join(ROOT, 'test/fixtures/helm/shop');
const namespaces: string[] = [];
const crds: string[] = [];

/** A copy of the fixture chart whose CRD group is unique to this run: CRDs are cluster-scoped. */
function shopCopy(label: string): { dir: string; group: string } {
  const dir = copyDir(SHOP, 'shop');
  const group = `${uniqueName(label)}.shop.spread.dev`;
  for (const f of ['crds/widgets.yaml', 'templates/widget.yaml', 'templates/capabilities.yaml']) {
    const file = path.join(dir, f);
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll('shop.spread.dev', group));
  }
  crds.push(`widgets.${group}`);
  return { dir, group };
}

async function namespace(label: string): Promise<string> {
  const ns = uniqueName(`helm-${label}`);
  await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
  namespaces.push(ns);
  return ns;
}

function spread(args: readonly string[]) {
  return runNode('dist/cli/index.js', args);
}

async function getJson(args: readonly string[]): Promise<Record<string, unknown> & { items?: unknown[] }> {
  const r = await kubectl(['--context', 'spread-local', 'get', ...args, '-o', 'json']);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

async function uids(ns: string): Promise<Map<string, string>> {
  const list = await getJson([
    'configmaps,services,deployments',
    '-n',
    ns,
    '-l',
    'applyset.kubernetes.io/part-of',
  ]);
  return new Map(
    (list.items as { kind: string; metadata: { name: string; uid: string } }[]).map((o) => [
      `${o.kind}/${o.metadata.name}`,
      o.metadata.uid,
    ]),
  );
}

afterAll(async () => {
  for (const ns of namespaces)
    await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
      allowFail: true,
    });
  for (const crd of crds)
    await kubectl(['--context', 'spread-local', 'delete', 'crd', crd, '--wait=false', '--ignore-not-found'], {
      allowFail: true,
    });
});

describe.each([
  ['Helm 4', HELM.helm4],
  ['Helm 3', HELM.helm3],
])('Integration: a Helm chart rendered by %s', (label, helm) => {
  const major = label === 'Helm 4' ? '4' : '3';

  test('deploy: crds/ applied, the custom resource, the vendored dependency and values-prod.yaml; the hooks run in their phases', async () => {
    const ns = await namespace(`h${major}`);
    const { dir, group } = shopCopy(`h${major}`);
    const r = await spread([
      'deploy',
      dir,
      'spread-local',
      '-n',
      ns,
      '--helm',
      helm,
      '--helm-values',
      'values-prod.yaml',
      '--no-wait',
    ]);
    expect([r.code, r.stderr]).toEqual([0, expect.any(String)]);
    // The pre-install,pre-upgrade hook ran to completion in the pre phase, before the release's
    // objects were written; the post-install hook was written after them, in the post phase.
    expect(r.stdout + r.stderr).toMatch(
      /job\/shop-migrate .*created[\s\S]*deployment\/shop-web .*created[\s\S]*job\/shop-smoke .*created/,
    );
    const migrate = await getJson(['job', 'shop-migrate', '-n', ns]);
    expect((migrate.status as { succeeded?: number }).succeeded).toBe(1);
    const cache = await getJson(['configmap', 'shop-cache', '-n', ns]);
    expect((cache.data as Record<string, string>).size).toBe('512');
    const web = await getJson(['deployment', 'shop-web', '-n', ns]);
    expect((web.spec as { replicas: number }).replicas).toBe(3);
    const crd = await getJson(['crd', `widgets.${group}`]);
    expect(
      (crd.metadata as { labels?: Record<string, string> }).labels?.['applyset.kubernetes.io/part-of'],
    ).toBeDefined();
    const widget = await getJson([`widgets.${group}`, 'shop-widget', '-n', ns]);
    expect((widget.spec as { greeting: string }).greeting).toBe('hello from production');
    // The chart keeps its own label; the release is the deployment's name.
    expect((web.metadata as { labels: Record<string, string> }).labels['app.kubernetes.io/managed-by']).toBe(
      'Helm',
    );
    expect((web.metadata as { labels: Record<string, string> }).labels['app.kubernetes.io/instance']).toBe(
      'shop',
    );
    // status names each object's template.
    const s = await spread([
      'status',
      dir,
      '--context',
      'spread-local',
      '-n',
      ns,
      '--helm',
      helm,
      '--helm-values',
      'values-prod.yaml',
    ]);
    expect(s.stdout).toContain('ConfigMap shop-cache  charts/cache/templates/configmap.yaml:1');
    expect(s.stdout).toContain(`CustomResourceDefinition widgets.${group}  crds/widgets.yaml:1`);
    // An upgrade: the pre-upgrade hook runs again (before-hook-creation: re-created), the
    // post-install one does not run.
    const upgrade = await spread([
      'deploy',
      dir,
      'spread-local',
      '-n',
      ns,
      '--helm',
      helm,
      '--helm-values',
      'values-prod.yaml',
      '--no-wait',
    ]);
    expect([upgrade.code, upgrade.stderr]).toEqual([0, expect.any(String)]);
    const said = upgrade.stdout + upgrade.stderr;
    expect(said).toMatch(/job\.batch\/shop-migrate configured \(replaced\) -n \S+ \[pre\]/);
    expect(said).toContain(
      'Job shop-smoke (templates/smoke.yaml:2): a Helm hook of post-install only, and this deploy is an upgrade: not run',
    );
  });

  test('.Capabilities: the Kubernetes version and API versions helm install --dry-run=server reads from the cluster', async () => {
    const ns = await namespace(`cap${major}`);
    const { dir, group } = shopCopy(`cap${major}`);
    writeFileSync(
      path.join(dir, 'templates/capabilities.yaml'),
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-capabilities\ndata:\n  kubeVersion: {{ .Capabilities.KubeVersion.Version | quote }}\n  apiVersions: {{ .Capabilities.APIVersions | toJson | quote }}\n`,
    );
    const first = await spread(['deploy', dir, 'spread-local', '-n', ns, '--helm', helm, '--no-wait']);
    expect([first.code, first.code ? first.stderr : '']).toEqual([0, '']);
    // Once the chart's CRD is served, both read it.
    const again = await spread(['deploy', dir, 'spread-local', '-n', ns, '--helm', helm, '--no-wait']);
    expect([again.code, again.code ? again.stderr : '']).toEqual([0, '']);
    const ours = (await getJson(['configmap', 'shop-capabilities', '-n', ns])).data as Record<string, string>;
    // Into an empty namespace: Helm refuses to install over objects it does not own.
    const empty = await namespace(`capd${major}`);
    const { stdout } = await exec(
      helm,
      [
        'install',
        'shop',
        dir,
        '-n',
        empty,
        '--dry-run=server',
        '--kube-context',
        'spread-local',
        '--output',
        'json',
      ],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    const manifest = (JSON.parse(stdout) as { manifest: string }).manifest;
    const theirs = /kubeVersion: "([^"]*)"\n\s+apiVersions: "(.*)"\n/.exec(manifest);
    expect(theirs).not.toBeNull();
    expect(ours.kubeVersion).toBe(theirs![1]);
    // Built-in groups and this chart's: other tests may add CRDs of their own between the two reads.
    // helm template adds the given versions to its built-in ones (Helm's DefaultVersionSet), so ours
    // holds every version helm install reads from the cluster, and possibly built-in ones it does
    // not serve. Built-in groups and this chart's only: other tests add CRDs between the reads.
    const stable = (list: string[]) =>
      list.filter((v) => !v.includes('.') || /^[^/]*\.k8s\.io\//.test(v) || v.startsWith(`${group}/`));
    const helmSays = JSON.parse(JSON.parse(`"${theirs![2]}"`)) as string[];
    const oursSet = new Set(JSON.parse(ours.apiVersions!) as string[]);
    expect(stable(helmSays).filter((v) => !oursSet.has(v))).toEqual([]);
    expect(oursSet.has(`${group}/v1/Widget`)).toBe(true);
    expect(helmSays).toContain(`${group}/v1/Widget`);
  });
});

describe('Integration: Helm charts, errors, prune and dependencies (Helm 4)', () => {
  const helm = HELM.helm4;

  test('a template error names the template file and line; nothing is written', async () => {
    const ns = await namespace('err');
    const { dir } = shopCopy('err');
    writeFileSync(
      path.join(dir, 'templates/broken.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.missing.deeper }}\n',
    );
    const r = await spread(['deploy', dir, 'spread-local', '-n', ns, '--helm', helm, '--no-wait']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/templates\/broken\.yaml:4\b/);
    expect(r.stderr).toContain('nil pointer evaluating');
    expect(r.stderr).not.toContain('--debug');
    expect(
      (await getJson(['configmaps,services,deployments', '-n', ns, '-l', 'applyset.kubernetes.io/part-of']))
        .items,
    ).toEqual([]);
  });

  test('dropping a template prunes exactly its objects; a dropped crds/ CRD is kept; a changed CRD is upgraded', async () => {
    const ns = await namespace('prune');
    const { dir, group } = shopCopy('prune');
    const deploy = () => spread(['deploy', dir, 'spread-local', '-n', ns, '--helm', helm, '--no-wait']);
    expect((await deploy()).code).toBe(0);
    const before = await uids(ns);
    expect(before.has('Service/shop-web')).toBe(true);
    // A printer column added to the CRD: spread upgrades it (helm upgrade never touches crds/).
    const crdFile = path.join(dir, 'crds/widgets.yaml');
    writeFileSync(
      crdFile,
      readFileSync(crdFile, 'utf8').replace(
        '      storage: true\n',
        '      storage: true\n      additionalPrinterColumns:\n        - name: Greeting\n          type: string\n          jsonPath: .spec.greeting\n',
      ),
    );
    const upgraded = await deploy();
    expect([upgraded.code, upgraded.code ? upgraded.stderr : '']).toEqual([0, '']);
    const crd = await getJson(['crd', `widgets.${group}`]);
    expect(JSON.stringify(crd.spec)).toContain('"jsonPath":".spec.greeting"');
    rmSync(path.join(dir, 'templates/service.yaml'));
    const dropped = await deploy();
    expect([dropped.code, dropped.code ? dropped.stderr : '']).toEqual([0, '']);
    const after = await uids(ns);
    before.delete('Service/shop-web');
    expect(after).toEqual(before);
    // crds/ dropped: the CRD stays (its custom resources with it), reported as kept.
    rmSync(path.join(dir, 'crds'), { recursive: true });
    rmSync(path.join(dir, 'templates/widget.yaml'));
    const noCrd = await deploy();
    expect([noCrd.code, noCrd.code ? noCrd.stderr : '']).toEqual([0, '']);
    expect((await getJson(['crd', `widgets.${group}`])).metadata).toBeDefined();
  });

  describe('dependencies not vendored: helm dependency build from a chart repository on loopback', () => {
    let server: Server;
    let url = '';
    beforeAll(async () => {
      // The dependency packaged and indexed as a chart repository is: index.yaml and the archive.
      const repo = copyDir(path.join(SHOP, 'charts/cache'), 'repo');
      const pkg = path.join(path.dirname(repo), 'pkg');
      await exec(helm, ['package', repo, '--destination', pkg]);
      server = createServer((req, res) => {
        const file = path.join(pkg, path.basename(req.url ?? '/'));
        if (!existsSync(file)) {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(200).end(readFileSync(file));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await exec(helm, ['repo', 'index', pkg, '--url', url]);
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    test('rendered with the fetched dependency; the chart folder is left as it was', async () => {
      const { dir } = shopCopy('dep');
      rmSync(path.join(dir, 'charts'), { recursive: true });
      const chartYaml = path.join(dir, 'Chart.yaml');
      writeFileSync(
        chartYaml,
        `apiVersion: v2\nname: shop\nversion: 0.1.0\ndependencies:\n  - name: cache\n    version: 0.1.0\n    repository: ${url}\n`,
      );
      const listing = readdirSync(dir, { recursive: true }).sort();
      const r = await spread(['render', dir, '--helm', helm]);
      expect([r.code, r.code ? r.stderr : '']).toEqual([0, '']);
      expect(r.stdout).toContain('name: shop-cache');
      expect(readdirSync(dir, { recursive: true }).sort()).toEqual(listing);
      // A repository that does not answer is an error at Chart.yaml with Helm's words.
      writeFileSync(chartYaml, readFileSync(chartYaml, 'utf8').replace(url, 'http://127.0.0.1:9'));
      const bad = await spread(['render', dir, '--helm', helm]);
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toMatch(/Chart\.yaml: helm dependency build failed for cache/);
    });
  });
});

describe.each([
  ['Helm 4', HELM.helm4],
  ['Helm 3', HELM.helm3],
])('Integration: spread deploy --adopt takes over a release %s installed', (label, helm) => {
  test("every uid kept, no new ReplicaSet (no pod restarted), Helm's release Secrets left and named", async () => {
    const ns = await namespace(`adopt${label.at(-1)}`);
    const dir = copyDir(SHOP, 'shop');
    // crds/ is cluster-scoped and the hook Job would make helm install wait for it: left out here.
    for (const f of ['crds', 'templates/widget.yaml', 'templates/migrate.yaml', 'templates/smoke.yaml'])
      rmSync(path.join(dir, f), { recursive: true });
    await exec(helm, ['install', 'shop', dir, '-n', ns, '--kube-context', 'spread-local']);
    const live = await getJson(['deployment', 'shop-web', '-n', ns, '--show-managed-fields']);
    const managers = (live.metadata as { managedFields: { manager: string; operation: string }[] })
      .managedFields;
    console.info(
      `${label} leaves field managers: ${managers.map((m) => `${m.manager} (${m.operation})`).join(', ')}`,
    );
    expect(managers.some((m) => m.manager === 'helm')).toBe(true);
    const all = async () => {
      const list = await getJson(['configmaps,services,deployments,replicasets', '-n', ns]);
      return new Map(
        (list.items as { kind: string; metadata: { name: string; uid: string } }[])
          .filter((o) => o.kind !== 'ConfigMap' || o.metadata.name !== 'kube-root-ca.crt')
          .map((o) => [`${o.kind}/${o.metadata.name}`, o.metadata.uid]),
      );
    };
    // The Deployment's ReplicaSet exists once the controller manager made it.
    for (let i = 0; i < 50 && ![...(await all()).keys()].some((k) => k.startsWith('ReplicaSet/')); i++)
      await new Promise((r) => setTimeout(r, 200));
    const before = await all();
    const refused = await spread(['deploy', dir, 'spread-local', '-n', ns, '--helm', helm, '--no-wait']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('no spread deployment owns it');
    const r = await spread(['deploy', dir, 'spread-local', '-n', ns, '--helm', helm, '--adopt', '--no-wait']);
    expect([r.code, r.code ? r.stderr : '']).toEqual([0, '']);
    expect(r.stderr).toContain(
      `Helm release shop (namespace ${ns}) taken over; Helm's release records are left as they were: remove them with kubectl delete secret -n ${ns} -l owner=helm,name=shop`,
    );
    expect(await all()).toEqual(before);
    const after = await getJson(['deployment', 'shop-web', '-n', ns, '--show-managed-fields']);
    const left = (after.metadata as { managedFields: { manager: string }[] }).managedFields.map(
      (m) => m.manager,
    );
    expect(left).not.toContain('helm');
    const secrets = await getJson(['secrets', '-n', ns, '-l', 'owner=helm,name=shop']);
    expect(secrets.items?.length).toBe(1);
    // Now spread's: a deploy without --adopt goes through and changes nothing.
    const again = await spread(['deploy', dir, 'spread-local', '-n', ns, '--helm', helm, '--no-wait']);
    expect([again.code, again.code ? again.stderr : '']).toEqual([0, '']);
    expect(await all()).toEqual(before);
  });
});

describe(
  'Integration: an image marked & in a chart value (examples/hello-chart)',
  needs('buildkit', 'registry'),
  () => {
    test('built from the chart folder, pushed and pinned by digest; a changed value rebuilds nothing', async () => {
      const ns = await namespace('img');
      const dir = copyDir(path.join(ROOT, 'examples/hello-chart'));
      const registry = `${process.env.SPREAD_REGISTRY}/${ns}`;
      const deploy = () =>
        spread([
          'deploy',
          dir,
          'spread-local',
          '-n',
          ns,
          '--helm',
          HELM.helm4,
          '--registry',
          registry,
          '--tag',
          't1',
          '--no-wait',
          '-o',
          'json',
        ]);
      const first = await deploy();
      expect([first.code, first.code ? first.stderr : '']).toEqual([0, '']);
      const report = JSON.parse(first.stdout) as { images: { reference: string; built: boolean }[] };
      expect(report.images).toHaveLength(1);
      expect(report.images[0]!.built).toBe(true);
      expect(report.images[0]!.reference).toMatch(
        new RegExp(`^${registry}/hello-chart:t1@sha256:[0-9a-f]{64}$`),
      );
      const live = await getJson(['deployment', 'hello-chart', '-n', ns]);
      const image = (live.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec
        .containers[0]!.image;
      expect(image).toBe(report.images[0]!.reference);
      const values = path.join(dir, 'values.yaml');
      writeFileSync(values, readFileSync(values, 'utf8').replace('Hello from a Helm chart', 'Hello again'));
      const second = await deploy();
      expect([second.code, second.code ? second.stderr : '']).toEqual([0, '']);
      const again = JSON.parse(second.stdout) as { images: { reference: string; built: boolean }[] };
      expect(again.images[0]).toMatchObject({ reference: report.images[0]!.reference, built: false });
    });
  },
);
