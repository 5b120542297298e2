import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Logger, silentLogger } from '../../src/base/logger.js';
import { type DeployRequest as DeployOptions, deploy } from '../../src/frontend/deploy.js';
import { status } from '../../src/frontend/manage.js';
import type { DeployReport } from '../../src/report/report.js';
import { kubeconfigPath, kubectl, localDeploy, uniqueName, writeDir } from './helpers.js';

// Taking over what another tool made (--adopt), manifests exported with `kubectl get -o yaml`, and
// objects named by generateName (issue 16).

const ns = uniqueName('itg-adopt');
const roots: string[] = [];

function dir(name: string, files: Record<string, string>): string {
  const root = writeDir(name, files);
  roots.push(path.dirname(root));
  return root;
}

function run(root: string, extra: Partial<DeployOptions> = {}): Promise<DeployReport> {
  return deploy(localDeploy(root, ns, { wait: false, timeoutMs: 60_000, ...extra }));
}

async function getJson(kind: string, name: string, extra: string[] = []) {
  return JSON.parse(
    (await kubectl(['--context', 'spread-local', '-n', ns, 'get', kind, name, '-o', 'json', ...extra]))
      .stdout,
  );
}

beforeAll(async () => {
  await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
});

afterAll(async () => {
  await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
    allowFail: true,
  });
  const { rmSync } = await import('node:fs');
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

/** A ConfigMap with the keys given and a Service of `type` (no type: the default, ClusterIP). */
function objects(name: string, keys: string[], type?: string): string {
  return `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
data:
${keys.map((k) => `  ${k}: "${k}-value"`).join('\n')}
---
apiVersion: v1
kind: Service
metadata:
  name: ${name}
spec:
${type ? `  type: ${type}\n` : ''}  selector: {app: ${name}}
  ports:
  - {name: http, port: 80, targetPort: 8080}
`;
}

