// Whole deploys (read, plan, apply, prune, revision, wait, rollback, delete) of a small directory
// against the in-memory API server (test/unit/engine/fake-cluster.ts): the deploy's data flow checked
// in seconds, without a cluster. The integration suite keeps what only a real API server shows.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { silentLogger } from '../../../src/base/logger.js';
import { KubeApiError } from '../../../src/cluster/client.js';
import { Discovery } from '../../../src/cluster/discovery.js';
import { deletes } from '../../../src/core/delete.js';
import {
  type DeployCluster,
  DeployError,
  type DeployOptions,
  deploy,
} from '../../../src/core/deploy/index.js';
import { legError } from '../../../src/core/fleet/index.js';
import { rollback } from '../../../src/core/manage.js';
import { status } from '../../../src/core/status.js';
import { formatReportText } from '../../../src/report/report.js';
import { FakeCluster } from '../engine/fake-cluster.js';

const NS = 'shop';
const deployment = (image: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: ${image}}]}
`;
const configMap = (name: string, value: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: {greeting: ${value}}\n`;

let dir: string;
let kube: FakeCluster;
/** The fake as a front end hands it to core: the API, its discovery, the context and its namespace. */
let cluster: DeployCluster;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'spread-whole-'));
  mkdirSync(path.join(dir, 'shop', '.k2e'), { recursive: true });
  kube = new FakeCluster();
  kube.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  cluster = { api: kube, discovery: await Discovery.load(kube), context: 'fake', namespace: NS };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Writes the directory `shop`: the Deployment web and the ConfigMaps given (name → value). */
function write(image: string, configs: Record<string, string>): void {
  const root = path.join(dir, 'shop');
  writeFileSync(path.join(root, 'deployment.yaml'), deployment(image));
  rmSync(path.join(root, '.k2e'), { recursive: true, force: true });
  mkdirSync(path.join(root, '.k2e'));
  for (const [name, value] of Object.entries(configs))
    writeFileSync(path.join(root, '.k2e', `${name}.yaml`), configMap(name, value));
}

function options(extra: Partial<DeployOptions> = {}): DeployOptions {
  return {
    path: path.join(dir, 'shop'),
    mode: 'deploy',
    wait: true,
    timeoutMs: 5_000,
    forceConflicts: false,
    concurrency: 4,
    prune: true,
    logger: silentLogger,
    cluster,
    lockTimeoutMs: 1_000,
    ...extra,
  };
}

const actions = (r: { objects: readonly { kind: string; name: string; action: string }[] }) =>
  Object.fromEntries(r.objects.map((o) => [`${o.kind}/${o.name}`, o.action]));
const writes = () => kube.log.filter((l) => /^(PATCH|POST|PUT|DELETE) (?!dry)/.test(l));

