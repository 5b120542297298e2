// Deploys visible where the team looks (issue 21): the application's URL (Ingress, Gateway API
// HTTPRoute, LoadBalancer Service, none) through the CLI's report and the Action's `url` output, and
// the GitHub deployment statuses of the input `deployment`, recorded in order by the local stand-in
// for the GitHub REST API, for a success, a failed rollout, a delete and a preview of a pull request.
// The Action is the bundled dist/index.js run as the runner runs it (action-runner.ts).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ActionEvent, repositoryEnv, runActionStep, type StepResult } from './action-runner.js';
import { type GitHubApi, startGitHubApi } from './github-api.js';
import { kubeconfigContent, kubeconfigPath, kubectl, ROOT, runNode, uniqueName } from './helpers.js';

const ENTRY = process.env.SPREAD_ACTION_ENTRY ?? path.join(ROOT, 'dist/index.js');
const ns = uniqueName('itg-visible');
const TOKEN = `ghs_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
const READ_ONLY = `ghs_ro${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
const SHA = '0123456789abcdef0123456789abcdef01234567';
const RUN_URL = 'https://gh/acme/shop/actions/runs/77/attempts/1';
const ROUTE_CRD = 'httproutes.gateway.networking.k8s.io';
const workspace = mkdtempSync(path.join(tmpdir(), 'spread-visible-ws-'));

let api: GitHubApi;
/** Whether this file created the HTTPRoute CRD (then it removes it). */
let createdCrd = false;

function step(inputs: Record<string, string>, event?: ActionEvent, token = TOKEN): Promise<StepResult> {
  return runActionStep({
    entry: ENTRY,
    workspace,
    inputs,
    event,
    env: { GITHUB_API_URL: api.url, 'INPUT_GITHUB-TOKEN': token },
  });
}

const base = { kubeconfig: kubeconfigContent(), context: 'spread-local', namespace: ns, timeout: '2m' };

function write(dir: string, files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(workspace, dir, file)), { recursive: true });
    writeFileSync(path.join(workspace, dir, file), text);
  }
}

const deployment = (name: string, image = 'registry.k8s.io/pause:3.10') =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ${name}}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: ${name}}}\n  template:\n    metadata: {labels: {app: ${name}}}\n    spec: {containers: [{name: ${name}, image: "${image}"}]}\n`;
const service = (name: string, type = 'ClusterIP') =>
  `apiVersion: v1\nkind: Service\nmetadata: {name: ${name}}\nspec: {type: ${type}, selector: {app: ${name}}, ports: [{port: 80}]}\n`;
const host = (name: string) => `${name}.${ns}.example.com`;

/**
 * A minimal HTTPRoute CRD (nothing can be pulled): any spec, served and stored as v1. A `*.k8s.io`
 * group needs the approval annotation, which the Gateway API's own CRDs carry.
 */
const routeCrd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${ROUTE_CRD}
  annotations: {api-approved.kubernetes.io: "https://github.com/kubernetes-sigs/gateway-api/pull/2466"}
spec:
  group: gateway.networking.k8s.io
  scope: Namespaced
  names: {plural: httproutes, singular: httproute, kind: HTTPRoute, listKind: HTTPRouteList}
  versions:
    - name: v1
      served: true
      storage: true
      schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`;

beforeAll(async () => {
  api = await startGitHubApi();
  await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
  const exists = await kubectl(['--context', 'spread-local', 'get', 'crd', ROUTE_CRD], { allowFail: true });
  if (exists.code !== 0) {
    await kubectl(['--context', 'spread-local', 'apply', '--server-side', '-f', '-'], { input: routeCrd });
    createdCrd = true;
  }
  await kubectl([
    '--context',
    'spread-local',
    'wait',
    '--for=condition=Established',
    `crd/${ROUTE_CRD}`,
    '--timeout=60s',
  ]);
});
afterAll(async () => {
  await api?.close();
  await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
    allowFail: true,
  });
  if (createdCrd)
    await kubectl(['--context', 'spread-local', 'delete', 'crd', ROUTE_CRD, '--wait=false'], {
      allowFail: true,
    });
});

