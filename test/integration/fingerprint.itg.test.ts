// Fingerprints of applied states (src/cluster/fingerprint.ts) on the local cluster: an object left as the
// last completed deploy applied it is planned unchanged without a dry run, and anything that changed it
// since (another field manager, spread's own rollback) brings the dry run back. Requests are counted in
// the API server's audit log (scripts/cluster/audit-policy.yaml).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/base/logger.js';
import { deploy } from '../../src/frontend/deploy.js';
import { rollback } from '../../src/frontend/manage.js';
import type { DeployReport } from '../../src/report/report.js';
import { clusterDir } from './env.js';
import { needs } from './harness.js';
import { kubeconfigPath, kubectl, localDeploy, uniqueName, writeDir } from './helpers.js';

const ns = uniqueName('itg-prints');
const ctx = ['--context', 'spread-local', '-n', ns];
const AUDIT = path.join(clusterDir(), 'logs/audit.log');
const CONFIG_MAPS = 10;

function configMaps(version: string, cm5Label?: string): string {
  return Array.from({ length: CONFIG_MAPS }, (_, i) =>
    [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      `  name: cm-${i}`,
      ...(i === 5 && cm5Label ? ['  labels:', `    team: ${cm5Label}`] : []),
      'data:',
      `  value: "${i === 0 ? version : 'fixed'}"`,
    ].join('\n'),
  ).join('\n---\n');
}

// A Secret written with stringData: spread applies it as data (what the server stores), so it gets a
// fingerprint like any other object.
const SECRET = [
  'apiVersion: v1',
  'kind: Secret',
  'metadata:',
  '  name: db',
  'stringData:',
  '  password: "p1"',
  '',
].join('\n');
const OBJECTS = CONFIG_MAPS + 2;

const root = writeDir('shop', {
  '.k2e/config.yaml': configMaps('v1'),
  '.k2e/secret.yaml': SECRET,
  'web.ctr': ['name: web', 'image: registry.k8s.io/pause:3.10', ''].join('\n'),
});
const options = () => localDeploy(root, ns, { wait: false });

/**
 * Runs `fn` and counts the dry-run requests to the test's namespace it made (from the audit log); also
 * lists spread's other writes there (`verb path`), the deploy Lease's left out.
 */
async function countingDryRuns<T>(
  fn: () => Promise<T>,
): Promise<{ result: T; dryRuns: number; writes: string[] }> {
  const before = readFileSync(AUDIT, 'utf8').length;
  const result = await fn();
  // The audit backend writes each event before the response is sent (blocking mode).
  const lines = readFileSync(AUDIT, 'utf8').slice(before).split('\n');
  const dryRuns = lines.filter(
    (l) => l.includes(`"namespace":"${ns}"`) && /"requestURI":"[^"]*dryRun=All/.test(l),
  ).length;
  const writes = lines
    .filter((l) => l.includes(`"namespace":"${ns}"`))
    .map((l) => JSON.parse(l) as { verb: string; requestURI: string; userAgent?: string })
    .filter(
      (e) =>
        e.userAgent === 'spread' &&
        ['create', 'update', 'patch', 'delete'].includes(e.verb) &&
        !e.requestURI.includes('dryRun='),
    )
    .map((e) => `${e.verb} ${e.requestURI.split('?')[0]}`)
    .filter((w) => !w.includes('/leases'));
  return { result, dryRuns, writes };
}

const actions = (r: DeployReport) =>
  Object.fromEntries(r.objects.map((o) => [`${o.kind}/${o.name}`, o.action]));

async function fingerprintsInParent(): Promise<string[]> {
  const parent = JSON.parse((await kubectl([...ctx, 'get', 'secret', 'spread.shop', '-o', 'json'])).stdout);
  const data = parent.data?.fingerprints as string | undefined;
  if (data === undefined) throw new Error('the parent has no data.fingerprints');
  return data === '' ? [] : Buffer.from(data, 'base64').toString('utf8').split('\n');
}

async function resourceVersions(): Promise<Record<string, string>> {
  const list = JSON.parse(
    (await kubectl([...ctx, 'get', 'configmaps,deployments,secrets', '-o', 'json'])).stdout,
  );
  return Object.fromEntries(
    (list.items as { kind: string; metadata: { name: string; resourceVersion: string } }[]).map((o) => [
      `${o.kind}/${o.metadata.name}`,
      o.metadata.resourceVersion,
    ]),
  );
}

