// Mode drift of the bundled Action, as a scheduled run runs it, against the local cluster and the
// GitHub REST stand-in: the real `kubectl scale` and `kubectl edit` (an EDITOR script) make the drift,
// one issue is opened, updated, closed after a deploy; an HPA's replicas are not drift; heal.
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { deploy } from '../../src/frontend/deploy.js';
import { repositoryEnv, runActionStep, type StepResult } from './action-runner.js';
import { type GitHubApi, startGitHubApi } from './github-api.js';
import { kubeconfigContent, kubectl, localDeploy, ROOT, runNode, uniqueName, writeDir } from './helpers.js';

const ENTRY = process.env.SPREAD_ACTION_ENTRY ?? path.join(ROOT, 'dist/index.js');
const ns = uniqueName('drift-itg');
const TOKEN = `ghs_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
const PASSWORD = `pw-${Math.random().toString(36).slice(2)}-drift`;
const NEW_PASSWORD = `pw-${Math.random().toString(36).slice(2)}-changed`;
const workspace = mkdtempSync(path.join(tmpdir(), 'spread-drift-ws-'));
const schedule = { name: 'schedule', refName: 'main', payload: { schedule: '0 * * * *' } };
let api: GitHubApi;

function step(inputs: Record<string, string>): Promise<StepResult> {
  return runActionStep({
    entry: ENTRY,
    workspace,
    inputs: {
      kubeconfig: kubeconfigContent(),
      context: 'spread-local',
      namespace: ns,
      wait: 'false',
      ...inputs,
    },
    event: schedule,
    env: { GITHUB_API_URL: api.url, 'INPUT_GITHUB-TOKEN': TOKEN },
  });
}

const k = (...args: string[]) => kubectl(['--context', 'spread-local', '-n', ns, ...args]);

/** `kubectl edit` as a person runs it, the editor a script that changes `from` into `to`. */
async function kubectlEdit(ref: string, from: string, to: string): Promise<void> {
  const editor = path.join(workspace, 'editor.sh');
  writeFileSync(editor, `#!/bin/sh\nsed -i 's/${from}/${to}/' "$1"\n`);
  chmodSync(editor, 0o755);
  await promisify(execFile)(
    process.env.SPREAD_KUBECTL ?? 'kubectl',
    ['--context', 'spread-local', '-n', ns, 'edit', ref],
    {
      env: { ...process.env, EDITOR: editor, KUBE_EDITOR: editor },
    },
  );
}

/** `kubectl diff -f` of a file of the workspace, as a person checks a manifest (exit 1: differences). */
async function kubectlDiff(file: string): Promise<string> {
  const r = await kubectl(['--context', 'spread-local', '-n', ns, 'diff', '-f', path.join(workspace, file)], {
    allowFail: true,
  });
  expect(r.code, r.stderr).toBeLessThanOrEqual(1);
  return r.stdout;
}

function write(dir: string, files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(workspace, dir, file)), { recursive: true });
    writeFileSync(path.join(workspace, dir, file), text);
  }
}

const deployment = (name: string) =>
  [
    'apiVersion: apps/v1',
    'kind: Deployment',
    `metadata: {name: ${name}}`,
    'spec:',
    '  replicas: 1',
    `  selector: {matchLabels: {app: ${name}}}`,
    '  template:',
    `    metadata: {labels: {app: ${name}}}`,
    `    spec: {containers: [{name: ${name}, image: "registry.k8s.io/pause:3.10"}]}`,
    '',
  ].join('\n');

/** Every secret of the test: the kubeconfig and its key lines, the Secret's value, the token. */
function secrets(): string[] {
  const kubeconfig = kubeconfigContent();
  const keyLines = kubeconfig
    .split('\n')
    .filter((l) => /key-data|token|password/.test(l))
    .map((l) => l.replace(/^.*?:\s*/, ''));
  const values = [PASSWORD, NEW_PASSWORD].flatMap((p) => [p, Buffer.from(p).toString('base64')]);
  return [kubeconfig, Buffer.from(kubeconfig).toString('base64'), ...keyLines, ...values, TOKEN];
}

