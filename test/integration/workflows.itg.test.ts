// The project's own workflows (.github/workflows) under act. Actions that cannot be fetched here
// (no GitHub) are replaced with local stand-ins (test/fixtures/act) through act's --local-repository.
// - Every job of ci.yml, check-dist.yml and e2e.yml is planned in a dry run (`-n`: act validates
//   the workflow against its schema, parses every expression, resolves each `uses:` to an action,
//   and runs nothing; it does not read the action.yml of `uses: ./`, which the real run below does).
// - e2e.yml runs for real in host mode against the local cluster, with a stand-in for
//   helm/kind-action that points at the local cluster instead of creating a kind cluster.
// - check-dist.yml runs in host mode with its `npm ci` and `npm run build` replaced by a step that
//   leaves dist/ alone or changes it, so its compare step and the upload on failure run for real.
// Not run for real: ci.yml's `check` job and the npm ci and build of check-dist.yml (each an
// `npm ci` and a full build of dist/, minutes on the test machine; `.ci/run` runs the same
// commands), and ci.yml's `test` job (it is `.ci/run`, this very suite).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { parse, stringify } from 'yaml';
import { lostOutput, removeScratch, runAct, runActWholeLog, scratchRepo } from './act.js';
import { missingHarness, needs } from './harness.js';
import { kubeconfigContent, kubectl, ROOT, uniqueName } from './helpers.js';

const STAND_IN = path.join(ROOT, 'test/fixtures/act/stand-in');
const KIND_STAND_IN = path.join(ROOT, 'test/fixtures/act/kind-action');
const PASSWORD = 'mattermost-example-password'; // examples/mattermost/.k2e/secret.yaml

/** act flags that replace the public actions the workflows use with the stand-ins. */
const standIns = (kind = STAND_IN) => [
  ...[
    'actions/setup-node@v4',
    'actions/setup-go@v5',
    'actions/cache@v4',
    'actions/upload-artifact@v4',
  ].flatMap((a) => ['--local-repository', `${a}=${STAND_IN}`]),
  '--local-repository',
  `helm/kind-action@v1=${kind}`,
];

/** A copy of what the workflows use: themselves, the Action (action.yml, dist/), examples and scripts. */
const projectRepo = () =>
  scratchRepo({
    copy: Object.fromEntries(
      ['.github', 'action.yml', 'dist', 'examples', 'scripts', 'package.json'].map((p) => [p, p]),
    ),
  });

const namespaces: string[] = [];
afterAll(async () => {
  // Top-level hooks run even when every test of the file is skipped (harness.ts).
  if (missingHarness('act', 'docker')) return;
  removeScratch();
  for (const ns of namespaces)
    await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
      allowFail: true,
    });
});

