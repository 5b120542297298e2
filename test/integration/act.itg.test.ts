// The Action under a real workflow runner: act (host mode) runs workflows with `uses: ./` in a scratch
// repository holding the UNMODIFIED action.yml and dist/, against the local cluster, Docker engine and
// registry of .cluster/env, with a local stand-in for the GitHub REST API. act reads action.yml, fills
// in the defaults (`${{ github.token }}`), evaluates the expressions of the workflow, passes outputs to
// later steps and collects the job summary, as GitHub's runner does; the direct `node dist/index.js`
// tests in action.itg.test.ts cover the rest more cheaply.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse, stringify } from 'yaml';
import {
  type ActRun,
  type ActStep,
  lostOutput,
  removeScratch,
  runAct,
  runActWholeLog,
  scratchRepo,
} from './act.js';
import { type GitHubApi, startGitHubApi } from './github-api.js';
import { missingHarness, needs } from './harness.js';
import { kubeconfigContent, kubectl, ROOT, uniqueName } from './helpers.js';

const ns = uniqueName('itg-act');
const GITHUB_TOKEN = `ghs_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
const BOT_TOKEN = `ghp_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;

/** `${{ x }}`, an expression of the workflow. */
const expr = (x: string) => `\${{ ${x} }}`;

type Step = Record<string, unknown>;

/** A workflow of one job `spread` on ubuntu-latest (host mode under act) that checks out the repository first. */
function workflow(on: string[], steps: Step[]): string {
  return stringify({
    name: 'spread',
    on,
    permissions: { contents: 'read', 'pull-requests': 'write' },
    jobs: {
      spread: { 'runs-on': 'ubuntu-latest', steps: [{ uses: 'actions/checkout@v4' }, ...steps] },
    },
  });
}

/** The Action's inputs each workflow of this file gives, to check that every input is exercised. */
const exercised = new Set<string>();
function spread(id: string, inputs: Record<string, string>, extra: Step = {}): Step {
  for (const k of Object.keys(inputs)) exercised.add(k);
  return { id, uses: './', with: inputs, ...extra };
}

const target = () => ({ kubeconfig: expr('secrets.KUBECONFIG'), context: 'spread-local', namespace: ns });

let api: GitHubApi;
let env: Record<string, string>;
let secrets: Record<string, string>;
/** A build secret the build step passes (input build-secrets); it must appear nowhere in the log. */
const BUILD_TOKEN = `build-token-${Math.random().toString(36).slice(2)}`;
let registryPassword: string;

/** Every credential of the runs: kubeconfig (whole, base64, its key/token/password values), registry, tokens. */
function credentials(): string[] {
  const kubeconfig = kubeconfigContent();
  const values = kubeconfig
    .split('\n')
    .filter((l) => /key-data|certificate-data|token|password/.test(l))
    .map((l) => l.replace(/^.*?:\s*/, '').trim())
    .filter((v) => v.length >= 16);
  expect(values.length, 'the kubeconfig holds keys to look for').toBeGreaterThanOrEqual(2);
  const dockerConfig = readFileSync(path.join(env.DOCKER_CONFIG!, 'config.json'), 'utf8');
  const auths = [...dockerConfig.matchAll(/"auth"\s*:\s*"([^"]+)"/g)].map((m) => m[1]!);
  return [
    kubeconfig,
    Buffer.from(kubeconfig).toString('base64'),
    ...values,
    registryPassword,
    ...auths,
    GITHUB_TOKEN,
    BOT_TOKEN,
  ];
}

/** No credential in the log act shows, in any step's outputs or in any job summary. */
function expectNoCredential(run: ActRun): void {
  const texts = [run.log, ...run.steps.flatMap((s) => [s.summary, ...Object.values(s.outputs)])];
  for (const secret of credentials())
    for (const text of texts)
      expect(text.includes(secret), `a credential leaked: ${secret.slice(0, 8)}…`).toBe(false);
}

async function live(kind: string, name: string, jsonpath: string): Promise<string> {
  const r = await kubectl(
    ['--context', 'spread-local', '-n', ns, 'get', kind, name, '-o', `jsonpath=${jsonpath}`],
    {
      allowFail: true,
    },
  );
  return r.code === 0 ? r.stdout : `(not found: ${r.stderr.trim()})`;
}

beforeAll(async () => {
  // Top-level hooks run even when every test of the file is skipped (harness.ts).
  if (missingHarness('act', 'docker', 'registry')) return;
  api = await startGitHubApi();
  registryPassword = readFileSync(process.env.SPREAD_REGISTRY_PASSWORD_FILE!, 'utf8').trim();
  env = {
    DOCKER_HOST: process.env.DOCKER_HOST!,
    DOCKER_CONFIG: process.env.DOCKER_CONFIG!,
    BUILDX_CONFIG: process.env.BUILDX_CONFIG!,
    GITHUB_API_URL: api.url,
  };
  secrets = { KUBECONFIG: kubeconfigContent(), GITHUB_TOKEN, BOT_TOKEN, BUILD_TOKEN };
  await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
});
afterAll(async () => {
  if (missingHarness('act', 'docker', 'registry')) return;
  removeScratch();
  await api?.close();
  await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
    allowFail: true,
  });
});

