// The bundled Action run the way the runner runs it: `node dist/index.js` with INPUT_* and the
// runner's files (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_EVENT_PATH, RUNNER_TEMP), against the
// local cluster, with a local HTTP server standing in for the GitHub REST API (GITHUB_API_URL).
// SPREAD_ACTION_ENTRY runs another build of the entry point (e.g. a private tsc build) instead.
import { type ChildProcess, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse, stringify } from 'yaml';
import { type ActionEvent, runActionStep, type StepResult } from './action-runner.js';
import { type GitHubApi, startGitHubApi } from './github-api.js';
import { kubeconfigContent, kubeconfigPath, kubectl, ROOT, runNode, uniqueName } from './helpers.js';

const ENTRY = process.env.SPREAD_ACTION_ENTRY ?? path.join(ROOT, 'dist/index.js');
const ns = uniqueName('itg-action');
const TOKEN = `ghs_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
const SECRET_V1 = `pw-${Math.random().toString(36).slice(2)}-one`;
const SECRET_V2 = `pw-${Math.random().toString(36).slice(2)}-two`;

// --- a stand-in for the GitHub REST API: issue comments of one repository -------------------------

let api: GitHubApi;
let apiUrl: string;

// --- a runner ----------------------------------------------------------------------------------------

const workspace = mkdtempSync(path.join(tmpdir(), 'spread-action-ws-'));

/** Runs the Action once as a step; `inputs` are action.yml names. */
function step(inputs: Record<string, string>, event?: ActionEvent): Promise<StepResult> {
  return runActionStep({
    entry: ENTRY,
    workspace,
    inputs,
    event,
    // What action.yml's defaults give (the runner passes every input, defaulted).
    env: { GITHUB_API_URL: apiUrl, 'INPUT_GITHUB-TOKEN': TOKEN },
  });
}

/** The log as the runner shows it: `::add-mask::` commands are consumed by the runner, not shown. */
const shownLog = (log: string) =>
  log
    .split('\n')
    .filter((l) => !l.startsWith('::add-mask::'))
    .join('\n');

/** Every secret value of the test: the kubeconfig, its key data lines, the Secret's values, the token. */
function secrets(): string[] {
  const kubeconfig = kubeconfigContent();
  const keyLines = kubeconfig
    .split('\n')
    .filter((l) => /key-data|token|password/.test(l))
    .flatMap((l) => [l.trim(), l.replace(/^.*?:\s*/, '')]);
  return [kubeconfig, Buffer.from(kubeconfig).toString('base64'), ...keyLines, SECRET_V1, SECRET_V2, TOKEN];
}

function expectNoSecret(r: StepResult, more: readonly string[] = []): void {
  for (const text of [shownLog(r.log), r.outputsText, r.summary])
    for (const s of [...secrets(), ...more])
      expect(text.includes(s), `a secret value leaked: ${s.slice(0, 12)}…`).toBe(false);
}

/** The pids whose parent is `pid`, from /proc. */
function childrenOf(pid: number | undefined): string[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false; // ended while listing
      }
    });
}

/** Whether process `pid` has ended (gone, or a zombie nobody reaped yet). */
function ended(pid: string): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** A LoadBalancer Service never gets an address here, so wait-load-balancer waits until stopped. */
function writeLoadBalancer(dir: string, name: string): void {
  mkdirSync(path.join(workspace, dir, '.k2e'), { recursive: true });
  writeFileSync(
    path.join(workspace, dir, '.k2e/lb.yaml'),
    `apiVersion: v1\nkind: Service\nmetadata: {name: ${name}}\nspec: {type: LoadBalancer, selector: {app: x}, ports: [{port: 80}]}\n`,
  );
}

// --- the deployed directory --------------------------------------------------------------------------

function writeApp(dir: string, version: string, password: string, name = 'web'): void {
  const d = path.join(workspace, dir, '.k2e');
  mkdirSync(d, { recursive: true });
  writeFileSync(
    path.join(d, 'objects.yaml'),
    [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      `  name: ${name}-settings`,
      'data:',
      `  version: "${version}"`,
      '---',
      'apiVersion: v1',
      'kind: Secret',
      'metadata:',
      `  name: ${name}-db`,
      'stringData:',
      `  password: "${password}"`,
      '',
    ].join('\n'),
  );
  writeFileSync(
    path.join(workspace, dir, 'deployment.yaml'),
    [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata:',
      `  name: ${name}`,
      'spec:',
      '  replicas: 1',
      `  selector: { matchLabels: { app: ${name} } }`,
      '  template:',
      `    metadata: { labels: { app: ${name} } }`,
      '    spec:',
      `      containers: [{ name: ${name}, image: "registry.k8s.io/pause:3.10" }]`,
      '',
    ].join('\n'),
  );
}

// Only the first deploy waits for the rollout; the rest need not.
const base = {
  kubeconfig: kubeconfigContent(),
  context: 'spread-local',
  namespace: ns,
  timeout: '2m',
  wait: 'false',
};
/** The commit of a push event (the runner stand-in's GITHUB_SHA). */
const PUSHED_SHA = '0123456789abcdef0123456789abcdef01234567';
const pr = {
  name: 'pull_request',
  refName: '12/merge',
  headRef: 'feature/x',
  baseRef: 'main',
  payload: {
    number: 12,
    pull_request: { number: 12, head: { sha: 'feedfacefeedfacefeedfacefeedfacefeedface' } },
  },
};

describe('the bundled Action, as the runner runs it', () => {
  beforeAll(async () => {
    api = await startGitHubApi();
    apiUrl = api.url;
    await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
    writeApp('deploy/web', '1', SECRET_V1);
  });
  afterAll(async () => {
    await api?.close();
    await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
      allowFail: true,
    });
  });

  test('deploy on push: outputs, job summary, no secret anywhere', async () => {
    const r = await step({ ...base, path: 'deploy/web', wait: 'true' });
    expect(r.code, r.log).toBe(0);
    expect(r.outputs).toMatchObject({
      deployment: 'web',
      namespace: ns,
      context: 'spread-local',
      created: '3',
      configured: '0',
      unchanged: '0',
      pruned: '0',
      changed: 'true',
      skipped: 'false',
    });
    const objects = JSON.parse(r.outputs.objects!) as { kind: string; action: string; source: string }[];
    expect(objects.map((o) => `${o.kind}:${o.action}`).sort()).toEqual([
      'ConfigMap:created',
      'Deployment:created',
      'Secret:created',
    ]);
    expect(r.outputs.plan).toContain('### Deploy: `web` → context `spread-local`');
    expect(r.summary).toContain(`<h2>🚀 spread deploy: web → spread-local`);
    expect(r.summary).toContain('<a href="https://gh/acme/shop/actions/runs/77/attempts/1">run</a>');
    expect(r.summary).toContain(
      '<a href="https://gh/acme/shop/commit/0123456789abcdef0123456789abcdef01234567">0123456</a>',
    );
    expect(r.summary).toMatch(/<td><code>deployment\/web<\/code><\/td><td>✅<\/td>/);
    expect(r.log).toContain('::group::Apply');
    expect(api.requests).toEqual([]);
    expectNoSecret(r);
    // RUNNER_TEMP holds the report file only (no kubeconfig), with the whole report.
    expect(readdirSync(r.temp)).toEqual([path.basename(r.outputs['report-file']!)]);
    const file = JSON.parse(readFileSync(r.outputs['report-file']!, 'utf8'));
    expect(file).toMatchObject({ deployment: 'web', namespace: ns, mode: 'deploy' });
    expect(file.objects).toEqual(objects);
    const live = await kubectl([
      '--context',
      'spread-local',
      '-n',
      ns,
      'get',
      'configmap',
      'web-settings',
      '-o',
      'jsonpath={.data.version}',
    ]);
    expect(live.stdout).toBe('1');
  });

  test('plan on a pull request: one comment, updated on the next push; another deployment gets its own', async () => {
    writeApp('deploy/web', '2', SECRET_V2);
    const first = await step({ ...base, path: 'deploy/web', mode: 'plan' }, pr);
    expect(first.code, first.log).toBe(0);
    expect(first.outputs).toMatchObject({ created: '0', configured: '2', unchanged: '1', changed: 'true' });
    expect(first.outputs.plan).toContain('- data.version: "1"\n+ data.version: "2"');
    expect(first.outputs.plan).toContain('<redacted>');
    expect(first.summary).toContain('<details><summary>Plan (');
    expect(api.comments).toHaveLength(1);
    const comment = api.comments[0]!;
    expect(comment.issue).toBe(12);
    expect(comment.body.startsWith(`<!-- spread-plan:spread-local/${ns}/web -->\n`)).toBe(true);
    expect(comment.body).toContain('| ✏️ update | `configmap/web-settings` |');
    expect(comment.body).toContain(
      'commit [`feedfac`](https://gh/acme/shop/commit/feedfacefeedfacefeedfacefeedfacefeedface)',
    );
    expect(first.outputs['comment-url']).toBe(comment.html_url);
    expect([...api.auth]).toEqual([`token ${TOKEN}`]);
    expectNoSecret(first);
    for (const s of secrets()) expect(comment.body.includes(s)).toBe(false);
    // A plan writes nothing.
    const live = await kubectl([
      '--context',
      'spread-local',
      '-n',
      ns,
      'get',
      'configmap',
      'web-settings',
      '-o',
      'jsonpath={.data.version}',
    ]);
    expect(live.stdout).toBe('1');

    writeApp('deploy/web', '3', SECRET_V2);
    api.requests.length = 0;
    const second = await step({ ...base, path: 'deploy/web', mode: 'plan' }, pr);
    expect(second.code, second.log).toBe(0);
    expect(api.requests).toEqual([
      'GET /repos/acme/shop/issues/12/comments',
      `PATCH /repos/acme/shop/issues/comments/${comment.id}`,
    ]);
    expect(api.comments).toHaveLength(1);
    expect(api.comments[0]!.body).toContain('+ data.version: "3"');

    writeApp('deploy/api', '1', SECRET_V1, 'api');
    const third = await step({ ...base, path: 'deploy/api', mode: 'plan' }, pr);
    expect(third.code, third.log).toBe(0);
    expect(api.comments).toHaveLength(2);
    expect(api.comments[1]!.body.startsWith(`<!-- spread-plan:spread-local/${ns}/api -->`)).toBe(true);
    expect(api.comments[1]!.body).toContain('**3** to create');
    expectNoSecret(third);
  });

  test('plan on a pull request with no change: the "no changes" comment', async () => {
    writeApp('deploy/web', '1', SECRET_V1);
    const r = await step({ ...base, path: 'deploy/web', mode: 'plan' }, pr);
    expect(r.code, r.log).toBe(0);
    expect(r.outputs.changed).toBe('false');
    expect(api.comments[0]!.body).toContain('✅ **No changes.**');
  });

  test('a manifest error becomes an annotation on the workspace path, and nothing is written', async () => {
    const dir = path.join(workspace, 'deploy/broken/.k2e');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'bad.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n---\napiVersion: v1\nkind: Service\nmetadata: {}\n',
    );
    const r = await step({ ...base, path: 'deploy/broken' });
    expect(r.code).not.toBe(0);
    expect(r.log).toMatch(/::error file=deploy\/broken\/\.k2e\/bad\.yaml,line=\d+::/);
    // No report yet, still a job summary and a report file with the error.
    expect(r.summary).toContain('<h2>❌ spread deploy failed: deploy/broken</h2>');
    expect(r.summary).toMatch(/<code>deploy\/broken\/\.k2e\/bad\.yaml:\d+<\/code>/);
    const file = JSON.parse(readFileSync(r.outputs['report-file']!, 'utf8'));
    expect(file.error).toMatch(
      /^1 error in the input:\n {2}.k2e\/bad.yaml:6: Service object has no metadata.name/,
    );
    expect(file.failures[0].file).toBe('deploy/broken/.k2e/bad.yaml');
    expectNoSecret(r);
  });

  test('environments: a branch that maps to nothing is skipped with a notice', async () => {
    const r = await step(
      {
        kubeconfig: base.kubeconfig,
        namespace: ns,
        path: 'deploy/web',
        environments: 'main=spread-local\nrelease/*=spread-team-a',
      },
      { name: 'push', refName: 'feature/y' },
    );
    expect(r.code, r.log).toBe(0);
    expect(r.log).toContain('::notice::branch "feature/y" matches no line of the environments input');
    expect(r.outputs.skipped).toBe('true');
    expect(r.outputs.deployment).toBeUndefined();
  });

  test('environments: the matching rule chooses the context', async () => {
    const r = await step(
      {
        kubeconfig: base.kubeconfig,
        namespace: ns,
        wait: 'false',
        path: 'deploy/web',
        environments: 'release/*=nope\nma*=spread-local',
      },
      { name: 'push', refName: 'main' },
    );
    expect(r.code, r.log).toBe(0);
    expect(r.outputs.context).toBe('spread-local');
  });

  test('declared environments: the branch picks one, and a wrong cluster fails before anything is written', async () => {
    writeApp('deploy/envs', '1', SECRET_V1, 'envs');
    const { stdout: uid } = await kubectl([
      '--context',
      'spread-local',
      'get',
      'namespace',
      'kube-system',
      '-o',
      'jsonpath={.metadata.uid}',
    ]);
    writeFileSync(
      path.join(workspace, 'deploy/envs/spread.yaml'),
      [
        'environments:',
        '  staging:',
        '    context: spread-local',
        `    namespace: ${ns}`,
        `    kubeSystemUID: ${uid.trim()}`,
        '    branches: [main]',
        '  production:',
        '    context: spread-local',
        `    namespace: ${ns}`,
        '    kubeSystemUID: 00000000-0000-4000-8000-000000000000',
        '    branches: ["release/*"]',
        '',
      ].join('\n'),
    );
    const inputs = { kubeconfig: base.kubeconfig, wait: 'false', path: 'deploy/envs' };
    const staging = await step(inputs, { name: 'push', refName: 'main' });
    expect(staging.code, staging.log).toBe(0);
    expect(staging.log).toContain(
      'environment staging (branch "main" matches the branches of environment staging)',
    );
    expect(staging.outputs.namespace).toBe(ns);

    const production = await step(inputs, { name: 'push', refName: 'release/2' });
    expect(production.code, production.log).toBe(1);
    expect(production.log).toContain(
      `wrong cluster: environment production is kube-system uid 00000000-0000-4000-8000-000000000000 (spread.yaml:10), but context spread-local reaches kube-system uid ${uid.trim()}; nothing was written, nothing built`,
    );
    const named = await step({ ...inputs, environment: 'production' }, { name: 'push', refName: 'main' });
    expect(named.code, named.log).toBe(1);
    expect(named.log).toContain('wrong cluster: environment production');

    const skipped = await step(inputs, { name: 'push', refName: 'feature/z' });
    expect(skipped.code, skipped.log).toBe(0);
    expect(skipped.outputs.skipped).toBe('true');
  });

  test('mode delete removes every object of the deployment and its records', async () => {
    writeApp('deploy/gone', '1', SECRET_V1, 'gone');
    const deployed = await step({ ...base, path: 'deploy/gone', wait: 'false' });
    expect(deployed.code, deployed.log).toBe(0);
    const r = await step({ ...base, path: 'deploy/gone', mode: 'delete', 'lock-timeout': '1m' });
    expect(r.code, r.log).toBe(0);
    const objects = JSON.parse(r.outputs.objects!) as { kind: string; action: string }[];
    expect(objects.length).toBeGreaterThan(0);
    expect(new Set(objects.map((o) => o.action))).toEqual(new Set(['pruned']));
    expect(r.outputs.pruned).toBe(String(objects.length));
    expect(r.summary).toContain('<h2>🗑️ spread delete: gone → spread-local');
    expect(r.summary).not.toContain('spread deploy');
    const left = await kubectl([
      '--context',
      'spread-local',
      '-n',
      ns,
      'get',
      'secret,configmap,deploy,svc',
      '-l',
      'app.kubernetes.io/managed-by=spread',
      '-o',
      'name',
    ]);
    expect(left.stdout).not.toMatch(/gone/);
    expectNoSecret(r);
  });

  test('a kubeconfig with an exec plugin: a 0600 file in RUNNER_TEMP for the plugin, removed after', async () => {
    type Named<T> = { name: string } & T;
    const kc = parse(kubeconfigContent()) as {
      contexts: Named<{ context: { cluster: string; user: string } }>[];
      clusters: Named<{ cluster: unknown }>[];
      users: Named<{ user: Record<string, string> }>[];
    };
    const ctx = kc.contexts.find((c) => c.name === 'spread-local')!.context;
    const user = kc.users.find((u) => u.name === ctx.user)!.user;
    const dir = mkdtempSync(path.join(tmpdir(), 'spread-exec-'));
    const record = path.join(dir, 'record.json');
    const plugin = path.join(dir, 'plugin.mjs');
    // The plugin returns the cluster's client certificate, and records what $KUBECONFIG it saw.
    writeFileSync(
      plugin,
      `import { readFileSync, statSync, writeFileSync } from 'node:fs';
