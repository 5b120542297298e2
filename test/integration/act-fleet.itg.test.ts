// A fleet deployed by the workflow's own matrix, under act (test/integration/act.ts): the workflow of
// examples/github/fleet.yml (test/fixtures/act/workflows/fleet.yml, `uses: ./`) with its plan job, a
// job per wave from the plan's matrix (its include, max-parallel, clusters and soak), legs uploading
// their report files, a soak job after a wave with a soak, and the report job, which comments on the
// pull request of the pushed commit through the GitHub API stand-in. The fleet's four clusters are
// namespaces of the local cluster, each through its own context, each with its own Helm values;
// artifacts go through stand-ins of actions/upload-artifact and download-artifact (a directory,
// $ARTIFACTS). SPREAD_ACTION_DIST copies another build of dist/ into the scratch repository.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ActRun, removeScratch, runAct, scratchRepo } from './act.js';
import { fleetKubeconfig, setRefusal } from './fleet-namespaces.js';
import { type GitHubApi, startGitHubApi } from './github-api.js';
import { missingHarness, needs } from './harness.js';
import { kubectl, ROOT, uniqueName } from './helpers.js';

const ns = uniqueName('act-fleet');
const CLUSTERS = ['eu-1', 'eu-2', 'us-1', 'us-2'];
const namespaceOf = (cluster: string) => `${ns}-${cluster}`;
const WORKFLOW = path.join(ROOT, 'test/fixtures/act/workflows/fleet.yml');
const STAND_INS = path.join(ROOT, 'test/fixtures/act/artifacts');

const REGION: Record<string, string> = {
  'eu-1': 'eu-west-1',
  'eu-2': 'eu-west-2',
  'us-1': 'us-east-1',
  'us-2': 'us-west-2',
};
const GITHUB_TOKEN = 'ghs_fleetTokenForTheReportComment0123';

const CHART = {
  'shop/chart/Chart.yaml': 'apiVersion: v2\nname: web\nversion: 0.1.0\n',
  'shop/chart/values.yaml': 'region: none\n',
  'shop/chart/templates/web.yaml': `apiVersion: v1
kind: ConfigMap
metadata: {name: web}
data: {region: {{ .Values.region | quote }}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: registry.k8s.io/pause:3.9}]}
`,
};

/** spread.yaml of the fleet: each cluster with its region, and the given waves. */
const spreadYaml = (waves: readonly string[]) =>
  [
    'environments:',
    '  production:',
    '    clusters:',
    ...CLUSTERS.map(
      (c) =>
        `      - { name: ${c}, context: ${c}, namespace: ${namespaceOf(c)}, helmSet: { region: ${REGION[c]} } }`,
    ),
    '    waves:',
    ...waves.map((w) => `      - ${w}`),
    '',
  ].join('\n');

const TWO_WAVES = ['{ name: canary, clusters: [eu-1], soak: 6s }', '{ name: rest, maxParallel: 2 }'];

let api: GitHubApi;

/** One push of the workflow on a fresh scratch repository; its commit belongs to pull request 7. */
async function runFleet(
  waves: readonly string[] = TWO_WAVES,
  artifacts = mkdtempSync(path.join(tmpdir(), 'spread-act-artifacts-')),
): Promise<ActRun> {
  const repo = await scratchRepo({
    copy: { 'action.yml': 'action.yml', dist: process.env.SPREAD_ACTION_DIST ?? 'dist' },
    files: { ...CHART, 'shop/spread.yaml': spreadYaml(waves) },
    workflow: readFileSync(WORKFLOW, 'utf8'),
  });
  const sha = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
  api.commitPulls[sha] = [7];
  return runAct({
    repo,
    env: {
      ARTIFACTS: artifacts,
      GITHUB_API_URL: api.url,
    },
    secrets: { KUBECONFIG: fleetKubeconfig(CLUSTERS, namespaceOf), GITHUB_TOKEN },
    args: [
      ...['--local-repository', `actions/upload-artifact@v4=${STAND_INS}/upload`],
      ...['--local-repository', `actions/download-artifact@v4=${STAND_INS}/download`],
    ],
  });
}

