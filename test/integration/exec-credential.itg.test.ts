// A kubeconfig whose user is an exec credential plugin, against the local cluster, through the CLI
// and the bundled Action: a credential the API server refuses (a ServiceAccount token bound to a
// Secret that was deleted, so revoked), then a valid one. kubectl runs the plugin again after the
// 401; so must spread, and the plugin's log shows how often it ran and what it was given.
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse, stringify } from 'yaml';
import { execPlugin } from '../support/exec-plugin.js';
import { runActionStep } from './action-runner.js';
import { kubeconfigContent, kubectl, ROOT, runNode, uniqueName } from './helpers.js';

const ns = uniqueName('exec-cred');
const admin = ['--context', 'spread-local'];
let revoked: string;
let valid: string;

/** The harness's cluster entry (server and CA), for kubeconfigs of our own. */
function harnessCluster(): unknown {
  type Named<T> = { name: string } & T;
  const kc = parse(kubeconfigContent()) as {
    contexts: Named<{ context: { cluster: string } }>[];
    clusters: Named<{ cluster: unknown }>[];
  };
  const ctx = kc.contexts.find((c) => c.name === 'spread-local')!.context;
  return kc.clusters.find((c) => c.name === ctx.cluster)!.cluster;
}

/** A token of ServiceAccount `deployer` (cluster-admin here); bound to Secret `bound` when given. */
async function token(bound?: string): Promise<string> {
  const args = ['-n', ns, 'create', 'token', 'deployer', '--duration', '20m'];
  if (bound) args.push('--bound-object-kind', 'Secret', '--bound-object-name', bound);
  return (await kubectl([...admin, ...args])).stdout.trim();
}

/** Whether the API server takes the bearer token `t` (alone: no client certificate with it). */
function accepted(t: string): Promise<boolean> {
  const cluster = harnessCluster() as { server: string; 'certificate-authority-data'?: string };
  const ca = cluster['certificate-authority-data'];
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL('/api', cluster.server),
      { headers: { Authorization: `Bearer ${t}` }, ...(ca ? { ca: Buffer.from(ca, 'base64') } : {}) },
      (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A kubeconfig (context `exec`, user `deployer`) whose user runs `command`. */
function execKubeconfig(command: string, more: { exec?: object; cluster?: object } = {}): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'exec',
    clusters: [{ name: 'local', cluster: { ...(harnessCluster() as object), ...more.cluster } }],
    users: [
      {
        name: 'deployer',
        user: {
          exec: {
            apiVersion: 'client.authentication.k8s.io/v1',
            command,
            args: ['token', '--cluster', 'local'],
            interactiveMode: 'IfAvailable',
            ...more.exec,
          },
        },
      },
    ],
    contexts: [{ name: 'exec', context: { cluster: 'local', user: 'deployer', namespace: ns } }],
  });
}

/** A directory of one ConfigMap named `name`. */
function app(name: string): string {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'spread-exec-app-')), name);
  mkdirSync(path.join(dir, '.k2e'), { recursive: true });
  writeFileSync(
    path.join(dir, '.k2e/cm.yaml'),
    `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: {from: exec}\n`,
  );
  return dir;
}

beforeAll(async () => {
  await kubectl([...admin, 'create', 'namespace', ns]);
  await kubectl([...admin, '-n', ns, 'create', 'serviceaccount', 'deployer']);
  await kubectl([
    ...admin,
    'create',
    'clusterrolebinding',
    ns,
    '--clusterrole=cluster-admin',
    `--serviceaccount=${ns}:deployer`,
  ]);
  await kubectl([...admin, '-n', ns, 'create', 'secret', 'generic', 'bound']);
  revoked = await token('bound');
  valid = await token();
  // Deleting the Secret a token is bound to revokes the token: the API server answers it 401.
  await kubectl([...admin, '-n', ns, 'delete', 'secret', 'bound']);
  for (let i = 0; i < 50 && (await accepted(revoked)); i++) await new Promise((r) => setTimeout(r, 200));
  expect(await accepted(revoked)).toBe(false);
  expect(await accepted(valid)).toBe(true);
}, 60_000);