const file = process.env.KUBECONFIG;
writeFileSync(${JSON.stringify(record)}, JSON.stringify({ file, mode: (statSync(file).mode & 0o777).toString(8), exec: readFileSync(file, 'utf8').includes('plugin.mjs') }));
process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: {
  clientCertificateData: ${JSON.stringify(Buffer.from(user['client-certificate-data']!, 'base64').toString())},
  clientKeyData: ${JSON.stringify(Buffer.from(user['client-key-data']!, 'base64').toString())} } }));
`,
    );
    const withExec = stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'exec',
      clusters: [{ name: 'c', cluster: kc.clusters.find((c) => c.name === ctx.cluster)!.cluster }],
      users: [
        {
          name: 'u',
          user: {
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1',
              command: process.execPath,
              args: [plugin],
              interactiveMode: 'Never',
            },
          },
        },
      ],
      contexts: [{ name: 'exec', context: { cluster: 'c', user: 'u', namespace: ns } }],
    });
    const r = await step({
      kubeconfig: Buffer.from(withExec).toString('base64'),
      path: 'deploy/web',
      mode: 'plan',
      wait: 'false',
    });
    expect(r.code, r.log).toBe(0);
    expect(r.outputs.context).toBe('exec');
    const seen = JSON.parse(readFileSync(record, 'utf8')) as { file: string; mode: string; exec: boolean };
    expect(seen.file.startsWith(`${r.temp}/`)).toBe(true);
    expect(seen).toMatchObject({ mode: '600', exec: true });
    expect(readdirSync(r.temp)).toEqual([path.basename(r.outputs['report-file']!)]);
  });

  // One rule for every front end (frontend/kubeconfig.ts): the CLI skipped the file, the Action failed with ENOENT.
  test('no kubeconfig input: a file of $KUBECONFIG that does not exist is skipped, as kubectl and the CLI do', async () => {
    const missing = path.join(mkdtempSync(path.join(tmpdir(), 'spread-kc-')), 'missing');
    const env = { GITHUB_API_URL: apiUrl, KUBECONFIG: `${missing}:${kubeconfigPath()}` };
    const inputs = { context: 'spread-local', namespace: ns, path: 'deploy/web', mode: 'plan' };
    const r = await runActionStep({ entry: ENTRY, workspace, inputs, env });
    expect(r.code, r.log).toBe(0);
    expect(r.outputs.context).toBe('spread-local');
    const none = await runActionStep({
      entry: ENTRY,
      workspace,
      inputs,
      env: { ...env, KUBECONFIG: missing },
    });
    expect(none.code).not.toBe(0);
    // The input was empty (as a secret that is not set gives it): the error says that first.
    expect(none.log).toContain(
      `::error::no kubeconfig: the input kubeconfig is empty, and the runner has none (${missing} does not exist). When the input comes from a secret`,
    );
  });

  // The harness itself: a failing kubectl fed on stdin used to throw inside its `close` handler, so
  // the test waited for its timeout instead of failing.
  test('the harness: a failing kubectl call with stdin input rejects', { timeout: 30_000 }, async () => {
    await expect(
      kubectl(['--context', 'spread-local', '-n', ns, 'apply', '-f', '-'], { input: 'kind: NoSuchKind\n' }),
    ).rejects.toThrow(/^kubectl --context spread-local -n .* apply -f - failed: /);
    const allowed = await kubectl(['--context', 'spread-local', 'apply', '-f', '-'], {
      input: 'kind: NoSuchKind\n',
      allowFail: true,
    });
    expect(allowed.code).not.toBe(0);
  });

  test('object-annotations: false removes the commit, run URL and time an earlier deploy put on', async () => {
    const annotations = async () =>
      JSON.parse(
        (
          await kubectl([
            ...['--context', 'spread-local', '-n', ns, 'get', 'configmap', 'notes-settings'],
            ...['-o', 'jsonpath={.metadata.annotations}'],
          ])
        ).stdout,
      ) as Record<string, string>;
    const keys = ['spread.rsprd.com/commit', 'spread.rsprd.com/run-url', 'spread.rsprd.com/deployed-at'];
    writeApp('deploy/notes', '1', SECRET_V1, 'notes');
    const first = await step({ ...base, path: 'deploy/notes' });
    expect(first.code, first.log).toBe(0);
    expect(Object.keys(await annotations())).toEqual(expect.arrayContaining(keys));
    writeApp('deploy/notes', '2', SECRET_V1, 'notes');
    const second = await step({ ...base, path: 'deploy/notes', 'object-annotations': 'false' });
    expect(second.code, second.log).toBe(0);
    const after = await annotations();
    expect(after['spread.rsprd.com/source']).toBeDefined();
    for (const key of keys) expect(after, key).not.toHaveProperty([key]);
  });

  test('a comment the API fails to take (HTTP 500) warns with what happened, not with the token', async () => {
    writeApp('deploy/web', '5', SECRET_V1);
    const r = await step(
      { ...base, path: 'deploy/web', mode: 'plan' },
      {
        ...pr,
        payload: {
          number: 500,
          pull_request: { number: 500, head: { sha: pr.payload.pull_request.head.sha } },
        },
      },
    );
    expect(r.code, r.log).toBe(0);
    expect(r.log).toContain(
      '::warning::could not post the plan on pull request #500: the GitHub API answered HTTP 500: Server Error',
    );
    expect(r.log).not.toContain('pull-requests: write');
    writeApp('deploy/web', '1', SECRET_V1);
  });

  test('messages name the options as inputs of the Action, never as CLI flags', async () => {
    await kubectl(['--context', 'spread-local', '-n', ns, 'create', 'configmap', 'handmade-settings']);
    writeApp('deploy/handmade', '1', SECRET_V1, 'handmade');
    const r = await step({ ...base, path: 'deploy/handmade' });
    expect(r.code).not.toBe(0);
    expect(r.log).toMatch(
      /::error file=deploy\/handmade\/\.k2e\/objects\.yaml,line=1::.*Adopt it to take it over \(the input adopt: true; with the input force-conflicts: true where/,
    );
    expect(shownLog(r.log)).not.toMatch(/--adopt|--force-conflicts|⟦/);
    expect(r.summary).toContain('the input adopt: true');
    expect(readFileSync(r.outputs['report-file']!, 'utf8')).toContain('the input adopt: true');
    // The same refusal from the CLI names its flags.
    const cli = await runNode('dist/cli/index.js', [
      ...['deploy', path.join(workspace, 'deploy/handmade'), 'spread-local', '-n', ns],
      ...['--kubeconfig', kubeconfigPath()],
    ]);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain('Adopt it to take it over (--adopt; with --force-conflicts where');
    expect(cli.stderr).not.toMatch(/the input|⟦/);
  });

  test('rollback-on-failure: the rollout error is printed once, then the rollback', async () => {
    const app = (image: string) =>
      writeFileSync(
        path.join(workspace, 'deploy/roll/deployment.yaml'),
        `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: roll}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: roll}}\n  template:\n    metadata: {labels: {app: roll}}\n    spec: {containers: [{name: roll, image: "${image}"}]}\n`,
      );
    mkdirSync(path.join(workspace, 'deploy/roll'), { recursive: true });
    app('registry.k8s.io/pause:3.10');
    const good = await step({ ...base, path: 'deploy/roll', wait: 'true' });
    expect(good.code, good.log).toBe(0);
    app('unpullable.invalid/roll:2');
    const r = await step({ ...base, path: 'deploy/roll', wait: 'true', 'rollback-on-failure': 'true' });
    expect(r.code).not.toBe(0);
    const errors = r.log.split('\n').filter((l) => l.startsWith('::error'));
    expect(
      errors.filter((l) => l.includes('ImagePullBackOff')),
      r.log,
    ).toHaveLength(1);
    expect(errors.find((l) => l.includes('ImagePullBackOff'))).toContain('rolled back to revision 1');
    expect(r.summary).toContain('<strong>Failed:</strong>');
  });

  // At 5,000 objects `objects` was 643 KB, and passing it through `env:` failed the next step with
  // "argument list too long" (Linux caps one environment string at 128 KiB).
  test('thousands of objects: every output within 64 KiB, usable through env, the report file holds them all', async () => {
    const count = 2000;
    const d = path.join(workspace, 'deploy/many/.k2e');
    mkdirSync(d, { recursive: true });
    writeFileSync(
      path.join(d, 'settings.yaml'),
      Array.from(
        { length: count },
        (_, i) =>
          `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: many-settings-${i}\ndata: {n: "${i}"}\n`,
      ).join('---\n'),
    );
    const r = await step({ ...base, path: 'deploy/many', name: 'many', mode: 'plan' });
    expect(r.code, r.log.slice(-2000)).toBe(0);
    for (const [name, value] of Object.entries(r.outputs))
      expect(Buffer.byteLength(value), name).toBeLessThanOrEqual(64 * 1024);
    // What the next step does with them: every output in its environment.
    const env = Object.fromEntries(
      Object.entries(r.outputs).map(([k, v]) => [`OUT_${k.toUpperCase().replace(/-/g, '_')}`, v]),
    );
    const next = spawnSync(process.execPath, ['-e', 'process.stdout.write(process.env.OUT_OBJECTS)'], {
      env: { PATH: process.env.PATH, ...env },
      encoding: 'utf8',
    });
    expect(next.error).toBeUndefined();
    expect(next.status).toBe(0);
    const shown = JSON.parse(next.stdout) as { truncated?: string; left?: number }[];
    expect(shown.length).toBeLessThan(count);
    expect(shown.at(-1)?.truncated).toMatch(
      new RegExp(
        `^\\d+ of ${count} objects not shown .*; all of them are in ${r.outputs['report-file']} \\(output report-file\\)$`,
      ),
    );
    expect(shown.at(-1)?.left).toBe(count - (shown.length - 1));
    expect(r.outputs.plan).toContain(`is in ${r.outputs['report-file']} (output report-file)`);
    expect(r.outputs.created).toBe(String(count));
    const file = JSON.parse(readFileSync(r.outputs['report-file']!, 'utf8')) as {
      objects: { name: string }[];
    };
    expect(file.objects).toHaveLength(count);
    expect(new Set(file.objects.map((o) => o.name)).size).toBe(count);
    expect(file.objects.slice(0, shown.length - 1)).toEqual(shown.slice(0, -1));
  });

  test('an invalid input names itself', async () => {
    const r = await step({ ...base, mode: 'apply' });
    expect(r.code).not.toBe(0);
    expect(r.log).toContain(
      '::error::input mode: expected deploy, plan, delete, drift, promote, fleet-plan, fleet-soak or fleet-report, got "apply"',
    );
    expect(r.summary).toContain('<h2>❌ spread deploy failed</h2>');
    expect(r.summary).toContain(
      '<pre>input mode: expected deploy, plan, delete, drift, promote, fleet-plan, fleet-soak or fleet-report, got "apply"</pre>',
    );
  });

  // A fleet deployed by the workflow's matrix (docs/fleets.md): its "clusters" here are namespaces of
  // the local cluster, each through its own context; `far` is a context whose server does not answer.
  describe('the fleet modes', () => {
    const f1 = `${ns}-f1`;
    const f2 = `${ns}-f2`;
    type Named<T> = { name: string } & T;
    const kc = parse(kubeconfigContent()) as {
      contexts: Named<{ context: Record<string, string> }>[];
      clusters: Named<{ cluster: Record<string, unknown> }>[];
    };
    const local = kc.contexts.find((c) => c.name === 'spread-local')!;
    const kubeconfig = stringify({
      ...kc,
      clusters: [
        ...kc.clusters,
        { name: 'far', cluster: { server: 'https://127.0.0.1:9', 'insecure-skip-tls-verify': true } },
      ],
      contexts: [
        ...kc.contexts,
        { name: 'eu-1', context: { ...local.context, namespace: f1 } },
        { name: 'eu-2', context: { ...local.context, namespace: f2 } },
        { name: 'far', context: { ...local.context, cluster: 'far' } },
      ],
    });
    const inputs = { kubeconfig, path: 'deploy/fleet', environment: 'production', timeout: '2m' };
    const reports = path.join(workspace, 'spread-reports');
    /** A leg's job: deploys its cluster, then "uploads" its report file as artifact spread-report-CLUSTER. */
    const leg = async (cluster: string) => {
      const r = await step({ ...inputs, cluster, wait: 'false' });
      const into = path.join(reports, `spread-report-${cluster}`);
      mkdirSync(into, { recursive: true });
      writeFileSync(
        path.join(into, path.basename(r.outputs['report-file']!)),
        readFileSync(r.outputs['report-file']!),
      );
      return r;
    };
    const ofMarker = (kind: string) =>
      api.comments.filter((c) => c.body.startsWith(`<!-- spread-fleet-${kind}:production/`));

    beforeAll(async () => {
      for (const n of [f1, f2]) await kubectl(['--context', 'spread-local', 'create', 'namespace', n]);
      writeApp('deploy/fleet', '1', SECRET_V1, 'fleet');
      writeFileSync(
        path.join(workspace, 'deploy/fleet/spread.yaml'),
        [
          'environments:',
          '  production:',
          '    clusters:',
          `      - { name: eu-1, context: eu-1, namespace: ${f1} }`,
          `      - { name: eu-2, context: eu-2, namespace: ${f2} }`,
          '    waves:',
          '      - { name: canary, clusters: [eu-1], soak: 2s }',
          '      - { name: rest, maxParallel: 1 }',
          '  wide:',
          '    clusters:',
          `      - { name: eu-1, context: eu-1, namespace: ${f1} }`,
          `      - { name: far, context: far, namespace: ${f1} }`,
          '',
        ].join('\n'),
      );
    });
    afterAll(async () => {
      for (const n of [f1, f2])
        await kubectl(['--context', 'spread-local', 'delete', 'namespace', n, '--wait=false'], {
          allowFail: true,
        });
    });

    test('fleet-plan: the matrix of each wave, every cluster planned into one comment', async () => {
      const r = await step({ ...inputs, mode: 'fleet-plan' }, pr);
      expect(r.code, r.log).toBe(0);
      expect(JSON.parse(r.outputs.matrix!)).toEqual({
        canary: {
          include: [{ cluster: 'eu-1', wave: 'canary', context: 'eu-1', namespace: f1 }],
          'max-parallel': 1,
          clusters: 1,
          soak: 2,
        },
        rest: {
          include: [{ cluster: 'eu-2', wave: 'rest', context: 'eu-2', namespace: f2 }],
          'max-parallel': 1,
          clusters: 1,
          soak: 0,
        },
      });
      expect(JSON.parse(r.outputs.waves!)).toEqual(['canary', 'rest']);
      expect(r.outputs.status).toBe('succeeded');
      const [comment, ...more] = ofMarker('plan');
      expect(more).toEqual([]);
      expect(comment!.issue).toBe(12);
      expect(comment!.body).toContain('## ✅ Fleet plan: `fleet` → environment `production`');
      expect(comment!.body).toContain(
        `| ✅ | \`eu-1\` | \`eu-1\` | \`${f1}\` |  | 3 to create, 0 to update, 0 to prune, 0 unchanged |`,
      );
      expect(comment!.body).toContain('<details><summary>Plan of cluster eu-2</summary>');
      expect(r.summary).toContain('### Wave `rest` (succeeded)');
      // A plan writes nothing.
      const left = await kubectl(
        ['--context', 'spread-local', '-n', f1, 'get', 'configmap', 'fleet-settings'],
        { allowFail: true },
      );
      expect(left.stderr).toMatch(/NotFound/);
      expectNoSecret(r, [kubeconfig]);
    });

    test('fleet-plan: a cluster it cannot reach is a failed entry, and the step fails after the comment', async () => {
      const r = await step({ ...inputs, environment: 'wide', mode: 'fleet-plan' }, pr);
      expect(r.code, r.log).toBe(1);
      expect(r.outputs.status).toBe('failed');
      expect(JSON.parse(r.outputs.waves!)).toEqual(['all']);
      const comment = api.comments.find((c) => c.body.startsWith('<!-- spread-fleet-plan:wide/'));
      expect(comment?.body).toContain('## ❌ Fleet plan');
      expect(comment?.body).toMatch(/\| ❌ \| `far` \|.*\*\*error:\*\* /);
      expect(comment?.body).toMatch(/\| ✅ \| `eu-1` \|/);
      expect(r.log).toMatch(
        /::error::fleet wide: the plan of 1 of 2 cluster\(s\) did not succeed:%0Afar \(wave all\): failed/,
      );
      expectNoSecret(r, [kubeconfig]);
    });

    test('fleet-report: every leg gathered into one summary; a leg that did not run fails it, then passes', async () => {
      const canary = await leg('eu-1');
      expect(canary.code, canary.log).toBe(0);
      expect(JSON.parse(readFileSync(canary.outputs['report-file']!, 'utf8')).leg).toEqual({
        environment: 'production',
        cluster: 'eu-1',
      });
      // A push: the report goes to the pull request the commit belongs to.
      api.commitPulls[PUSHED_SHA] = [14];
      const partial = await step({ ...inputs, mode: 'fleet-report' });
      expect(partial.code, partial.log).toBe(1);
      const onPush = ofMarker('report').filter((c) => c.issue === 14);
      expect(onPush).toHaveLength(1);
      expect(onPush[0]!.body).toContain('no report: the leg did not run');
      expect(partial.outputs['comment-url']).toBe(onPush[0]!.html_url);
      expectNoSecret(partial, [kubeconfig]);
      expect(partial.outputs.status).toBe('failed');
      expect(partial.summary).toMatch(/\| ✅ \| `eu-1` \| `eu-1` \| `[^`]+` \| 1 \| 3 created/);
      expect(partial.summary).toContain('| ⏭️ | `eu-2` |  |  |  |  | no report: the leg did not run |');
      expect(partial.log).toContain('eu-2 (wave rest): skipped: no report: the leg did not run');

      const rest = await leg('eu-2');
      expect(rest.code, rest.log).toBe(0);
      const whole = await step({ ...inputs, mode: 'fleet-report' }, pr);
      expect(whole.code, whole.log).toBe(0);
      expect(whole.outputs.status).toBe('succeeded');
      expectNoSecret(whole, [kubeconfig]);
      expect(whole.summary).toContain(
        '2 cluster(s) in 2 wave(s): **2** succeeded · **0** failed · **0** did not run',
      );
      const onPr = ofMarker('report').filter((c) => c.issue === 12);
      expect(onPr).toHaveLength(1);
      expect(onPr[0]!.body).toContain('### Wave `rest` (succeeded)');
      const file = JSON.parse(readFileSync(whole.outputs['report-file']!, 'utf8'));
      expect(file.waves.map((w: { clusters: { revision: number }[] }) => w.clusters[0]!.revision)).toEqual([
        1, 1,
      ]);

      // A leg's report that does not parse is named, and fails its cluster.
      const eu2 = path.join(reports, 'spread-report-eu-2', path.basename(rest.outputs['report-file']!));
      writeFileSync(eu2, '{"deployment": "fleet", "trunc');
      const broken = await step({ ...inputs, mode: 'fleet-report' });
      expect(broken.code, broken.log).toBe(1);
      expectNoSecret(broken, [kubeconfig]);
      expect(broken.summary).toMatch(
        /\| ❌ \| `eu-2` \|.*report file spread-reports\/spread-report-eu-2\/spread-report-[0-9a-f]+\.json is not JSON/,
      );
    });

    test("fleet-soak: the wave's deployed legs watched for its soak; a leg without a good report fails it", async () => {
      // After the fleet-report test: eu-1's report file is whole, eu-2's does not parse.
      const canary = await step({ ...inputs, mode: 'fleet-soak', wave: 'canary' });
      expect(canary.code, canary.log).toBe(0);
      expect(canary.outputs.status).toBe('succeeded');
      expect(canary.log).toContain('wave canary: soaking for 2s');
      expect(canary.summary).toContain('## ✅ Soak of wave `canary` → environment `production`');
      expect(canary.summary).toContain('| ✅ | `eu-1` | healthy |');
      expectNoSecret(canary, [kubeconfig]);

      const rest = await step({ ...inputs, mode: 'fleet-soak', wave: 'rest' });
      expect(rest.code, rest.log).toBe(1);
      expect(rest.outputs.status).toBe('failed');
      expect(rest.summary).toMatch(/\| ❌ \| `eu-2` \| its leg failed: report file .*is not JSON/);
      expect(rest.log).toContain(
        '::error::fleet production: wave rest has no soak, and not every leg of it succeeded',
      );
      expectNoSecret(rest, [kubeconfig]);

      const none = await step({ ...inputs, mode: 'fleet-soak', wave: 'nope' });
      expect(none.code).toBe(1);
      expect(none.log).toContain(
        `mode fleet-soak needs the input wave: one of environment production's waves (canary, rest), got "nope"`,
      );
    });
  });

  // The runner's `node dist/index.js` runs the Action in a child Node with --max-semi-space-size=4.
  // SIGHUP is forwarded as SIGTERM; a parent killed outright closes the IPC channel, and the child
  // stops as on SIGTERM instead of deploying on, orphaned, with the Lease held.
  test.each([
    ['SIGTERM', 143, 'SIGTERM'],
    ['SIGINT', 130, 'SIGINT'],
    ['SIGHUP', 143, 'SIGTERM'],
    ['SIGKILL', undefined, 'SIGTERM'],
  ] as const)(
    'a cancelled job (%s to `node dist/index.js`): the deploy in its child Node stops and releases its Lease',
    async (signal, code, seen) => {
      writeLoadBalancer('deploy/lb', 'lb');
      const lease = async () =>
        (await kubectl(['--context', 'spread-local', '-n', ns, 'get', 'lease', '-o', 'name'])).stdout.trim();
      let child: ChildProcess | undefined;
      let log = () => '';
      const running = runActionStep({
        entry: ENTRY,
        workspace,
        inputs: {
          ...base,
          path: 'deploy/lb',
          name: 'lb',
          wait: 'true',
          'wait-load-balancer': 'true',
          timeout: '5m',
        },
        env: { GITHUB_API_URL: apiUrl, 'INPUT_GITHUB-TOKEN': TOKEN },
        onSpawn: (c, l) => {
          child = c;
          log = l;
        },
      });
      const started = Date.now();
      while (!/waiting for 1 of 1/.test(log()) && Date.now() - started < 30_000)
        await new Promise((r) => setTimeout(r, 100));
      expect(log()).toMatch(/waiting for 1 of 1/);
      // The runner started one Node; the deploy runs in its child, with the option on its command line.
      const children = childrenOf(child?.pid);
      expect(children).toHaveLength(1);
      const argv = readFileSync(`/proc/${children[0]}/cmdline`, 'utf8').split('\0').filter(Boolean);
      expect(argv).toContain('--max-semi-space-size=4');
      expect(argv.at(-1)).toBe(ENTRY);
      expect(await lease()).toBe('lease.coordination.k8s.io/spread.lb');
      child?.kill(signal);
      // Resolved when the output pipes close: for SIGKILL, when the orphaned child has ended too.
      const r = await running;
      if (code !== undefined) expect(r.code, r.log).toBe(code);
      expect(r.log).toContain(`interrupted by ${seen}`);
      expect(await lease()).toBe('');
    },
  );
  // The runner killed outright and its end of the log pipe closed: the child's next write fails with
  // EPIPE, which used to end it at once with its Lease held (until the Lease expired, and even then the
  // object stayed). It must still stop and delete its Lease before it exits.
  test('a runner SIGKILLed with the log pipe closed: the child still deletes its Lease before it exits', async () => {
    writeLoadBalancer('deploy/lb-epipe', 'lb-epipe');
    const lease = async () =>
      (
        await kubectl([
          ...['--context', 'spread-local', '-n', ns, 'get', 'lease', 'spread.lb-epipe'],
          ...['--ignore-not-found', '-o', 'name'],
        ])
      ).stdout.trim();
    let child: ChildProcess | undefined;
    let log = () => '';
    const running = runActionStep({
      entry: ENTRY,
      workspace,
      inputs: {
        ...base,
        path: 'deploy/lb-epipe',
        name: 'lb-epipe',
        wait: 'true',
        'wait-load-balancer': 'true',
        timeout: '5m',
      },
      env: { GITHUB_API_URL: apiUrl },
      onSpawn: (c, l) => {
        child = c;
        log = l;
      },
    });
    const started = Date.now();
    while (!/waiting for 1 of 1/.test(log()) && Date.now() - started < 30_000)
      await new Promise((r) => setTimeout(r, 100));
    expect(log()).toMatch(/waiting for 1 of 1/);
    expect(await lease()).toBe('lease.coordination.k8s.io/spread.lb-epipe');
    const [deployer] = childrenOf(child?.pid);
    expect(deployer).toBeDefined();
    // The reading ends of stdout and stderr close, then the runner's Node is killed.
    child?.stdout?.destroy();
    child?.stderr?.destroy();
    child?.kill('SIGKILL');
    await running;
    // The orphaned child stops (IPC channel closed); bounded so that a child that never ends fails here.
    const killed = Date.now();
    while (!ended(deployer!) && Date.now() - killed < 60_000) await new Promise((r) => setTimeout(r, 100));
    expect(ended(deployer!)).toBe(true);
    // Checked once it has ended: a Lease left behind stays as an object even after it expires.
    expect(await lease()).toBe('');
  });
});
