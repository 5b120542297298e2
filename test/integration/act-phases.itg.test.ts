// The Action under act (host mode, test/integration/act.ts) deploying a directory whose pre phase runs
// a migration Job that fails: the step's log shows the Job's log lines inside the `Wait for pre`
// group, and the job summary quotes its last lines. The Job's pod runs on the stand-in kubelet
// (kubelet-standin.ts): kwok's Nodes serve no logs.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { stringify } from 'yaml';
import { lostOutput, removeScratch, runActWholeLog, scratchRepo } from './act.js';
import { missingHarness, needs } from './harness.js';
import { kubeconfigContent, kubectl, uniqueName } from './helpers.js';
import { type StandIn, startKubelet } from './kubelet-standin.js';

const ns = uniqueName('phases-act');
/** `${{ x }}`, an expression of the workflow. */
const expr = (x: string) => `\${{ ${x} }}`;
let kubelet: StandIn | undefined;

beforeAll(async () => {
  if (missingHarness('act')) return;
  await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
  kubelet = await startKubelet(`${ns}-node`, () => ({
    lines: ['applying 0001_users', 'ERROR: relation "users" already exists'],
    exitCode: 1,
  }));
});
afterAll(async () => {
  if (missingHarness('act')) return;
  removeScratch();
  await kubelet?.stop();
  await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
    allowFail: true,
  });
});

describe('Integration: the Action under act, a failed pre Job', () => {
  test('its log in the step log inside the Wait for pre group, its last lines in the job summary', {
    ...needs('act'),
    timeout: 240_000,
  }, async () => {
    const node = kubelet!.node;
    const repo = await scratchRepo({
      action: true,
      files: {
        'deploy/shop/migrate.yaml': [
          'apiVersion: batch/v1',
          'kind: Job',
          'metadata: {generateName: migrate-, annotations: {spread.rsprd.com/phase: pre}}',
          'spec:',
          '  backoffLimit: 0',
          '  template:',
          `    spec: {nodeName: ${node}, restartPolicy: Never, containers: [{name: migrate, image: "registry.k8s.io/pause:3.10"}]}`,
          '',
        ].join('\n'),
        'deploy/shop/.k2e/config.yaml':
          'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n',
      },
      workflow: stringify({
        name: 'spread',
        on: ['push'],
        jobs: {
          spread: {
            'runs-on': 'ubuntu-latest',
            steps: [
              { uses: 'actions/checkout@v4' },
              {
                id: 'deploy',
                uses: './',
                with: {
                  kubeconfig: expr('secrets.KUBECONFIG'),
                  context: 'spread-local',
                  namespace: ns,
                  path: 'deploy/shop',
                  timeout: '90s',
                },
              },
            ],
          },
        },
      }),
    });
    const run = await runActWholeLog({ repo, env: {}, secrets: { KUBECONFIG: kubeconfigContent() } });
    expect(lostOutput(run), run.log).toEqual([]);
    const step = run.step('deploy');
    expect(step.result, run.log).toBe('failure');
    // Groups stay flat (the runner's log has none inside another): the apply's goes on after the wait's.
    expect(step.log).toMatch(/::group::Apply\n[^:]*created\n::endgroup::\n::group::Wait for pre\n/);
    const group =
      /::group::Wait for pre\n([\s\S]*?)::endgroup::\n::group::Apply \(continued\)/.exec(step.log)?.[1] ?? '';
    expect(group, step.log).toMatch(/job\/migrate-\w+ pod\/migrate-\w+-\w+: applying 0001_users/);
    expect(group).toMatch(/: ERROR: relation "users" already exists/);
    expect(step.summary).toMatch(/pre failed; nothing of the main phase was applied/);
    expect(step.summary).toContain('ERROR: relation "users" already exists');
    // Nothing of the main phase was written.
    const cm = await kubectl(['--context', 'spread-local', '-n', ns, 'get', 'configmap', 'settings'], {
      allowFail: true,
    });
    expect(cm.code).not.toBe(0);
  });
});