describe('--adopt makes spread the owner of what the directory declares', () => {
  // Each way kubectl makes an object leaves other field managers: `kubectl` (Apply), `kubectl-create`
  // (Update), `kubectl-client-side-apply` (Update) with the last-applied annotation.
  test.each([
    ['ssa', ['apply', '--server-side']],
    ['create', ['create']],
    ['csa', ['apply']],
  ])(
    'made with kubectl %s, adopted, then a key and the Service type dropped: both go, plan and status show it',
    async (how, args) => {
      const name = `adopt-${how}`;
      await kubectl(['--context', 'spread-local', '-n', ns, ...args, '-f', '-'], {
        input: objects(name, ['a', 'b'], 'LoadBalancer'),
      });
      const root = dir(name, { '.k2e/objects.yaml': objects(name, ['a', 'b'], 'LoadBalancer') });
      const adopted = await run(root, { adopt: true });
      expect(adopted.objects.map((o) => `${o.kind} ${o.action}`)).toEqual([
        'ConfigMap configured',
        'Service configured',
      ]);
      // No kubectl manager is left on what spread adopted.
      for (const kind of ['configmap', 'service']) {
        const live = await getJson(kind, name, ['--show-managed-fields']);
        const managers = live.metadata.managedFields
          .filter((m: { subresource?: string }) => !m.subresource)
          .map((m: { manager: string }) => m.manager);
        expect(managers).toEqual(['spread']);
      }

      const dropped = dir(`${name}-2`, { '.k2e/objects.yaml': objects(name, ['a']) });
      const before = await status({
        path: dropped,
        name,
        namespace: ns,
        cluster: { kubeconfig: { paths: [kubeconfigPath()] }, context: 'spread-local' },
        logger: silentLogger,
      });
      const states = before.root.objects.map((o) => `${o.kind} ${o.state}`);
      expect(states).toEqual(['ConfigMap differs', 'Service differs']);
      const plan = await run(dropped, { name, mode: 'plan' });
      const changes = Object.fromEntries(
        plan.objects.map((o) => [
          o.kind,
          (o.changes ?? []).map((c) => `${c.op} ${c.path} ${c.after ?? ''}`.trim()),
        ]),
      );
      expect(changes.ConfigMap).toEqual(['remove data.b']);
      expect(changes.Service).toContain('change spec.type "ClusterIP"');

      const deployed = await run(dropped, { name });
      expect(deployed.objects.map((o) => `${o.kind} ${o.action}`)).toEqual([
        'ConfigMap configured',
        'Service configured',
      ]);
      const cm = await getJson('configmap', name);
      expect(cm.data).toEqual({ a: 'a-value' });
      const svc = await getJson('service', name);
      expect(svc.spec.type).toBe('ClusterIP');
      expect(svc.spec.ports.map((p: { nodePort?: number }) => p.nodePort)).toEqual([undefined]);
      const after = await status({
        path: dropped,
        name,
        namespace: ns,
        cluster: { kubeconfig: { paths: [kubeconfigPath()] }, context: 'spread-local' },
        logger: silentLogger,
      });
      expect(after.root.objects.map((o) => `${o.kind} ${o.state}`)).toEqual([
        'ConfigMap in sync',
        'Service in sync',
      ]);
    },
  );

  test('adopting a directory that already lacks a field: the plan shows it removed and names the managers, the deploy removes it', async () => {
    const name = 'adopt-first';
    await kubectl(['--context', 'spread-local', '-n', ns, 'apply', '--server-side', '-f', '-'], {
      input: objects(name, ['a', 'b'], 'NodePort'),
    });
    const root = dir(name, { '.k2e/objects.yaml': objects(name, ['a']) });
    const plan = await run(root, { adopt: true, mode: 'plan' });
    const cmPlan = plan.objects.find((o) => o.kind === 'ConfigMap')!;
    expect(cmPlan.action).toBe('update');
    expect(cmPlan.changes?.map((c) => `${c.op} ${c.path}`)).toContain('remove data.b');
    expect(cmPlan.note).toBe(
      'takes over the fields of kubectl: those the directory does not declare are removed',
    );
    // The plan wrote nothing.
    expect((await getJson('configmap', name)).data).toEqual({ a: 'a-value', b: 'b-value' });
    await run(root, { adopt: true });
    expect((await getJson('configmap', name)).data).toEqual({ a: 'a-value' });
    expect((await getJson('service', name)).spec.type).toBe('ClusterIP');
  });

  test("spread's per-deploy annotations owned by kubectl (an object re-created from an export of a spread deploy) are taken over too", async () => {
    const name = 'adopt-annotated';
    const annotated = (commit: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  annotations: {spread.rsprd.com/commit: ${commit}}\ndata: {a: "1"}\n`;
    await kubectl(['--context', 'spread-local', '-n', ns, 'apply', '--server-side', '-f', '-'], {
      input: annotated('old'),
    });
    const root = dir(name, {
      '.k2e/cm.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: {a: "1"}\n`,
    });
    await run(root, { adopt: true, annotations: { 'spread.rsprd.com/commit': 'new' } });
    expect((await getJson('configmap', name)).metadata.annotations['spread.rsprd.com/commit']).toBe('new');
  });

  test('a Secret applied by client-side kubectl: the plan of its adoption shows its last-applied annotation removed, never its values', async () => {
    const name = 'adopt-secret';
    const secret = `apiVersion: v1\nkind: Secret\nmetadata: {name: ${name}}\nstringData: {password: hunter2-secret}\n`;
    await kubectl(['--context', 'spread-local', '-n', ns, 'apply', '-f', '-'], { input: secret });
    const plan = await run(dir(name, { '.k2e/secret.yaml': secret }), { adopt: true, mode: 'plan' });
    const changes = plan.objects[0]!.changes!.map((c) => `${c.op} ${c.path} ${c.before ?? ''}`);
    expect(changes).toContain(
      'remove metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"] <redacted>',
    );
    expect(JSON.stringify(plan)).not.toMatch(/hunter2|aHVudGVy/);
  });

  test('a field another manager than kubectl owns stays (a controller, a subresource)', async () => {
    const name = 'adopt-other';
    await kubectl(['--context', 'spread-local', '-n', ns, 'apply', '--server-side', '-f', '-'], {
      input: objects(name, ['a']),
    });
    await kubectl(
      [
        '--context',
        'spread-local',
        '-n',
        ns,
        'apply',
        '--server-side',
        '--field-manager',
        'operator',
        '-f',
        '-',
      ],
      { input: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  injected: "yes"\n` },
    );
    await run(dir(name, { '.k2e/objects.yaml': objects(name, ['a']) }), { adopt: true });
    expect((await getJson('configmap', name)).data).toEqual({ a: 'a-value', injected: 'yes' });
  });

  test('fields another deploy tool set (helm) are taken over too; set again later, status and plan name them', async () => {
    const name = 'adopt-helm';
    const asHelm = ['--context', 'spread-local', '-n', ns, '--field-manager', 'helm'];
    // Helm 3 writes with Update operations under its own field manager, as kubectl create does.
    await kubectl([...asHelm.slice(0, 4), 'create', ...asHelm.slice(4), '-f', '-'], {
      input: objects(name, ['a', 'b']),
    });
    const root = dir(name, { '.k2e/objects.yaml': objects(name, ['a']) });
    const plan = await run(root, { adopt: true, mode: 'plan' });
    expect(plan.objects.find((o) => o.kind === 'ConfigMap')?.note).toBe(
      'takes over the fields of helm: those the directory does not declare are removed',
    );
    await run(root, { adopt: true });
    expect((await getJson('configmap', name)).data).toEqual({ a: 'a-value' });
    const cluster = { kubeconfig: { paths: [kubeconfigPath()] }, context: 'spread-local' };
    const statusOf = async () =>
      (await status({ path: root, name, namespace: ns, cluster, logger: silentLogger })).root.objects.find(
        (o) => o.kind === 'ConfigMap',
      );
    expect((await statusOf())?.state).toBe('in sync');

    // helm upgrade adds a key the directory does not declare: a deploy without --adopt leaves it.
    await kubectl([
      ...asHelm.slice(0, 4),
      'patch',
      'configmap',
      name,
      ...asHelm.slice(4),
      '--type=merge',
      '-p',
      '{"data":{"c":"x"}}',
    ]);
    const drift = await statusOf();
    expect(drift).toMatchObject({ state: 'differs' });
    expect(drift?.message).toMatch(
      /^helm owns data\.c, which the directory does not declare: a deploy leaves it; adopting takes it over and removes it \(⟦adopt⟧\)/,
    );
    const planned = await run(root, { mode: 'plan' });
    expect(planned.objects.find((o) => o.kind === 'ConfigMap')).toMatchObject({
      action: 'unchanged',
      note: expect.stringMatching(/^helm owns data\.c, /),
    });
    await run(root, { adopt: true });
    expect((await getJson('configmap', name)).data).toEqual({ a: 'a-value' });
    expect((await statusOf())?.state).toBe('in sync');
  });
});

/** A logger that keeps the warnings. */
function warnings(): Logger & { warned: string[] } {
  const warned: string[] = [];
  return {
    ...silentLogger,
    warned,
    warn: (m: string, where?: { file?: string }) => warned.push(`${where?.file ?? ''}: ${m}`),
  };
}

describe('manifests exported with kubectl get -o yaml', () => {
  test('deploy as they are: server-populated fields dropped with one warning; changed since, and deleted since', async () => {
    const name = 'exported';
    await kubectl(['--context', 'spread-local', '-n', ns, 'apply', '--server-side', '-f', '-'], {
      input: `apiVersion: v1
kind: ConfigMap
metadata: {name: ${name}}
data: {a: "1"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, labels: {app: ${name}}}
spec:
  replicas: 0
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers: [{name: app, image: 127.0.0.1:5000/never-pulled:1}]
`,
    });
    await kubectl([
      '--context',
      'spread-local',
      '-n',
      ns,
      'wait',
      '--for=condition=Available',
      `deployment/${name}`,
      '--timeout=60s',
    ]);
    const get = async (kind: string) =>
      (
        await kubectl([
          '--context',
          'spread-local',
          '-n',
          ns,
          'get',
          kind,
          name,
          '-o',
          'yaml',
          '--show-managed-fields',
        ])
      ).stdout;
    const files = { 'deployment.yaml': await get('deployment'), '.k2e/cm.yaml': await get('configmap') };
    // What the files hold, as kubectl printed them.
    expect(files['deployment.yaml']).toMatch(/\n {2}uid: /);
    expect(files['deployment.yaml']).toMatch(/\n {2}managedFields:/);
    expect(files['deployment.yaml']).toMatch(/\nstatus:\n/);
    const root = dir(name, files);
    const exportedUid = (await getJson('configmap', name)).metadata.uid;

    // Changed since the export (its resourceVersion is stale), and not spread's yet.
    await kubectl(['--context', 'spread-local', '-n', ns, 'label', 'configmap', name, 'touched=yes']);
    const logger = warnings();
    const adopted = await run(root, { name, adopt: true, logger });
    expect(adopted.objects.map((o) => `${o.kind} ${o.action}`)).toEqual([
      'ConfigMap configured',
      'Deployment configured',
    ]);
    expect(logger.warned.filter((w) => /server-populated/.test(w))).toEqual([
      `.k2e/cm.yaml: server-populated fields dropped, as the API server sets them itself (manifests exported with kubectl get -o yaml?): .k2e/cm.yaml (uid, resourceVersion, creationTimestamp, managedFields), deployment.yaml (uid, resourceVersion, creationTimestamp, generation, managedFields, status)`,
    ]);
    const cm = await getJson('configmap', name);
    expect(cm.metadata.labels.touched).toBeUndefined();
    expect(cm.metadata.uid).toBe(exportedUid);

    // Deleted since: created again, under a new uid.
    await kubectl(['--context', 'spread-local', '-n', ns, 'delete', 'configmap,deployment', name]);
    const created = await run(root, { name, logger: warnings() });
    expect(created.objects.map((o) => `${o.kind} ${o.action}`)).toEqual([
      'ConfigMap created',
      'Deployment created',
    ]);
    const again = await getJson('configmap', name);
    expect(again.metadata.uid).not.toBe(exportedUid);
    expect(again.data).toEqual({ a: '1' });
    expect((await getJson('deployment', name)).spec.replicas).toBe(0);
  });
});

describe('generateName: one new object per deploy', () => {
  const job = `apiVersion: batch/v1
kind: Job
metadata:
  generateName: smoke-
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers: [{name: smoke, image: 127.0.0.1:5000/smoke-test:1}]
`;
  const jobs = async () =>
    JSON.parse(
      (
        await kubectl([
          '--context',
          'spread-local',
          '-n',
          ns,
          'get',
          'jobs',
          '-l',
          'spread.rsprd.com/generate-name=smoke',
          '-o',
          'json',
        ])
      ).stdout,
    ).items.map((j: { metadata: { name: string } }) => j.metadata.name) as string[];

  test('planned as a create, created under a server-made name, labelled; the next deploy creates another and prunes the earlier one', async () => {
    const name = 'generated';
    const root = dir(name, {
      '.k2e/cm.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: {a: "1"}\n`,
      '.k2e/smoke.yaml': job,
    });
    const plan = await run(root, { name, mode: 'plan' });
    expect(plan.objects.map((o) => `${o.kind} ${o.name} ${o.action}`)).toEqual([
      `ConfigMap ${name} create`,
      'Job smoke-* create',
    ]);
    expect(plan.objects[1]!.note).toBe(
      'generateName: each deploy creates a new one; those of earlier deploys are pruned',
    );
    expect(await jobs()).toEqual([]);

    const first = await run(root, { name });
    const created = first.objects.find((o) => o.kind === 'Job')!;
    expect(created.action).toBe('created');
    expect(created.name).toMatch(/^smoke-[a-z0-9]{5}$/);
    expect(await jobs()).toEqual([created.name]);
    const live = await getJson('job', created.name);
    expect(live.metadata.labels['applyset.kubernetes.io/part-of']).toMatch(/^applyset-/);

    // Nothing changed in the directory: the ConfigMap stays, the smoke test runs again.
    const second = await run(root, { name });
    const again = second.objects.filter((o) => o.kind === 'Job');
    expect(second.objects.find((o) => o.kind === 'ConfigMap')?.action).toBe('unchanged');
    expect(again.map((o) => o.action).sort()).toEqual(['created', 'pruned']);
    const next = again.find((o) => o.action === 'created')!.name;
    expect(next).not.toBe(created.name);
    expect(again.find((o) => o.action === 'pruned')!.name).toBe(created.name);
    // The earlier Job may still be finishing its deletion (foreground of its pods).
    expect((await jobs()).filter((n) => n !== created.name)).toEqual([next]);
    // status: the last deploy's run is the Job's state; it is not listed as one a deploy prunes.
    const report = await status({
      path: root,
      name,
      namespace: ns,
      cluster: { kubeconfig: { paths: [kubeconfigPath()] }, context: 'spread-local' },
      logger: silentLogger,
    });
    expect(report.root.objects.map((o) => `${o.kind} ${o.name} ${o.state}`)).toEqual([
      `ConfigMap ${name} in sync`,
      'Job smoke-* in sync',
    ]);
    expect(report.root.objects[1]!.message).toBe(
      `generateName: each deploy creates a new one; the last deploy's is ${next}`,
    );
    expect((report.notInDirectory ?? []).map((o) => o.name).filter((n) => n !== created.name)).toEqual([]);
  });

  test('an invalid generateName object fails the plan and nothing is written', async () => {
    const name = 'generated-bad';
    const root = dir(name, {
      '.k2e/cm.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\n`,
      '.k2e/smoke.yaml': job.replace('backoffLimit: 0', 'backoffLimit: 0\n  bogus: 1'),
    });
    const error = await run(root, { name }).catch((e: Error) => e);
    // At the unknown field's line (7), not the object's.
    expect((error as Error).message).toMatch(/Job\.batch .*\/smoke-\* \(\.k2e\/smoke\.yaml:7\): .*bogus/);
    const cms = await kubectl(['--context', 'spread-local', '-n', ns, 'get', 'configmap', name], {
      allowFail: true,
    });
    expect(cms.stderr).toMatch(/not found/);
  });
});

