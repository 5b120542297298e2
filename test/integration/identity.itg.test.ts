import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/base/logger.js';
import { deploy } from '../../src/frontend/deploy.js';
import { deletes, status, statusExitCode } from '../../src/frontend/manage.js';
import { kubeconfigPath, kubectl, localDeploy, runNode, uniqueName } from './helpers.js';

// A deployment's identity (issue 38): where it comes from is recorded on its ApplySet parent, two
// folders never share one deployment silently, the tool of another ApplySet is named, `spread delete`
// leaves kept objects recognisable, and a declared managed-by label is stored as kubectl stores it.

const ns = uniqueName('identity-itg');
const ctx = ['--context', 'spread-local'];
const temps: string[] = [];

/** A "repository": a temporary folder holding `folder` with the files given; returns both paths. */
function repository(folder: string, files: Record<string, string>): { workspace: string; dir: string } {
  const workspace = mkdtempSync(path.join(tmpdir(), 'spread-identity-'));
  temps.push(workspace);
  const dir = path.join(workspace, folder);
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  }
  return { workspace, dir };
}

const configMap = (name: string, value = 'a') =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: {v: ${value}}\n`;

/** `spread deploy DIR` through the built CLI, in GitHub Actions' environment of `repo`. */
function cli(command: string, dir: string, repo: string, workspace: string, ...flags: string[]) {
  const wait = command === 'deploy' ? ['--no-wait'] : [];
  return runNode('dist/cli/index.js', [command, dir, 'spread-local', '-n', ns, ...wait, ...flags], {
    ...process.env,
    GITHUB_REPOSITORY: repo,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_WORKSPACE: workspace,
  });
}

async function get(kind: string, name: string, namespace: string | undefined = ns) {
  const r = await kubectl(
    [...ctx, ...(namespace ? ['-n', namespace] : []), 'get', kind, name, '-o', 'json'],
    {
      allowFail: true,
    },
  );
  return r.code === 0 ? JSON.parse(r.stdout) : undefined;
}

beforeAll(async () => {
  await kubectl([...ctx, 'create', 'namespace', ns]);
});

afterAll(async () => {
  await kubectl([...ctx, 'delete', 'namespace', ns, '--wait=false'], { allowFail: true });
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

describe('two folders never share one deployment silently', () => {
  test('two repositories deploying their k8s folder into one namespace keep each other', async () => {
    const shop = repository('k8s', { '.k2e/cm.yaml': configMap('shop-config') });
    const billing = repository('k8s', { '.k2e/cm.yaml': configMap('billing-config') });
    const first = await cli('deploy', shop.dir, 'acme/shop', shop.workspace);
    expect(first.code, first.stderr).toBe(0);
    const before = await get('configmap', 'shop-config');
    const second = await cli('deploy', billing.dir, 'acme/billing', billing.workspace);
    expect(second.code, second.stderr).toBe(0);
    // The second deploy pruned the first's ConfigMap when both were the deployment `k8s`.
    const after = await get('configmap', 'shop-config');
    expect(after?.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(await get('configmap', 'billing-config')).toBeDefined();
    const parent = await get('secret', 'spread.shop-k8s');
    expect(parent.metadata.annotations).toMatchObject({
      'spread.rsprd.com/repository': 'github.com/acme/shop',
      'spread.rsprd.com/path': 'k8s',
    });
    expect(
      (await get('secret', 'spread.billing-k8s')).metadata.annotations['spread.rsprd.com/repository'],
    ).toBe('github.com/acme/billing');
  });

  test('a deploy from another repository under the same name fails before writing, naming both and the ways out', async () => {
    const shop = repository('web', { '.k2e/cm.yaml': configMap('web-shop') });
    const other = repository('web', { '.k2e/cm.yaml': configMap('web-other') });
    expect((await cli('deploy', shop.dir, 'acme/shop', shop.workspace)).code).toBe(0);
    const before = await get('configmap', 'web-shop');
    const parentBefore = await get('secret', 'spread.web');
    for (const command of ['plan', 'deploy']) {
      const r = await cli(command, other.dir, 'acme/other', other.workspace);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        `deployment web in namespace ${ns} was deployed from github.com/acme/shop, path web, and this deploy comes from github.com/acme/other, path web: two folders deploying as one deployment prune each other's objects, so nothing was written. Give this folder a deployment of its own (--name NAME), or, if this folder replaces that one, take the deployment over (--adopt, which records the new origin)`,
      );
    }
    expect((await get('configmap', 'web-shop'))?.metadata.resourceVersion).toBe(
      before.metadata.resourceVersion,
    );
    expect((await get('secret', 'spread.web')).metadata.resourceVersion).toBe(
      parentBefore.metadata.resourceVersion,
    );
    expect(await get('configmap', 'web-other')).toBeUndefined();
    expect(await get('lease', 'spread.web')).toBeUndefined();
    // --adopt takes the deployment over on purpose: its origin is recorded, the other's object pruned.
    const adopted = await cli('deploy', other.dir, 'acme/other', other.workspace, '--adopt');
    expect(adopted.code, adopted.stderr).toBe(0);
    expect((await get('secret', 'spread.web')).metadata.annotations['spread.rsprd.com/repository']).toBe(
      'github.com/acme/other',
    );
    expect(await get('configmap', 'web-shop')).toBeUndefined();
  });

  test('a renamed folder is told to deploy as its deployment (--name, with --adopt for the new path)', async () => {
    const repo = repository('frontend', { '.k2e/cm.yaml': configMap('front-config') });
    expect((await cli('deploy', repo.dir, 'acme/shop', repo.workspace)).code).toBe(0);
    const renamed = path.join(repo.workspace, 'storefront');
    renameSync(repo.dir, renamed);
    const r = await cli('deploy', renamed, 'acme/shop', repo.workspace);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `belongs to another deployment (spread deployment ${ns}/frontend, deployed from github.com/acme/shop, path frontend), of this repository: if this folder was moved or renamed from frontend, deploy it as that deployment with --name frontend --adopt (which records the new path)`,
    );
    const again = await cli('deploy', renamed, 'acme/shop', repo.workspace, '--name', 'frontend', '--adopt');
    expect(again.code, again.stderr).toBe(0);
    expect((await get('secret', 'spread.frontend')).metadata.annotations['spread.rsprd.com/path']).toBe(
      'storefront',
    );
    expect(await get('secret', 'spread.storefront')).toBeUndefined();
  });

  test("another namespace (the context's changed): the cluster-scoped object names -n", async () => {
    const other = uniqueName('identity-itg-b');
    await kubectl([...ctx, 'create', 'namespace', other]);
    try {
      const role = uniqueName('identity-reader');
      const repo = repository('reader', {
        '.k2e/role.yaml': `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: ${role}}\nrules: []\n`,
      });
      expect((await cli('deploy', repo.dir, 'acme/shop', repo.workspace)).code).toBe(0);
      const r = await runNode(
        'dist/cli/index.js',
        ['deploy', repo.dir, 'spread-local', '-n', other, '--no-wait'],
        {
          ...process.env,
          GITHUB_REPOSITORY: 'acme/shop',
          GITHUB_WORKSPACE: repo.workspace,
        },
      );
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        `this folder is also deployed as ${ns}/reader; this deploy makes a new deployment reader in namespace ${other}, and the other keeps its objects. If the namespace changed (the context's), deploy to the old one with --namespace ${ns}`,
      );
      expect(r.stderr).toMatch(
        new RegExp(
          `another deployment \\(spread deployment ${ns}/reader, deployed from github.com/acme/shop, path reader\\), of this same folder: .*deploy it as that deployment with --namespace ${ns},`,
        ),
      );
      await kubectl([...ctx, 'delete', 'clusterrole', role], { allowFail: true });
    } finally {
      await kubectl([...ctx, 'delete', 'namespace', other, '--wait=false'], { allowFail: true });
    }
  });
});