describe("the application's URL", () => {
  test('an Ingress: https for a host its tls lists, in the Action output, the CLI report and -o json', async () => {
    write('shop', {
      'deployment.yaml': deployment('shop'),
      '.k2e/objects.yaml': [
        service('shop'),
        '---',
        'apiVersion: networking.k8s.io/v1',
        'kind: Ingress',
        'metadata: {name: shop}',
        'spec:',
        `  tls: [{hosts: ["${host('shop')}"], secretName: shop-tls}]`,
        `  rules: [{host: "${host('shop')}", http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: shop, port: {number: 80}}}}]}}]`,
        '',
      ].join('\n'),
    });
    const r = await step({ ...base, path: 'shop' });
    expect(r.code, r.log).toBe(0);
    expect(r.outputs.url).toBe(`https://${host('shop')}`);
    expect(r.log).toContain(`URL https://${host('shop')} (ingress/shop)`);

    // The CLI runs in the same repository's CI as the Action, so it deploys the same deployment.
    const cli = (...args: string[]) =>
      runNode(
        'dist/cli/index.js',
        [
          'deploy',
          path.join(workspace, 'shop'),
          'spread-local',
          '--kubeconfig',
          kubeconfigPath(),
          '-n',
          ns,
          ...args,
        ],
        { ...process.env, ...repositoryEnv(workspace) },
      );
    const text = await cli();
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`  url https://${host('shop')}\n`);
    const json = await cli('-o', 'json');
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).url).toBe(`https://${host('shop')}`);
  });

  test('an HTTPRoute (Gateway API CRD): its hostname; url-from picks another object; one the directory lacks fails before writing', async () => {
    write('routed', {
      'deployment.yaml': deployment('routed'),
      '.k2e/objects.yaml': [
        service('routed'),
        '---',
        'apiVersion: gateway.networking.k8s.io/v1',
        'kind: HTTPRoute',
        'metadata: {name: routed}',
        'spec:',
        '  parentRefs: [{name: public-gateway, namespace: infra}]',
        `  hostnames: ["*.${ns}.example.com", "${host('routed')}"]`,
        '  rules: [{backendRefs: [{name: routed, port: 80}]}]',
        '---',
        'apiVersion: networking.k8s.io/v1',
        'kind: Ingress',
        'metadata: {name: internal}',
        `spec: {rules: [{host: "${host('internal')}"}]}`,
        '',
      ].join('\n'),
    });
    // The Ingress wins by the rule; url-from names the route. Its Gateway is not readable: https.
    const byRule = await step({ ...base, path: 'routed', wait: 'false' });
    expect(byRule.code, byRule.log).toBe(0);
    expect(byRule.outputs.url).toBe(`http://${host('internal')}`);
    const chosen = await step({ ...base, path: 'routed', wait: 'false', 'url-from': 'httproute/routed' });
    expect(chosen.code, chosen.log).toBe(0);
    expect(chosen.outputs.url).toBe(`https://${host('routed')}`);

    write('routed', { 'deployment.yaml': deployment('routed', 'registry.k8s.io/pause:3.9') });
    const missing = await step({ ...base, path: 'routed', 'url-from': 'service/nope' });
    expect(missing.code).not.toBe(0);
    expect(missing.log).toContain(
      '::error::the object named for the URL, service/nope, is not in the directory: it holds no Service named nope',
    );
    const image = await kubectl([
      '--context',
      'spread-local',
      '-n',
      ns,
      'get',
      'deployment',
      'routed',
      '-o',
      'jsonpath={.spec.template.spec.containers[0].image}',
    ]);
    expect(image.stdout).toBe('registry.k8s.io/pause:3.10');
  });

  test('a LoadBalancer Service: empty while it has no address (no error), its address once it has one', async () => {
    write('balanced', {
      'deployment.yaml': deployment('balanced'),
      '.k2e/lb.yaml': service('balanced', 'LoadBalancer'),
    });
    const pending = await step({ ...base, path: 'balanced' });
    expect(pending.code, pending.log).toBe(0);
    expect(pending.outputs.url).toBe('');
    expect(pending.log).not.toMatch(/::(warning|error)::/);
    // kwok assigns no load balancer: give the Service an address as a cloud controller would.
    await kubectl([
      '--context',
      'spread-local',
      '-n',
      ns,
      'patch',
      'service',
      'balanced',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"loadBalancer":{"ingress":[{"ip":"203.0.113.21"}]}}}',
    ]);
    const ready = await step({ ...base, path: 'balanced' });
    expect(ready.code, ready.log).toBe(0);
    expect(ready.outputs.url).toBe('http://203.0.113.21');
  });

  test('a deployment with none of them: an empty url, no error', async () => {
    write('plain', { 'deployment.yaml': deployment('plain'), '.k2e/svc.yaml': service('plain') });
    const r = await step({ ...base, path: 'plain' });
    expect(r.code, r.log).toBe(0);
    expect(r.outputs.url).toBe('');
    expect(r.log).not.toMatch(/::(warning|error)::/);
  });
});

