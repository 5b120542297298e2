// A fleet deployed by the workflow's own matrix, under act (test/integration/act.ts): the workflow of
// examples/github/fleet.yml (test/fixtures/act/workflows/fleet.yml, `uses: ./`) with its plan job, a
// job per wave from the plan's matrix, legs uploading their report files and the report job. The
// fleet's four clusters are namespaces of the local cluster, each through its own context; artifacts go
// through stand-ins of actions/upload-artifact and download-artifact (a directory, $ARTIFACTS).
// SPREAD_ACTION_DIST copies another build of dist/ into the scratch repository (one not committed yet).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ActRun, removeScratch, runAct, scratchRepo } from './act.js';
import { fleetKubeconfig, refuseWrites } from './fleet-namespaces.js';
import { missingHarness, needs } from './harness.js';
import { kubectl, ROOT, uniqueName } from './helpers.js';

const ns = uniqueName('act-fleet');
const CLUSTERS = ['eu-1', 'eu-2', 'us-1', 'us-2'];
const namespaceOf = (cluster: string) => `${ns}-${cluster}`;
const WORKFLOW = path.join(ROOT, 'test/fixtures/act/workflows/fleet.yml');
const STAND_INS = path.join(ROOT, 'test/fixtures/act/artifacts');

const files = {
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
};

async function runFleet(): Promise<ActRun> {
  const repo = await scratchRepo({
    copy: { 'action.yml': 'action.yml', dist: process.env.SPREAD_ACTION_DIST ?? 'dist' },
    files,
    workflow: readFileSync(WORKFLOW, 'utf8'),
  });
  return runAct({
    repo,
    env: { ARTIFACTS: mkdtempSync(path.join(tmpdir(), 'spread-act-artifacts-')) },
    secrets: { KUBECONFIG: fleetKubeconfig(CLUSTERS, namespaceOf) },
    args: [
      ...['--local-repository', `actions/upload-artifact@v4=${STAND_INS}/upload`],
      ...['--local-repository', `actions/download-artifact@v4=${STAND_INS}/download`],
    ],
  });
}

/** The summary the report job's fleet-report step wrote. */
const reportSummary = (run: ActRun) =>
  run.steps
    .filter((s) => s.job === 'report')
    .map((s) => s.summary)
    .join('');

const configMap = async (cluster: string) =>
  (
    await kubectl(
      ['--context', 'spread-local', '-n', namespaceOf(cluster), 'get', 'configmap', 'web', '-o', 'name'],
      { allowFail: true },
    )
  ).stdout.trim();

beforeAll(async () => {
  if (missingHarness('act')) return;
  for (const c of CLUSTERS)
    await kubectl(['--context', 'spread-local', 'create', 'namespace', namespaceOf(c)]);
});
afterAll(async () => {
  if (missingHarness('act')) return;
  removeScratch();
  for (const c of CLUSTERS)
    await kubectl(['--context', 'spread-local', 'delete', 'namespace', namespaceOf(c), '--wait=false'], {
      allowFail: true,
    });
});

describe('a fleet in a GitHub workflow, under act', needs('act'), () => {
  test('one failing canary leg: the second wave does not start, the report job fails naming every leg', async () => {
    // The canary's API server takes dry runs (the plan passes) and refuses real writes (the leg fails).
    await kubectl(['--context', 'spread-local', 'apply', '-f', '-'], {
      input: refuseWrites(namespaceOf('eu-1')),
    });
    try {
      const run = await runFleet();
      expect(run.code, run.log).not.toBe(0);
      expect(run.jobs).toMatchObject({ plan: 'success', canary: 'failure', report: 'failure' });
      expect(run.jobs.rest).not.toBe('success');
      const summary = reportSummary(run);
      expect(summary).toMatch(/\| ❌ \| `eu-1` \|.*\*\*error:\*\* .*the canary refuses writes/);
      for (const c of ['eu-2', 'us-1', 'us-2'])
        expect(summary).toContain(`| ⏭️ | \`${c}\` |  |  |  |  | no report: the leg did not run |`);
      for (const c of ['eu-2', 'us-1', 'us-2']) expect(await configMap(c)).toBe('');
    } finally {
      await kubectl(['--context', 'spread-local', 'delete', '-f', '-'], {
        input: refuseWrites(namespaceOf('eu-1')),
        allowFail: true,
      });
    }
  });

  test('two waves, four legs: every cluster deployed, the report job lists all four', async () => {
    const run = await runFleet();
    expect(run.code, run.log).toBe(0);
    expect(run.jobs).toMatchObject({
      plan: 'success',
      canary: 'success',
      rest: 'success',
      report: 'success',
    });
    const summary = reportSummary(run);
    expect(summary).toContain('4 cluster(s) in 2 wave(s): **4** succeeded');
    for (const c of CLUSTERS) expect(summary).toMatch(new RegExp(`\\| ✅ \\| \`${c}\` \\| \`${c}\` \\|`));
    for (const c of CLUSTERS) expect(await configMap(c)).toBe('configmap/web');
  });
});