describe('a whole deploy against the in-memory API server', () => {
  test('create: every object applied, the rollout waited for, revision 1 recorded, the lock released', async () => {
    write('nginx:1.27', { settings: 'hello', extra: 'x' });
    const report = await deploy(options());
    expect(actions(report)).toEqual({
      'ConfigMap/extra': 'created',
      'ConfigMap/settings': 'created',
      'Deployment/web': 'created',
    });
    expect(report.revision).toBe(1);
    expect(report.rollout.map((r) => [r.kind, r.name, r.ready])).toEqual([['Deployment', 'web', true]]);
    expect(kube.get('ConfigMap', NS, 'settings')?.data).toEqual({ greeting: 'hello' });
    expect(kube.get('Deployment', NS, 'web')?.metadata.labels?.['applyset.kubernetes.io/part-of']).toMatch(
      /^applyset-/,
    );
    // The deploy lock: taken before the first write, deleted at the end.
    const lease = '/apis/coordination.k8s.io/v1/namespaces/shop/leases';
    expect(kube.log.indexOf(`POST ${lease}`)).toBeLessThan(
      kube.log.indexOf('PATCH /api/v1/namespaces/shop/configmaps/extra'),
    );
    expect(kube.log.at(-1)).toBe(`DELETE ${lease}/spread.shop`);
    expect(kube.get('Lease', NS, 'spread.shop')).toBeUndefined();
    // The revision, and the parent naming it.
    expect(kube.get('Secret', NS, 'spread.shop.v1')).toBeDefined();
    expect(kube.watchers).toBe(0);
  });

  test('change: only the changed object is written, the others are left alone', async () => {
    write('nginx:1.27', { settings: 'hello', extra: 'x' });
    await deploy(options());
    const web = kube.get('Deployment', NS, 'web');
    kube.log.length = 0;
    write('nginx:1.27', { settings: 'bonjour', extra: 'x' });
    const report = await deploy(options());
    expect(actions(report)).toEqual({
      'ConfigMap/extra': 'unchanged',
      'ConfigMap/settings': 'configured',
      'Deployment/web': 'unchanged',
    });
    expect(report.revision).toBe(2);
    expect(kube.get('ConfigMap', NS, 'settings')?.data).toEqual({ greeting: 'bonjour' });
    // The unchanged objects are not written at all, so the Deployment is the same object.
    const written = writes().filter((l) => !/secrets|leases/.test(l));
    expect(written).toEqual(['PATCH /api/v1/namespaces/shop/configmaps/settings']);
    expect(kube.get('Deployment', NS, 'web')?.metadata.resourceVersion).toBe(web?.metadata.resourceVersion);
  });

  test('prune: the object the directory dropped is deleted, nothing else', async () => {
    write('nginx:1.27', { settings: 'hello', extra: 'x' });
    await deploy(options());
    kube.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'by-hand', namespace: NS } });
    kube.log.length = 0;
    write('nginx:1.27', { settings: 'hello' });
    const report = await deploy(options());
    expect(actions(report)).toMatchObject({ 'ConfigMap/extra': 'pruned', 'ConfigMap/settings': 'unchanged' });
    expect(kube.get('ConfigMap', NS, 'extra')).toBeUndefined();
    expect(kube.get('ConfigMap', NS, 'by-hand')).toBeDefined();
    expect(writes().filter((l) => l.startsWith('DELETE') && !/leases/.test(l))).toEqual([
      'DELETE /api/v1/namespaces/shop/configmaps/extra',
    ]);
  });

  test('prune does not list again a collection the plan listed without a candidate; one with a candidate it does', async () => {
    // Ten ConfigMaps: the plan reads them with one LIST (LIST_THRESHOLD), the Deployment with a GET.
    const many = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`c${i}`, 'v']));
    write('nginx:1.27', { ...many, extra: 'x' });
    await deploy(options());
    kube.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'by-hand', namespace: NS } });
    /** Each LIST of the set's members (the part-of label selector), and where it came in the log. */
    const memberLists: string[] = [];
    kube.refuse = (req) => {
      if (String(req.query?.labelSelector ?? '').startsWith('applyset.kubernetes.io/part-of='))
        memberLists.push(`${kube.log.length - 1} ${req.path}`);
      return undefined;
    };
    // A change, nothing dropped: the ConfigMaps' collection holds no candidate, so only the
    // Deployment's (read with a GET) is listed.
    write('nginx:1.27', { ...many, extra: 'x', c0: 'changed' });
    expect(actions(await deploy(options()))).toMatchObject({ 'ConfigMap/c0': 'configured' });
    expect(memberLists.map((l) => l.split(' ')[1])).toEqual(['/apis/apps/v1/namespaces/shop/deployments']);
    // `extra` dropped: its collection is listed again after the apply, and the prune decided on that.
    memberLists.length = 0;
    kube.log.length = 0;
    write('nginx:1.27', { ...many, c0: 'changed' });
    const report = await deploy(options());
    expect(actions(report)).toMatchObject({ 'ConfigMap/extra': 'pruned', 'ConfigMap/c0': 'unchanged' });
    expect(kube.get('ConfigMap', NS, 'extra')).toBeUndefined();
    expect(kube.get('ConfigMap', NS, 'by-hand')).toBeDefined();
    expect(memberLists.map((l) => l.split(' ')[1]).sort()).toEqual([
      '/api/v1/namespaces/shop/configmaps',
      '/apis/apps/v1/namespaces/shop/deployments',
    ]);
    const planList = kube.log.indexOf('GET /api/v1/namespaces/shop/configmaps');
    expect(planList).toBeGreaterThanOrEqual(0);
    for (const l of memberLists) expect(Number(l.split(' ')[0])).toBeGreaterThan(planList);
  });

  test('rollback: the previous revision applied again, recorded as a new revision', async () => {
    write('nginx:1.27', { settings: 'hello' });
    await deploy(options());
    write('nginx:1.28', { settings: 'hello', extra: 'x' });
    await deploy(options());
    expect(image()).toBe('nginx:1.28');
    const report = await rollback('shop', undefined, {
      logger: silentLogger,
      cluster,
      timeoutMs: 5_000,
    });
    expect(report.rolledBackTo).toBe(1);
    expect(report.revision).toBe(3);
    expect(image()).toBe('nginx:1.27');
    // What revision 1 did not hold is pruned; the Deployment's new template is a new generation.
    expect(kube.get('ConfigMap', NS, 'extra')).toBeUndefined();
    expect(kube.get('Deployment', NS, 'web')?.metadata).toMatchObject({ generation: 3 });
    expect(report.rollout.map((r) => r.ready)).toEqual([true]);
  });

  test('failed rollout: the deploy fails as the CLI reports it, the revision is recorded as failed', async () => {
    write('nginx:1.27', { settings: 'hello' });
    await deploy(options());
    kube.rollout = 'stuck';
    write('nginx:1.28', { settings: 'hello' });
    const failed = await deploy(options()).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(DeployError);
    const report = (failed as DeployError).report;
    expect(report.rollout).toMatchObject([{ kind: 'Deployment', name: 'web', ready: false }]);
    expect(report.rollout[0]?.message).toMatch(/progress deadline exceeded/);
    expect((failed as Error).message).toMatch(/web/);
    expect(report.revision).toBe(2);
    expect(report.rolledBackTo).toBeUndefined();
    // Said as failed, not as deployed.
    expect(report.failedIn).toBe('rollout');
    expect(formatReportText(report).split('\n')[0]).toBe(
      'Deploy of shop to namespace shop (context fake) FAILED in the rollout:',
    );
    expect(image()).toBe('nginx:1.28');
    expect(kube.get('Lease', NS, 'spread.shop')).toBeUndefined();
  });

  test('failed rollout with rollback on failure: the last good revision is applied again', async () => {
    write('nginx:1.27', { settings: 'hello' });
    await deploy(options());
    // nginx:1.28 never becomes available; 1.27 does.
    kube.rollout = () => (image() === 'nginx:1.28' ? 'stuck' : 'available');
    write('nginx:1.28', { settings: 'hello' });
    const failed = await deploy(options({ rollbackOnFailure: true })).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(DeployError);
    expect((failed as DeployError).report.rolledBackTo).toBe(1);
    expect(image()).toBe('nginx:1.27');
    expect(kube.get('Deployment', NS, 'web')?.status).toMatchObject({
      availableReplicas: 2,
      observedGeneration: 3,
    });
  });

  test('interrupt: an abort during the apply releases the lock and prunes nothing', async () => {
    write('nginx:1.27', { settings: 'hello', extra: 'x' });
    await deploy(options());
    write('nginx:1.28', { settings: 'hello' });
    const interrupt = new AbortController();
    kube.refuse = (req) => {
      // The abort comes as the Deployment is written (a SIGTERM of the CI runner).
      if (req.method === 'PATCH' && req.query?.dryRun === undefined && req.path.endsWith('/deployments/web'))
        interrupt.abort(new Error('interrupted'));
      return undefined;
    };
    const failed = await deploy(options({ signal: interrupt.signal })).catch((e: unknown) => e);
    expect((failed as Error).message).toMatch(/nothing was pruned:\n.*shop\/web.*: interrupted/);
    expect(kube.get('ConfigMap', NS, 'extra')).toBeDefined();
    expect(kube.log.filter((l) => l.startsWith('DELETE') && !/leases/.test(l))).toEqual([]);
    expect(kube.log.at(-1)).toBe('DELETE /apis/coordination.k8s.io/v1/namespaces/shop/leases/spread.shop');
    expect(kube.get('Lease', NS, 'spread.shop')).toBeUndefined();
    expect(kube.watchers).toBe(0);
  });

  test("the API server fails a rollback's rollout wait: the error says what the rollback applied and pruned", async () => {
    write('nginx:1.27', { settings: 'hello' });
    await deploy(options());
    write('nginx:1.28', { settings: 'hello', extra: 'x' });
    await deploy(options());
    kube.refuse = (req) =>
      req.query?.watch ? new KubeApiError(400, '', undefined as never, 'the watch was refused') : undefined;
    const failed = (await rollback('shop', undefined, {
      logger: silentLogger,
      cluster,
      timeoutMs: 5_000,
    }).catch((e: unknown) => e)) as Error;
    expect(failed.message).toBe(
      "the watch was refused while waiting for the rollback's rollout: all 2 object(s) were applied (0 created, 1 configured, 1 unchanged) and 1 pruned; the rollout was not seen finished and the rollback was not recorded (roll back again to record it)",
    );
    expect(image()).toBe('nginx:1.27');
    expect(kube.get('Lease', NS, 'spread.shop')).toBeUndefined();
    kube.refuse = undefined;
    // Rolled back again, it is recorded.
    const again = await rollback('shop', 1, { logger: silentLogger, cluster, timeoutMs: 5_000 });
    expect(again.revision).toBe(3);
  });

  test('the API server fails the rollout wait: the error says every object was applied, and prunes were done', async () => {
    write('nginx:1.27', { settings: 'hello', extra: 'x' });
    await deploy(options());
    write('nginx:1.28', { settings: 'hello' });
    // The wait's watches refused (a 429 or 5xx is waited out, as client-go's reflector does; any
    // other refusal ends the wait).
    kube.refuse = (req) =>
      req.query?.watch ? new KubeApiError(400, '', undefined as never, 'the watch was refused') : undefined;
    const failed = (await deploy(options()).catch((e: unknown) => e)) as Error;
    expect(failed.message).toMatch(
      /^the watch was refused while waiting for the rollout: all 2 object\(s\) were applied \(0 created, 1 configured, 1 unchanged\) and 1 pruned; the rollout was not seen finished and no revision was recorded/,
    );
    expect(failed.message).not.toMatch(/nothing was applied/);
    expect(kube.get('Lease', NS, 'spread.shop')).toBeUndefined();
    kube.refuse = undefined;
    // The next deploy changes nothing and records the revision.
    const again = await deploy(options());
    expect(actions(again)).not.toContain('configured');
    expect(again.revision).toBe(2);
  });

  test('the cluster stops answering during the rollout wait: the deploy fails once the watches give up, not at the timeout, saying what was applied', async () => {
    write('nginx:1.27', { settings: 'hello', extra: 'x' });
    await deploy(options());
    write('nginx:1.28', { settings: 'hello' });
    // The new rollout never finishes by itself; the watches give up after 300 ms without a success.
    kube.rollout = 'none';
    kube.maxRetryTimeMs = 300;
    const started = Date.now();
    const failing = deploy(options({ timeoutMs: 60_000 })).then(
      (): Error & { code?: string } => new Error('deployed'),
      (e: unknown) => e as Error & { code?: string },
    );
    // Once the wait watches the Deployment, its pods and ReplicaSets: every connection reset.
    while (kube.watchers < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    const reset = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    kube.refuse = () => reset();
    kube.breakWatches(reset());
    const failed = await failing;
    expect(failed.message).toMatch(
      /^gave up after \d+ tries, last ECONNRESET: read ECONNRESET; the cluster stopped answering while waiting for the rollout: all 2 object\(s\) were applied \(0 created, 1 configured, 1 unchanged\) and 1 pruned; the rollout was not seen finished and no revision was recorded \(the next deploy records it\)$/,
    );
    // Its class and code kept: a fleet names the cluster lost (legError).
    expect(failed.code).toBe('ECONNRESET');
    expect(legError(failed, 'eu-2', 'fake')).toMatch(
      /^cluster eu-2 \(context fake\) became unreachable mid-deploy: gave up after \d+ tries, last ECONNRESET: .*; its deploy Lease expires by itself/,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(kube.watchers).toBe(0);
  });

  test('pods and ReplicaSets out of reach only enrich the wait: the deploy finishes, and their informers stop with it', async () => {
    write('nginx:1.27', { settings: 'hello' });
    const podsOrReplicaSets = /\/(pods|replicasets)$/;
    kube.refuse = (req) =>
      podsOrReplicaSets.test(req.path)
        ? Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })
        : undefined;
    const report = await deploy(options());
    expect(report.rollout.map((r) => r.ready)).toEqual([true]);
    const tries = () => kube.log.filter((l) => podsOrReplicaSets.test(l)).length;
    const sent = tries();
    expect(sent).toBeGreaterThan(0);
    // Within the retry budget, they would be tried again after 0.4 s, then 0.8 s.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(tries()).toBe(sent);
    expect(kube.watchers).toBe(0);
  });

  test("the API server fails the prune's list after every object was applied: the error says they were", async () => {
    write('nginx:1.27', { settings: 'hello', extra: 'x' });
    await deploy(options());
    write('nginx:1.28', { settings: 'hello' });
    // A 400 (not retried) to the prune's list of ConfigMaps: every object is applied by then.
    kube.refuse = (req) =>
      req.method === 'GET' &&
      !req.query?.watch &&
      req.path.endsWith('/configmaps') &&
      kube.log.some((l) => /^PATCH .*deployments\/web$/.test(l))
        ? new KubeApiError(400, '', undefined as never, 'the list was refused')
        : undefined;
    const failed = (await deploy(options()).catch((e: unknown) => e)) as Error;
    expect(failed.message).toMatch(
      /^the list was refused; 2 object\(s\) were applied before it, the prune and the parent's update may not have finished \(deploy again to converge\)/,
    );
    expect(failed.message).not.toMatch(/nothing was applied/);
    expect(kube.get('ConfigMap', NS, 'extra')).toBeDefined();
    kube.refuse = undefined;
    const again = await deploy(options());
    expect(kube.get('ConfigMap', NS, 'extra')).toBeUndefined();
    expect(again.revision).toBe(2);
  });

  test('delete: every object of the deployment, its revisions and its parent; the namespace stays', async () => {
    write('nginx:1.27', { settings: 'hello', extra: 'x' });
    await deploy(options());
    kube.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'by-hand', namespace: NS } });
    const report = await deletes('shop', {
      logger: silentLogger,
      cluster,
    });
    expect(actions(report)).toEqual({
      'ConfigMap/extra': 'pruned',
      'ConfigMap/settings': 'pruned',
      'Deployment/web': 'pruned',
    });
    expect(report.revisions).toBe(1);
    expect([...kube.objects.keys()].sort()).toEqual([
      '/api/v1/namespaces/shop',
      '/api/v1/namespaces/shop/configmaps/by-hand',
      '/api/v1/namespaces/shop/configmaps/kube-root-ca.crt',
    ]);
  });

  test('--no-wait records the revision as never checked; the same objects deployed with the wait check it', async () => {
    const checked = () =>
      kube.get('Secret', NS, 'spread.shop.v1')?.metadata.annotations?.['spread.rsprd.com/rollout-checked'];
    write('nginx:1.27', { settings: 'hello' });
    expect((await deploy(options({ wait: false }))).revision).toBe(1);
    expect(checked()).toBe('false');
    // Unchanged: revision 1 is kept, and its rollout now seen ready.
    expect((await deploy(options())).revision).toBe(1);
    expect(checked()).toBeUndefined();
  });
});

