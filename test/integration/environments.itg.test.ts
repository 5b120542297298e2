// Environments on two local clusters (scripts/cluster/clusters.sh): one repository whose spread.yaml
// declares staging (cluster 1) and production (cluster 2) with their own kustomize overlays, deployed
// each with `--environment`; the wrong-cluster guard; `plan --environment all`; status. The CLI is
// run from dist/ as a user runs it.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ensureClusters, type LocalClusters } from './clusters.js';
import { needs } from './harness.js';
import { kubectl, runNode, uniqueName, writeDir } from './helpers.js';

const staging = uniqueName('env-stg');
const production = uniqueName('env-prod');

const overlay = (replicas: number, host: string) => `resources: [../../base]
replicas: [{name: web, count: ${replicas}}]
patches:
  - target: {kind: Ingress, name: web}
    patch: |
      - {op: replace, path: /spec/rules/0/host, value: ${host}}
`;

const FILES = {
  'base/kustomization.yaml': 'resources: [deployment.yaml, ingress.yaml]\n',
  'base/deployment.yaml': `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: registry.example/web:1}]
`,
  'base/ingress.yaml': `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
spec:
  rules:
    - host: web.example.test
      http:
        paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]
`,
  'overlays/staging/kustomization.yaml': overlay(1, 'staging.example.test'),
  'overlays/production/kustomization.yaml': overlay(3, 'www.example.test'),
};

describe('environments on two clusters', needs('clusters'), () => {
  let local: LocalClusters;
  let dir: string;
  const on = (n: number, ...args: string[]) =>
    kubectl(['--kubeconfig', local.kubeconfig, '--context', local.clusters[n]!.context, ...args]);
  const spread = (args: string[], kubeconfig = local.kubeconfig) =>
    runNode('dist/cli/index.js', args, { ...process.env, KUBECONFIG: kubeconfig });

  beforeAll(async () => {
    local = await ensureClusters(2);
    const [a, b] = local.clusters;
    dir = writeDir('web', {
      ...FILES,
      'spread.yaml': `environments:
  staging:
    context: ${a!.context}
    namespace: ${staging}
    path: overlays/staging
    kubeSystemUID: ${a!.kubeSystemUID}
  production:
    context: ${b!.context}
    namespace: ${production}
    path: overlays/production
    server: ${b!.server}
    kubeSystemUID: ${b!.kubeSystemUID}
    after: staging
`,
    });
    await on(0, 'create', 'namespace', staging);
    await on(1, 'create', 'namespace', production);
  }, 240_000);

  afterAll(async () => {
    if (!local) return;
    await on(0, 'delete', 'namespace', staging, '--wait=false', '--ignore-not-found');
    await on(1, 'delete', 'namespace', production, '--wait=false', '--ignore-not-found');
    await on(0, 'delete', 'namespace', production, '--wait=false', '--ignore-not-found');
  });

  test('the clusters are distinct: their own API servers and kube-system uids', () => {
    const [a, b] = local.clusters;
    expect(a!.server).not.toBe(b!.server);
    expect(a!.kubeSystemUID).toMatch(/^[0-9a-f-]{36}$/);
    expect(b!.kubeSystemUID).toMatch(/^[0-9a-f-]{36}$/);
    expect(a!.kubeSystemUID).not.toBe(b!.kubeSystemUID);
  });

  test('each environment deploys its overlay to its own cluster', async () => {
    const stg = await spread(['deploy', dir, '--environment', 'staging']);
    expect(stg.stderr + stg.stdout).toMatch(/Deployed web to namespace env-stg-.* \(context spread-local\)/);
    expect(stg.code).toBe(0);
    const prod = await spread(['deploy', dir, '--environment', 'production']);
    expect(prod.stderr + prod.stdout).toMatch(
      /Deployed web to namespace env-prod-.* \(context spread-local-2\)/,
    );
    expect(prod.code).toBe(0);

    const read = async (n: number, ns: string) => {
      const { stdout } = await on(n, 'get', 'deployment,ingress', 'web', '-n', ns, '-o', 'json');
      const items = JSON.parse(stdout).items;
      return [items[0].spec.replicas, items[0].status.readyReplicas, items[1].spec.rules[0].host];
    };
    expect(await read(0, staging)).toEqual([1, 1, 'staging.example.test']);
    expect(await read(1, production)).toEqual([3, 3, 'www.example.test']);
    // Nothing of production reached cluster 1, nor of staging cluster 2.
    expect((await on(0, 'get', 'namespace', production, '--ignore-not-found')).stdout).toBe('');
    expect((await on(1, 'get', 'namespace', staging, '--ignore-not-found')).stdout).toBe('');

    const again = await spread(['deploy', dir, '--environment', 'production']);
    expect(again.stdout).toMatch(/0 created, 0 configured, 2 unchanged/);
  }, 120_000);

  test('plan --environment all shows what would change in each environment', async () => {
    writeFileSync(path.join(dir, 'overlays/production/kustomization.yaml'), overlay(4, 'www.example.test'));
    try {
      const plan = await spread(['plan', dir, '--environment', 'all']);
      expect(plan.code).toBe(0);
      const [, stagingPart, productionPart] = plan.stdout.split(/^== environment /m);
      expect(stagingPart).toMatch(/^staging \(context spread-local, namespace env-stg-/);
      expect(stagingPart).toMatch(/0 to create, 0 to update, 0 to replace, 2 unchanged/);
      expect(productionPart).toMatch(/^production \(context spread-local-2, namespace env-prod-/);
      expect(productionPart).toMatch(/deployment\.apps\/web update .*\n\s+~ spec\.replicas: 3 → 4/);
    } finally {
      writeFileSync(path.join(dir, 'overlays/production/kustomization.yaml'), overlay(3, 'www.example.test'));
    }
  }, 120_000);

  test('a context reaching cluster 1 where production is cluster 2 fails before anything is built or written', async () => {
    const [a, b] = local.clusters;
    // The production context of this kubeconfig points at cluster 1's API server.
    const { stdout: config } = await kubectl(['--kubeconfig', local.kubeconfig, 'config', 'view', '--raw']);
    const wrong = path.join(writeDir('kube', { config: config.replaceAll(b!.server, a!.server) }), 'config');
    await on(0, 'create', 'namespace', production);
    // An image marked & whose build would fail: a guard after the build would report the build.
    const marked = writeDir('web', {
      'deployment.yaml': FILES['base/deployment.yaml'].replace('registry.example/web:1', '"&web"'),
      Dockerfile: 'FROM scratch\nRUN false\n',
      'spread.yaml': `environments:\n  production:\n    context: ${b!.context}\n    namespace: ${production}\n    server: ${b!.server}\n    kubeSystemUID: ${b!.kubeSystemUID}\n`,
    });
    const run = await spread(['deploy', marked, '--environment', 'production'], wrong);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `error: wrong cluster: environment production is server ${b!.server} (spread.yaml:5), kube-system uid ${b!.kubeSystemUID} (spread.yaml:6), but context ${b!.context} reaches server ${a!.server}, kube-system uid ${a!.kubeSystemUID}; nothing was written, nothing built`,
    );
    expect(run.stderr).not.toMatch(/build|Dockerfile/i);
    const left = await on(0, 'get', 'deployments,ingresses,leases,secrets', '-n', production, '-o', 'name');
    expect(left.stdout).toBe('');
  }, 120_000);

  test('status --environment compares with the environment’s own cluster', async () => {
    const status = await spread(['status', dir, '--environment', 'production']);
    expect(status.stdout).toMatch(/in sync/);
    expect(status.code).toBe(0);
  }, 60_000);
});