function expectNoSecret(r: StepResult): void {
  const log = r.log
    .split('\n')
    .filter((l) => !l.startsWith('::add-mask::'))
    .join('\n');
  const bodies = api.issues.map((i) => i.body).join('\n') + api.comments.map((c) => c.body).join('\n');
  for (const text of [log, r.outputsText, r.summary, bodies])
    for (const s of secrets())
      expect(text.includes(s), `a secret value leaked: ${s.slice(0, 12)}…`).toBe(false);
}

describe('mode drift, scheduled', () => {
  beforeAll(async () => {
    api = await startGitHubApi();
    await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
    write('deploy/web', {
      'deployment.yaml': deployment('web'),
      '.k2e/objects.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-settings}\ndata: {version: "1"}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: web-db}\nstringData: {password: "${PASSWORD}"}\n`,
    });
    const r = await step({ path: 'deploy/web' });
    expect(r.code, r.log).toBe(0);
  });
  afterAll(async () => {
    await api?.close();
    await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
      allowFail: true,
    });
  });

  test('in sync: no issue', async () => {
    const r = await step({ path: 'deploy/web', mode: 'drift' });
    expect(r.code, r.log).toBe(0);
    expect(r.outputs).toMatchObject({ drifted: 'false', issue: '' });
    expect(api.issues).toEqual([]);
  });

  test('kubectl scale and kubectl edit: one issue naming both objects, the fields and the managers', async () => {
    await k('scale', 'deployment/web', '--replicas=2');
    await kubectlEdit('configmap/web-settings', 'version: "1"', 'version: "7"');
    // A Secret's value changed by hand: drift, its values never shown.
    await k('patch', 'secret/web-db', '-p', JSON.stringify({ stringData: { password: NEW_PASSWORD } }));
    // The replicas the manifest declares: kubectl diff shows the scale, so does drift.
    expect(await kubectlDiff('deploy/web/deployment.yaml')).toMatch(/^-\s+replicas: 2\n\+\s+replicas: 1$/m);
    const r = await step({ path: 'deploy/web', mode: 'drift' });
    expect(r.code, r.log).toBe(0);
    expect(api.issues).toHaveLength(1);
    const issue = api.issues[0]!;
    expect(r.outputs).toMatchObject({ drifted: 'true', issue: String(issue.number) });
    expect(issue.title).toBe(`Drift: web in ${ns}`);
    expect(issue.labels).toEqual([{ name: 'spread-drift' }]);
    // Compared with what was deployed, not with the branch head: the issue names the revision.
    expect(issue.body).toMatch(
      /differ from the last deployed revision 1 \(commit [0-9a-f]{12}, deployed at \d{4}-/,
    );
    expect(issue.body).toContain('`cluster → revision`');
    expect(issue.body).toContain(`### Deployment/web in ${ns} — differs`);
    expect(issue.body).toContain(`### ConfigMap/web-settings in ${ns} — differs`);
    expect(issue.body).toContain('~ spec.replicas: 2 → 1');
    expect(issue.body).toContain('~ data.version: "7" → "1"');
    expect(issue.body).toContain('`spec.replicas`: changed by **kubectl** (Update, subresource scale)');
    expect(issue.body).toMatch(/`data.version`: changed by \*\*kubectl-edit\*\* \(Update\) at \d{4}-/);
    expect(issue.body).toContain(`### Secret/web-db in ${ns} — differs`);
    expect(issue.body).toContain('~ data.password: <redacted> → <redacted>');
    expect(issue.body).toContain('`data.password`: changed by **kubectl-patch** (Update)');
    // A note names the setting as the Action's input, not in the core's placeholder.
    expect(issue.body).toContain('a deploy takes them back only with the input force-conflicts');
    expect(issue.body).not.toContain('⟦');
    expect(r.summary).toContain('Deployment/web');
    expectNoSecret(r);
  });

  test('the next run updates the same issue, not a second one; fail-on-drift fails the step', async () => {
    const before = api.issues[0]!.body;
    const r = await step({ path: 'deploy/web', mode: 'drift', 'fail-on-drift': 'true' });
    expect(r.code).toBe(1);
    expect(api.issues).toHaveLength(1);
    expect(api.issues[0]!.state).toBe('open');
    expect(api.issues[0]!.body).not.toBe(before);
    expect(api.requests).toContain(`PATCH /repos/acme/shop/issues/${api.issues[0]!.number}`);
    expect(r.outputs).toMatchObject({ drifted: 'true', issue: String(api.issues[0]!.number) });
  });

  test('a deploy puts it back: the next run closes the issue with a comment', async () => {
    const d = await step({ path: 'deploy/web', 'force-conflicts': 'true' });
    expect(d.code, d.log).toBe(0);
    const r = await step({ path: 'deploy/web', mode: 'drift' });
    expect(r.code, r.log).toBe(0);
    const issue = api.issues[0]!;
    expect(r.outputs).toMatchObject({ drifted: 'false', issue: String(issue.number) });
    expect(issue.state).toBe('closed');
    expect(issue.state_reason).toBe('completed');
    expect(api.comments.filter((c) => c.issue === issue.number).map((c) => c.body)).toEqual([
      expect.stringMatching(/^The cluster matches the last deployed revision 2 \(/),
    ]);
  });

  test('heal: the last good revision deployed again, the issue says so and is closed', async () => {
    await k('scale', 'deployment/web', '--replicas=3');
    await kubectlEdit('configmap/web-settings', 'version: "1"', 'version: "9"');
    const r = await step({ path: 'deploy/web', mode: 'drift', heal: 'true', timeout: '2m' });
    expect(r.code, r.log).toBe(0);
    expect(api.issues).toHaveLength(2);
    const issue = api.issues[1]!;
    expect(issue.body).toContain('~ spec.replicas: 3 → 1');
    expect(issue.body).toMatch(/\*\*Healed\*\*: revision \d+ \(the last good deploy\) was deployed again/);
    expect(issue.state).toBe('closed');
    expect((await k('get', 'deployment/web', '-o', 'jsonpath={.spec.replicas}')).stdout).toBe('1');
    expect((await k('get', 'configmap/web-settings', '-o', 'jsonpath={.data.version}')).stdout).toBe('1');
    expectNoSecret(r);
  });

  test('a label added by kubectl label is drift; one another tool adds is not', async () => {
    const before = api.issues.length;
    // A label another tool adds (not a person's kubectl): undeclared, not drift.
    await k('label', 'configmap/web-settings', 'injected=yes', '--field-manager=helm');
    const controller = await step({ path: 'deploy/web', mode: 'drift' });
    expect(controller.outputs.drifted, controller.log).toBe('false');
    expect(api.issues.length).toBe(before);
    await k('label', 'configmap/web-settings', 'team=payments');
    const r = await step({ path: 'deploy/web', mode: 'drift' });
    expect(r.code, r.log).toBe(0);
    expect(r.outputs.drifted).toBe('true');
    const issue = api.issues[before]!;
    expect(issue.body).toContain('- metadata.labels.team: "payments"');
    expect(issue.body).toMatch(
      /`metadata.labels.team`: changed by \*\*kubectl-label\*\* \(Update\) at \d{4}-/,
    );
    expect(issue.body).not.toContain('- metadata.labels.injected');
    expect(issue.body).toMatch(
      /- ConfigMap\/web-settings `metadata.labels.injected`: set by helm, not a person's kubectl.*\(rule `undeclared`\)/,
    );
    await k('label', 'configmap/web-settings', 'team-', 'injected-');
    const closed = await step({ path: 'deploy/web', mode: 'drift' });
    expect(closed.outputs.drifted, closed.log).toBe('false');
    expect(issue.state).toBe('closed');
  });

  test('a commit not deployed yet is not drift: drift compares with the last deployed revision', async () => {
    const before = api.issues.length;
    write('deploy/web', {
      '.k2e/objects.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-settings}\ndata: {version: "2"}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: web-db}\nstringData: {password: "${PASSWORD}"}\n`,
    });
    try {
      const r = await step({ path: 'deploy/web', mode: 'drift', heal: 'true' });
      expect(r.code, r.log).toBe(0);
      expect(r.outputs.drifted).toBe('false');
      expect(r.log).toMatch(/the cluster matches the last deployed revision \d+/);
      // heal is on, and nothing drifted: no heal, so no revision recorded.
      expect(r.log).not.toContain('::group::Heal');
      expect(api.issues.length).toBe(before);
      // spread status still answers "does the cluster match this checkout".
      const cli = await runNode(
        'dist/cli/index.js',
        ['status', path.join(workspace, 'deploy/web'), '--context', 'spread-local', '-n', ns, '-o', 'json'],
        { ...process.env, ...repositoryEnv(workspace) },
      );
      expect(cli.code, cli.stderr).toBe(2);
    } finally {
      write('deploy/web', {
        '.k2e/objects.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-settings}\ndata: {version: "1"}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: web-db}\nstringData: {password: "${PASSWORD}"}\n`,
      });
    }
  });

  test('kubectl scale of replicas the manifest does not declare: not drift, as kubectl diff and a deploy say', async () => {
    // No `replicas` in the manifest: the count is left to whoever scales (as for an HPA), and a
    // deploy's server-side apply never sets it back.
    write('deploy/unscaled', {
      'deployment.yaml': deployment('unscaled').replace('  replicas: 1\n', ''),
    });
    const d = await step({ path: 'deploy/unscaled' });
    expect(d.code, d.log).toBe(0);
    await k('scale', 'deployment/unscaled', '--replicas=3');
    // kubectl scale went through the scale subresource: no entry but one of that subresource owns
    // the replicas (Kubernetes 1.34 records none at all when nobody owned them before).
    type Entry = {
      manager: string;
      subresource?: string;
      fieldsV1?: { 'f:spec'?: { 'f:replicas'?: object } };
    };
    const live = JSON.parse(
      (await k('get', 'deployment/unscaled', '--show-managed-fields', '-o', 'json')).stdout,
    ) as { metadata: { managedFields: Entry[] } };
    const owners = live.metadata.managedFields.filter((m) => m.fieldsV1?.['f:spec']?.['f:replicas']);
    expect(owners.filter((m) => m.subresource !== 'scale')).toEqual([]);
    expect((await k('get', 'deployment/unscaled', '-o', 'jsonpath={.spec.replicas}')).stdout).toBe('3');
    // kubectl diff of the manifest (what a person checks) shows no change of replicas either.
    const diff = await kubectlDiff('deploy/unscaled/deployment.yaml');
    expect(diff).not.toMatch(/^[-+]\s+replicas:/m);
    const before = api.issues.length;
    const r = await step({ path: 'deploy/unscaled', mode: 'drift' });
    expect(r.code, r.log).toBe(0);
    expect(r.outputs).toMatchObject({ drifted: 'false', issue: '' });
    expect(r.log).toMatch(/the cluster matches the last deployed revision 1 /);
    expect(api.issues.length).toBe(before);
    // What drift would report is what a deploy puts back: a deploy leaves the 3 replicas.
    const again = await step({ path: 'deploy/unscaled', 'force-conflicts': 'true' });
    expect(again.code, again.log).toBe(0);
    expect((await k('get', 'deployment/unscaled', '-o', 'jsonpath={.spec.replicas}')).stdout).toBe('3');
  });

  test('replicas an HPA sets are not drift', async () => {
    write('deploy/auto', {
      'deployment.yaml': deployment('auto'),
      '.k2e/hpa.yaml': [
        'apiVersion: autoscaling/v2',
        'kind: HorizontalPodAutoscaler',
        'metadata: {name: auto}',
        'spec:',
        '  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: auto}',
        '  minReplicas: 2',
        '  maxReplicas: 3',
        '  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}}]',
        '',
      ].join('\n'),
    });
    const d = await step({ path: 'deploy/auto' });
    expect(d.code, d.log).toBe(0);
    // The HPA controller raises the replicas to minReplicas (no metrics needed for that).
    for (let i = 0; i < 60; i++) {
      if ((await k('get', 'deployment/auto', '-o', 'jsonpath={.spec.replicas}')).stdout === '2') break;
      await new Promise((done) => setTimeout(done, 1000));
    }
    const managers = (await k('get', 'deployment/auto', '--show-managed-fields', '-o', 'json')).stdout;
    expect(managers).toContain('"subresource": "scale"');
    const r = await step({ path: 'deploy/auto', mode: 'drift' });
    expect(r.code, r.log).toBe(0);
    expect(r.outputs.drifted).toBe('false');
    expect(api.issues.filter((i) => i.title.includes('auto'))).toEqual([]);
  });
});