describe('a plan skips the dry run of objects left as the last deploy applied them', needs('audit'), () => {
  beforeAll(async () => {
    await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
  });
  afterAll(async () => {
    await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
      allowFail: true,
    });
  });

  test('the first deploy dry-runs every object and records one fingerprint per object in the parent', async () => {
    const { result, dryRuns } = await countingDryRuns(() => deploy(options()));
    expect(result.objects).toHaveLength(OBJECTS);
    expect(dryRuns).toBe(OBJECTS);
    const prints = await fingerprintsInParent();
    expect(prints).toHaveLength(OBJECTS);
    for (const p of prints) expect(p).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  test('a no-op deploy: no dry run (the Secret included), no write (the parent included)', async () => {
    // Status updates of the controllers and another manager's label do not count.
    await kubectl([...ctx, 'label', 'deployment', 'shop', 'team=web']);
    const before = await resourceVersions();
    const { result, dryRuns, writes } = await countingDryRuns(() => deploy(options()));
    expect(new Set(Object.values(actions(result)))).toEqual(new Set(['unchanged']));
    expect(dryRuns).toBe(0);
    // Not even an apply of the parent that would change nothing.
    expect(writes).toEqual([]);
    const after = await resourceVersions();
    for (const key of Object.keys(before))
      if (!key.startsWith('Deployment/')) expect(after[key], key).toBe(before[key]);
  });

  test('a field another manager changed: that object alone is dry-run, and conflicts', async () => {
    await kubectl([
      ...ctx,
      'patch',
      'configmap',
      'cm-3',
      '--type',
      'merge',
      '-p',
      '{"data":{"value":"drift"}}',
    ]);
    const refused = await countingDryRuns(() => deploy(options()).catch((e: Error) => e));
    expect(refused.dryRuns).toBe(1);
    expect(String(refused.result)).toMatch(/cm-3 .*conflict with "kubectl-patch"/);
    const { result, dryRuns } = await countingDryRuns(() => deploy({ ...options(), forceConflicts: true }));
    expect(dryRuns).toBe(1);
    expect(actions(result)['ConfigMap/cm-3']).toBe('configured');
    expect(Object.values(actions(result)).filter((a) => a !== 'unchanged')).toHaveLength(1);
    const cm = JSON.parse((await kubectl([...ctx, 'get', 'configmap', 'cm-3', '-o', 'json'])).stdout);
    expect(cm.data.value).toBe('fixed');
  });

  test('a changed file: only its objects are dry-run', async () => {
    writeFileSync(path.join(root, '.k2e/config.yaml'), configMaps('v2'));
    const { result, dryRuns } = await countingDryRuns(() => deploy(options()));
    expect(dryRuns).toBe(1);
    expect(actions(result)['ConfigMap/cm-0']).toBe('configured');
  });

  test("a Secret's data changed by another manager: that Secret alone is dry-run, and conflicts", async () => {
    await kubectl([
      ...ctx,
      'patch',
      'secret',
      'db',
      '--type',
      'merge',
      '-p',
      '{"data":{"password":"ZWRpdGVk"}}',
    ]);
    const password = async () =>
      Buffer.from(
        JSON.parse((await kubectl([...ctx, 'get', 'secret', 'db', '-o', 'json'])).stdout).data.password,
        'base64',
      ).toString();
    const refused = await countingDryRuns(() => deploy(options()).catch((e: Error) => e));
    expect(refused.dryRuns).toBe(1);
    expect(String(refused.result)).toMatch(/Secret .*db .*conflict with "kubectl-patch"/);
    expect(String(refused.result)).not.toContain('ZWRpdGVk');
    expect(await password()).toBe('edited');
    const { result, dryRuns } = await countingDryRuns(() => deploy({ ...options(), forceConflicts: true }));
    expect(dryRuns).toBe(1);
    expect(actions(result)['Secret/db']).toBe('configured');
    expect(await password()).toBe('p1');
  });

  test('a Secret an earlier spread applied with stringData is applied once more as data, then fingerprinted', async () => {
    // What spread before 0.x left: its Apply entry owns stringData.password, not data.password.
    const live = JSON.parse((await kubectl([...ctx, 'get', 'secret', 'db', '-o', 'json'])).stdout);
    const older = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'db',
        namespace: ns,
        labels: live.metadata.labels,
        annotations: live.metadata.annotations,
      },
      stringData: { password: 'p1' },
    };
    await kubectl([...ctx, 'apply', '--server-side', '--field-manager', 'spread', '-f', '-'], {
      input: JSON.stringify(older),
    });
    const fields = async () =>
      JSON.stringify(
        JSON.parse(
          (await kubectl([...ctx, 'get', 'secret', 'db', '-o', 'json', '--show-managed-fields'])).stdout,
        ).metadata.managedFields.filter((e: { manager: string }) => e.manager === 'spread'),
      );
    expect(await fields()).toContain('f:stringData');
    const once = await countingDryRuns(() => deploy(options()));
    expect(once.dryRuns).toBe(1);
    expect(actions(once.result)['Secret/db']).toBe('configured');
    expect(await fields()).not.toContain('f:stringData');
    expect(await fields()).toContain('"f:password"');
    const again = await countingDryRuns(() => deploy(options()));
    expect(again.dryRuns).toBe(0);
    expect(actions(again.result)['Secret/db']).toBe('unchanged');
  });

  test('a value spread now sets but another manager owns gets no fingerprint, so its later change still conflicts', async () => {
    await kubectl([...ctx, 'label', 'configmap', 'cm-5', 'team=a']);
    writeFileSync(path.join(root, '.k2e/config.yaml'), configMaps('v2', 'a'));
    // The same value: the dry run changes nothing but ownership, and nothing is written.
    const same = await countingDryRuns(() => deploy(options()));
    expect(actions(same.result)['ConfigMap/cm-5']).toBe('unchanged');
    await kubectl([...ctx, 'label', '--overwrite', 'configmap', 'cm-5', 'team=b']);
    const refused = await countingDryRuns(() => deploy(options()).catch((e: Error) => e));
    expect(refused.dryRuns).toBe(1);
    expect(String(refused.result)).toMatch(/cm-5 .*conflict with "kubectl-label"/);
    const forced = await deploy({ ...options(), forceConflicts: true });
    expect(actions(forced)['ConfigMap/cm-5']).toBe('configured');
  });

  test('spread plan dry-runs every object, fingerprints or not', async () => {
    const { dryRuns } = await countingDryRuns(() => deploy({ ...options(), mode: 'plan' }));
    expect(dryRuns).toBe(OBJECTS);
  });

  test("spread's own rollback clears the fingerprints, so deploying v2 again applies it", async () => {
    const back = await rollback('shop', 1, {
      kubeconfig: { paths: [kubeconfigPath()] },
      context: 'spread-local',
      namespace: ns,
      timeoutMs: 60_000,
      logger: silentLogger,
    });
    expect(back.rolledBackTo).toBeDefined();
    const cm0 = async () =>
      JSON.parse((await kubectl([...ctx, 'get', 'configmap', 'cm-0', '-o', 'json'])).stdout).data.value;
    expect(await cm0()).toBe('v1');
    expect(await fingerprintsInParent()).toEqual([]);
    const { result, dryRuns } = await countingDryRuns(() => deploy(options()));
    expect(actions(result)['ConfigMap/cm-0']).toBe('configured');
    expect(await cm0()).toBe('v2');
    expect(dryRuns).toBe(OBJECTS);
    expect(await fingerprintsInParent()).toHaveLength(OBJECTS);
  });
});

