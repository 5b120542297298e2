// A fleet as a GitLab pipeline runs it, under gitlab-ci-local (shell executor, a build of dist/): a
// stage per wave, each wave one include of the component with `cluster: $CLUSTER` and `parallel:
// matrix` on its job, every leg keeping .spread/spread-report-CLUSTER.json as an artifact, and a last
// job in mode fleet-report (`when: always` in the last stage, no `needs:`: it gets every earlier
// job's artifacts) gathering them. The fleet's four clusters are namespaces of the local cluster, each
// through its own context (the fleet tests' four API servers are not needed for what GitLab does with
// the legs).
// The second pipeline is the generated one: a job in mode fleet-plan writes the child pipeline from
// spread.yaml (a stage per wave and per batch of maxParallel), and a trigger job runs it with
// `trigger: include: - artifact:` and `strategy: depend`, which gitlab-ci-local 4.75 runs as a
// downstream pipeline (its trigger job reads the artifact from .gitlab-ci-local/artifacts/JOB/).
// SPREAD_PACKAGE_DIR runs another build (a directory with dist/ built, as gitlab.itg.test.ts).
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { fleetKubeconfig, setRefusal } from './fleet-namespaces.js';
import { missingHarness, needs } from './harness.js';
import { kubectl, ROOT, uniqueName } from './helpers.js';

const PACKAGE = process.env.SPREAD_PACKAGE_DIR ?? ROOT;
const GCL = path.join(ROOT, 'node_modules/.bin/gitlab-ci-local');
const ns = uniqueName('gcl-fleet');
const CLUSTERS = ['eu-1', 'eu-2', 'us-1', 'us-2'];
const namespaceOf = (cluster: string) => `${ns}-${cluster}`;
const project = mkdtempSync(path.join(tmpdir(), 'spread-gitlab-fleet-'));
const kubeconfigFile = path.join(mkdtempSync(path.join(tmpdir(), 'spread-gitlab-fleet-kc-')), 'config');

/** One include of the component; `extra` is YAML of the inputs that are not strings. */
const include = (inputs: Record<string, string>, extra = '') =>
  `  - local: templates/deploy.yml\n    inputs:\n${Object.entries(inputs)
    .map(([k, v]) => `      ${k}: ${JSON.stringify(v)}\n`)
    .join('')}${extra}`;

const common = { path: 'shop', name: 'shop', environment: 'production', package: PACKAGE };
const pipeline = `stages: [canary, rest, report]
include:
${include({ ...common, stage: 'canary', 'job-name': 'deploy-canary', cluster: '$CLUSTER', 'resource-group': 'fleet-$CLUSTER' })}${include({ ...common, stage: 'rest', 'job-name': 'deploy-rest', cluster: '$CLUSTER', 'resource-group': 'fleet-$CLUSTER' })}${include(
  {
    ...common,
    stage: 'report',
    'job-name': 'fleet-report',
    mode: 'fleet-report',
    'environment-action': 'verify',
    'resource-group': 'fleet-report',
  },
  '      rules: [{when: always}]\n',
)}deploy-canary:
  parallel:
    matrix:
      - CLUSTER: [eu-1]
deploy-rest:
  parallel:
    matrix:
      - CLUSTER: [eu-2, us-1, us-2]
`;

/** The parent pipeline of the generated fleet (folder `fleet`, deployment `fleet`, ConfigMap `child`). */
const PLAN_PIPELINE = `stages: [plan, deploy]
include:
${include({
  path: 'fleet',
  name: 'fleet',
  environment: 'production',
  package: PACKAGE,
  stage: 'plan',
  'job-name': 'fleet-plan',
  mode: 'fleet-plan',
  component: 'templates/deploy.yml',
  'environment-action': 'prepare',
  'resource-group': 'fleet-plan',
})}fleet:
  stage: deploy
  needs: [fleet-plan]
  trigger:
    include:
      - artifact: .spread/fleet-pipeline.yml
        job: fleet-plan
    strategy: depend
`;

/**
 * Runs the whole pipeline with the shell executor after removing every job's artifacts, or one job
 * by name with the artifacts the earlier run left (as GitLab gives a job those of earlier stages).
 */
function gcl(job?: string, file?: string): Promise<{ code: number; log: string }> {
  if (job === undefined)
    for (const dir of ['.gitlab-ci-local/artifacts', '.spread'])
      rmSync(path.join(project, dir), { recursive: true, force: true });
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      // Each job in a directory of its own with its artifacts, as a runner's builds: legs run at once.
      [
        GCL,
        ...['--force-shell-executor', '--shell-isolation', '--no-artifacts-to-source'],
        '--no-color',
        '--home',
        path.join(project, '.home'),
        ...(file ? ['--file', file] : []),
        ...(job ? [job] : []),
      ],
      { env: { ...process.env, KUBECONFIG: kubeconfigFile }, cwd: project },
    );
    let log = '';
    child.stdout.on('data', (d) => (log += d));
    child.stderr.on('data', (d) => (log += d));
    child.on('close', (code) => resolve({ code: code ?? 1, log }));
  });
}

