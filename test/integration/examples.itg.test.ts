import { existsSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { silentLogger } from '../../src/base/logger.js';
import { main } from '../../src/cli/main.js';
import { deploy } from '../../src/frontend/deploy.js';
import { status } from '../../src/frontend/manage.js';
import { DirectoryInput } from '../../src/input/index.js';
import { kustomizeRenderer } from '../../src/input/kustomize.js';
import { loadEnvironments } from '../../src/project/load.js';
import { kustomizeBinary } from './env.js';
import { copyDir, kubeconfigPath, kubectl, localDeploy, ROOT, uniqueName } from './helpers.js';

/** Examples that are not spread layouts: CI configuration of the GitHub Action and the GitLab component. */
const NOT_LAYOUTS = new Set(['github', 'gitlab']);

const examplesDir = path.join(ROOT, 'examples');
/** Kustomizations (examples/kustomize) are rendered with the harness's kustomize. */
const kustomize = { command: kustomizeBinary() };

/**
 * Every example directory, with the reason it is skipped, if it is. Examples whose images are
 * marked `&` need a build and a registry (the image stage), which this test does not run; they are
 * deployed by their own tests.
 */
async function examples(): Promise<{ name: string; dir: string; skip?: string }[]> {
  const out: { name: string; dir: string; skip?: string }[] = [];
  for (const name of readdirSync(examplesDir).sort()) {
    const dir = path.join(examplesDir, name);
    if (!statSync(dir).isDirectory()) continue;
    if (NOT_LAYOUTS.has(name)) continue;
    // An example that declares environments (examples/environments) is deployed one environment's
    // folder at a time, each into this test's namespace on the local cluster.
    const declared = loadEnvironments(dir)?.environments.filter((e) => e.path !== undefined) ?? [];
    if (declared.length > 0) {
      for (const e of declared) out.push({ name: `${name} (${e.name})`, dir: path.join(dir, e.path ?? '.') });
      continue;
    }
    const app = await new DirectoryInput(dir, { renderers: { kustomize: kustomizeRenderer(kustomize) } })
      .entity()
      .catch(() => undefined);
    if (!app) {
      out.push({ name, dir, skip: 'not a spread layout' });
      continue;
    }
    const builds = app.images().filter((i) => i.build);
    if (builds.length > 0) {
      out.push({ name, dir, skip: `images marked & (${builds.map((i) => i.raw).join(', ')}) need a build` });
      continue;
    }
    out.push({ name, dir });
  }
  return out;
}

const all = await examples();
const namespaces: string[] = [];

afterAll(async () => {
  for (const ns of namespaces)
    await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
      allowFail: true,
    });
});