const registry = () => `${process.env.SPREAD_REGISTRY}/${ns}`;

// The workflows are made when the file loads, so that the last test sees every input they give.
const deployWorkflow = workflow(
  ['push'],
  [
    spread('deploy', {
      ...target(),
      path: 'deploy/mattermost',
      timeout: '2m',
      wait: 'true',
      'wait-load-balancer': 'false',
      prune: 'true',
      'prune-crds': 'false',
      'force-conflicts': 'true',
      replace: 'true',
      adopt: 'false',
      concurrency: '4',
      'lock-timeout': '1m',
      'lock-lease-duration': '45s',
      annotate: 'true',
    }),
    {
      id: 'read',
      name: 'read the outputs',
      env: { OBJECTS: expr('steps.deploy.outputs.objects'), REVISION: expr('steps.deploy.outputs.revision') },
      run: [
        `test "${expr('steps.deploy.outputs.deployment')}" = mattermost`,
        `test "${expr('steps.deploy.outputs.namespace')}" = "${ns}"`,
        `test "${expr('steps.deploy.outputs.changed')}" = true`,
        'test "$REVISION" = 1',
        `echo "deployment=${expr('steps.deploy.outputs.deployment')}" >> "$GITHUB_OUTPUT"`,
        `echo "created=${expr('steps.deploy.outputs.created')}" >> "$GITHUB_OUTPUT"`,
        `echo "kinds=$(node -e 'console.log(JSON.parse(process.env.OBJECTS).map((o) => o.kind).sort().join(","))')" >> "$GITHUB_OUTPUT"`,
      ].join('\n'),
    },
    spread('build', {
      ...target(),
      path: 'deploy/hello-build',
      registry: registry(),
      tag: 'act-1',
      'build-args': `BASE=${process.env.SPREAD_BASE_IMAGE_REF}`,
      build: 'true',
      push: 'true',
      'layer-cache': 'false',
      platforms: 'linux/amd64',
      attestations: 'false',
      'build-secrets': `token=${expr('secrets.BUILD_TOKEN')}`,
      builder: 'spread',
      'object-annotations': 'false',
      timeout: '2m',
    }),
    spread('prebuilt', {
      ...target(),
      path: 'deploy/hello-build',
      mode: 'plan',
      registry: registry(),
      tag: 'act-1',
      build: 'false',
      push: 'false',
      comment: 'false',
    }),
    spread('delete', {
      ...target(),
      path: 'deploy/hello-build',
      name: 'hello-build',
      mode: 'delete',
      'include-kept': 'true',
    }),
  ],
);

const failureWorkflow = workflow(
  ['push'],
  [
    spread('context', { ...target(), context: 'nope', path: 'deploy/stuck' }, { 'continue-on-error': true }),
    spread(
      'rollout',
      { ...target(), path: 'deploy/stuck', timeout: '90s', 'rollback-on-failure': 'true' },
      { 'continue-on-error': true },
    ),
    spread('broken', { ...target(), path: 'deploy/broken' }),
    { id: 'after', run: 'echo not reached' },
  ],
);

const pullRequestWorkflow = workflow(
  ['pull_request'],
  [
    // In plan mode on a pull request the base branch (main) chooses the context.
    spread('plan', {
      kubeconfig: expr('secrets.KUBECONFIG'),
      namespace: ns,
      path: 'deploy/mattermost',
      mode: 'plan',
      environments: 'main=spread-local\nrelease/*=spread-team-a',
    }),
    spread('plan-bot', {
      ...target(),
      path: 'deploy/hello-build',
      mode: 'plan',
      registry: registry(),
      build: 'false',
      push: 'false',
      tag: 'act-1',
      'github-token': expr('secrets.BOT_TOKEN'),
    }),
    spread('no-comment', {
      ...target(),
      path: 'deploy/hello-build',
      mode: 'plan',
      registry: registry(),
      build: 'false',
      push: 'false',
      tag: 'act-1',
      comment: 'false',
    }),
    // A pull request's deploy never goes through the rules (only to a declared preview): skipped.
    spread('preview', {
      kubeconfig: expr('secrets.KUBECONFIG'),
      namespace: ns,
      path: 'deploy/mattermost',
      environments: 'main=spread-local',
    }),
    {
      id: 'skipped',
      if: "steps.preview.outputs.skipped == 'true'",
      run: `echo "no environment for ${expr('github.head_ref')}"`,
    },
  ],
);

