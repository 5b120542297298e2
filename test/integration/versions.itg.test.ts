// What differs between the Kubernetes minors spread supports (docs/operations.md's compatibility table), run
// against whichever version the local cluster runs: .ci/run runs the suite on v1.30, the pinned
// default and v1.37 (SPREAD_KUBE_VERSION), so each expectation below is checked on each of them.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Logger } from '../../src/base/logger.js';
import { ApplyError } from '../../src/engine/apply/errors.js';
import { type DeployRequest as DeployOptions, deploy } from '../../src/frontend/deploy.js';
import type { DeployReport } from '../../src/report/report.js';
import { kubectl, localDeploy, uniqueName, writeDir } from './helpers.js';

const ns = uniqueName('itg-versions');
const roots: string[] = [];
const clusterScoped: string[][] = [];
const kubeVersion = inject('clusterEnv').SPREAD_KUBE_VERSION!;
const minor = Number(/^v1\.(\d+)\./.exec(kubeVersion)![1]);

function dir(name: string, files: Record<string, string>): string {
  const root = writeDir(name, files);
  roots.push(path.dirname(root));
  return root;
}

const warnings: string[] = [];
const recording: Logger = {
  info() {},
  warn: (message) => void warnings.push(message),
  error() {},
  debug() {},
  group: (_name, fn) => fn(),
};

function run(root: string, extra: Partial<DeployOptions> = {}): Promise<DeployReport> {
  return deploy(localDeploy(root, ns, { wait: false, timeoutMs: 60_000, logger: recording, ...extra }));
}

async function expectNotFound(args: string[]): Promise<void> {
  const r = await kubectl(['--context', 'spread-local', ...args], { allowFail: true });
  expect(r.stderr).toMatch(/not found/);
}