describe('status of exported custom resources: dropped where discovery says the kind has a status subresource', () => {
  const group = `${ns}.spread.test`;
  const crd = (kind: string, plural: string, status: boolean) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ${plural}.${group}}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: ${plural}, singular: ${kind.toLowerCase()}, kind: ${kind}}
  versions:
  - name: v1
    served: true
    storage: true
${status ? '    subresources: {status: {}}\n' : ''}    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;
  afterAll(async () => {
    await kubectl(
      [
        '--context',
        'spread-local',
        'delete',
        'crd',
        `gadgets.${group}`,
        `plainthings.${group}`,
        '--wait=false',
      ],
      {
        allowFail: true,
      },
    );
  });

  test('a Gadget (status subresource) loses its status with the warning; a PlainThing (none) keeps it as data', async () => {
    for (const text of [crd('Gadget', 'gadgets', true), crd('PlainThing', 'plainthings', false)])
      await kubectl(['--context', 'spread-local', 'apply', '--server-side', '-f', '-'], { input: text });
    for (const plural of ['gadgets', 'plainthings'])
      await kubectl([
        '--context',
        'spread-local',
        'wait',
        '--for=condition=Established',
        `crd/${plural}.${group}`,
        '--timeout=60s',
      ]);
    const cr = (kind: string, name: string) =>
      `apiVersion: ${group}/v1\nkind: ${kind}\nmetadata: {name: ${name}}\nspec: {size: 1}\nstatus: {phase: Ready}\n`;
    const root = dir('crs', {
      '.k2e/gadget.yaml': cr('Gadget', 'g1'),
      '.k2e/plain.yaml': cr('PlainThing', 'p1'),
    });
    const logger = warnings();
    await run(root, { name: 'crs', logger });
    expect(logger.warned.filter((w) => /server-populated/.test(w))).toEqual([
      '.k2e/gadget.yaml: server-populated fields dropped, as the API server sets them itself (manifests exported with kubectl get -o yaml?): .k2e/gadget.yaml (status)',
    ]);
    expect((await getJson(`plainthings.${group}`, 'p1')).status).toEqual({ phase: 'Ready' });
    expect((await getJson(`gadgets.${group}`, 'g1')).status).toBeUndefined();
  });
});