test("an object of kubectl's ApplySet is said to be kubectl's, with its version", async () => {
  const manifest = configMap('kubectl-owned');
  // kubectl's ApplySet support is behind this variable (alpha since v1.27).
  process.env.KUBECTL_APPLYSET = 'true';
  const applied = await kubectl(
    [...ctx, '-n', ns, 'apply', '--server-side', '--prune', '--applyset=secret/kset', '-f', '-'],
    { input: manifest },
  ).finally(() => {
    delete process.env.KUBECTL_APPLYSET;
  });
  expect(applied.code).toBe(0);
  const tooling = (await get('secret', 'kset')).metadata.annotations['applyset.kubernetes.io/tooling'];
  expect(tooling).toMatch(/^kubectl\/v1\./);
  const repo = repository('kset-user', { '.k2e/cm.yaml': manifest });
  const error = await deploy(localDeploy(repo.dir, ns, { wait: false })).catch((e: Error) => e);
  expect((error as Error).message).toContain(
    `kubectl-owned (.k2e/cm.yaml:1): belongs to an ApplySet of kubectl (${tooling}), not of spread: its parent is secret/kset in ${ns}`,
  );
  expect((error as Error).message).not.toMatch(/spread deployment/);
});

test('after spread delete, the same directory deploys again: the CRD it kept is taken back without --adopt', async () => {
  const group = `${uniqueName('identity').replace(/[^a-z0-9]/g, '')}.example.com`;
  const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.${group}}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`;
  const repo = repository('gadgets', { '.k2e/crd.yaml': crd, '.k2e/cm.yaml': configMap('gadget-config') });
  try {
    await deploy(localDeploy(repo.dir, ns, { wait: false }));
    const deleted = await deletes('gadgets', {
      kubeconfig: { paths: [kubeconfigPath()] },
      context: 'spread-local',
      namespace: ns,
      logger: silentLogger,
    });
    const kept = deleted.objects.find((o) => o.kind === 'CustomResourceDefinition');
    expect(kept?.action).toBe('kept');
    expect(kept?.note).toContain(`a later deploy of gadgets in ${ns} takes it back`);
    const released = await get('crd', `gadgets.${group}`, undefined);
    expect(released.metadata.labels?.['applyset.kubernetes.io/part-of']).toBeUndefined();
    const again = await deploy(localDeploy(repo.dir, ns, { wait: false }));
    expect(again.objects.map((o) => `${o.kind} ${o.action}`).sort()).toEqual([
      'ConfigMap created',
      'CustomResourceDefinition configured',
    ]);
    const taken = await get('crd', `gadgets.${group}`, undefined);
    expect(taken.metadata.labels['applyset.kubernetes.io/part-of']).toMatch(/^applyset-/);
    // Another deployment still may not take it.
    const other = repository('gadgets-too', { '.k2e/crd.yaml': crd });
    await deletes('gadgets', {
      kubeconfig: { paths: [kubeconfigPath()] },
      context: 'spread-local',
      namespace: ns,
      logger: silentLogger,
    });
    const refused = await deploy(localDeploy(other.dir, ns, { wait: false })).catch((e: Error) => e);
    expect((refused as Error).message).toMatch(/exists, but no spread deployment owns it/);
  } finally {
    await kubectl([...ctx, 'delete', 'crd', `gadgets.${group}`, '--wait=false'], { allowFail: true });
  }
});

describe('a declared app.kubernetes.io/managed-by is stored as kubectl stores it', () => {
  const helm = (name: string) =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  labels: {app.kubernetes.io/managed-by: Helm}\ndata: {v: a}\n`;

  test('the same labels as kubectl apply --server-side; plan unchanged and status in sync after', async () => {
    await kubectl([...ctx, '-n', ns, 'apply', '--server-side', '-f', '-'], { input: helm('by-kubectl') });
    const repo = repository('charted', { '.k2e/cm.yaml': helm('by-spread') });
    await deploy(localDeploy(repo.dir, ns, { wait: false }));
    const byKubectl = (await get('configmap', 'by-kubectl')).metadata.labels;
    const bySpread = (await get('configmap', 'by-spread')).metadata.labels;
    expect(bySpread['app.kubernetes.io/managed-by']).toBe(byKubectl['app.kubernetes.io/managed-by']);
    expect(bySpread['app.kubernetes.io/managed-by']).toBe('Helm');
    const plan = await deploy(localDeploy(repo.dir, ns, { mode: 'plan' }));
    expect(plan.objects.map((o) => o.action)).toEqual(['unchanged']);
    const report = await status({
      path: repo.dir,
      namespace: ns,
      cluster: { kubeconfig: { paths: [kubeconfigPath()] }, context: 'spread-local' },
      logger: silentLogger,
    });
    expect(statusExitCode(report)).toBe(0);
  });

  test('an object an earlier spread labelled managed-by: spread over the file is shown by plan and status, and set back', async () => {
    // What spread stored for a chart's object before this fix: managed-by spread, applied by spread
    // (and recorded in the parent's fingerprints as applied).
    const repo = repository('charted-old', {
      '.k2e/cm.yaml': helm('old-label').replace('managed-by: Helm', 'managed-by: spread'),
    });
    await deploy(localDeploy(repo.dir, ns, { wait: false }));
    writeFileSync(path.join(repo.dir, '.k2e/cm.yaml'), helm('old-label'));
    const plan = await deploy(localDeploy(repo.dir, ns, { mode: 'plan' }));
    expect(plan.objects.map((o) => o.action)).toEqual(['update']);
    expect(JSON.stringify(plan.objects[0])).toContain('app.kubernetes.io/managed-by');
    const report = await status({
      path: repo.dir,
      namespace: ns,
      cluster: { kubeconfig: { paths: [kubeconfigPath()] }, context: 'spread-local' },
      logger: silentLogger,
    });
    expect(statusExitCode(report)).toBe(2);
    await deploy(localDeploy(repo.dir, ns, { wait: false }));
    expect((await get('configmap', 'old-label')).metadata.labels['app.kubernetes.io/managed-by']).toBe(
      'Helm',
    );
  });
});