describe('drift per declared environment', () => {
  const staging = `${ns}-staging`;
  const production = `${ns}-production`;
  const dir = 'deploy/envs';
  const cli = (...args: string[]) =>
    runNode('dist/cli/index.js', args, { ...process.env, ...repositoryEnv(workspace) });

  beforeAll(async () => {
    api = await startGitHubApi();
    for (const n of [staging, production])
      await kubectl(['--context', 'spread-local', 'create', 'namespace', n]);
    write(dir, {
      'deployment.yaml': deployment('shop'),
      'spread.yaml': [
        'environments:',
        `  staging: {context: spread-local, namespace: ${staging}}`,
        `  production: {context: spread-local, namespace: ${production}}`,
        '',
      ].join('\n'),
    });
    for (const e of ['staging', 'production']) {
      const r = await cli('deploy', path.join(workspace, dir), '--environment', e, '--no-wait');
      expect(r.code, r.stderr).toBe(0);
    }
    await kubectl([
      '--context',
      'spread-local',
      '-n',
      production,
      'scale',
      'deployment/shop',
      '--replicas=2',
    ]);
  });
  afterAll(async () => {
    await api?.close();
    for (const n of [staging, production])
      await kubectl(['--context', 'spread-local', 'delete', 'namespace', n, '--wait=false'], {
        allowFail: true,
      });
  });

  test('the Action: one issue for the environment that drifted, named by it', async () => {
    const before = api.issues.length;
    const r = await runActionStep({
      entry: ENTRY,
      workspace,
      inputs: { kubeconfig: kubeconfigContent(), path: dir, mode: 'drift' },
      event: schedule,
      env: { GITHUB_API_URL: api.url, 'INPUT_GITHUB-TOKEN': TOKEN },
    });
    expect(r.code, r.log).toBe(0);
    const opened = api.issues.slice(before);
    expect(opened.map((i) => i.title)).toEqual([`Drift: envs in ${production} (production)`]);
    expect(r.outputs).toMatchObject({ drifted: 'true', issue: String(opened[0]!.number) });
    expect(r.log).toContain('::group::environment staging');
  });

  test('spread status --all-environments -o json: each environment with its drift', async () => {
    const r = await cli('status', path.join(workspace, dir), '--all-environments', '-o', 'json');
    expect(r.code, r.stderr).toBe(2);
    const { environments } = JSON.parse(r.stdout) as {
      environments: {
        environment: string;
        drift: {
          drifted: boolean;
          objects: { fields: { path: string; changedBy: { manager: string }[] }[] }[];
        };
      }[];
    };
    expect(environments.map((e) => [e.environment, e.drift.drifted])).toEqual([
      ['staging', false],
      ['production', true],
    ]);
    expect(environments[1]!.drift.objects[0]!.fields[0]).toMatchObject({
      path: 'spec.replicas',
      changedBy: [{ manager: 'kubectl', operation: 'Update', subresource: 'scale' }],
    });
    expect(environments[1]!.drift).toMatchObject({ comparedWith: { against: 'directory' } });
    // --against revision: each environment with its last deployed revision, named in the report.
    const against = await cli(
      'status',
      path.join(workspace, dir),
      '--all-environments',
      '--against',
      'revision',
      '-o',
      'json',
    );
    expect(against.code, against.stderr).toBe(2);
    const revisions = (
      JSON.parse(against.stdout) as {
        environments: { drift: { drifted: boolean; comparedWith: { against: string; revision?: number } } }[];
      }
    ).environments.map((e) => [e.drift.drifted, e.drift.comparedWith.against, e.drift.comparedWith.revision]);
    expect(revisions).toEqual([
      [false, 'revision', 1],
      [true, 'revision', 1],
    ]);
  });
});