// A job with `environment:` whose URL is the step's output, and GitHub deployment statuses.
const deploymentWorkflow = stringify({
  name: 'spread',
  on: ['push'],
  permissions: { contents: 'read', deployments: 'write', 'pull-requests': 'write' },
  jobs: {
    spread: {
      'runs-on': 'ubuntu-latest',
      environment: { name: 'production', url: expr('steps.visible.outputs.url') },
      steps: [
        { uses: 'actions/checkout@v4' },
        spread('visible', {
          ...target(),
          path: 'deploy/web',
          wait: 'false',
          deployment: 'true',
          environment: 'production',
          // deploy/web's spread.yaml declares production on one cluster, named by its context.
          cluster: 'spread-local',
          'url-from': 'ingress/web',
          'deploy-comment': 'true',
        }),
        { id: 'read-url', run: `echo "url=${expr('steps.visible.outputs.url')}" >> "$GITHUB_OUTPUT"` },
        spread(
          'visible-broken',
          {
            ...target(),
            path: 'deploy/stuck',
            timeout: '60s',
            deployment: 'true',
            environment: 'production',
          },
          { 'continue-on-error': true },
        ),
        spread('visible-delete', {
          ...target(),
          path: 'deploy/web',
          mode: 'delete',
          deployment: 'true',
          environment: 'production',
        }),
      ],
    },
  },
});

// A workflow file as a team keeps it (not made here): a kustomize overlay and a Helm chart; the
// promotion's, which promote-act.itg.test.ts runs on two clusters; the fleet's, act-fleet.itg.test.ts.
const overlayAndChart = path.join(ROOT, 'test/fixtures/act/workflows/overlay-and-chart.yml');
const fixtures = ['promote.yml', 'fleet.yml'].map((f) => path.join(ROOT, 'test/fixtures/act/workflows', f));
for (const file of [overlayAndChart, ...fixtures]) {
  const jobs = (parse(readFileSync(file, 'utf8')) as { jobs: Record<string, { steps: Step[] }> }).jobs;
  for (const job of Object.values(jobs))
    for (const step of job.steps)
      if (step.uses === './') for (const k of Object.keys(step.with as object)) exercised.add(k);
}