const reportMd = () =>
  readFileSync(path.join(project, '.gitlab-ci-local/artifacts/fleet-report/.spread/fleet-report.md'), 'utf8');

const configMap = async (cluster: string, name = 'web') =>
  (
    await kubectl(
      ['--context', 'spread-local', '-n', namespaceOf(cluster), 'get', 'configmap', name, '-o', 'name'],
      { allowFail: true },
    )
  ).stdout.trim();

const skip = () => missingHarness('gitlabCiLocal') || !existsSync(GCL);

beforeAll(async () => {
  if (skip()) return;
  for (const c of CLUSTERS)
    await kubectl(['--context', 'spread-local', 'create', 'namespace', namespaceOf(c)]);
  writeFileSync(kubeconfigFile, fleetKubeconfig(CLUSTERS, namespaceOf), { mode: 0o600 });
  cpSync(path.join(ROOT, 'templates'), path.join(project, 'templates'), { recursive: true });
  const files: Record<string, string> = {
    'shop/spread.yaml': [
      'environments:',
      '  production:',
      '    clusters:',
      ...CLUSTERS.map((c) => `      - { name: ${c}, context: ${c}, namespace: ${namespaceOf(c)} }`),
      '    waves:',
      '      - { name: canary, clusters: [eu-1] }',
      '      - { name: rest, maxParallel: 2 }',
      '',
    ].join('\n'),
    'shop/settings.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\ndata: {level: "1"}\n',
    '.gitlab-ci.yml': pipeline,
    // The generated fleet: a canary with a soak, then the rest two at a time (two stages).
    'fleet/spread.yaml': [
      'environments:',
      '  production:',
      '    clusters:',
      ...CLUSTERS.map((c) => `      - { name: ${c}, context: ${c}, namespace: ${namespaceOf(c)} }`),
      '    waves:',
      '      - { name: canary, clusters: [eu-1], soak: 3s }',
      '      - { name: rest, maxParallel: 2 }',
      '',
    ].join('\n'),
    'fleet/settings.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: child}\ndata: {level: "1"}\n',
    '.gitlab-ci-plan.yml': PLAN_PIPELINE,
  };
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
    writeFileSync(path.join(project, file), content);
  }
  mkdirSync(path.join(project, '.home'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: project });
  git('init', '-q', '-b', 'main');
  git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'add', '.');
  git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '-m', 'shop');
  git('remote', 'add', 'origin', 'https://gitlab.example.com/acme/shop.git');
}, 60_000);

afterAll(async () => {
  if (skip()) return;
  for (const c of CLUSTERS)
    await kubectl(['--context', 'spread-local', 'delete', 'namespace', namespaceOf(c), '--wait=false'], {
      allowFail: true,
    });
  rmSync(project, { recursive: true, force: true });
  rmSync(path.dirname(kubeconfigFile), { recursive: true, force: true });
});

describe.skipIf(!existsSync(GCL))(
  'a fleet in a GitLab pipeline, under gitlab-ci-local',
  needs('gitlabCiLocal'),
  () => {
    test('one failing canary leg: the second stage does not run, the report job fails naming every leg', async () => {
      await setRefusal(namespaceOf('eu-1'), true);
      try {
        const pipeline = await gcl();
        expect(pipeline.code, pipeline.log).not.toBe(0);
        expect(pipeline.log).toMatch(/FAIL +deploy-canary: \[eu-1\]/);
        expect(pipeline.log).not.toContain('deploy-rest');
        // GitLab then runs the last stage's `when: always` job; gitlab-ci-local 4.75 never starts a job
        // after one it did not start (deploy-rest), so the report job runs by name, with the artifacts.
        const run = await gcl('fleet-report');
        expect(run.code, run.log).not.toBe(0);
        expect(run.log).toContain('the deploy of 4 of 4 cluster(s) did not succeed');
        expect(run.log).toContain('eu-1 (wave canary): failed');
        for (const c of ['eu-2', 'us-1', 'us-2']) {
          expect(run.log).toContain(`${c} (wave rest): skipped: no report: the leg did not run`);
          expect(await configMap(c)).toBe('');
        }
        const md = reportMd();
        expect(md).toMatch(/\| ❌ \| `eu-1` \|.*the canary refuses writes/);
        for (const c of ['eu-2', 'us-1', 'us-2'])
          expect(md).toContain(`| ⏭️ | \`${c}\` |  |  |  |  | no report: the leg did not run |`);
      } finally {
        await setRefusal(namespaceOf('eu-1'), false);
      }
    }, 300_000);

    test('two waves, four legs: every cluster deployed, the report job lists all four', async () => {
      const run = await gcl();
      expect(run.code, run.log).toBe(0);
      expect(run.log).toContain('Fleet production: 4 cluster(s) in 2 wave(s)');
      for (const c of CLUSTERS)
        expect(run.log).toMatch(new RegExp(`${c}\\s+succeeded · context ${c} · revision 1`));
      const md = reportMd();
      expect(md).toContain('4 cluster(s) in 2 wave(s): **4** succeeded');
      for (const c of CLUSTERS) {
        expect(md).toMatch(new RegExp(`\\| ✅ \\| \`${c}\` \\| \`${c}\` \\|`));
        expect(await configMap(c)).toBe('configmap/web');
      }
    }, 300_000);
  },
);