/** The summary the steps of `job` wrote. */
const summaryOf = (run: ActRun, job: string) =>
  run.steps
    .filter((s) => s.job === job)
    .map((s) => s.summary)
    .join('');

/** Everything in the cluster's namespace but what Kubernetes makes itself in a new namespace. */
const objectsIn = async (cluster: string) =>
  (
    await kubectl([
      ...['--context', 'spread-local', '-n', namespaceOf(cluster), 'get'],
      ...['deployments,configmaps,secrets,leases', '-o', 'name'],
    ])
  ).stdout
    .split('\n')
    .filter((l) => l && l !== 'configmap/kube-root-ca.crt');

const regionOf = async (cluster: string) =>
  (
    await kubectl(
      [
        ...['--context', 'spread-local', '-n', namespaceOf(cluster), 'get', 'configmap', 'web'],
        ...['-o', 'jsonpath={.data.region}'],
      ],
      { allowFail: true },
    )
  ).stdout.trim();

/** The comments of the fleet's report on pull request 7. */
const reportComments = () =>
  api.comments.filter((c) => c.issue === 7 && c.body.startsWith('<!-- spread-fleet-report:production/'));

/** Each cluster deployed with its own values: the ConfigMap's region and the Deployment, in its namespace. */
async function expectDeployed(cluster: string): Promise<void> {
  expect(await regionOf(cluster)).toBe(REGION[cluster]);
  expect(await objectsIn(cluster)).toEqual(expect.arrayContaining(['configmap/web', 'deployment.apps/web']));
}

async function emptyNamespaces(): Promise<void> {
  for (const c of CLUSTERS) {
    await kubectl(['--context', 'spread-local', 'delete', 'namespace', namespaceOf(c), '--wait=true'], {
      allowFail: true,
    });
    await kubectl(['--context', 'spread-local', 'create', 'namespace', namespaceOf(c)]);
  }
}

beforeAll(async () => {
  if (missingHarness('act')) return;
  api = await startGitHubApi();
  for (const c of CLUSTERS)
    await kubectl(['--context', 'spread-local', 'create', 'namespace', namespaceOf(c)]);
});
afterAll(async () => {
  if (missingHarness('act')) return;
  removeScratch();
  await api?.close();
  for (const c of CLUSTERS)
    await kubectl(['--context', 'spread-local', 'delete', 'namespace', namespaceOf(c), '--wait=false'], {
      allowFail: true,
    });
});

