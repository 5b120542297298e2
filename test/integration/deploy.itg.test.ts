import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ApplyError } from '../../src/engine/apply/errors.js';
import { deploy } from '../../src/frontend/deploy.js';
import type { DeployReport } from '../../src/report/report.js';
import { needs } from './harness.js';
import {
  copyDir,
  kubeconfigContent,
  kubectl,
  localDeploy,
  ROOT,
  runNode,
  startUntil,
  uniqueName,
} from './helpers.js';

const example = path.join(ROOT, 'examples/mattermost');
const ns = uniqueName('itg-deploy');

function deployTo(dir: string, extra: Partial<Parameters<typeof deploy>[0]> = {}): Promise<DeployReport> {
  return deploy(localDeploy(dir, ns, extra));
}

const byKind = (r: DeployReport) =>
  Object.fromEntries(r.objects.map((o) => [`${o.kind}/${o.name}`, o.action]));

describe('spread deploy against the local cluster', () => {
  beforeAll(async () => {
    await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
  });
  afterAll(async () => {
    await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
      allowFail: true,
    });
  });

  test('deploys examples/mattermost: the RC, its Service and Secret, with the RC pods Ready', async () => {
    const report = await deployTo(example);
    expect(report.deployment).toBe('mattermost');
    expect(report.namespace).toBe(ns);
    expect(byKind(report)).toMatchObject({
      'ReplicationController/mattermost': 'created',
      'Service/mattermost': 'created',
    });
    expect(report.objects.some((o) => o.kind === 'Secret' && o.action === 'created')).toBe(true);
    for (const o of report.objects) expect(o.source).toMatch(/^(rc\.yml|\.k2e\/[^:]+):\d+$/);
    expect(report.rollout).toEqual([
      expect.objectContaining({ kind: 'ReplicationController', name: 'mattermost', ready: true }),
    ]);

    const rc = JSON.parse(
      (await kubectl(['--context', 'spread-local', '-n', ns, 'get', 'rc', 'mattermost', '-o', 'json']))
        .stdout,
    );
    const names = rc.spec.template.spec.containers.map((c: { name: string }) => c.name).sort();
    expect(names).toEqual(['app', 'db']);
    const pods = JSON.parse(
      (
        await kubectl([
          '--context',
          'spread-local',
          '-n',
          ns,
          'get',
          'pods',
          '-l',
          selector(rc.spec.selector),
          '-o',
          'json',
        ])
      ).stdout,
    );
    expect(pods.items.length).toBe(rc.spec.replicas);
    for (const pod of pods.items) {
      expect(pod.status.phase).toBe('Running');
      expect(pod.status.conditions.find((c: { type: string }) => c.type === 'Ready').status).toBe('True');
    }
  });

  test('deploying the same directory again reports every object unchanged', async () => {
    const report = await deployTo(example);
    expect(report.objects.length).toBeGreaterThan(0);
    expect(report.objects.map((o) => o.action)).toEqual(report.objects.map(() => 'unchanged'));
  });

  test('kubectl sees the ApplySet: parent labelled with the id, children part of it', async () => {
    const parent = JSON.parse(
      (
        await kubectl([
          '--context',
          'spread-local',
          '-n',
          ns,
          'get',
          'secret',
          'spread.mattermost',
          '-o',
          'json',
        ])
      ).stdout,
    );
    const id = parent.metadata.labels['applyset.kubernetes.io/id'];
    expect(id).toMatch(/^applyset-.+-v1$/);
    expect(parent.metadata.annotations['applyset.kubernetes.io/contains-group-kinds']).toBe(
      'ReplicationController,Secret,Service',
    );
    const children = JSON.parse(
      (
        await kubectl([
          '--context',
          'spread-local',
          '-n',
          ns,
          'get',
          'rc,svc,secret',
          '-l',
          `applyset.kubernetes.io/part-of=${id}`,
          '-o',
          'json',
        ])
      ).stdout,
    );
    expect(children.items.map((i: { kind: string }) => i.kind).sort()).toEqual([
      'ReplicationController',
      'Secret',
      'Service',
    ]);
    // kubectl's own ApplySet code reads the parent and knows it is spread's set.
    const rendered = await runNode('dist/cli/index.js', [
      'render',
      'examples/mattermost',
      '-n',
      ns,
      '--show-secrets',
    ]);
    const kubectlApply = await new Promise<{ code: number; out: string }>((resolve) => {
      const child = spawn(
        process.env.SPREAD_KUBECTL ?? 'kubectl',
        [
          '--context',
          'spread-local',
          'apply',
          '--server-side',
          '-n',
          ns,
          '--prune',
          '--applyset=secret/spread.mattermost',
          '-f',
          '-',
          '--dry-run=server',
        ],
        { env: { ...process.env, KUBECTL_APPLYSET: 'true' } },
      );
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.on('close', (code) => resolve({ code: code ?? 1, out }));
      child.stdin.end(rendered.stdout);
    });
    expect(kubectlApply.code).not.toBe(0);
    expect(kubectlApply.out).toMatch(
      /ApplySet parent object .*spread\.mattermost.* is managed by tooling "spread"/,
    );
  });

  test('a file dropped from .k2e/ is pruned; an unlabelled object with another name survives', async () => {
    const dir = copyDir(example);
    await kubectl(['--context', 'spread-local', '-n', ns, 'create', 'configmap', 'hand-made']);
    unlinkSync(path.join(dir, '.k2e/secret.yaml'));
    // Keep the RC valid without the Secret: its db container reads the password from it.
    writeFileSync(
      path.join(dir, 'db.ctr'),
      readFileSync(path.join(dir, 'db.ctr'), 'utf8').replace(
        /valueFrom:[\s\S]*?key: [^\n]+\n/,
        'value: "x"\n',
      ),
    );
    const report = await deployTo(dir, { wait: false });
    const pruned = report.objects.filter((o) => o.action === 'pruned');
    expect(pruned.map((o) => o.kind)).toEqual(['Secret']);
    expect(pruned[0]!.source).toBe('.k2e/secret.yaml');
    const left = await kubectl([
      '--context',
      'spread-local',
      '-n',
      ns,
      'get',
      'configmap',
      'hand-made',
      '-o',
      'name',
    ]);
    expect(left.stdout.trim()).toBe('configmap/hand-made');
    const parent = JSON.parse(
      (
        await kubectl([
          '--context',
          'spread-local',
          '-n',
          ns,
          'get',
          'secret',
          'spread.mattermost',
          '-o',
          'json',
        ])
      ).stdout,
    );
    expect(parent.metadata.annotations['applyset.kubernetes.io/contains-group-kinds']).toBe(
      'ReplicationController,Service',
    );
    // Put it back for the tests after this one.
    const again = await deployTo(example, { wait: false });
    expect(again.objects.filter((o) => o.kind === 'Secret').map((o) => o.action)).toEqual(['created']);
  });

  test('an invalid image reference (upper case) fails at its file and line before anything is written', async () => {
    const dir = copyDir(example, 'badimage');
    writeFileSync(
      path.join(dir, '.k2e/cm.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: badimage-cm\ndata: {a: b}\n',
    );
    writeFileSync(
      path.join(dir, 'pod.yaml'),
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: badimage\nspec:\n  containers:\n  - name: c\n    image: Nginx:1.27\n',
    );
    const error = await deployTo(dir).catch((e) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toMatch(/pod\.yaml:8/);
    expect(error.message).toMatch(/must be lowercase/);
    const cm = await kubectl(['--context', 'spread-local', '-n', ns, 'get', 'configmap', 'badimage-cm'], {
      allowFail: true,
    });
    expect(cm.stderr).toMatch(/not found/);
  });

  test('an invalid object among valid ones: the plan names its file and line, nothing is written', async () => {
    const dir = copyDir(example, 'broken');
    writeFileSync(
      path.join(dir, '.k2e/bad.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fine\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: broken\nspec:\n  ports:\n  - port: 99999\n',
    );
    const error = await deployTo(dir).catch((e) => e);
    expect(error).toBeInstanceOf(ApplyError);
    expect(error.message).toMatch(/nothing was written/);
    // The refused field's own line (`- port: 99999`), not the Service's first line (6).
    expect(error.message).toMatch(/Service .*broken \(\.k2e\/bad\.yaml:12\)/);
    const cms = await kubectl(['--context', 'spread-local', '-n', ns, 'get', 'configmap', 'fine'], {
      allowFail: true,
    });
    expect(cms.code).not.toBe(0);
    expect(cms.stderr).toMatch(/not found/);
  });

  test('the CLI: an input warning names its file and line once', async () => {
    const dir = copyDir(example, 'warned');
    writeFileSync(
      path.join(dir, '.k2e/role.yaml'),
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: warned-reader\n  namespace: x\nrules: []\n',
    );
    const r = await runNode('dist/cli/index.js', ['render', dir]);
    expect(r.code).toBe(0);
    const warning = r.stderr.split('\n').find((l) => l.includes('is cluster-scoped'));
    expect(warning).toBe(
      'warning: .k2e/role.yaml:1: ClusterRole.rbac.authorization.k8s.io warned-reader is cluster-scoped; its metadata.namespace x is ignored',
    );
  });

  test(
    'the CLI: a missing context exits non-zero naming the contexts that exist',
    needs('teamA'),
    async () => {
      const r = await runNode('dist/cli/index.js', ['deploy', 'examples/mattermost', 'no-such-context']);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/context "no-such-context" does not exist/);
      expect(r.stderr).toMatch(/spread-local/);
      expect(r.stderr).toMatch(/spread-team-a/);
    },
  );

  test('the CLI: a namespace that is no DNS label is refused as such, not reported missing', async () => {
    const r = await runNode('dist/cli/index.js', [
      'plan',
      'examples/mattermost',
      'spread-local',
      '-n',
      'BadNS',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('namespace "BadNS" is not a valid namespace name: a DNS-1123 label');
    expect(r.stderr).toContain('e.g. badns');
    expect(r.stderr).not.toContain('kubectl create namespace');
  });

  test('the CLI: a --name that is no DNS label is refused as given, naming the label it could be', async () => {
    const r = await runNode('dist/cli/index.js', [
      'plan',
      'examples/mattermost',
      'spread-local',
      '--name',
      'web.V2',
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('error: --name "web.V2" is not a valid deployment name: a DNS-1123 label');
    expect(r.stderr).toContain('e.g. web-v2');
  });

  test('the CLI: --output json prints the report on stdout and logs on stderr', async () => {
    const r = await runNode('dist/cli/index.js', [
      'deploy',
      'examples/mattermost',
      'spread-local',
      '-n',
      ns,
      '--output',
      'json',
    ]);
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ deployment: 'mattermost', namespace: ns });
    for (const o of report.objects) {
      expect(Object.keys(o)).toEqual(
        expect.arrayContaining(['apiVersion', 'kind', 'namespace', 'name', 'action', 'source']),
      );
      expect(o.action).toBe('unchanged');
    }
  });
});

describe('an interrupted CLI deploy (Ctrl-C, a cancelled CI job)', () => {
  const nsInt = uniqueName('itg-interrupt');
  // A LoadBalancer Service never gets an address here, so --wait-load-balancer waits until stopped.
  const lbService =
    'apiVersion: v1\nkind: Service\nmetadata: {name: lb}\nspec: {type: LoadBalancer, selector: {app: x}, ports: [{port: 80}]}\n';
  const configMap = (v: string) =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {v: "${v}"}\n`;
  const dir = mkdtempSync(path.join(tmpdir(), 'spread-interrupt-'));
  /** Starts the CLI with `args` and resolves once it waits for the rollout (or after 30 s). */
  const waitingDeploy = (args: readonly string[]) =>
    startUntil([path.join(ROOT, 'dist/cli/index.js'), ...args], /waiting for 1 of 1/, 30_000);
  afterAll(async () => {
    await kubectl(['--context', 'spread-local', 'delete', 'namespace', nsInt, '--wait=false'], {
      allowFail: true,
    });
  });

  test.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s during the rollout wait: spread stops, exits %i and releases its Lease',
    async (signal, code) => {
      await kubectl(['--context', 'spread-local', 'create', 'namespace', nsInt], { allowFail: true });
      // One folder for both signals: deployment `interrupted` records where it comes from, and a
      // second folder deploying it would be refused.
      mkdirSync(path.join(dir, '.k2e'), { recursive: true });
      writeFileSync(path.join(dir, '.k2e/lb.yaml'), lbService);
      const deploy = await waitingDeploy([
        'deploy',
        dir,
        'spread-local',
        '-n',
        nsInt,
        '--name',
        'interrupted',
        '--timeout',
        '5m',
        '--wait-load-balancer',
      ]);
      expect(deploy.stderr()).toMatch(/waiting for 1 of 1/);
      const lease = async () =>
        (
          await kubectl(['--context', 'spread-local', '-n', nsInt, 'get', 'lease', '-o', 'name'])
        ).stdout.trim();
      expect(await lease()).toBe('lease.coordination.k8s.io/spread.interrupted');
      expect(await deploy.stop(signal)).toBe(code);
      expect(deploy.stderr()).toMatch(
        new RegExp(
          `error: interrupted by ${signal} while waiting for the rollout: all 1 object\\(s\\) were applied \\([01] created, 0 configured, [01] unchanged\\) and 0 pruned; the rollout was not seen finished and no revision was recorded`,
        ),
      );
      expect(await lease()).toBe('');
    },
  );

  test('after a deploy interrupted during its wait, `spread rollback` undoes that deploy, not the one before it', async () => {
    const ns = uniqueName('itg-interrupt-rollback');
    await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
    try {
      const dir = mkdtempSync(path.join(tmpdir(), 'spread-interrupt-'));
      mkdirSync(path.join(dir, '.k2e'));
      const deployArgs = ['deploy', dir, 'spread-local', '-n', ns, '--name', 'back'];
      for (const v of ['1', '2']) {
        writeFileSync(path.join(dir, '.k2e/cm.yaml'), configMap(v));
        expect((await runNode('dist/cli/index.js', deployArgs)).code).toBe(0);
      }
      // The third deploy: applied, then stopped while it waits for a LoadBalancer address that never comes.
      writeFileSync(path.join(dir, '.k2e/cm.yaml'), configMap('3'));
      writeFileSync(path.join(dir, '.k2e/lb.yaml'), lbService);
      const deploy = await waitingDeploy([...deployArgs, '--wait-load-balancer']);
      expect(await deploy.stop('SIGTERM')).toBe(143);
      const value = async () =>
        (
          await kubectl([
            '--context',
            'spread-local',
            '-n',
            ns,
            'get',
            'cm',
            'cfg',
            '-o',
            'jsonpath={.data.v}',
          ])
        ).stdout;
      expect(await value()).toBe('3');
      const back = await runNode('dist/cli/index.js', [
        'rollback',
        'back',
        'spread-local',
        '-n',
        ns,
        '--no-wait',
      ]);
      expect(back.code, back.stderr).toBe(0);
      expect(back.stderr).toMatch(/after revision 2 that was not recorded .*going back to revision 2/);
      expect(back.stdout).toMatch(/Rolled back to revision 2 \(now revision 3\)/);
      expect(await value()).toBe('2');
      const lb = await kubectl(['--context', 'spread-local', '-n', ns, 'get', 'service', 'lb'], {
        allowFail: true,
      });
      expect(lb.code).not.toBe(0);
    } finally {
      await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
        allowFail: true,
      });
    }
  });

  test('a no-op deploy after another manager scaled a Deployment keeps `spread rollback` going to the revision before', async () => {
    const ns = uniqueName('itg-noop-rollback');
    await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
    try {
      const dir = mkdtempSync(path.join(tmpdir(), 'spread-noop-'));
      mkdirSync(path.join(dir, '.k2e'));
      writeFileSync(
        path.join(dir, '.k2e/web.yaml'),
        'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: "localhost/none:1"}]}\n',
      );
      const deployArgs = ['deploy', dir, 'spread-local', '-n', ns, '--name', 'noop', '--no-wait'];
      for (const v of ['1', '2']) {
        writeFileSync(path.join(dir, '.k2e/cm.yaml'), configMap(v));
        expect((await runNode('dist/cli/index.js', deployArgs)).code).toBe(0);
      }
      // A new generation by another manager: the recorded fingerprint no longer matches, the dry run
      // finds the Deployment unchanged, and the parent gets its new fingerprint.
      await kubectl(['--context', 'spread-local', '-n', ns, 'scale', 'deployment', 'web', '--replicas', '2']);
      const noop = await runNode('dist/cli/index.js', [...deployArgs, '--output', 'json']);
      expect(noop.code).toBe(0);
      expect(JSON.parse(noop.stdout).revision).toBe(2);
      const back = await runNode('dist/cli/index.js', [
        'rollback',
        'noop',
        'spread-local',
        '-n',
        ns,
        '--no-wait',
      ]);
      expect(back.code, back.stderr).toBe(0);
      expect(back.stderr).not.toMatch(/not recorded/);
      expect(back.stdout).toMatch(/Rolled back to revision 1 \(now revision 3\)/);
    } finally {
      await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
        allowFail: true,
      });
    }
  });

  test('a deploy interrupted during its wait is recorded as a revision by the next deploy, which changes nothing', async () => {
    const ns = uniqueName('itg-interrupt-record');
    await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
    try {
      const dir = mkdtempSync(path.join(tmpdir(), 'spread-interrupt-'));
      mkdirSync(path.join(dir, '.k2e'));
      const cli = (...args: string[]) =>
        runNode('dist/cli/index.js', ['deploy', dir, 'spread-local', '-n', ns, '--name', 'rec', ...args]);
      writeFileSync(path.join(dir, '.k2e/cm.yaml'), configMap('1'));
      expect((await cli()).code).toBe(0);
      // Revision 2: a changed ConfigMap and a LoadBalancer Service, which never gets an address here.
      writeFileSync(path.join(dir, '.k2e/cm.yaml'), configMap('2'));
      writeFileSync(path.join(dir, '.k2e/lb.yaml'), lbService);
      const deploy = await waitingDeploy([
        'deploy',
        dir,
        'spread-local',
        '-n',
        ns,
        '--name',
        'rec',
        '--wait-load-balancer',
      ]);
      expect(await deploy.stop('SIGTERM')).toBe(143);
      expect(deploy.stderr()).toMatch(
        /all 2 object\(s\) were applied \(1 created, 1 configured, 0 unchanged\)/,
      );
      const rerun = await cli('--no-wait', '--output', 'json');
      expect(rerun.code).toBe(0);
      const report = JSON.parse(rerun.stdout) as DeployReport;
      expect(report.objects.map((o) => o.action)).toEqual(['unchanged', 'unchanged']);
      expect(report.revision).toBe(2);
      const history = await runNode('dist/cli/index.js', [
        'history',
        'rec',
        'spread-local',
        '-n',
        ns,
        '-o',
        'json',
      ]);
      expect(JSON.parse(history.stdout)).toMatchObject({
        current: 2,
        revisions: [
          expect.objectContaining({ revision: 2, objectCount: 2 }),
          expect.objectContaining({ revision: 1, objectCount: 1 }),
        ],
      });
      // And the deploy after that is the same revision again: nothing to record.
      expect(JSON.parse((await cli('--no-wait', '--output', 'json')).stdout).revision).toBe(2);
    } finally {
      await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
        allowFail: true,
      });
    }
  });
});

describe('a context limited to one namespace (spread-team-a)', needs('teamA'), () => {
  test('objects land in the context namespace team-a', async () => {
    const r = await runNode('dist/cli/index.js', [
      'deploy',
      'examples/mattermost',
      'spread-team-a',
      '--output',
      'json',
    ]);
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.namespace).toBe('team-a');
    expect(new Set(report.objects.map((o: { namespace: string }) => o.namespace))).toEqual(
      new Set(['team-a']),
    );
    const rc = await kubectl([
      '--context',
      'spread-local',
      '-n',
      'team-a',
      'get',
      'rc',
      'mattermost',
      '-o',
      'name',
    ]);
    expect(rc.stdout.trim()).toBe('replicationcontroller/mattermost');
  });

  test('an object naming namespace default fails with a clear RBAC error and writes nothing', async () => {
    const dir = copyDir(path.join(ROOT, 'examples/mattermost'), 'escape');
    const name = uniqueName('escapee');
    writeFileSync(
      path.join(dir, '.k2e/other.yaml'),
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: default\ndata:\n  a: b\n`,
    );
    const r = await runNode('dist/cli/index.js', ['deploy', dir, 'spread-team-a']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/forbidden/i);
    expect(r.stderr).toMatch(/\.k2e\/other\.yaml:1/);
    expect(r.stderr).toMatch(/nothing was written/);
    const cm = await kubectl(['--context', 'spread-local', '-n', 'default', 'get', 'configmap', name], {
      allowFail: true,
    });
    expect(cm.code).not.toBe(0);
  });
});

