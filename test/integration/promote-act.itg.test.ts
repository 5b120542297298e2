// Promotion as a GitHub workflow runs it, under act (test/integration/act.ts) on two local clusters: a
// job `staging` (on push to main) deploys with `environment: staging`, a job `production` (needs:
// staging, `environment: production`) runs the Action's mode promote, each job with only its own
// cluster's kubeconfig (the source's through from-kubeconfig). Production then runs the digest staging
// built, with its own replicas, and its job summary says what was promoted. On a pull request the same
// workflow's job plan (`mode: plan`, `environment: all`, a kubeconfig with both clusters' contexts)
// posts ONE comment, through the GitHub API stand-in, with what would change in each environment.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ActRun, removeScratch, runAct, scratchRepo } from './act.js';
import { ensureClusters, type LocalClusters } from './clusters.js';
import { type GitHubApi, startGitHubApi } from './github-api.js';
import { missingHarness, needs } from './harness.js';
import { kubectl, ROOT, uniqueName } from './helpers.js';

const base = uniqueName('promote-act');
const staging = `${base}-stg`;
const production = `${base}-prod`;
let local: LocalClusters;
let api: GitHubApi;
const GITHUB_TOKEN = `ghs_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;

const on = (n: number, ...args: string[]) =>
  kubectl(['--kubeconfig', local.kubeconfig, '--context', local.clusters[n]!.context, ...args]);

beforeAll(async () => {
  if (missingHarness('act', 'docker', 'registry', 'clusters')) return;
  local = await ensureClusters(2);
  api = await startGitHubApi();
  await on(0, 'create', 'namespace', staging);
  await on(1, 'create', 'namespace', production);
}, 240_000);

afterAll(async () => {
  if (missingHarness('act', 'docker', 'registry', 'clusters')) return;
  removeScratch();
  await api?.close();
  await on(0, 'delete', 'namespace', staging, '--wait=false').catch(() => undefined);
  await on(1, 'delete', 'namespace', production, '--wait=false').catch(() => undefined);
});

const overlay = (replicas: number) =>
  `resources: [../../base]\nreplicas: [{name: web, count: ${replicas}}]\n`;

/** The repository: spread.yaml, a kustomize base with an `&web` image, two overlays. */
function files(
  { clusters: [a, b] }: LocalClusters,
  replicas = { staging: 1, production: 2 },
): Record<string, string> {
  return {
    'shop/spread.yaml': `environments:\n  staging:\n    context: ${a!.context}\n    namespace: ${staging}\n    path: overlays/staging\n    kubeSystemUID: ${a!.kubeSystemUID}\n    branches: [main]\n  production:\n    context: ${b!.context}\n    namespace: ${production}\n    path: overlays/production\n    kubeSystemUID: ${b!.kubeSystemUID}\n    after: staging\n`,
    'shop/base/kustomization.yaml': 'resources: [deployment.yaml]\n',
    'shop/base/deployment.yaml':
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: "&web"}]}\n',
    'shop/base/Dockerfile': `FROM ${process.env.SPREAD_BASE_IMAGE_REF}\nCOPY app.txt /app.txt\n`,
    'shop/base/app.txt': `${base}\n`,
    'shop/overlays/staging/kustomization.yaml': overlay(replicas.staging),
    'shop/overlays/production/kustomization.yaml': overlay(replicas.production),
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

/** The clusters' whole kubeconfig, every context with its keys inline: what the plan job's secret holds. */
async function kubeconfigOfAll(): Promise<string> {
  return (await kubectl(['--kubeconfig', local.kubeconfig, 'config', 'view', '--flatten'])).stdout;
}

/** `kubeconfig` (whole and base64) and its key, certificate and token values: none may be shown. */
function secretsOf(kubeconfig: string): string[] {
  const values = kubeconfig
    .split('\n')
    .filter((l) => /key-data|certificate-data|token|password/.test(l))
    .map((l) => l.replace(/^.*?:\s*/, '').trim())
    .filter((v) => v.length >= 16);
  expect(values.length, 'the kubeconfig holds keys to look for').toBeGreaterThanOrEqual(2);
  return [kubeconfig, Buffer.from(kubeconfig).toString('base64'), ...values];
}

/** No secret in the log act shows, a step's outputs or summary, or a comment's body. */
function expectNotShown(run: ActRun, secrets: readonly string[]): void {
  const texts = [
    run.log,
    ...run.steps.flatMap((s) => [s.log, s.summary, ...Object.values(s.outputs)]),
    ...api.comments.map((c) => c.body),
  ];
  for (const secret of secrets)
    for (const text of texts)
      expect(text.includes(secret), `a credential leaked: ${secret.slice(0, 8)}…`).toBe(false);
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

  // After the promotion above: staging runs 1 replica, production 2. The pull request asks for 3 and 4.
  test('pull_request: the plan job posts one comment with both environments, each with its change; no kubeconfig shown', async () => {
    const kubeconfig = await kubeconfigOfAll();
    const repo = await scratchRepo({
      action: true,
      branch: 'feature/replicas',
      files: files(local, { staging: 3, production: 4 }),
      workflow: readFileSync(WORKFLOW, 'utf8'),
    });
    const payload = {
      number: 31,
      pull_request: {
        number: 31,
        head: { ref: 'feature/replicas', sha: 'feedfacefeedfacefeedfacefeedfacefeedface' },
        base: { ref: 'main' },
      },
      repository: { full_name: 'acme/shop', private: true },
    };
    const run = await runAct({
      repo,
      event: 'pull_request',
      payload,
      vars: { REGISTRY: `${process.env.SPREAD_REGISTRY}/${base}` },
      env: {
        DOCKER_HOST: process.env.DOCKER_HOST!,
        DOCKER_CONFIG: process.env.DOCKER_CONFIG!,
        BUILDX_CONFIG: process.env.BUILDX_CONFIG!,
        GITHUB_API_URL: api.url,
      },
      secrets: { PLAN_KUBECONFIG: kubeconfig, GITHUB_TOKEN },
    });
    expect(run.code, run.log).toBe(0);
    // Only the plan job ran: staging and production are the push's.
    expect(run.jobs.plan).toBe('success');
    expect(new Set(run.steps.map((s) => s.job))).toEqual(new Set(['plan']));
    const plan = run.step('plan');
    expect(plan.result).toBe('success');

    const mine = api.comments.filter((c) => c.issue === 31);
    expect(mine).toHaveLength(1);
    const body = mine[0]!.body;
    expect(body.split('\n').slice(0, 2)).toEqual([
      '<!-- spread-plan-environments:shop -->',
      '## Plan of shop in every environment',
    ]);
    expect(plan.outputs['comment-url']).toBe(mine[0]!.html_url);
    const [before, prod] = body.split('### Environment `production`');
    expect(prod, body).toBeDefined();
    const stg = before!.split('### Environment `staging`')[1];
    expect(stg, body).toBeDefined();
    // Each section is its own environment's plan, against its own cluster's live object.
    const [a, b] = local.clusters;
    expect(stg).toContain(`#### Plan: \`shop\` → context \`${a!.context}\`, namespace \`${staging}\``);
    expect(prod).toContain(`#### Plan: \`shop\` → context \`${b!.context}\`, namespace \`${production}\``);
    for (const section of [stg!, prod!]) expect(section).toContain('**0** to create · **1** to update');
    expect(stg).toContain('- spec.replicas: 1\n+ spec.replicas: 3\n');
    expect(prod).toContain('- spec.replicas: 2\n+ spec.replicas: 4\n');
    // No error, and the image is staging's digest in both: only the replicas change.
    for (const section of [stg!, prod!]) {
      expect(section).not.toContain(':x:');
      expect(section).toContain('1 field changed');
    }
    expect(plan.summary).toContain('### Environment `production`');
    // The plan changed nothing.
    expect(
      (await on(1, '-n', production, 'get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas}')).stdout,
    ).toBe('2');
    expectNotShown(run, [...secretsOf(kubeconfig), GITHUB_TOKEN]);
  });
});