describe('the deploy annotations another manager owns (an object re-created from an export)', () => {
  const ns2 = uniqueName('itg-annot');
  const ctx2 = ['--context', 'spread-local', '-n', ns2];
  const dir = writeDir('annotated', {
    '.k2e/x.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: "1"\n',
  });
  const at = (time: string) => ({ annotations: { 'spread.rsprd.com/deployed-at': time } });
  beforeAll(async () => {
    await kubectl(['--context', 'spread-local', 'create', 'namespace', ns2]);
  });
  afterAll(async () => {
    await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns2, '--wait=false'], {
      allowFail: true,
    });
  });

  test('conflict in the plan, nothing written; --force-conflicts takes the annotation over', async () => {
    await deploy(localDeploy(dir, ns2, { wait: false, ...at('2026-11-30T10:00:00Z') }));
    const exported = JSON.parse((await kubectl([...ctx2, 'get', 'configmap', 'x', '-o', 'json'])).stdout);
    delete exported.metadata.uid;
    delete exported.metadata.resourceVersion;
    delete exported.metadata.creationTimestamp;
    delete exported.metadata.managedFields;
    await kubectl([...ctx2, 'delete', 'configmap', 'x']);
    await kubectl([...ctx2, 'create', '-f', '-'], { input: JSON.stringify(exported) });
    // The directory is unchanged: its values pass the dry run (shared with kubectl-create), and the
    // deploy must take spread's ownership back, with a new deployed-at, which kubectl-create owns.
    const refused = await deploy(localDeploy(dir, ns2, { wait: false, ...at('2026-11-30T11:00:00Z') })).catch(
      (e: Error) => e,
    );
    expect(String(refused)).toMatch(
      /nothing was written[\s\S]*conflict with "kubectl-create": it owns the annotation spread\.rsprd\.com\/deployed-at/,
    );
    const deployedAt = async () =>
      JSON.parse((await kubectl([...ctx2, 'get', 'configmap', 'x', '-o', 'json'])).stdout).metadata
        .annotations['spread.rsprd.com/deployed-at'];
    expect(await deployedAt()).toBe('2026-11-30T10:00:00Z');
    const forced = await deploy(
      localDeploy(dir, ns2, { wait: false, forceConflicts: true, ...at('2026-11-30T12:00:00Z') }),
    );
    expect(actions(forced)['ConfigMap/x']).toBe('configured');
    expect(await deployedAt()).toBe('2026-11-30T12:00:00Z');
  });
});