afterAll(async () => {
  await kubectl([...admin, 'delete', 'clusterrolebinding', ns], { allowFail: true });
  await kubectl([...admin, 'delete', 'namespace', ns, '--wait=false'], { allowFail: true });
});

describe('an exec plugin, beside kubectl', () => {
  test('one run of the plugin per command, with the KUBERNETES_EXEC_INFO kubectl gives (provideClusterInfo)', async () => {
    const extension = { audience: 'spread', nested: { list: [1, 'two'] } };
    const more = {
      exec: { provideClusterInfo: true },
      cluster: {
        'tls-server-name': 'kubernetes',
        extensions: [{ name: 'client.authentication.k8s.io/exec', extension }],
      },
    };
    const byKubectl = execPlugin({ tokens: [valid] });
    writeFileSync(path.join(byKubectl.dir, 'kubeconfig'), execKubeconfig(byKubectl.file, more));
    await kubectl(['--kubeconfig', path.join(byKubectl.dir, 'kubeconfig'), 'get', 'configmaps']);
    const bySpread = execPlugin({ tokens: [valid] });
    const kc = path.join(bySpread.dir, 'kubeconfig');
    writeFileSync(kc, execKubeconfig(bySpread.file, more));
    const r = await runNode(
      'dist/cli/index.js',
      ['deploy', app('exec-info'), '--kubeconfig', kc, '--no-wait'],
      {
        ...process.env,
        KUBECONFIG: '',
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(byKubectl.calls()).toHaveLength(1);
    expect(bySpread.calls()).toHaveLength(1);
    expect(bySpread.calls()[0]!.info).toEqual(byKubectl.calls()[0]!.info);
    expect(bySpread.calls()[0]!.info).toMatchObject({ spec: { cluster: { config: extension } } });
  });
});

describe('an exec plugin whose first credential is refused', () => {
  test('CLI: the plugin runs again after the 401 and the deploy goes through (command beside the kubeconfig)', async () => {
    const p = execPlugin({ tokens: [revoked, valid] });
    const kc = path.join(p.dir, 'kubeconfig');
    // A relative command: kubectl finds it beside the kubeconfig file, whatever the working directory.
    writeFileSync(kc, execKubeconfig('./token-plugin.mjs'));
    const r = await runNode(
      'dist/cli/index.js',
      ['deploy', app('exec-cli'), '--kubeconfig', kc, '--no-wait'],
      {
        ...process.env,
        KUBECONFIG: '',
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const calls = p.calls();
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatchObject({
      args: ['token', '--cluster', 'local'],
      info: { spec: { interactive: false } },
    });
    const cm = await kubectl([
      ...admin,
      '-n',
      ns,
      'get',
      'configmap',
      'exec-cli',
      '-o',
      'jsonpath={.data.from}',
    ]);
    expect(cm.stdout).toBe('exec');
  });

  test('CLI: the credential revoked mid-deploy, Lease renewals and the rest of the deploy go on with a new one', async () => {
    await kubectl([...admin, '-n', ns, 'create', 'secret', 'generic', 'mid-deploy']);
    const first = await token('mid-deploy');
    const p = execPlugin({ tokens: [first, valid] });
    const kc = path.join(p.dir, 'kubeconfig');
    writeFileSync(kc, execKubeconfig(p.file));
    // minReadySeconds keeps the rollout waiting for 30 s (the API server takes up to 10 s to refuse a
    // revoked token: it caches token reviews); the Lease (3 s) is renewed every second.
    const dir = app('exec-mid');
    writeFileSync(
      path.join(dir, 'deployment.yaml'),
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: mid}\nspec:\n  minReadySeconds: 30\n  selector: {matchLabels: {app: mid}}\n  template:\n    metadata: {labels: {app: mid}}\n    spec: {containers: [{name: mid, image: "registry.k8s.io/pause:3.10"}]}\n',
    );
    const args = ['deploy', dir, '--kubeconfig', kc, '--lock-lease-duration', '3s', '--timeout', '100s'];
    const child = spawn(process.execPath, [path.join(ROOT, 'dist/cli/index.js'), ...args], {
      cwd: ROOT,
      env: { ...process.env, KUBECONFIG: '' },
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const started = Date.now();
    while (!/waiting for/.test(stderr) && Date.now() - started < 60_000)
      await new Promise((r) => setTimeout(r, 100));
    expect(stderr).toMatch(/waiting for/);
    // Revoked while the rollout is waited for.
    await kubectl([...admin, '-n', ns, 'delete', 'secret', 'mid-deploy']);
    for (let i = 0; i < 300 && (await accepted(first)); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await accepted(first)).toBe(false);
    expect(await exited, stderr).toBe(0);
    expect(p.calls()).toHaveLength(2);
    // Without the refresh: 'could not renew the deploy lock', then 'the revision was not recorded'.
    expect(stderr).not.toMatch(/could not renew|not recorded|refused/);
  }, 150_000);

  test('CLI: refused again, the error names the kubeconfig user and context and how to log in again', async () => {
    const p = execPlugin({ tokens: [revoked] });
    const kc = path.join(p.dir, 'kubeconfig');
    writeFileSync(kc, execKubeconfig(p.file));
    const r = await runNode(
      'dist/cli/index.js',
      ['deploy', app('exec-refused'), '--kubeconfig', kc, '--no-wait'],
      {
        ...process.env,
        KUBECONFIG: '',
      },
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('user "deployer" of context "exec"');
    expect(r.stderr).toMatch(/exec plugin token-plugin\.mjs .*Log in again/);
    expect(r.stderr + r.stdout).not.toContain(revoked);
    expect(p.calls()).toHaveLength(2);
  });

  test('Action: the plugin runs again after the 401 and the deploy goes through (a relative command: the workspace)', async () => {
    const p = execPlugin({ tokens: [revoked, valid] });
    const workspace = path.dirname(app('exec-action'));
    // The input is content, with no directory of its own: a relative command is the workspace's
    // (the working directory), not that of the file written to RUNNER_TEMP for other plugins.
    mkdirSync(path.join(workspace, 'bin'));
    copyFileSync(p.file, path.join(workspace, 'bin/login'));
    chmodSync(path.join(workspace, 'bin/login'), 0o755);
    const r = await runActionStep({
      entry: path.join(ROOT, 'dist/index.js'),
      workspace,
      inputs: {
        kubeconfig: execKubeconfig('./bin/login'),
        path: 'exec-action',
        wait: 'false',
        'github-token': '',
      },
    });
    expect(r.code, r.log).toBe(0);
    expect(p.calls()).toHaveLength(2);
    expect(r.log).not.toContain(revoked);
    expect(r.log).not.toContain(valid);
  });

  test('Action: refused again, the error names the kubeconfig user and context, never the token', async () => {
    const p = execPlugin({ tokens: [revoked] });
    const workspace = path.dirname(app('exec-action-refused'));
    const r = await runActionStep({
      entry: path.join(ROOT, 'dist/index.js'),
      workspace,
      inputs: {
        kubeconfig: execKubeconfig(p.file),
        path: 'exec-action-refused',
        wait: 'false',
        'github-token': '',
      },
    });
    expect(r.code).not.toBe(0);
    expect(r.log).toContain('user "deployer" of context "exec"');
    expect(r.log).toMatch(/Log in again/);
    expect(r.log).not.toContain(revoked);
    expect(p.calls()).toHaveLength(2);
  });
});

describe('a token of the kubeconfig refused', () => {
  test('CLI: the error names the user and context, says to get a new token, and shows no token', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'spread-token-itg-'));
    const kc = path.join(dir, 'kubeconfig');
    writeFileSync(
      kc,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'ci',
        clusters: [{ name: 'local', cluster: harnessCluster() }],
        users: [{ name: 'robot', user: { token: revoked } }],
        contexts: [{ name: 'ci', context: { cluster: 'local', user: 'robot', namespace: ns } }],
      }),
    );
    const r = await runNode('dist/cli/index.js', ['plan', app('token-refused'), '--kubeconfig', kc], {
      ...process.env,
      KUBECONFIG: '',
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('the API server refused the token of user "robot" of context "ci"');
    expect(r.stderr).toContain('Get a new token and update the kubeconfig');
    expect(r.stderr + r.stdout).not.toContain(revoked);
  });
});
