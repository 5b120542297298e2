// Promotion as a GitLab pipeline runs it, under gitlab-ci-local (shell executor, this checkout's dist/)
// on two local clusters: a job `staging` includes the component with `environment: staging`, a job
// `production` (needs: staging) with `mode: promote` and `environment: production`. Production then
// runs the digest staging built, and the job's summary.md says what was promoted.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ensureClusters, type LocalClusters } from './clusters.js';
import { missingHarness, needs } from './harness.js';
import { kubectl, ROOT, uniqueName } from './helpers.js';

const GCL = path.join(ROOT, 'node_modules/.bin/gitlab-ci-local');
const base = uniqueName('promote-gcl');
const staging = `${base}-stg`;
const production = `${base}-prod`;
const project = mkdtempSync(path.join(tmpdir(), 'spread-promote-gitlab-'));
let local: LocalClusters;

const on = (n: number, ...args: string[]) =>
  kubectl(['--kubeconfig', local.kubeconfig, '--context', local.clusters[n]!.context, ...args]);

/** Runs one job of the project with the shell executor, reaching both clusters. */
function gcl(job: string): Promise<{ code: number; log: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [GCL, '--force-shell-executor', '--no-color', '--home', path.join(project, '.home'), job],
      { env: { ...process.env, KUBECONFIG: local.kubeconfig }, cwd: project },
    );
    let log = '';
    child.stdout.on('data', (d) => (log += d));
    child.stderr.on('data', (d) => (log += d));
    child.on('close', (code) => resolve({ code: code ?? 1, log }));
  });
}

const include = (inputs: Record<string, string | boolean>) =>
  `  - local: templates/deploy.yml\n    inputs:\n${Object.entries(inputs)
    .map(([k, v]) => `      ${k}: ${JSON.stringify(v)}`)
    .join('\n')}\n`;

beforeAll(async () => {
  if (missingHarness('gitlabCiLocal', 'docker', 'registry', 'clusters') || !existsSync(GCL)) return;
  local = await ensureClusters(2);
  const [a, b] = local.clusters;
  await on(0, 'create', 'namespace', staging);
  await on(1, 'create', 'namespace', production);
  cpSync(path.join(ROOT, 'templates'), path.join(project, 'templates'), { recursive: true });
  const files: Record<string, string> = {
    'shop/spread.yaml': `environments:\n  staging:\n    context: ${a!.context}\n    namespace: ${staging}\n    path: overlays/staging\n    kubeSystemUID: ${a!.kubeSystemUID}\n  production:\n    context: ${b!.context}\n    namespace: ${production}\n    path: overlays/production\n    kubeSystemUID: ${b!.kubeSystemUID}\n    after: staging\n`,
    'shop/base/kustomization.yaml': 'resources: [deployment.yaml]\n',
    'shop/base/deployment.yaml':
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: "&web"}]}\n',
    'shop/base/Dockerfile': `FROM ${process.env.SPREAD_BASE_IMAGE_REF}\nCOPY app.txt /app.txt\n`,
    'shop/base/app.txt': `${base}\n`,
    'shop/overlays/staging/kustomization.yaml': 'resources: [../../base]\n',
    'shop/overlays/production/kustomization.yaml':
      'resources: [../../base]\nreplicas: [{name: web, count: 2}]\n',
  };
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
    writeFileSync(path.join(project, file), content);
  }
  mkdirSync(path.join(project, '.home'));
  const common = { path: 'shop', name: 'shop', package: ROOT };
  writeFileSync(
    path.join(project, '.gitlab-ci.yml'),
    `stages: [deploy, promote]\ninclude:\n${include({
      ...common,
      stage: 'deploy',
      'job-name': 'staging',
      environment: 'staging',
      registry: `${process.env.SPREAD_REGISTRY}/${base}`,
      'resource-group': 'spread-staging',
    })}${include({
      ...common,
      stage: 'promote',
      'job-name': 'production',
      mode: 'promote',
      environment: 'production',
    })}production:\n  needs: [staging]\n`,
  );
  const git = (...args: string[]) => execFileSync('git', args, { cwd: project });
  git('init', '-q', '-b', 'main');
  git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'add', '.');
  git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '-m', 'shop');
  git('remote', 'add', 'origin', 'https://gitlab.example.com/acme/shop.git');
}, 240_000);

afterAll(async () => {
  if (missingHarness('gitlabCiLocal', 'docker', 'registry', 'clusters') || !existsSync(GCL)) return;
  await on(0, 'delete', 'namespace', staging, '--wait=false').catch(() => undefined);
  await on(1, 'delete', 'namespace', production, '--wait=false').catch(() => undefined);
  rmSync(project, { recursive: true, force: true });
});

describe.skipIf(!existsSync(GCL))(
  'promotion in a GitLab pipeline',
  needs('gitlabCiLocal', 'docker', 'registry', 'clusters'),
  () => {
    test("job staging deploys, job production promotes its digest: nothing built, production's replicas", async () => {
      const deployed = await gcl('staging');
      expect(deployed.code, deployed.log).toBe(0);
      const promoted = await gcl('production');
      expect(promoted.code, promoted.log).toBe(0);
      expect(promoted.log).toMatch(/spread promote shop --to production/);
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
      expect(staged).toMatch(/@sha256:[0-9a-f]{64}$/);
      expect(await image(1, production)).toBe(staged);
      expect(
        (await on(1, '-n', production, 'get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas}')).stdout,
      ).toBe('2');
      const dir = path.join(project, '.gitlab-ci-local/artifacts/production/.spread');
      const report = JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')) as {
        images: { built: boolean; pushed: boolean }[];
        promotion: { from: { environment: string; revision: number } };
      };
      expect(report.images).toEqual([expect.objectContaining({ built: false, pushed: false })]);
      expect(report.promotion.from).toMatchObject({ environment: 'staging', revision: 1 });
      const summary = readFileSync(path.join(dir, 'summary.md'), 'utf8');
      expect(summary).toMatch(
        /^Promoted staging revision 1 to \*\*production\*\* · commit `[0-9a-f]{12}` · nothing built/,
      );
      expect(summary).toContain(`| \`&web\` | \`${staged}\` |`);
    });
  },
);