describe.skipIf(!existsSync(GCL))(
  "a fleet's generated child pipeline (mode fleet-plan), under gitlab-ci-local",
  needs('gitlabCiLocal'),
  () => {
    const childFile = '.gitlab-ci-local/includes/triggers/fleet.yml';

    test('one failing canary leg: the child pipeline fails, no later stage runs, the report job fails', async () => {
      await setRefusal(namespaceOf('eu-1'), true);
      try {
        const run = await gcl(undefined, '.gitlab-ci-plan.yml');
        // The plan (dry runs) passes on every cluster; the canary's deploy is refused and fails its job.
        expect(run.log).toMatch(/PASS +fleet-plan/);
        expect(run.log).toMatch(/FAIL +deploy-canary: \[eu-1\]/);
        expect(run.log).toContain('the canary refuses writes');
        expect(run.log).not.toMatch(/deploy-rest-1: \[/);
        expect(run.log).not.toMatch(/deploy-rest-2: \[/);
        // GitLab fails the trigger job with its child (strategy: depend); gitlab-ci-local 4.75 passes
        // every trigger job whatever its child did (its startTriggerPipeline), so the parent is green.
        expect(run.log).toMatch(/PASS +fleet\s/);
        for (const c of ['eu-2', 'us-1', 'us-2']) expect(await configMap(c, 'child')).toBe('');
        // As in the first pipeline, gitlab-ci-local does not start the `when: always` job after a
        // stage it did not start: the child's report job runs by name, with the child's artifacts.
        const report = await gcl('fleet-report', childFile);
        expect(report.code, report.log).not.toBe(0);
        expect(report.log).toContain('the deploy of 4 of 4 cluster(s) did not succeed');
        expect(report.log).toContain('eu-1 (wave canary): failed');
        for (const c of ['eu-2', 'us-1', 'us-2'])
          expect(report.log).toContain(`${c} (wave rest): skipped: no report: the leg did not run`);
      } finally {
        await setRefusal(namespaceOf('eu-1'), false);
      }
    }, 400_000);

    test('four clusters, two waves: the plan, then the child pipeline deploys each wave by stage, green', async () => {
      const run = await gcl(undefined, '.gitlab-ci-plan.yml');
      expect(run.code, run.log).toBe(0);
      expect(run.log).not.toMatch(/\bFAIL\b/);
      const plan = readFileSync(
        path.join(project, '.gitlab-ci-local/artifacts/fleet-plan/.spread/fleet-plan.md'),
        'utf8',
      );
      expect(plan).toContain('<!-- spread-fleet-plan:production/fleet -->');
      expect(plan).toContain('4 cluster(s) in 2 wave(s): **4** planned');
      const child = readFileSync(path.join(project, childFile), 'utf8');
      expect(child).toMatch(/stages:\n {2}- canary\n {2}- rest-1\n {2}- rest-2\n {2}- fleet-report\n/);
      // The stages in order: the canary (soaked) before the first batch, each batch before the next.
      const at = (what: RegExp) => run.log.search(what);
      expect(run.log).toContain('wave canary: soaking for 3s');
      const done = (job: string) => at(new RegExp(`${job}\\s+finished in`));
      const started = (job: string) => at(new RegExp(`${job}\\s+starting`));
      for (const [before, after] of [
        ['deploy-canary: \\[eu-1\\]', 'deploy-rest-1: \\[eu-2\\]'],
        ['deploy-canary: \\[eu-1\\]', 'deploy-rest-1: \\[us-1\\]'],
        ['deploy-rest-1: \\[eu-2\\]', 'deploy-rest-2: \\[us-2\\]'],
        ['deploy-rest-1: \\[us-1\\]', 'deploy-rest-2: \\[us-2\\]'],
        ['deploy-rest-2: \\[us-2\\]', 'fleet-report'],
      ] as const) {
        expect(done(before), before).toBeGreaterThan(0);
        expect(done(before), `${before} before ${after}`).toBeLessThan(started(after));
      }
      expect(run.log).toContain('Fleet production: 4 cluster(s) in 2 wave(s)');
      for (const c of CLUSTERS) {
        expect(run.log).toMatch(new RegExp(`${c}\\s+succeeded · context ${c} · revision 1`));
        expect(await configMap(c, 'child')).toBe('configmap/child');
      }
    }, 400_000);
  },
);
