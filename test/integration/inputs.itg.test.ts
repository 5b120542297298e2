// Inputs other than the convention against the local cluster (issue 39): a plain manifest folder
// deployed by the CLI as a user runs it (every object stored, the compose file reported as not
// deployed), and a mixed Application (convention, plain manifests and rendered folders) deployed
// as one ApplySet. The renderers here are stand-ins: kustomize and Helm have their own tests.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { deploy } from '../../src/frontend/deploy.js';
import type { RenderRequest } from '../../src/input/index.js';
import { needs } from './harness.js';
import { kubectl, localDeploy, ROOT, runNode, uniqueName, writeDir } from './helpers.js';

const ns = uniqueName('plain-inputs');
const get = async (what: string) =>
  JSON.parse((await kubectl(['--context', 'spread-local', '-n', ns, 'get', what, '-o', 'json'])).stdout) as {
    items: { kind: string; metadata: { name: string; labels?: Record<string, string> } }[];
  };

describe('inputs other than the convention, deployed', () => {
  beforeAll(async () => {
    await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
  });
  afterAll(async () => {
    await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
      allowFail: true,
    });
  });

  test('a plain folder: deployment.yaml, service.yaml, configmap.yaml and ingress.yaml are all stored; the compose file is reported', async () => {
    const dir = `${ROOT}/test/fixtures/plain/four`;
    const plan = await runNode('dist/cli/index.js', ['plan', dir, 'spread-local', '-n', ns]);
    expect([plan.code, plan.stderr]).toEqual([0, expect.any(String)]);
    expect(plan.stdout).toContain('  not deployed (no Kubernetes object): docker-compose.yml\n');
    const run = await runNode('dist/cli/index.js', ['deploy', dir, 'spread-local', '-n', ns, '--no-wait']);
    expect([run.code, run.code ? run.stderr : '']).toEqual([0, '']);
    expect(run.stdout).toContain('  not deployed (no Kubernetes object): docker-compose.yml\n');
    expect(run.stdout).toContain('4 created');
    const stored = (await get('deployments,services,configmaps,ingresses')).items
      .filter((o) => o.metadata.labels?.['applyset.kubernetes.io/part-of'])
      .map((o) => `${o.kind}/${o.metadata.name}`)
      .sort();
    expect(stored).toEqual(['ConfigMap/shop', 'Deployment/shop', 'Ingress/shop', 'Service/shop']);
    const render = await runNode('dist/cli/index.js', ['render', dir]);
    expect(render.code).toBe(0);
    expect(render.stderr).toContain('not deployed (no Kubernetes object): docker-compose.yml');
    expect(render.stdout).not.toContain('not deployed');
    const status = await runNode('dist/cli/index.js', ['status', dir, '--context', 'spread-local', '-n', ns]);
    expect([status.code, status.stderr]).toEqual([0, '']);
    expect(status.stdout).toContain('├─ Service shop  service.yaml:1  [manifests]  in sync');
    expect(status.stdout).toContain('not deployed (no Kubernetes object): docker-compose.yml');
  });

  test(
    '"&web" in k8s/deployment-web.yaml is built from k8s/, pinned by digest; editing service.yaml there rebuilds nothing',
    needs('buildkit', 'registry'),
    async () => {
      const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: plainbuild-web
spec:
  replicas: 0
  selector:
    matchLabels: {app: plainbuild-web}
  template:
    metadata:
      labels: {app: plainbuild-web}
    spec:
      containers:
        - name: web
          image: "&plain-web"
`;
      const service = (port: number) =>
        `apiVersion: v1\nkind: Service\nmetadata:\n  name: plainbuild-web\nspec:\n  ports: [{port: ${port}}]\n`;
      const base = process.env.SPREAD_BASE_IMAGE_REF ?? 'localhost:5000/spread/busybox:1';
      const files = {
        'k8s/Dockerfile': `FROM ${base}\nCOPY . /app\n`,
        'k8s/index.html': 'hello\n',
        'k8s/deployment-web.yaml': deployment,
      };
      // One tag for both deploys: the second finds the image of the first by its context digest.
      const tag = uniqueName('plain');
      // One folder for both deploys, edited in between, as a user's checkout is: a deployment
      // records the folder it comes from, and another folder of the same name is refused.
      const root = writeDir('plainbuild', { ...files, 'k8s/service.yaml': service(80) });
      const deployTo = (port: number) => {
        writeFileSync(path.join(root, 'k8s/service.yaml'), service(port));
        return runNode('dist/cli/index.js', [
          'deploy',
          root,
          'spread-local',
          '-n',
          ns,
          '--name',
          'plainbuild',
          '--tag',
          tag,
        ]);
      };
      const first = await deployTo(80);
      expect([first.code, first.code ? first.stderr : '']).toEqual([0, '']);
      expect(first.stdout).toMatch(
        /image localhost:5000\/plain-web:\S+@sha256:[0-9a-f]{64} built and pushed {2}\(k8s\/deployment-web\.yaml:15\)/,
      );
      const image = (await get('deployments')).items.find(
        (o) => o.metadata.name === 'plainbuild-web',
      ) as unknown as {
        spec: { template: { spec: { containers: { image: string }[] } } };
      };
      expect(image.spec.template.spec.containers[0]?.image).toMatch(/^localhost:5000\/plain-web:\S+@sha256:/);
      const second = await deployTo(8080);
      expect([second.code, second.code ? second.stderr : '']).toEqual([0, '']);
      expect(second.stdout).toMatch(/image localhost:5000\/plain-web:\S+ unchanged/);
      expect(second.stdout).toContain('service/plainbuild-web configured');
    },
  );

  test('a mixed Application (convention, plain, rendered) is one ApplySet; dropping the rendered folder prunes exactly its objects', async () => {
    const files = {
      'web/rc.yaml':
        'apiVersion: v1\nkind: ReplicationController\nmetadata:\n  name: mixed-web\nspec:\n  replicas: 0\n',
      'web/web.ctr': 'image: busybox:1.36\n',
      'web/.k2e/svc.yaml':
        'apiVersion: v1\nkind: Service\nmetadata:\n  name: mixed-web\nspec:\n  ports: [{port: 80}]\n',
      'plain/config.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mixed-plain\n',
      'chart/Chart.yaml': 'apiVersion: v2\nname: mixed\nversion: 0.1.0\n',
      'config/kustomization.yaml': 'resources: []\n',
    };
    const rendered = (r: RenderRequest) => ({
      objects: [
        {
          value: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `mixed-${r.kind}` } },
          source: { file: `${r.dir}/out.yaml`, line: 1 },
        },
      ],
      issues: [],
      tool: `${r.kind} stand-in`,
    });
    const renderers = {
      helm: async (r: RenderRequest) => rendered(r),
      kustomize: async (r: RenderRequest) => rendered(r),
    };
    const dir = writeDir('mixed', files);
    const first = await deploy(localDeploy(dir, ns, { wait: false, renderers, name: 'mixed' }));
    expect(first.objects.map((o) => `${o.kind}/${o.name} ${o.action}`).sort()).toEqual([
      'ConfigMap/mixed-helm created',
      'ConfigMap/mixed-kustomize created',
      'ConfigMap/mixed-plain created',
      'ReplicationController/mixed-web created',
      'Service/mixed-web created',
    ]);
    expect(first.rendered?.map((f) => `${f.dir} ${f.tool}`)).toEqual([
      'chart helm stand-in',
      'config kustomize stand-in',
    ]);
    const members = (await get('configmaps,services,replicationcontrollers')).items
      .filter((o) => o.metadata.name.startsWith('mixed-'))
      .map((o) => o.metadata.labels?.['applyset.kubernetes.io/part-of']);
    expect(members).toHaveLength(5);
    expect(new Set(members).size).toBe(1);
    expect(members[0]).toMatch(/^applyset-/);
    const { 'chart/Chart.yaml': _chart, ...withoutChart } = files;
    const second = await deploy(
      localDeploy(writeDir('mixed', withoutChart), ns, { wait: false, renderers, name: 'mixed' }),
    );
    expect(
      second.objects.filter((o) => o.action !== 'unchanged').map((o) => `${o.kind}/${o.name} ${o.action}`),
    ).toEqual(['ConfigMap/mixed-helm pruned']);
  });
});
