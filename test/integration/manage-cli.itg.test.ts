import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { silentLogger } from '../../src/base/logger.js';
import { defineDelete, defineHistory, defineList, defineRollback } from '../../src/cli/manage.js';
import { deploy } from '../../src/frontend/deploy.js';
import { kubeconfigPath, kubectl, runNode, uniqueName } from './helpers.js';

const ns = uniqueName('itg-mcli');
const ctx = ['--context', 'spread-local'];

/** The four commands as the lead wires them into src/cli/main.ts, run in-process. */
async function cli(...args: string[]): Promise<string> {
  const root = new Command('spread').exitOverride();
  defineHistory(root.command('history'));
  defineRollback(root.command('rollback'));
  defineList(root.command('list'));
  defineDelete(root.command('delete'));
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    await root.parseAsync(['node', 'spread', ...args]);
  } finally {
    spy.mockRestore();
    err.mockRestore();
  }
  return out;
}

describe('spread history / rollback / list / delete (CLI definitions)', () => {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'spread-mcli-')), 'cfg');
  beforeAll(async () => {
    await kubectl([...ctx, 'create', 'namespace', ns]);
    mkdirSync(path.join(dir, '.k2e'), { recursive: true });
    for (const value of ['a', 'b']) {
      writeFileSync(
        path.join(dir, '.k2e', 'cm.yaml'),
        `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {v: ${value}}\n`,
      );
      await deploy({
        path: dir,
        kubeconfig: { paths: [kubeconfigPath()] },
        context: 'spread-local',
        namespace: ns,
        mode: 'deploy',
        wait: true,
        timeoutMs: 60_000,
        forceConflicts: false,
        prune: true,
        concurrency: 4,
        commit: `commit-${value}`,
        logger: silentLogger,
      });
    }
  });
  afterAll(async () => {
    await kubectl([...ctx, 'delete', 'namespace', ns, '--wait=false'], { allowFail: true });
  });

  test('history (text and json), rollback, list, delete', async () => {
    const text = await cli('history', 'cfg', 'spread-local', '-n', ns);
    expect(text).toMatch(/REVISION\s+TIME\s+STATUS\s+COMMIT/);
    expect(text).toMatch(/^2\*\s+\S+\s+deployed\s+commit-b\s+1 /m);
    const json = JSON.parse(await cli('history', 'cfg', 'spread-local', '-n', ns, '-o', 'json'));
    expect(json.current).toBe(2);

    // The Lease is deleted when the rollback ends: a watch from the resourceVersion before it (so
    // it misses nothing however late it connects) sees the one it held.
    const leases = `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`;
    const from = JSON.parse((await kubectl([...ctx, 'get', '--raw', leases])).stdout).metadata
      .resourceVersion;
    const watch = spawn(process.env.SPREAD_KUBECTL ?? 'kubectl', [
      ...ctx,
      'get',
      '--raw',
      `${leases}?watch=1&resourceVersion=${from}&fieldSelector=metadata.name%3Dspread.cfg`,
    ]);
    let events = '';
    watch.stdout.on('data', (d) => (events += d));
    const durations = () =>
      events
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).object.spec.leaseDurationSeconds);
    try {
      const rolled = await cli(
        'rollback',
        'cfg',
        '1',
        'spread-local',
        '-n',
        ns,
        '--lock-lease-duration',
        '50s',
      );
      expect(rolled).toMatch(/Rolled back to revision 1 \(now revision 3\)/);
      await vi.waitFor(() => expect(durations()).toContain(50), { timeout: 10_000 });
      expect(durations()).not.toContain(30);
    } finally {
      watch.kill();
    }
    expect((await kubectl([...ctx, '-n', ns, 'get', 'cm', 'cfg', '-o', 'jsonpath={.data.v}'])).stdout).toBe(
      'a',
    );

    const listed = await cli('list', 'spread-local', '-n', ns);
    expect(listed).toMatch(new RegExp(`${ns}\\s+cfg\\s+3\\s+\\d+s\\s+1\\s+ready`));

    const deleted = await cli('delete', 'cfg', 'spread-local', '-n', ns, '-o', 'json');
    expect(JSON.parse(deleted)).toMatchObject({
      deployment: 'cfg',
      revisions: 3,
      objects: [{ kind: 'ConfigMap', name: 'cfg' }],
    });
    expect(await cli('list', 'spread-local', '-n', ns)).toBe('No spread deployments found.\n');
  });
});