describe('the Action under act', needs('act', 'docker', 'registry'), () => {
  test('push: the unmodified action.yml deploys examples/mattermost, a later step reads the outputs; an & image is built, pushed, planned without building, deleted', async () => {
    const repo = await scratchRepo({
      action: true,
      copy: { 'deploy/mattermost': 'examples/mattermost', 'deploy/hello-build': 'examples/hello-build' },
      workflow: deployWorkflow,
    });
    // The example reads no secret; here a RUN reads build-secrets' token and prints its hash.
    const dockerfile = path.join(repo, 'deploy/hello-build/Dockerfile');
    const text = readFileSync(dockerfile, 'utf8');
    expect(text).toContain('\nUSER 65534\n');
    writeFileSync(
      dockerfile,
      text.replace(
        '\nUSER 65534\n',
        // The ENV makes the RUN this run's own: BuildKit keys no cache by a secret's value, so a
        // cluster's BuildKit that ran this test before would answer CACHED and print no hash.
        `\nENV SPREAD_TEST_RUN=${Math.random().toString(36).slice(2)}\nRUN --mount=type=secret,id=token,required=true ["/bin/busybox", "sha256sum", "/run/secrets/token"]\nUSER 65534\n`,
      ),
    );
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qam', 'secret'], {
      cwd: repo,
    });
    const run = await runAct({ repo, env, secrets });
    expect(run.code, run.log).toBe(0);
    expect(run.log).not.toContain(BUILD_TOKEN);
    expect(run.log).toContain(
      `${createHash('sha256').update(BUILD_TOKEN).digest('hex')}  /run/secrets/token`,
    );

    const deploy = run.step('deploy');
    expect(deploy.result).toBe('success');
    expect(deploy.outputs).toMatchObject({
      deployment: 'mattermost',
      namespace: ns,
      context: 'spread-local',
    });
    const objects = JSON.parse(deploy.outputs.objects!) as { kind: string; name: string; action: string }[];
    expect(objects.map((o) => `${o.kind}/${o.name}:${o.action}`).sort()).toEqual([
      'ReplicationController/mattermost:created',
      'Secret/mattermost-db:created',
      'Service/mattermost:created',
    ]);
    expect(deploy.summary).toContain('spread deploy: mattermost → spread-local');
    expect(deploy.summary).toContain('<code>replicationcontroller/mattermost</code>');

    // The next step saw the outputs both through expressions and through env:.
    expect(run.step('read').result).toBe('success');
    expect(run.step('read').outputs).toEqual({
      deployment: 'mattermost',
      created: '3',
      kinds: 'ReplicationController,Secret,Service',
    });
    expect(await live('rc', 'mattermost', '{.status.readyReplicas}')).toBe('1');
    // object-annotations defaults to true: the commit of the scratch repository.
    const sha = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
    expect(await live('rc', 'mattermost', '{.metadata.annotations.spread\\.rsprd\\.com/commit}')).toBe(sha);

    const build = run.step('build');
    expect(build.result).toBe('success');
    const images = JSON.parse(build.outputs.images!) as {
      reference: string;
      digest: string;
      built: boolean;
      pushed: boolean;
    }[];
    expect(images).toHaveLength(1);
    expect(images[0]).toMatchObject({ built: true, pushed: true, tag: 'act-1' });
    expect(images[0]!.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(images[0]!.reference).toBe(`${registry()}/hello-build:act-1@${images[0]!.digest}`);
    expect(build.summary).toContain('hello-build');
    expect(run.step('prebuilt').result).toBe('success');
    const prebuilt = JSON.parse(run.step('prebuilt').outputs.images!) as {
      digest: string;
      built: boolean;
      pushed: boolean;
    }[];
    // Not built, not pushed: the tag the build step pushed is what the plan deploys.
    expect(prebuilt).toEqual([
      expect.objectContaining({ reference: `${registry()}/hello-build:act-1`, built: false, pushed: false }),
    ]);

    const deleted = run.step('delete');
    expect(deleted.result).toBe('success');
    const gone = JSON.parse(deleted.outputs.objects!) as { kind: string; action: string }[];
    expect(gone.length).toBeGreaterThan(0);
    expect(new Set(gone.map((o) => o.action))).toEqual(new Set(['pruned']));
    expect(await live('deployment', 'hello-build', '{.metadata.name}')).toMatch(/^\(not found/);
    expect(api.requests).toEqual([]);
    expectNoCredential(run);
  });

  test('failures fail their step with the reason: an unknown context, a rollout that cannot succeed, a broken directory with file:line', async () => {
    const repo = await scratchRepo({
      action: true,
      files: {
        'deploy/broken/.k2e/objects.yaml':
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fine\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\n',
        'deploy/stuck/deployment.yaml': [
          'apiVersion: apps/v1',
          'kind: Deployment',
          'metadata: {name: stuck}',
          'spec:',
          '  replicas: 1',
          '  selector: {matchLabels: {app: stuck}}',
          '  template:',
          '    metadata: {labels: {app: stuck}}',
          '    spec: {containers: [{name: web, image: "unpullable.invalid/web:1"}]}',
          '',
        ].join('\n'),
      },
      workflow: failureWorkflow,
    });
    // The workflow gives the same result when run again (act can lose a failed step's last lines).
    const run = await runActWholeLog({ repo, env, secrets });
    expect(lostOutput(run), run.log).toEqual([]);
    expect(run.code, run.log).not.toBe(0);

    const context = run.step('context');
    expect(context.result).toBe('failure');
    expect(context.log, run.log).toMatch(
      /::error::context "nope" does not exist in .*; available contexts: .*spread-local/,
    );

    const rollout = run.step('rollout');
    expect(rollout.result).toBe('failure');
    expect(rollout.log).toMatch(/ImagePullBackOff|ErrImagePull/);
    expect(rollout.summary).toContain('stuck');

    const broken = run.step('broken');
    expect(broken.result).toBe('failure');
    expect(broken.log).toMatch(/::error file=deploy\/broken\/\.k2e\/objects\.yaml,line=\d+/);
    expect(broken.log).toMatch(/::error::1 error in the input:%0A {2}\.k2e\/objects\.yaml:\d+: YAML: /);
    expect(run.steps.some((s) => s.id === 'after')).toBe(false);
    // Nothing of the broken directory was written.
    expect(await live('configmap', 'fine', '{.metadata.name}')).toMatch(/^\(not found/);
    expectNoCredential(run);
  });

  test('pull_request: plans post one comment each through the local API (github.token by default, or github-token); environments; comment false; deploy mode skips a pull request (only a declared preview takes one)', async () => {
    const repo = await scratchRepo({
      action: true,
      copy: { 'deploy/mattermost': 'examples/mattermost', 'deploy/hello-build': 'examples/hello-build' },
      workflow: pullRequestWorkflow,
    });
    const payload = {
      number: 12,
      pull_request: {
        number: 12,
        head: { ref: 'feature/x', sha: 'feedfacefeedfacefeedfacefeedfacefeedface' },
        base: { ref: 'main' },
      },
      repository: { full_name: 'acme/shop', private: true },
    };
    // After the push test: mattermost is as deployed there; hello-build, deleted there, is to create
    // from the image that test pushed.
    api.requests.length = 0;
    const run = await runAct({ repo, event: 'pull_request', payload, env, secrets });
    expect(run.code, run.log).toBe(0);

    const plan = run.step('plan');
    expect(plan.outputs).toMatchObject({
      context: 'spread-local',
      changed: 'false',
      deployment: 'mattermost',
    });
    const mine = api.comments.filter((c) => c.issue === 12);
    expect(mine.map((c) => c.body.split('\n')[0])).toEqual([
      `<!-- spread-plan:spread-local/${ns}/mattermost -->`,
      `<!-- spread-plan:spread-local/${ns}/hello-build -->`,
    ]);
    expect(mine[0]!.body).toContain('No changes.');
    expect(mine[1]!.body).toContain('to create');
    expect(plan.outputs['comment-url']).toBe(mine[0]!.html_url);
    expect(run.step('plan-bot').outputs['comment-url']).toBe(mine[1]!.html_url);
    // The default `${{ github.token }}` (act: the GITHUB_TOKEN secret), then the explicit input.
    expect([...api.auth]).toEqual([`token ${GITHUB_TOKEN}`, `token ${BOT_TOKEN}`]);
    expect(run.step('no-comment').outputs.changed).toBe('true');
    expect(run.step('no-comment').outputs['comment-url'] ?? '').toBe('');
    expect(api.comments).toHaveLength(2);
    expect(plan.summary).toContain('Plan');

    expect(run.step('preview').outputs.skipped).toBe('true');
    expect(run.step('preview').log).toContain(
      '::notice::a pull request deploys only to a preview environment that spread.yaml declares',
    );
    expect(run.step('skipped').log).toContain('no environment for feature/x');
    expectNoCredential(run);
    for (const c of api.comments) for (const s of credentials()) expect(c.body.includes(s)).toBe(false);
  });

  test("deployment: true records GitHub deployment statuses through the local API, in order: success with the url, a failed rollout, a delete; the url output is the job's environment URL", async () => {
    const host = `web.${ns}.example.com`;
    const repo = await scratchRepo({
      action: true,
      files: {
        // The GitHub environment production is also spread's: the input cluster picks its one cluster.
        'deploy/web/spread.yaml': `environments:\n  production:\n    context: spread-local\n    namespace: ${ns}\n`,
        'deploy/web/.k2e/web.yaml': [
          'apiVersion: v1',
          'kind: Service',
          'metadata: {name: web}',
          'spec: {selector: {app: web}, ports: [{port: 80}]}',
          '---',
          'apiVersion: networking.k8s.io/v1',
          'kind: Ingress',
          'metadata: {name: web}',
          `spec: {tls: [{hosts: ["${host}"]}], rules: [{host: "${host}"}]}`,
          '',
        ].join('\n'),
        'deploy/stuck/deployment.yaml': [
          'apiVersion: apps/v1',
          'kind: Deployment',
          'metadata: {name: stuck-deploy}',
          'spec:',
          '  replicas: 1',
          '  selector: {matchLabels: {app: stuck-deploy}}',
          '  template:',
          '    metadata: {labels: {app: stuck-deploy}}',
          '    spec: {containers: [{name: web, image: "unpullable.invalid/web:1"}]}',
          '',
        ].join('\n'),
      },
      workflow: deploymentWorkflow,
    });
    const sha = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
    const before = api.deployments.length;
    api.deploymentCalls.length = 0;
    // The commit is that of a merged pull request: the deploy leaves its comment there.
    api.commitPulls[sha] = [21];
    const run = await runAct({ repo, env, secrets });
    expect(run.code, run.log).toBe(0);
    expect(run.step('visible').result).toBe('success');
    expect(run.step('visible').outputs.url).toBe(`https://${host}`);
    expect(run.step('read-url').outputs.url).toBe(`https://${host}`);
    expect(run.step('visible-broken').result).toBe('failure');
    expect(run.step('visible-delete').result).toBe('success');

    const [ok, failed] = api.deployments.slice(before);
    expect(ok).toMatchObject({ sha, environment: 'production', transient_environment: false });
    expect(failed).toMatchObject({ sha, environment: 'production' });
    expect(api.deploymentCalls).toEqual([
      'create production',
      `status ${ok!.id} in_progress`,
      `status ${ok!.id} success`,
      'list production',
      'create production',
      `status ${failed!.id} in_progress`,
      `status ${failed!.id} failure`,
      'list production',
      `statuses ${failed!.id}`,
      `statuses ${ok!.id}`,
      `status ${ok!.id} inactive`,
    ]);
    expect(ok!.statuses.map((s) => s.state)).toEqual(['in_progress', 'success', 'inactive']);
    expect(ok!.statuses[1]).toMatchObject({ environment_url: `https://${host}` });
    expect(ok!.statuses[1]!.log_url).toMatch(/^https:\/\/github\.com\/acme\/shop\/actions\/runs\/\d+/);
    expect(failed!.statuses.map((s) => s.state)).toEqual(['in_progress', 'failure']);
    const comments = api.comments.filter((c) => c.issue === 21);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain(`### 🚀 Deployed \`web\` → context \`spread-local\``);
    expect(comments[0]!.body).toContain(`<https://${host}>`);
    expect(run.step('visible').outputs['comment-url']).toBe(comments[0]!.html_url);
    // The job's default token (github.token), which needs deployments: write.
    expect(api.auth.has(`token ${GITHUB_TOKEN}`)).toBe(true);
    expectNoCredential(run);
  });

  test('an action.yml with an expression in an input description does not load (the defect act found)', async () => {
    const text = readFileSync(path.join(ROOT, 'action.yml'), 'utf8');
    const broken = text.replace(
      /(\n {2}kubeconfig:\n {4}description: >-\n)/,
      `$1      Example: ${expr('secrets.KUBECONFIG')}.\n`,
    );
    expect(broken).not.toBe(text);
    const repo = await scratchRepo({
      copy: { dist: 'dist' },
      files: { 'action.yml': broken },
      workflow: workflow(['push'], [spread('load', { ...target(), path: '.', mode: 'plan' })]),
    });
    const run = await runAct({ repo, env, secrets });
    expect(run.code).not.toBe(0);
    expect(run.step('load').result).toBe('failure');
    expect(run.log).toMatch(/Line: \d+ Column \d+: expressions are not allowed here/);
  });

  test('overlay and chart: a push deploys a kustomize overlay and a Helm chart with the values of each; a pull request changing the patch and a value comments the diffs naming the source files', async () => {
    const repo = await scratchRepo({
      action: true,
      copy: {
        '.github/workflows/deploy.yml': overlayAndChart,
        'deploy/echo': 'examples/kustomize',
        'deploy/hello-chart': 'examples/hello-chart',
      },
    });
    const vars = {
      CONTEXT: 'spread-local',
      NAMESPACE: ns,
      REGISTRY: registry(),
      BASE_IMAGE: process.env.SPREAD_BASE_IMAGE_REF!,
    };
    const push = await runAct({ repo, env, secrets, vars });
    expect(push.code, push.log).toBe(0);
    // The runner's own kustomize and Helm, as a GitHub-hosted runner has them on PATH.
    expect(push.step('tools').log).toMatch(/v5\.\d+\.\d+/);
    const overlay = push.step('overlay');
    const objects = (step: ActStep) =>
      (JSON.parse(step.outputs.objects!) as { kind: string; name: string; action: string }[])
        // A generated ConfigMap's name ends with kustomize's hash of its data.
        .map(
          (o) =>
            `${o.kind}/${o.kind === 'ConfigMap' ? o.name.replace(/-[a-z0-9]{10}$/, '-HASH') : o.name}:${o.action}`,
        )
        .sort();
    expect(objects(overlay)).toEqual([
      'ConfigMap/echo-settings-production-HASH:created',
      'Deployment/echo-production:created',
      'Service/echo-production:created',
    ]);
    expect(overlay.summary).toContain('rendered with kustomize v5.');
    expect(objects(push.step('chart'))).toEqual([
      'Deployment/hello-chart:created',
      'Service/hello-chart:created',
    ]);
    // The overlay's patch, image tag and labels; the chart's values file, --set value and built image.
    expect(await live('deployment', 'echo-production', '{.spec.replicas}')).toBe('3');
    expect(await live('deployment', 'echo-production', '{.spec.template.spec.containers[0].image}')).toBe(
      'registry.k8s.io/e2e-test-images/agnhost:2.53',
    );
    expect(await live('service', 'echo-production', '{.metadata.labels.environment}')).toBe('production');
    expect(await live('deployment', 'hello-chart', '{.spec.replicas}')).toBe('2');
    expect(await live('deployment', 'hello-chart', '{.spec.template.spec.containers[0].env[0].value}')).toBe(
      'Hello from the workflow',
    );
    expect(await live('deployment', 'hello-chart', '{.spec.template.spec.containers[0].image}')).toMatch(
      new RegExp(`^${registry()}/hello-chart:ctx-[0-9a-f]{12}@sha256:[0-9a-f]{64}$`),
    );

    // The pull request: three replicas become four in the overlay's patch, two become three in the chart's values file.
    const edit = (file: string, from: string, to: string) => {
      const text = readFileSync(path.join(repo, file), 'utf8');
      expect(text).toContain(from);
      writeFileSync(path.join(repo, file), text.replace(from, to));
    };
    edit('deploy/echo/overlays/production/replicas.yaml', 'replicas: 3', 'replicas: 4');
    edit('deploy/hello-chart/values-prod.yaml', 'replicas: 2', 'replicas: 3');
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qam', 'scale'], {
      cwd: repo,
    });
    const payload = {
      number: 39,
      pull_request: { number: 39, head: { ref: 'scale' }, base: { ref: 'main' } },
      repository: { full_name: 'acme/shop', private: true },
    };
    const pr = await runAct({ repo, event: 'pull_request', payload, env, secrets, vars });
    expect(pr.code, pr.log).toBe(0);
    const comments = api.comments.filter((c) => c.issue === 39);
    expect(comments.map((c) => c.body.split('\n')[0])).toEqual([
      `<!-- spread-plan:spread-local/${ns}/echo -->`,
      `<!-- spread-plan:spread-local/${ns}/hello-chart -->`,
    ]);
    const [echo, chart] = comments.map((c) => c.body);
    expect(echo).toContain('**0** to create · **1** to update · **0** to prune · 2 unchanged');
    expect(echo).toContain('- spec.replicas: 3\n+ spec.replicas: 4');
    // The Deployment's row names the base file it was written in (kustomize's origin), not a temporary
    // copy, and the overlay's patch file that changed it (the replicas this plan changes are there).
    expect(echo).toMatch(
      /\| ✏️ update \| `deployment.apps\/echo-production` \| [^|]* \| `\.\.\/\.\.\/base\/deployment\.yaml:1, patched by replicas\.yaml:1` \|/,
    );
    expect(echo).toContain('rendered with kustomize v5.');
    expect(chart).toContain('- spec.replicas: 2\n+ spec.replicas: 3');
    expect(chart).toMatch(
      /\| ✏️ update \| `deployment.apps\/hello-chart` \| [^|]* \| `templates\/deployment\.yaml:\d+` \|/,
    );
    for (const body of [echo, chart]) expect(body).not.toMatch(/\/tmp\/|spread-act-repo|spread-kustomize/);
    expect(pr.step('overlay').outputs['comment-url']).toBe(comments[0]!.html_url);
    // A plan writes nothing.
    expect(await live('deployment', 'echo-production', '{.spec.replicas}')).toBe('3');
    expectNoCredential(push);
    expectNoCredential(pr);
  });

  // Issue 44's acceptance under act, each run its own `act schedule` as the schedule fires: deploy;
  // a drift run → no issue; kubectl scale, kubectl edit of a ConfigMap and a Secret's value changed →
  // one issue naming the objects, fields and managers; the next run → the same issue updated; a
  // deploy → the next run closes it; heal → the objects back, the issue says so and is closed.
  test('schedule: drift runs open one issue naming kubectl scale, kubectl edit and a changed Secret, update it, close it after a deploy; heal puts them back; no credential or Secret value anywhere', async () => {
    const password = `pw-${Math.random().toString(36).slice(2)}-act`;
    const changed = `pw-${Math.random().toString(36).slice(2)}-changed`;
    const healed = `pw-${Math.random().toString(36).slice(2)}-healed`;
    const dir = 'deploy/drifting';
    const drift = (id: string, inputs: Record<string, string> = {}) =>
      spread(id, { ...target(), path: dir, mode: 'drift', 'fail-on-drift': 'false', ...inputs });
    const repo = await scratchRepo({
      action: true,
      workflow: workflow(['push'], [spread('deploy', { ...target(), path: dir, 'force-conflicts': 'true' })]),
      files: {
        'deploy/drifting/deployment.yaml':
          'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: drifting}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: drifting}}\n  template:\n    metadata: {labels: {app: drifting}}\n    spec: {containers: [{name: c, image: "registry.k8s.io/pause:3.10"}]}\n',
        'deploy/drifting/.k2e/objects.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: drifting}\ndata: {level: "1"}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: drifting}\nstringData: {password: "${password}"}\n`,
        // The scheduled workflow a team keeps beside its deploy; a later step reads the outputs.
        '.github/workflows/drift.yml': workflow(
          ['schedule'],
          [
            drift('drift'),
            {
              id: 'read',
              run: `echo "seen=${expr('steps.drift.outputs.drifted')}/${expr('steps.drift.outputs.issue')}" >> "$GITHUB_OUTPUT"`,
            },
          ],
        ),
        '.github/workflows/heal.yml': workflow(
          ['schedule'],
          [drift('heal', { heal: 'true', 'fail-on-drift': 'true' })],
        ),
      },
    });
    const runs: ActRun[] = [];
    const act = async (file: 'test' | 'drift' | 'heal') => {
      const event = file === 'test' ? {} : { event: 'schedule', payload: { schedule: '17 * * * *' } };
      const run = await runAct({ repo, workflows: `.github/workflows/${file}.yml`, env, secrets, ...event });
      runs.push(run);
      expect(run.code, run.log).toBe(0);
      return run;
    };
    const k = (...args: string[]) => kubectl(['--context', 'spread-local', '-n', ns, ...args]);
    const before = api.issues.length;
    await act('test');

    const clean = await act('drift');
    expect(clean.step('drift').outputs).toMatchObject({ drifted: 'false', issue: '' });
    expect(clean.step('read').outputs.seen).toBe('false/');
    expect(api.issues.length).toBe(before);

    // What someone does by hand: kubectl scale, kubectl edit (an editor that changes the value), and
    // a Secret's value changed.
    await k('scale', 'deployment/drifting', '--replicas=2');
    const editor = path.join(repo, '.git', 'editor.sh');
    writeFileSync(editor, `#!/bin/sh\nsed -i 's/level: "1"/level: "5"/' "$1"\n`, { mode: 0o755 });
    execFileSync(
      process.env.SPREAD_KUBECTL ?? 'kubectl',
      ['--context', 'spread-local', '-n', ns, 'edit', 'configmap/drifting'],
      { env: { ...process.env, EDITOR: editor, KUBE_EDITOR: editor } },
    );
    await k('patch', 'secret/drifting', '-p', JSON.stringify({ stringData: { password: changed } }));

    const opened = await act('drift');
    expect(api.issues.slice(before)).toHaveLength(1);
    const issue = api.issues[before]!;
    expect(opened.step('drift').outputs).toMatchObject({ drifted: 'true', issue: String(issue.number) });
    expect(opened.step('read').outputs.seen).toBe(`true/${issue.number}`);
    expect(issue.title).toBe(`Drift: drifting in ${ns}`);
    expect(issue.labels).toEqual([{ name: 'spread-drift' }]);
    expect(issue.state).toBe('open');
    for (const object of ['Deployment', 'ConfigMap', 'Secret'])
      expect(issue.body).toContain(`### ${object}/drifting in ${ns} — differs`);
    expect(issue.body).toContain('~ spec.replicas: 2 → 1');
    expect(issue.body).toContain('`spec.replicas`: changed by **kubectl** (Update, subresource scale)');
    expect(issue.body).toContain('~ data.level: "5" → "1"');
    expect(issue.body).toMatch(/`data.level`: changed by \*\*kubectl-edit\*\* \(Update\) at \d{4}-/);
    expect(issue.body).toContain('~ data.password: <redacted> → <redacted>');
    expect(issue.body).toContain('`data.password`: changed by **kubectl-patch** (Update)');
    expect(opened.step('drift').summary).toContain('Deployment/drifting');
    expect(opened.step('drift').summary).toContain('<redacted>');

    // The next scheduled run: the same issue, its body replaced, no second one.
    api.requests.length = 0;
    const again = await act('drift');
    expect(api.issues.length).toBe(before + 1);
    expect(api.requests).toContain(`PATCH /repos/acme/shop/issues/${issue.number}`);
    expect(api.requests.filter((r) => r === 'POST /repos/acme/shop/issues')).toEqual([]);
    expect(again.step('drift').outputs).toMatchObject({ drifted: 'true', issue: String(issue.number) });
    expect(issue.state).toBe('open');

    // A deploy takes the fields back (force-conflicts); the next run closes the issue with a comment.
    await act('test');
    const closed = await act('drift');
    expect(closed.step('drift').outputs).toMatchObject({ drifted: 'false', issue: String(issue.number) });
    expect(issue.state).toBe('closed');
    expect(api.comments.filter((c) => c.issue === issue.number).map((c) => c.body)).toEqual([
      expect.stringMatching(/^The cluster matches the last deployed revision 2 \(/),
    ]);
    expect(api.issues.length).toBe(before + 1);

    // Heal: drifted again, the last good revision deployed again, the issue says so and is closed.
    await k('scale', 'deployment/drifting', '--replicas=3');
    await k('patch', 'secret/drifting', '-p', JSON.stringify({ stringData: { password: healed } }));
    const heal = await act('heal');
    expect(api.issues.length).toBe(before + 2);
    const second = api.issues[before + 1]!;
    expect(heal.step('heal').outputs).toMatchObject({ drifted: 'true', issue: String(second.number) });
    expect(second.body).toContain('~ spec.replicas: 3 → 1');
    expect(second.body).toMatch(/\*\*Healed\*\*: revision \d+ \(the last good deploy\) was deployed again/);
    expect(second.state).toBe('closed');
    expect(await live('deployment', 'drifting', '{.spec.replicas}')).toBe('1');
    expect(await live('configmap', 'drifting', '{.data.level}')).toBe('1');
    const value = await live('secret', 'drifting', '{.data.password}');
    expect(Buffer.from(value, 'base64').toString()).toBe(password);

    // The kubeconfig and every value the Secret had (as written and base64) appear nowhere: not in
    // the log, a summary, an output, an issue or a comment.
    const values = [password, changed, healed].flatMap((v) => [v, Buffer.from(v).toString('base64')]);
    const texts = [
      ...runs.flatMap((r) => [r.log, ...r.steps.flatMap((s) => [s.summary, ...Object.values(s.outputs)])]),
      ...api.issues.slice(before).flatMap((i) => [i.title, i.body]),
      ...api.comments.filter((c) => c.issue === issue.number || c.issue === second.number).map((c) => c.body),
    ];
    for (const secret of [...credentials(), ...values])
      for (const text of texts)
        expect(text.includes(secret), `a secret value leaked: ${secret.slice(0, 8)}…`).toBe(false);
    for (const run of runs) expectNoCredential(run);
  }, 900_000);

  test('every input of action.yml was given through the runner by a workflow of this file', () => {
    const action = parse(readFileSync(path.join(ROOT, 'action.yml'), 'utf8')) as {
      inputs: Record<string, unknown>;
    };
    expect([...exercised].sort()).toEqual(Object.keys(action.inputs).sort());
  });
});