// Issue 44: `kubectl rollout restart` of a template with no annotations adds the whole map, which the
// diff names as one field; rule `restarted-at` applies per key inside it, so it is not drift.
describe('kubectl rollout restart, against the revision', () => {
  const restartNs = uniqueName('drift-restart');
  const CLI = path.relative(ROOT, process.env.SPREAD_CLI_ENTRY ?? path.join(ROOT, 'dist/cli/index.js'));
  const kr = (...args: string[]) => kubectl(['--context', 'spread-local', '-n', restartNs, ...args]);
  beforeAll(async () => {
    await kubectl(['--context', 'spread-local', 'create', 'namespace', restartNs]);
  });
  afterAll(async () => {
    await kubectl(['--context', 'spread-local', 'delete', 'namespace', restartNs, '--wait=false'], {
      allowFail: true,
    });
  });

  test('a template without annotations, restarted: not drift, the annotation ignored by restarted-at', async () => {
    const root = writeDir('drift-restart', { '.k2e/web.yaml': deployment('web') });
    await deploy(localDeploy(root, restartNs, { name: 'restart' }));
    await kr('rollout', 'restart', 'deployment/web');
    const args = ['status', root, '--context', 'spread-local', '-n', restartNs, '--name', 'restart'];
    const r = await runNode(CLI, [...args, '--all-environments', '--against', 'revision', '-o', 'json']);
    const env = (
      JSON.parse(r.stdout) as {
        environments: {
          environment?: string;
          context?: string;
          namespace?: string;
          drift: { drifted: boolean; ignored: { path: string; rule: string }[] };
        }[];
      }
    ).environments[0]!;
    expect(env.drift.drifted, r.stdout).toBe(false);
    expect(
      env.drift.ignored.map((i) => i.rule),
      r.stdout,
    ).toContain('restarted-at');
    expect(r.code, r.stdout).toBe(0);
    // Without declared environments, the one entry says where it compared (docs/drift.md).
    expect(env.environment).toBeUndefined();
    expect(env).toMatchObject({ context: 'spread-local', namespace: restartNs });
    // The plain form exits as it reads, and as --all-environments does: no drift, exit 0.
    for (const against of [[], ['--against', 'revision']]) {
      const plain = await runNode(CLI, [...args, ...against]);
      expect(plain.stdout).toMatch(/^no drift \(\d+ differences are not drift\)$/m);
      expect(plain.code, plain.stdout).toBe(0);
    }
    // The text says which revision it compared with, as the JSON does.
    const text = await runNode(CLI, [...args, '--against', 'revision']);
    expect(text.stdout).toMatch(/^compared with revision 1 \(deployed \d{4}-\d\d-\d\dT[^)]*\)$/m);
  }, 120_000);
});