describe('spread status (the built CLI): exit 0 in sync, 2 differs, 1 error', () => {
  const sns = uniqueName('itg-status');
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'spread-status-')), 'st');
  const write = (data: string, extra = '') =>
    writeFileSync(
      path.join(dir, '.k2e', 'cm.yaml'),
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: st}\ndata: {v: "${data}"}\n${extra}`,
    );
  const statusCode = async () =>
    (await runNode('dist/cli/index.js', ['status', dir, '--context', 'spread-local', '-n', sns])).code;
  beforeAll(async () => {
    await kubectl([...ctx, 'create', 'namespace', sns]);
    mkdirSync(path.join(dir, '.k2e'), { recursive: true });
    write('a');
    await deploy({
      path: dir,
      kubeconfig: { paths: [kubeconfigPath()] },
      context: 'spread-local',
      namespace: sns,
      mode: 'deploy',
      wait: false,
      timeoutMs: 60_000,
      forceConflicts: false,
      prune: true,
      concurrency: 4,
      logger: silentLogger,
    });
  });
  afterAll(async () => {
    await kubectl([...ctx, 'delete', 'namespace', sns, '--wait=false'], { allowFail: true });
  });

  test('in sync, then a value another manager changed, a changed value, an object the server rejects', async () => {
    expect(await statusCode()).toBe(0);
    await kubectl([
      ...ctx,
      '-n',
      sns,
      'patch',
      'configmap',
      'st',
      '--type',
      'merge',
      '-p',
      '{"data":{"v":"z"}}',
    ]);
    const drift = await runNode('dist/cli/index.js', [
      'status',
      dir,
      '--context',
      'spread-local',
      '-n',
      sns,
      '-o',
      'json',
    ]);
    expect(drift.code).toBe(2);
    const object = JSON.parse(drift.stdout).root.objects[0];
    expect(object).toMatchObject({
      state: 'differs',
      changes: [{ op: 'change', path: 'data.v', before: '"z"', after: '"a"' }],
    });
    expect(object.message).toContain('--force-conflicts');
    write('b');
    expect(await statusCode()).toBe(2);
    write(
      'a',
      '---\napiVersion: v1\nkind: Service\nmetadata: {name: bad}\nspec:\n  ports: [{port: 99999}]\n',
    );
    expect(await statusCode()).toBe(1);
  });
});

describe('spread status and what a deploy keeps', () => {
  const kns = uniqueName('itg-statuskeep');
  const group = `${uniqueName('sk')}.example.com`;
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'spread-statuskeep-')), 'sk');
  const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.${group}}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`;
  const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: sk}\ndata: {a: b}\n';
  const deployDir = () =>
    deploy({
      path: dir,
      kubeconfig: { paths: [kubeconfigPath()] },
      context: 'spread-local',
      namespace: kns,
      mode: 'deploy',
      wait: false,
      timeoutMs: 60_000,
      forceConflicts: false,
      prune: true,
      concurrency: 4,
      logger: silentLogger,
    });
  beforeAll(async () => {
    await kubectl([...ctx, 'create', 'namespace', kns]);
    mkdirSync(path.join(dir, '.k2e'), { recursive: true });
  });
  afterAll(async () => {
    await kubectl([...ctx, 'delete', 'namespace', kns, '--wait=false'], { allowFail: true });
    await kubectl([...ctx, 'delete', 'crd', `gadgets.${group}`, '--wait=false'], { allowFail: true });
  });

  test('a CRD dropped and kept is listed as kept, and is no difference (exit 0)', async () => {
    writeFileSync(path.join(dir, '.k2e', 'crd.yaml'), crd);
    writeFileSync(path.join(dir, '.k2e', 'cm.yaml'), cm);
    await deployDir();
    rmSync(path.join(dir, '.k2e', 'crd.yaml'));
    await deployDir();
    const r = await runNode('dist/cli/index.js', ['status', dir, '--context', 'spread-local', '-n', kns]);
    expect(r.stdout).toContain('In the cluster, dropped from the directory, and kept by deploy:');
    expect(r.stdout).toMatch(
      new RegExp(
        `CustomResourceDefinition gadgets\\.${group.replace(/\./g, '\\.')} .*\\(a CRD is pruned only when asked for`,
      ),
    );
    expect(r.stdout).not.toContain('deploy prunes them');
    expect(r.code).toBe(0);
  });
});