describe('the Action entry, run as the runner runs it', () => {
  const actionNs = uniqueName('itg-action');
  afterAll(async () => {
    await kubectl(['--context', 'spread-local', 'delete', 'namespace', actionNs, '--wait=false'], {
      allowFail: true,
    });
  });

  test('deploys from INPUT_* with the kubeconfig content, writes outputs and a summary, never prints the kubeconfig', async () => {
    await kubectl(['--context', 'spread-local', 'create', 'namespace', actionNs]);
    const work = mkdtempSync(path.join(tmpdir(), 'spread-action-'));
    const outputs = path.join(work, 'output');
    const summary = path.join(work, 'summary');
    writeFileSync(outputs, '');
    writeFileSync(summary, '');
    const content = kubeconfigContent();
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: work,
      GITHUB_ACTIONS: 'true',
      GITHUB_OUTPUT: outputs,
      GITHUB_STEP_SUMMARY: summary,
      GITHUB_REPOSITORY: 'redspread/example',
      GITHUB_SHA: '0123456789abcdef0123456789abcdef01234567',
      GITHUB_RUN_ID: '42',
      RUNNER_TEMP: work,
      INPUT_PATH: 'examples/mattermost',
      INPUT_CONTEXT: 'spread-local',
      INPUT_KUBECONFIG: content,
      INPUT_NAMESPACE: actionNs,
    };
    const r = await runNode('dist/index.js', [], env);
    // `::add-mask::` commands are consumed by the runner and never shown; everything else is the log.
    const log = (r.stdout + r.stderr)
      .split('\n')
      .filter((l) => !l.startsWith('::add-mask::'))
      .join('\n');
    expect(log).not.toMatch(/::error/);
    expect(r.code).toBe(0);
    const out = readFileSync(outputs, 'utf8');
    expect(out).toMatch(/^deployment<<.*\nmattermost\n/m);
    expect(out).toMatch(new RegExp(`^namespace<<.*\\n${actionNs}\\n`, 'm'));
    const objects = JSON.parse(/^objects<<(.*)\n([\s\S]*?)\n\1$/m.exec(out)![2]!);
    expect(objects.map((o: { action: string }) => o.action)).toEqual(objects.map(() => 'created'));
    const md = readFileSync(summary, 'utf8');
    expect(md).toMatch(/spread deploy: mattermost/);
    expect(md).toMatch(/replicationcontroller\/mattermost/);
    // No secret anywhere: not the kubeconfig, not its key material, not the Secret's value.
    const secrets = [content, ...pemBodies(content)];
    for (const s of secrets) {
      expect(log).not.toContain(s);
      expect(out).not.toContain(s);
      expect(md).not.toContain(s);
    }
    const secretValue = /password:\s*"?([^"\n]+)"?/.exec(
      readFileSync(path.join(example, '.k2e/secret.yaml'), 'utf8'),
    )?.[1];
    expect(secretValue).toBeTruthy();
    for (const text of [log, out, md]) expect(text).not.toContain(secretValue!);
    rmSync(work, { recursive: true, force: true });
  });
});

function selector(sel: Record<string, string>): string {
  return Object.entries(sel)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/** The base64 key and certificate data in a kubeconfig, and their decoded PEM bodies. */
function pemBodies(kubeconfig: string): string[] {
  const out: string[] = [];
  for (const m of kubeconfig.matchAll(/(client-key-data|token):\s*(\S+)/g)) {
    out.push(m[2]!);
    const pem = Buffer.from(m[2]!, 'base64').toString('utf8');
    for (const line of pem.split('\n')) if (line.length > 40 && !line.startsWith('-----')) out.push(line);
  }
  return out;
}