describe('a fleet in a GitHub workflow, under act', needs('act'), () => {
  test('one failing canary leg: no soak, the second wave does not start, nothing written to its clusters, the report job fails naming every leg', async () => {
    // The canary's API server takes dry runs (the plan passes) and refuses real writes (the leg fails).
    await setRefusal(namespaceOf('eu-1'), true);
    try {
      const run = await runFleet();
      expect(run.code, run.log).not.toBe(0);
      expect(run.jobs).toMatchObject({ plan: 'success', canary: 'failure', report: 'failure' });
      for (const job of ['canary-soak', 'rest', 'rest-soak']) expect(run.jobs[job]).not.toBe('success');
      expect(run.steps.filter((s) => s.job === 'rest' || s.job === 'canary-soak')).toEqual([]);
      const summary = summaryOf(run, 'report');
      expect(summary).toMatch(/\| ❌ \| `eu-1` \|.*\*\*error:\*\* .*the canary refuses writes/);
      for (const c of ['eu-2', 'us-1', 'us-2'])
        expect(summary).toContain(`| ⏭️ | \`${c}\` |  |  |  |  | no report: the leg did not run |`);
      // Nothing at all in the second wave's clusters: no object, no ApplySet parent, no revision, no Lease.
      for (const c of ['eu-2', 'us-1', 'us-2']) expect(await objectsIn(c)).toEqual([]);
      const [comment, ...more] = reportComments();
      expect(more).toEqual([]);
      expect(comment!.body).toContain('## ❌ ');
    } finally {
      await setRefusal(namespaceOf('eu-1'), false);
    }
  });

  test('two waves, four legs: the plan carries max-parallel and soak, the canary soaked, every cluster deployed with its values, the report on the job summary and the pull request', async () => {
    await emptyNamespaces();
    api.comments.length = 0;
    const run = await runFleet();
    expect(run.code, run.log).toBe(0);
    expect(run.jobs).toMatchObject({
      plan: 'success',
      canary: 'success',
      'canary-soak': 'success',
      rest: 'success',
      report: 'success',
    });
    expect(run.jobs['rest-soak']).not.toBe('failure');
    expect(run.steps.filter((s) => s.job === 'rest-soak')).toEqual([]);
    const matrix = JSON.parse(run.step('fleet').outputs.matrix!);
    expect(matrix.canary).toMatchObject({ 'max-parallel': 1, clusters: 1, soak: 6 });
    expect(matrix.rest).toMatchObject({ 'max-parallel': 2, clusters: 3, soak: 0 });
    const soak = summaryOf(run, 'canary-soak');
    expect(soak).toContain('## ✅ Soak of wave `canary` → environment `production`');
    expect(soak).toContain('read for 6s');
    expect(soak).toContain('| ✅ | `eu-1` | healthy |');
    const summary = summaryOf(run, 'report');
    expect(summary).toContain('4 cluster(s) in 2 wave(s): **4** succeeded');
    for (const c of CLUSTERS) expect(summary).toMatch(new RegExp(`\\| ✅ \\| \`${c}\` \\| \`${c}\` \\|`));
    for (const c of CLUSTERS) await expectDeployed(c);
    // On push, the report goes to the pull request the commit belongs to.
    const [comment, ...more] = reportComments();
    expect(more).toEqual([]);
    expect(comment!.body).toContain('4 cluster(s) in 2 wave(s): **4** succeeded');
    expect(api.auth.has(`token ${GITHUB_TOKEN}`)).toBe(true);
  });

  test('a canary whose Deployment goes during its soak: the soak job fails naming it, the second wave does not start', async () => {
    await emptyNamespaces();
    const artifacts = mkdtempSync(path.join(tmpdir(), 'spread-act-artifacts-'));
    const running = runFleet(
      ['{ name: canary, clusters: [eu-1], soak: 20s }', '{ name: rest, maxParallel: 2 }'],
      artifacts,
    );
    // Once the canary's leg uploaded its report (its deploy is done), its Deployment is deleted.
    const uploaded = path.join(artifacts, 'spread-report-eu-1');
    const deadline = Date.now() + 5 * 60_000;
    while (!existsSync(uploaded) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    await kubectl(['--context', 'spread-local', '-n', namespaceOf('eu-1'), 'delete', 'deployment', 'web']);
    const run = await running;
    expect(run.code, run.log).not.toBe(0);
    expect(run.jobs).toMatchObject({ plan: 'success', canary: 'success', 'canary-soak': 'failure' });
    expect(run.steps.filter((s) => s.job === 'rest' || s.job === 'rest-soak')).toEqual([]);
    const soak = summaryOf(run, 'canary-soak');
    expect(soak).toContain('## ❌ Soak of wave `canary` → environment `production`');
    expect(soak).toContain('| ❌ | `eu-1` | Deployment/web is gone during the soak |');
    expect(run.log).toMatch(/wave canary did not stay healthy for its soak \(20s\)/);
    for (const c of ['eu-2', 'us-1', 'us-2']) expect(await objectsIn(c)).toEqual([]);
  });

  test('a last wave left empty by spread.yaml: its job is skipped, the fleet is whole', async () => {
    await emptyNamespaces();
    const run = await runFleet([
      `{ name: canary, clusters: [${CLUSTERS.join(', ')}], maxParallel: 2 }`,
      '{ name: rest }',
    ]);
    expect(run.code, run.log).toBe(0);
    expect(run.jobs).toMatchObject({ plan: 'success', canary: 'success', report: 'success' });
    expect(run.steps.filter((s) => ['rest', 'canary-soak', 'rest-soak'].includes(s.job))).toEqual([]);
    expect(JSON.parse(run.step('fleet').outputs.matrix!).rest).toEqual({
      include: [],
      'max-parallel': 1,
      clusters: 0,
      soak: 0,
    });
    expect(summaryOf(run, 'report')).toContain('4 cluster(s) in 2 wave(s): **4** succeeded');
    for (const c of CLUSTERS) await expectDeployed(c);
  });
});