describe("the project's workflows under act", needs('act', 'docker'), () => {
  test.each(['push', 'pull_request'])(
    'on %s every job of ci.yml, check-dist.yml and e2e.yml is planned in a dry run',
    async (event) => {
      const repo = await projectRepo();
      const run = await runAct({
        repo,
        event,
        image: process.env.SPREAD_BASE_IMAGE,
        args: ['-n', ...standIns()],
        payload:
          event === 'pull_request'
            ? { pull_request: { number: 1, base: { ref: 'main' }, head: { ref: 'x' } } }
            : undefined,
      });
      expect(run.code, run.log).toBe(0);
      expect(run.jobs).toEqual({
        check: 'success',
        test: 'success',
        'check-dist': 'success',
        kind: 'success',
      });
      const planned = (job: string) =>
        run.steps.filter((s) => s.job === job && s.result === 'success').length;
      // Every step of each job, the checkout and the Post steps of the stand-ins included.
      expect(planned('check')).toBeGreaterThanOrEqual(8);
      expect(planned('check-dist')).toBeGreaterThanOrEqual(5);
      expect(planned('kind')).toBeGreaterThanOrEqual(10);
      expect(run.log).toContain('stand-in for');
    },
  );

  test('a dry run fails on a workflow act cannot load', async () => {
    const repo = await scratchRepo({
      workflow: `on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo \${{ steps.a.outputs.b ) }}\n`,
    });
    const run = await runAct({ repo, image: process.env.SPREAD_BASE_IMAGE, args: ['-n'] });
    expect(run.code).not.toBe(0);
    expect(run.log).toContain("workflow is not valid. 'test.yml': Line: 4");
    expect(run.jobs).toEqual({});
  });

  test('e2e.yml runs against the local cluster: creates its namespace, deploys examples/mattermost, checks the outputs, plans no change, finds no secret', async () => {
    const ns = uniqueName('itg-e2e');
    namespaces.push(ns);
    // The local cluster's kubeconfig as `kind get kubeconfig --name spread-e2e` would print it.
    const kc = parse(kubeconfigContent()) as {
      contexts: { name: string; context: unknown }[];
      'current-context': string;
    };
    kc.contexts = kc.contexts
      .filter((c) => c.name === 'spread-local')
      .map((c) => ({ ...c, name: 'kind-spread-e2e' }));
    kc['current-context'] = 'kind-spread-e2e';
    const file = path.join(tmpdir(), `${ns}.kubeconfig`);
    writeFileSync(file, stringify(kc), { mode: 0o600 });

    const repo = await projectRepo();
    const run = await runAct({
      repo,
      workflows: '.github/workflows/e2e.yml',
      vars: { E2E_NAMESPACE: ns },
      env: { KIND_STAND_IN_KUBECONFIG: file, DOCKER_HOST: process.env.DOCKER_HOST! },
      args: standIns(KIND_STAND_IN),
    });
    const kubeconfig = readFileSync(file, 'utf8');
    rmSync(file);
    expect(run.code, run.log).toBe(0);
    expect(run.jobs).toEqual({ kind: 'success' });
    const steps = run.steps.filter((s) => !s.id.startsWith('post'));
    expect(
      steps.filter((s) => s.result !== 'success'),
      run.log,
    ).toEqual([]);
    expect(run.step('deploy').outputs).toMatchObject({
      deployment: 'mattermost',
      namespace: ns,
      changed: 'true',
    });
    expect(run.step('plan').outputs.changed).toBe('false');
    expect(run.log).toContain('replicationcontroller/mattermost'); // kubectl get rc in the outputs step
    const rc = await kubectl([
      '--context',
      'spread-local',
      '-n',
      ns,
      'get',
      'rc',
      'mattermost',
      '-o',
      'name',
    ]);
    expect(rc.stdout.trim()).toBe('replicationcontroller/mattermost');
    // The job summaries (act logs each step's) hold no Secret value, and act showed no kubeconfig.
    expect(run.step('deploy').summary).toContain('mattermost');
    for (const s of run.steps) expect(s.summary.includes(PASSWORD)).toBe(false);
    expect(run.log.includes(Buffer.from(kubeconfig).toString('base64'))).toBe(false);
    for (const line of kubeconfig.split('\n').filter((l) => /key-data/.test(l)))
      expect(run.log.includes(line.replace(/^.*?:\s*/, '').trim())).toBe(false);
  });

  test.each([
    ['the build leaves dist/ as committed: the job passes, nothing is uploaded', false],
    ['the build changes dist/: the compare step fails and the expected dist/ is uploaded', true],
  ])('check-dist.yml, its npm ci and build replaced by a step: %s', async (_name, changes) => {
    const workflow = parse(readFileSync(path.join(ROOT, '.github/workflows/check-dist.yml'), 'utf8')) as {
      jobs: { 'check-dist': { steps: { run?: string; name?: string }[] } };
    };
    const steps = workflow.jobs['check-dist'].steps;
    expect(steps.map((s) => s.run).filter(Boolean)).toContain('npm run build');
    workflow.jobs['check-dist'].steps = steps
      .filter((s) => s.run !== 'npm ci')
      .map((s) =>
        s.run === 'npm run build'
          ? { name: 'build (stand-in)', run: changes ? 'echo "// changed" >> dist/index.js' : 'true' }
          : s,
      );
    const repo = await scratchRepo({
      action: true,
      files: { '.github/workflows/check-dist.yml': stringify(workflow) },
    });
    // The compare step's output ends with git diff --stat.
    const run = await runActWholeLog({ repo, args: standIns() }, (s) => s.log.includes('1 file changed'));
    expect(lostOutput(run, (s) => s.log.includes('1 file changed'))).toEqual([]);
    expect(run.step('diff').result).toBe(changes ? 'failure' : 'success');
    expect(run.jobs['check-dist']).toBe(changes ? 'failure' : 'success');
    const upload = run.steps.filter((s) => s.log.includes('stand-in for actions/upload-artifact'));
    if (changes) {
      expect(run.step('diff').log).toContain('dist/ differs from the build of this commit');
      expect(run.step('diff').log).toContain('M dist/index.js');
      expect(upload).toHaveLength(1);
    } else expect(upload).toHaveLength(0);
  });

  test("e2e.yml's secret check fails when the Secret's value is in an output", async () => {
    const e2e = parse(readFileSync(path.join(ROOT, '.github/workflows/e2e.yml'), 'utf8')) as {
      jobs: { kind: { steps: { name?: string }[] } };
    };
    const check = e2e.jobs.kind.steps.find((s) => s.name?.includes('hold no secret value'));
    expect(check).toBeDefined();
    const repo = await scratchRepo({
      copy: { 'examples/mattermost': 'examples/mattermost' },
      workflow: stringify({
        on: 'push',
        jobs: {
          kind: {
            'runs-on': 'ubuntu-latest',
            steps: [
              { uses: 'actions/checkout@v4' },
              // A report that leaks: the password as the Secret's file holds it.
              {
                id: 'deploy',
                run: `echo "plan=changed: $(sed -n 's/^  password: "\\(.*\\)"$/\\1/p' examples/mattermost/.k2e/secret.yaml)" >> "$GITHUB_OUTPUT"`,
              },
              { id: 'check', ...check },
            ],
          },
        },
      }),
    });
    const run = await runActWholeLog({ repo });
    expect(run.code).not.toBe(0);
    expect(run.step('deploy').result).toBe('success');
    expect(run.step('check').result).toBe('failure');
    expect(run.step('check').log).toContain(
      '::error::the value of the Secret mattermost-db is in an output or the job summary',
    );
  });
});