describe('GitHub deployment statuses (input deployment)', () => {
  const shop = { ...base, path: 'shop', deployment: 'true', environment: 'production' };

  test('success: a deployment of the commit, in_progress, then success with the URL and the run; the older one becomes inactive', async () => {
    api.deploymentCalls.length = 0;
    const first = await step(shop);
    expect(first.code, first.log).toBe(0);
    const [d1] = api.deployments;
    expect(d1).toMatchObject({
      sha: SHA,
      environment: 'production',
      transient_environment: false,
      auto_merge: false,
      required_contexts: [],
    });
    expect(first.outputs['deployment-id']).toBe(String(d1!.id));
    expect(api.deploymentCalls).toEqual([
      'create production',
      `status ${d1!.id} in_progress`,
      `status ${d1!.id} success`,
      'list production',
    ]);
    expect(d1!.statuses.map((s) => [s.state, s.environment_url, s.log_url])).toEqual([
      ['in_progress', undefined, RUN_URL],
      ['success', `https://${host('shop')}`, RUN_URL],
    ]);

    api.deploymentCalls.length = 0;
    const second = await step(shop);
    expect(second.code, second.log).toBe(0);
    const d2 = api.deployments[1]!;
    expect(api.deploymentCalls).toEqual([
      'create production',
      `status ${d2.id} in_progress`,
      `status ${d2.id} success`,
      'list production',
      `statuses ${d1!.id}`,
      `status ${d1!.id} inactive`,
    ]);
    expect(d1!.statuses.at(-1)!.state).toBe('inactive');
  });

  test('a failed rollout: failure, and the successful deployment stays active', async () => {
    write('broken-rollout', { 'deployment.yaml': deployment('broken-rollout', 'unpullable.invalid/web:1') });
    api.deploymentCalls.length = 0;
    const r = await step({ ...shop, path: 'broken-rollout', timeout: '90s' });
    expect(r.code).not.toBe(0);
    expect(r.log).toMatch(/ImagePullBackOff|ErrImagePull/);
    const d3 = api.deployments[2]!;
    expect(api.deploymentCalls).toEqual([
      'create production',
      `status ${d3.id} in_progress`,
      `status ${d3.id} failure`,
    ]);
    expect(d3.statuses.at(-1)).toMatchObject({ state: 'failure', log_url: RUN_URL });
    expect(api.deployments[1]!.statuses.at(-1)!.state).toBe('success');
  });

  test('mode delete marks the environment inactive: the successful deployment, not the failed or inactive ones', async () => {
    api.deploymentCalls.length = 0;
    const r = await step({ ...shop, mode: 'delete' });
    expect(r.code, r.log).toBe(0);
    const [d1, d2, d3] = api.deployments.map((d) => d.id);
    expect(api.deploymentCalls).toEqual([
      'list production',
      `statuses ${d3}`,
      `statuses ${d2}`,
      `status ${d2} inactive`,
      `statuses ${d1}`,
    ]);
    expect(r.log).toContain(`GitHub deployments of production marked inactive: ${d2}`);
  });

  test('a pull request is never deployed through environments, whatever its head branch: skipped, no GitHub deployment', async () => {
    write('preview', {
      '.k2e/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: preview}\ndata: {a: "1"}\n',
    });
    // Whoever opens the pull request names its head branch: `main` here, which the rules send to a context.
    const pr: ActionEvent = {
      name: 'pull_request',
      refName: '12/merge',
      headRef: 'main',
      baseRef: 'main',
      payload: { number: 12, pull_request: { number: 12, head: { sha: 'feedface'.repeat(5) } } },
    };
    const inputs = {
      kubeconfig: base.kubeconfig,
      namespace: ns,
      path: 'preview',
      environments: 'main=spread-local\nfeature/**=spread-local',
      deployment: 'true',
    };
    const before = api.deployments.length;
    for (const mode of ['deploy', 'delete']) {
      const r = await step({ ...inputs, mode }, pr);
      expect(r.code, r.log).toBe(0);
      expect(r.outputs.skipped).toBe('true');
      expect(r.log).toContain(
        '::notice::a pull request deploys only to a preview environment that spread.yaml declares',
      );
    }
    expect(api.deployments).toHaveLength(before);
    const left = await kubectl(['--context', 'spread-local', '-n', ns, 'get', 'configmap', 'preview'], {
      allowFail: true,
    });
    expect(left.code).not.toBe(0);
  });

  test('a preview declared in spread.yaml: its namespace from the pull request number, a transient environment, deleted on close', async () => {
    const previewNs = `${ns}-pr-12`;
    write('declared-preview', {
      // No Namespace in the folder: spread creates the preview's, and deletes it on close.
      'spread.yaml': `environments:\n  preview:\n    context: spread-local\n    preview:\n      namespace: ${ns}-pr-{pr}\n`,
      '.k2e/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: preview}\ndata: {a: "1"}\n',
    });
    const pr: ActionEvent = {
      name: 'pull_request',
      refName: '12/merge',
      headRef: 'feature/x',
      baseRef: 'main',
      payload: { number: 12, pull_request: { number: 12, head: { sha: 'feedface'.repeat(5) } } },
    };
    const inputs = {
      kubeconfig: base.kubeconfig,
      path: 'declared-preview',
      deployment: 'true',
      wait: 'false',
    };
    const up = await step(inputs, pr);
    expect(up.code, up.log).toBe(0);
    expect(up.outputs.namespace).toBe(previewNs);
    await kubectl(['--context', 'spread-local', '-n', previewNs, 'get', 'configmap', 'preview']);
    const preview = api.deployments.at(-1)!;
    expect(preview).toMatchObject({ environment: 'preview/pr-12', transient_environment: true });
    expect(preview.statuses.map((s) => s.state)).toEqual(['in_progress', 'success']);
    const down = await step(
      { ...inputs, mode: 'delete' },
      { ...pr, payload: { ...(pr.payload as object), action: 'closed' } },
    );
    expect(down.code, down.log).toBe(0);
    expect(preview.statuses.map((s) => s.state)).toEqual(['in_progress', 'success', 'inactive']);
    const left = await kubectl(
      ['--context', 'spread-local', '-n', previewNs, 'get', 'configmap', 'preview'],
      {
        allowFail: true,
      },
    );
    expect(left.code).not.toBe(0);
    const phase = await kubectl(
      ['--context', 'spread-local', 'get', 'namespace', previewNs, '-o', 'jsonpath={.status.phase}'],
      { allowFail: true },
    );
    expect(phase.code === 0 ? phase.stdout : 'gone').toMatch(/^(Terminating|gone)$/);
  });

  test('a token without deployments: write only warns, naming the permission; the deploy succeeds', async () => {
    api.noDeploymentsWrite.add(`token ${READ_ONLY}`);
    const before = api.deployments.length;
    const r = await step({ ...shop, path: 'plain' }, undefined, READ_ONLY);
    expect(r.code, r.log).toBe(0);
    expect(r.log).toMatch(
      /::warning::could not create a GitHub deployment to production: the token lacks the permission deployments: write \(HTTP 403: Resource not accessible by integration/,
    );
    expect(r.outputs.deployment).toBe('plain');
    expect(r.outputs['deployment-id'] ?? '').toBe('');
    expect(api.deployments).toHaveLength(before);
    expect(r.log).not.toContain(READ_ONLY);
  });
});

describe('the pull request comment after a deploy (input deploy-comment)', () => {
  test('the plan comment of the merged pull request says what was deployed, where, the URL and the revision; off by default', async () => {
    const pr: ActionEvent = {
      name: 'pull_request',
      refName: '31/merge',
      headRef: 'feature/y',
      baseRef: 'main',
      payload: { number: 31, pull_request: { number: 31, head: { sha: SHA } } },
    };
    write('shop', { 'deployment.yaml': deployment('shop', 'registry.k8s.io/pause:3.9') });
    const plan = await step({ ...base, path: 'shop', mode: 'plan' }, pr);
    expect(plan.code, plan.log).toBe(0);
    const comment = api.comments.find((c) => c.issue === 31)!;
    expect(comment.body).toContain('### Plan: `shop`');

    // A deploy without the input leaves the plan standing.
    api.commitPulls[SHA] = [31];
    const quiet = await step({ ...base, path: 'shop', wait: 'false' });
    expect(quiet.code, quiet.log).toBe(0);
    expect(comment.body).toContain('### Plan: `shop`');

    write('shop', { 'deployment.yaml': deployment('shop', 'registry.k8s.io/pause:3.10') });
    api.requests.length = 0;
    const r = await step({ ...base, path: 'shop', wait: 'false', 'deploy-comment': 'true' });
    expect(r.code, r.log).toBe(0);
    expect(api.requests).toEqual([
      `GET /repos/acme/shop/commits/${SHA}/pulls`,
      'GET /repos/acme/shop/issues/31/comments',
      `PATCH /repos/acme/shop/issues/comments/${comment.id}`,
    ]);
    expect(api.comments.filter((c) => c.issue === 31)).toHaveLength(1);
    expect(comment.body.split('\n')[0]).toBe(`<!-- spread-plan:spread-local/${ns}/shop -->`);
    expect(comment.body).toContain(
      `### 🚀 Deployed \`shop\` → context \`spread-local\`, namespace \`${ns}\``,
    );
    expect(comment.body).toContain(
      `revision **${r.outputs.revision}** · <https://${host('shop')}> · commit [\`0123456\`](https://gh/acme/shop/commit/${SHA})`,
    );
    expect(comment.body).toContain('| ✏️ configured | `deployment.apps/shop` |');
    expect(comment.body).not.toContain('### Plan');
    expect(r.outputs['comment-url']).toBe(comment.html_url);
  });
});