// A preview environment's deploy (createNamespace): its namespace is one of the deployment's objects.
describe("a deploy that creates its own namespace (a preview's)", () => {
  const PR = 'shop-pr-7';
  const preview = (extra: Partial<DeployOptions> = {}) =>
    options({
      namespace: PR,
      createNamespace: { source: { file: 'spread.yaml', line: 3 } },
      provenance: { environment: 'preview' },
      ...extra,
    });

  test('created labelled part of the ApplySet, kept by the next deploy, deleted with the deployment', async () => {
    write('nginx:1.27', { settings: 'hello' });
    const first = await deploy(preview());
    expect(actions(first)).toEqual({
      'Namespace/shop-pr-7': 'created',
      'ConfigMap/settings': 'created',
      'Deployment/web': 'created',
    });
    expect(first.objects.find((o) => o.kind === 'Namespace')?.source).toBe('spread.yaml:3');
    expect(first.environment).toBe('preview');
    const id = kube.get('Deployment', PR, 'web')?.metadata.labels?.['applyset.kubernetes.io/part-of'];
    expect(id).toMatch(/^applyset-/);
    expect(kube.get('Namespace', undefined, PR)?.metadata.labels?.['applyset.kubernetes.io/part-of']).toBe(
      id,
    );
    // The next push: the namespace stays the deployment's, never pruned.
    write('nginx:1.28', { settings: 'hello' });
    const second = await deploy(preview());
    expect(actions(second)['Namespace/shop-pr-7']).toBe('unchanged');
    expect(kube.get('Namespace', undefined, PR)).toBeDefined();
    // status agrees: the namespace is the deployment's, not something a deploy would prune.
    const compared = (own: boolean) =>
      status({
        path: path.join(dir, 'shop'),
        namespace: PR,
        ...(own ? { createNamespace: { source: { file: 'spread.yaml', line: 3 } } } : {}),
        cluster: { connection: cluster },
        logger: silentLogger,
      });
    const ownNs = await compared(true);
    const without = await compared(false);
    expect([ownNs.notInDirectory, ownNs.kept]).toEqual([[], []]);
    // Read as a folder without its namespace, the Namespace would be what a deploy drops.
    expect(without.kept?.map((o) => `${o.kind}/${o.name}`)).toEqual([`Namespace/${PR}`]);
    // The pull request closes: the namespace goes with the rest, last.
    const removed = await deletes('shop', { logger: silentLogger, cluster: { ...cluster, namespace: PR } });
    expect(actions(removed)).toEqual({
      'ConfigMap/settings': 'pruned',
      'Deployment/web': 'pruned',
      'Namespace/shop-pr-7': 'pruned',
    });
    expect(kube.get('Namespace', undefined, PR)).toBeUndefined();
    expect(kube.get('Namespace', undefined, NS)).toBeDefined();
  });

  test("a namespace that exists and is not the deployment's is deployed into as it is, not claimed", async () => {
    write('nginx:1.27', { settings: 'hello' });
    const report = await deploy(preview({ namespace: NS }));
    expect(Object.keys(actions(report))).not.toContain(`Namespace/${NS}`);
    expect(kube.get('Namespace', undefined, NS)?.metadata.labels?.['applyset.kubernetes.io/part-of']).toBe(
      undefined,
    );
  });

  test("without createNamespace, an environment's missing namespace fails naming both, before any write", async () => {
    write('nginx:1.27', { settings: 'hello' });
    await expect(
      deploy(options({ namespace: 'web-staging', provenance: { environment: 'staging' } })),
    ).rejects.toThrow(
      'namespace "web-staging" of environment staging not found in context fake: create it (kubectl create namespace web-staging), or add a Namespace named web-staging to the directory',
    );
    expect(writes()).toEqual([]);
  });
});

/** The image of the live Deployment web. */
function image(): string | undefined {
  const spec = kube.get('Deployment', NS, 'web')?.spec as
    | { template: { spec: { containers: { image: string }[] } } }
    | undefined;
  return spec?.template.spec.containers[0]?.image;
}
