// Promotion as a GitHub workflow runs it, under act (test/integration/act.ts) on two local clusters: a
// job `staging` (on push to main) deploys with `environment: staging`, a job `production` (needs:
// staging, `environment: production`) runs the Action's mode promote, each job with only its own
// cluster's kubeconfig (the source's through from-kubeconfig). Production then runs the digest staging
// built, with its own replicas, and its job summary says what was promoted.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { removeScratch, runAct, scratchRepo } from './act.js';
import { ensureClusters, type LocalClusters } from './clusters.js';
import { missingHarness, needs } from './harness.js';
import { kubectl, ROOT, uniqueName } from './helpers.js';

const base = uniqueName('promote-act');
const staging = `${base}-stg`;
const production = `${base}-prod`;
let local: LocalClusters;

const on = (n: number, ...args: string[]) =>
  kubectl(['--kubeconfig', local.kubeconfig, '--context', local.clusters[n]!.context, ...args]);

beforeAll(async () => {
  if (missingHarness('act', 'docker', 'registry', 'clusters')) return;
  local = await ensureClusters(2);
  await on(0, 'create', 'namespace', staging);
  await on(1, 'create', 'namespace', production);
}, 240_000);

afterAll(async () => {
  if (missingHarness('act', 'docker', 'registry', 'clusters')) return;
  removeScratch();
  await on(0, 'delete', 'namespace', staging, '--wait=false').catch(() => undefined);
  await on(1, 'delete', 'namespace', production, '--wait=false').catch(() => undefined);
});

const overlay = (replicas: number) =>
  `resources: [../../base]\nreplicas: [{name: web, count: ${replicas}}]\n`;

/** The repository: spread.yaml, a kustomize base with an `&web` image, two overlays. */
function files({ clusters: [a, b] }: LocalClusters): Record<string, string> {
  return {
    'shop/spread.yaml': `environments:\n  staging:\n    context: ${a!.context}\n    namespace: ${staging}\n    path: overlays/staging\n    kubeSystemUID: ${a!.kubeSystemUID}\n    branches: [main]\n  production:\n    context: ${b!.context}\n    namespace: ${production}\n    path: overlays/production\n    kubeSystemUID: ${b!.kubeSystemUID}\n    after: staging\n`,
    'shop/base/kustomization.yaml': 'resources: [deployment.yaml]\n',
    'shop/base/deployment.yaml':
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: "&web"}]}\n',
    'shop/base/Dockerfile': `FROM ${process.env.SPREAD_BASE_IMAGE_REF}\nCOPY app.txt /app.txt\n`,
    'shop/base/app.txt': `${base}\n`,
    'shop/overlays/staging/kustomization.yaml': overlay(1),
    'shop/overlays/production/kustomization.yaml': overlay(2),
  };
}

/** The workflow as a team keeps it: staging deploys on push, production promotes (from-kubeconfig). */
const WORKFLOW = path.join(ROOT, 'test/fixtures/act/workflows/promote.yml');

/** One context of the clusters' kubeconfig, alone: what a job's secret holds for its own cluster. */
async function kubeconfigOf(context: string): Promise<string> {
  return (
    await kubectl([
      '--kubeconfig',
      local.kubeconfig,
      'config',
      'view',
      '--flatten',
      '--minify',
      '--context',
      context,
    ])
  ).stdout;
}

describe('promotion in a GitHub workflow', needs('act', 'docker', 'registry', 'clusters'), () => {
  test("staging deploys, production's job promotes its digest: nothing built, production's replicas", async () => {
    const registry = `${process.env.SPREAD_REGISTRY}/${base}`;
    const repo = await scratchRepo({
      action: true,
      files: files(local),
      workflow: readFileSync(WORKFLOW, 'utf8'),
    });
    const run = await runAct({
      repo,
      vars: { REGISTRY: registry },
      env: {
        DOCKER_HOST: process.env.DOCKER_HOST!,
        DOCKER_CONFIG: process.env.DOCKER_CONFIG!,
        BUILDX_CONFIG: process.env.BUILDX_CONFIG!,
      },
      // Production's job cannot reach staging's cluster with its own kubeconfig.
      secrets: {
        STAGING_KUBECONFIG: await kubeconfigOf(local.clusters[0]!.context),
        PRODUCTION_KUBECONFIG: await kubeconfigOf(local.clusters[1]!.context),
      },
    });
    expect(run.code, run.log).toBe(0);
    expect(run.jobs).toEqual({ staging: 'success', production: 'success' });
    const image = async (n: number, ns: string) =>
      (
        await on(
          n,
          '-n',
          ns,
          'get',
          'deployment',
          'web',
          '-o',
          'jsonpath={.spec.template.spec.containers[0].image}',
        )
      ).stdout;
    const staged = await image(0, staging);
    expect(staged).toMatch(new RegExp(`^${registry}/web:ctx-[0-9a-f]{12}@sha256:[0-9a-f]{64}$`));
    expect(await image(1, production)).toBe(staged);
    expect(
      (await on(1, '-n', production, 'get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas}')).stdout,
    ).toBe('2');
    const promote = run.step('promote');
    expect(promote.result).toBe('success');
    const images = JSON.parse(promote.outputs.images!) as {
      built: boolean;
      pushed: boolean;
      reference: string;
    }[];
    expect(images).toEqual([expect.objectContaining({ reference: staged, built: false, pushed: false })]);
    expect(promote.summary).toContain('⏩ spread promote: shop');
    expect(promote.summary).toMatch(
      /Promoted staging revision 1 to <strong>production<\/strong> · commit <code>[0-9a-f]{12}<\/code> · nothing built/,
    );
    expect(promote.summary).toContain(`<td><code>&amp;web</code></td><td><code>${staged}</code></td>`);
  });
});