const cm = (name: string, labels = '') =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${labels}data: {a: b}\n`;

beforeAll(async () => {
  await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
});

afterAll(async () => {
  for (const args of clusterScoped)
    await kubectl(['--context', 'spread-local', 'delete', '--ignore-not-found', '--wait=false', ...args], {
      allowFail: true,
    });
  await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
    allowFail: true,
  });
  const { rmSync } = await import('node:fs');
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

describe(`Kubernetes ${kubeVersion}`, () => {
  test('the cluster under test runs the version .cluster/env names', async () => {
    const r = await kubectl(['--context', 'spread-local', 'version', '-o', 'json']);
    expect(JSON.parse(r.stdout).serverVersion.gitVersion).toBe(kubeVersion);
  });

  test('an API the version removed fails the plan with the API, file:line and version, before any image is built', async () => {
    const root = dir('removed', {
      '.k2e/cm.yaml': cm('removed-cm'),
      // No Dockerfile beside it: had the image stage run first, it would have failed on that.
      'deployment.yaml':
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n        - {name: web, image: "&web"}\n',
      '.k2e/psp.yaml':
        '# a policy from before Pod Security Admission\napiVersion: policy/v1beta1\nkind: PodSecurityPolicy\nmetadata:\n  name: restricted\nspec: {}\n',
    });
    const error = await run(root).catch((e) => e);
    expect(error).toBeInstanceOf(ApplyError);
    expect(error.failures).toHaveLength(1);
    expect(error.message).toContain('nothing was written');
    expect(error.message).toContain(
      `PodSecurityPolicy.policy restricted (.k2e/psp.yaml:2): policy/v1beta1 PodSecurityPolicy was removed in Kubernetes v1.25 (deprecated in v1.21); the cluster runs ${kubeVersion}: no replacement`,
    );
    await expectNotFound(['-n', ns, 'get', 'configmap', 'removed-cm']);
    await expectNotFound(['-n', ns, 'get', 'secret', `spread.${path.basename(root)}`]);
  });

  test('flowcontrol.apiserver.k8s.io/v1beta3: the server warns before v1.32, and the plan fails from v1.32', async () => {
    const root = dir('flowcontrol', {
      '.k2e/flow.yaml': `apiVersion: flowcontrol.apiserver.k8s.io/v1beta3\nkind: FlowSchema\nmetadata:\n  name: ${ns}\nspec:\n  priorityLevelConfiguration: {name: workload-low}\n  matchingPrecedence: 9000\n  rules:\n    - subjects: [{kind: Group, group: {name: ${ns}}}]\n      resourceRules: [{verbs: [get], apiGroups: [""], resources: [configmaps], namespaces: ["*"]}]\n`,
    });
    warnings.length = 0;
    const result = await run(root, { mode: 'plan' }).catch((e) => e);
    if (minor < 32) {
      expect(result).not.toBeInstanceOf(Error);
      expect(warnings.join('\n')).toMatch(
        /flowcontrol\.apiserver\.k8s\.io\/v1beta3 FlowSchema is deprecated in v1\.29\+, unavailable in v1\.32\+/,
      );
    } else {
      expect(result).toBeInstanceOf(ApplyError);
      expect(result.message).toContain(
        `(.k2e/flow.yaml:1): flowcontrol.apiserver.k8s.io/v1beta3 FlowSchema was removed in Kubernetes v1.32 (deprecated in v1.29); the cluster runs ${kubeVersion}: use flowcontrol.apiserver.k8s.io/v1 FlowSchema`,
      );
    }
    await expectNotFound(['get', 'flowschema', ns]);
  });

  test('strict field validation: an unknown field fails the plan, naming it', async () => {
    const error = await run(
      dir('strict', {
        '.k2e/svc.yaml':
          'apiVersion: v1\nkind: Service\nmetadata:\n  name: strict\nspec:\n  ports: [{port: 80}]\n  selectr: {app: web}\n',
      }),
    ).catch((e) => e);
    expect(error).toBeInstanceOf(ApplyError);
    expect(error.message).toMatch(
      new RegExp(
        // The field's line (7), not the object's (1).
        `Service ${ns}/strict \\(\\.k2e/svc\\.yaml:7\\): .*\\.spec\\.selectr: field not declared in schema`,
      ),
    );
    await expectNotFound(['-n', ns, 'get', 'service', 'strict']);
  });

  test('CRD validation rules (x-kubernetes-validations) fail the plan with the rule message', async () => {
    const group = `${uniqueName('rules')}.example.com`;
    clusterScoped.push(['crd', `gadgets.${group}`]);
    const crd = `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: gadgets.${group}\nspec:\n  group: ${group}\n  scope: Namespaced\n  names: {plural: gadgets, singular: gadget, kind: Gadget}\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          properties:\n            spec:\n              type: object\n              x-kubernetes-validations:\n                - {rule: "self.size <= 3", message: "size must be at most 3"}\n              properties:\n                size: {type: integer}\n`;
    const root = dir('rules', { '.k2e/0-crd.yaml': crd });
    await run(root);
    const gadget = (size: number) =>
      `apiVersion: ${group}/v1\nkind: Gadget\nmetadata:\n  name: g\nspec: {size: ${size}}\n`;
    const ok = await run(dir('rules', { '.k2e/0-crd.yaml': crd, '.k2e/1-gadget.yaml': gadget(2) }));
    expect(ok.objects.map((o) => `${o.kind}:${o.action}`)).toEqual([
      'CustomResourceDefinition:unchanged',
      'Gadget:created',
    ]);
    const error = await run(dir('rules', { '.k2e/0-crd.yaml': crd, '.k2e/1-gadget.yaml': gadget(5) })).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(ApplyError);
    expect(error.message).toMatch(
      /Gadget\.[a-z0-9.-]+ [^ ]+\/g \(\.k2e\/1-gadget\.yaml:5\): .*size must be at most 3/,
    );
  });

  test('a ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1) denies in the plan, with its message', async () => {
    const name = uniqueName('vap');
    clusterScoped.push(['validatingadmissionpolicybinding', name], ['validatingadmissionpolicy', name]);
    const policy = `apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: ${name}\nspec:\n  failurePolicy: Fail\n  matchConstraints:\n    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [configmaps]}]\n  validations:\n    - {expression: "!has(object.metadata.labels) || !('forbidden' in object.metadata.labels)", message: "no forbidden label (${name})"}\n---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata:\n  name: ${name}\nspec:\n  policyName: ${name}\n  validationActions: [Deny]\n  matchResources:\n    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: ${ns}}}\n`;
    const policyDir = dir('vap-policy', { '.k2e/policy.yaml': policy });
    await kubectl([
      '--context',
      'spread-local',
      'apply',
      '--server-side',
      '-f',
      path.join(policyDir, '.k2e/policy.yaml'),
    ]);
    // The API server loads new policies asynchronously: wait until a server dry run is denied.
    const probe = path.join(
      dir('vap-probe', { 'cm.yaml': cm('probe', '  labels: {forbidden: "1"}\n') }),
      'cm.yaml',
    );
    for (let i = 0; ; i++) {
      const r = await kubectl(
        ['--context', 'spread-local', '-n', ns, 'create', '--dry-run=server', '-f', probe],
        { allowFail: true },
      );
      if (r.stderr.includes(`no forbidden label (${name})`)) break;
      expect(i, `policy ${name} never took effect: ${r.stdout}${r.stderr}`).toBeLessThan(120);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const error = await run(
      dir('vap', { '.k2e/cm.yaml': cm('denied', '  labels: {forbidden: "1"}\n') }),
    ).catch((e) => e);
    expect(error).toBeInstanceOf(ApplyError);
    expect(error.message).toMatch(
      new RegExp(`ConfigMap ${ns}/denied \\(\\.k2e/cm\\.yaml:1\\): .*no forbidden label \\(${name}\\)`),
    );
    await expectNotFound(['-n', ns, 'get', 'configmap', 'denied']);
  });

  test('batch/v1 CronJob and autoscaling/v2 HorizontalPodAutoscaler deploy and are waited for', async () => {
    const report = await run(
      dir('batch', {
        'deployment.yaml':
          'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: scaled\nspec:\n  selector: {matchLabels: {app: scaled}}\n  template:\n    metadata: {labels: {app: scaled}}\n    spec:\n      containers:\n        - {name: web, image: "spread.local/busybox:1", resources: {requests: {cpu: 10m}}}\n',
        '.k2e/cronjob.yaml':
          'apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: nightly\nspec:\n  schedule: "0 3 * * *"\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          restartPolicy: Never\n          containers: [{name: job, image: "spread.local/busybox:1"}]\n',
        '.k2e/hpa.yaml':
          'apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: scaled\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: scaled}\n  minReplicas: 1\n  maxReplicas: 3\n  metrics:\n    - type: Resource\n      resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}\n',
      }),
      { wait: true },
    );
    expect(report.objects.map((o) => `${o.kind}:${o.action}`).sort()).toEqual([
      'CronJob:created',
      'Deployment:created',
      'HorizontalPodAutoscaler:created',
    ]);
    const hpa = await kubectl([
      '--context',
      'spread-local',
      '-n',
      ns,
      'get',
      'hpa.v2.autoscaling',
      'scaled',
      '-o',
      'json',
    ]);
    expect(JSON.parse(hpa.stdout).spec.metrics[0].resource.target.averageUtilization).toBe(80);
  });
  test('the rollout wait reads the status fields of apps/v1 StatefulSet and DaemonSet and batch/v1 Job', async () => {
    const tpl = (app: string, extra = '') =>
      `  template:\n    metadata: {labels: {app: ${app}}}\n    spec:\n${extra}      containers: [{name: c, image: "spread.local/busybox:1"}]\n`;
    const report = await run(
      dir('workloads', {
        'statefulset.yaml': `apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\nspec:\n  serviceName: db\n  replicas: 2\n  selector: {matchLabels: {app: db}}\n${tpl('db')}`,
        '.k2e/service.yaml':
          'apiVersion: v1\nkind: Service\nmetadata:\n  name: db\nspec:\n  clusterIP: None\n  selector: {app: db}\n  ports: [{port: 5432}]\n',
        '.k2e/daemonset.yaml': `apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent\nspec:\n  selector: {matchLabels: {app: agent}}\n${tpl('agent')}`,
        '.k2e/job.yaml': `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\nspec:\n  backoffLimit: 0\n${tpl('migrate', '      restartPolicy: Never\n')}`,
      }),
      { wait: true },
    );
    expect(report.rollout.map((r) => `${r.kind}/${r.name}:${r.ready}`).sort()).toEqual([
      'DaemonSet/agent:true',
      'Job/migrate:true',
      'StatefulSet/db:true',
    ]);
    const ds = JSON.parse(
      (await kubectl(['--context', 'spread-local', '-n', ns, 'get', 'daemonset', 'agent', '-o', 'json']))
        .stdout,
    );
    // The three kwok Nodes each run one.
    expect(ds.status.numberAvailable).toBe(3);
  });
});