describe('Integration: the rendered set of every example deploys to the local cluster', () => {
  test('examples/ holds at least the mattermost and guestbook layouts and the kustomize overlays', () => {
    expect(all.filter((e) => !e.skip).map((e) => e.name)).toEqual(
      expect.arrayContaining([
        'guestbook',
        'kustomize',
        'mattermost',
        'environments (staging)',
        'environments (production)',
      ]),
    );
    for (const e of all.filter((e) => e.skip)) console.info(`examples/${e.name} skipped: ${e.skip}`);
  });

  test.each(all.filter((e) => !e.skip))(
    'examples/$name: created and ready, then unchanged',
    async ({ name, dir }) => {
      expect(existsSync(dir)).toBe(true);
      const ns = uniqueName(`itg-ex-${name.replace(/[^a-z0-9]+/g, '-')}`.slice(0, 40));
      namespaces.push(ns);
      await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
      const run = () => deploy(localDeploy(dir, ns, { kustomize }));

      const first = await run();
      expect(first.objects.length).toBeGreaterThan(0);
      expect(first.objects.filter((o) => o.action !== 'created')).toEqual([]);
      expect(first.rollout.length).toBeGreaterThan(0);
      expect(first.rollout.filter((r) => !r.ready)).toEqual([]);

      const second = await run();
      expect(second.objects.map((o) => `${o.kind}/${o.name} ${o.action}`)).toEqual(
        first.objects.map((o) => `${o.kind}/${o.name} unchanged`),
      );

      // spread status agrees: every object is in sync, nothing would be pruned.
      const report = await status({
        path: dir,
        namespace: ns,
        cluster: { kubeconfig: { paths: [kubeconfigPath()] }, context: 'spread-local' },
        kustomize,
        logger: silentLogger,
      });
      expect(report.counts).toMatchObject({
        objects: first.objects.length,
        inSync: first.objects.length,
        compared: true,
      });
      expect(report.notInDirectory).toEqual([]);
    },
  );

  test('status of a changed copy: differs with the field, missing, and what a deploy would prune', async () => {
    const source = path.join(examplesDir, 'mattermost');
    const ns = uniqueName('itg-ex-status');
    namespaces.push(ns);
    await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
    const kubeconfig = { paths: [kubeconfigPath()] };
    await deploy({
      path: source,
      kubeconfig,
      context: 'spread-local',
      namespace: ns,
      mode: 'deploy',
      wait: false,
      timeoutMs: 60_000,
      forceConflicts: false,
      prune: true,
      concurrency: 8,
      logger: silentLogger,
    });
    const copy = copyDir(source);
    const svc = path.join(copy, '.k2e/service.yaml');
    writeFileSync(svc, readFileSync(svc, 'utf8').replace('port: 80', 'port: 8080'));
    unlinkSync(path.join(copy, '.k2e/secret.yaml'));
    writeFileSync(
      path.join(copy, '.k2e/extra.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\ndata:\n  a: b\n',
    );
    const report = await status({
      path: copy,
      namespace: ns,
      cluster: { kubeconfig, context: 'spread-local' },
      logger: silentLogger,
    });
    const rc = report.root.children[0];
    const states = Object.fromEntries(rc!.objects.map((o) => [`${o.kind}/${o.name}`, o.state]));
    expect(rc?.object?.state).toBe('in sync');
    expect(states).toEqual({ 'ConfigMap/extra': 'missing', 'Service/mattermost': 'differs' });
    expect(rc?.objects.find((o) => o.kind === 'Service')?.changes).toEqual([
      { op: 'change', path: 'spec.ports[0].port', before: '80', after: '8080' },
    ]);
    expect(report.notInDirectory?.map((o) => `${o.kind}/${o.name} ${o.source}`)).toEqual([
      'Secret/mattermost-db .k2e/secret.yaml',
    ]);
  });
});

/**
 * Runs the CLI from source, in this process (dist/ is built by the release, not by every change):
 * `spread ARGS` with `env` added to the environment; its exit code, stdout and stderr.
 */
async function cli(args: readonly string[], env: Record<string, string> = {}) {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  try {
    const code = await main(['node', 'spread', ...args]);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  }
}

describe('Integration: examples/environments, the flow of its environments on one cluster', () => {
  // Production's context is the harness's second cluster (spread-local-2): not used here. The preview
  // and staging are on spread-local; staging's namespace is made unique, so it does not exist.
  const pr = 40_000 + Math.floor(Math.random() * 9_999);
  const previewNs = `web-pr-${pr}`;
  const stagingNs = uniqueName('itg-ex-env-stg');
  let copy: string;

  afterAll(async () => {
    for (const ns of [previewNs, stagingNs])
      await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
        allowFail: true,
      });
  });

  test("a pull request's preview: its namespace created with it, kept by the next push, deleted with it", async () => {
    copy = copyDir(path.join(examplesDir, 'environments'), 'web');
    const declared = path.join(copy, 'spread.yaml');
    writeFileSync(declared, readFileSync(declared, 'utf8').replace('web-staging', stagingNs));
    const flags = ['--environment', 'preview', '--kustomize', kustomizeBinary()];
    const env = { SPREAD_PULL_REQUEST: String(pr) };

    // The pull request's plan shows the namespace to create, and writes nothing.
    const plan = await cli(['plan', copy, ...flags], env);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(`namespace/${previewNs} create  (../../spread.yaml:10)`);
    expect(plan.stdout).toContain('  environment preview\n');

    const first = await cli(['deploy', copy, ...flags, '-o', 'json'], env);
    expect(first.code, first.stderr).toBe(0);
    const report = JSON.parse(first.stdout);
    expect(report.environment).toBe('preview');
    expect(report.namespace).toBe(previewNs);
    expect(report.objects.map((o: { kind: string; action: string }) => `${o.kind} ${o.action}`)).toEqual([
      'Namespace created',
      'Service created',
      'Deployment created',
      'Ingress created',
    ]);
    expect(report.objects[0].source).toBe('../../spread.yaml:10');
    const { stdout: labels } = await kubectl([
      '--context',
      'spread-local',
      'get',
      'namespace',
      previewNs,
      '-o',
      'jsonpath={.metadata.labels.applyset\\.kubernetes\\.io/part-of}',
    ]);
    expect(labels).toMatch(/^applyset-/);

    // The next push: nothing changes, the namespace stays the deployment's.
    const second = await cli(['deploy', copy, ...flags], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('  environment preview\n');
    expect(second.stdout).toMatch(/0 created, 0 configured, 4 unchanged, 0 pruned/);

    // A push that changes the preview: revision 2.
    const overlay = path.join(copy, 'overlays/preview/kustomization.yaml');
    writeFileSync(overlay, readFileSync(overlay, 'utf8').replace('count: 1', 'count: 2'));
    const changed = await cli(['deploy', copy, ...flags], env);
    expect(changed.code, changed.stderr).toBe(0);

    // history, rollback and list take the environment: its context, its namespace.
    const history = await cli(['history', `${copy}/`, '--environment', 'preview', '-o', 'json'], env);
    expect(history.code, history.stderr).toBe(0);
    const revisions = JSON.parse(history.stdout);
    expect(revisions.namespace).toBe(previewNs);
    expect(revisions.revisions.map((r: { environment?: string }) => r.environment)).toEqual([
      'preview',
      'preview',
    ]);
    const back = await cli(['rollback', `${copy}/`, '--environment', 'preview', '--no-wait'], env);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toContain('Rolled back to revision 1 (now revision 3)');
    const { stdout: replicas } = await kubectl([
      '--context',
      'spread-local',
      '-n',
      previewNs,
      'get',
      'deployment',
      'web',
      '-o',
      'jsonpath={.spec.replicas}',
    ]);
    expect(replicas).toBe('1');
    const cwd = process.cwd();
    process.chdir(copy);
    const listed = await cli(['list', '--environment', 'preview', '-o', 'json'], env).finally(() =>
      process.chdir(cwd),
    );
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).map((d: { namespace: string }) => d.namespace)).toEqual([previewNs]);

    // The pull request closes: the deployment, and its namespace with everything in it.
    const removed = await cli(['delete', `${copy}/`, '--environment', 'preview'], env);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`namespace/${previewNs} deleted`);
    expect(removed.stdout).toMatch(/3 revision\(s\)/);
    const phase = await kubectl(
      ['--context', 'spread-local', 'get', 'namespace', previewNs, '-o', 'jsonpath={.status.phase}'],
      { allowFail: true },
    );
    expect(phase.code === 0 ? phase.stdout : 'gone').toMatch(/^(Terminating|gone)$/);
  }, 180_000);

  test("staging's namespace does not exist: refused before anything is written, naming the environment", async () => {
    const run = await cli(['deploy', copy, '--environment', 'staging', '--kustomize', kustomizeBinary()]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `namespace "${stagingNs}" of environment staging not found in context spread-local: create it (kubectl create namespace ${stagingNs})`,
    );
    const left = await kubectl(['--context', 'spread-local', 'get', 'namespace', stagingNs], {
      allowFail: true,
    });
    expect(left.code).not.toBe(0);
  }, 60_000);
});
