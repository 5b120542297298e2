// Messages of real API server errors, against the local cluster: a field the server refuses is
// reported at the field's line (core, CLI, the Action's annotations and its pull request comment), a
// forbidden write names the Role rule that allows it, and the docs' claim about Leases and the
// built-in roles holds.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { locatedFailures } from '../../src/core/errors.js';
import { ApplyError } from '../../src/engine/apply/errors.js';
import { deploy } from '../../src/frontend/deploy.js';
import { runActionStep } from './action-runner.js';
import { type GitHubApi, startGitHubApi } from './github-api.js';
import { needs } from './harness.js';
import { kubeconfigContent, kubectl, localDeploy, ROOT, runNode, uniqueName, writeDir } from './helpers.js';

const ns = uniqueName('messages');
const minor = Number(/^v1\.(\d+)\./.exec(inject('clusterEnv').SPREAD_KUBE_VERSION ?? 'v1.34.0')?.[1]);
const other = uniqueName('messages-other');

// Line 12: the misspelt `imagee` of the container.
const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          imagee: registry.k8s.io/pause:3.10
          image: registry.k8s.io/pause:3.10
`;
// Line 9: a port out of range.
const SERVICE = `apiVersion: v1
kind: Service
metadata:
  name: svc
spec:
  selector: {app: web}
  ports:
    - name: http
      port: 70000
`;

const files = { 'deployment.yaml': DEPLOYMENT, '.k2e/svc.yaml': SERVICE };
const context = 'spread-local';

beforeAll(async () => {
  await kubectl(['--context', context, 'create', 'namespace', ns]);
  await kubectl(['--context', context, 'create', 'namespace', other]);
});

afterAll(async () => {
  for (const n of [ns, other])
    await kubectl(['--context', context, 'delete', 'namespace', n, '--wait=false'], { allowFail: true });
});

describe("a field the server refuses is reported at the field's line", () => {
  test('core: an unknown field (server-side apply) and an invalid value (validation), one failure each', async () => {
    const root = writeDir('fields', files);
    const error = await deploy(localDeploy(root, ns, { mode: 'plan', wait: false })).catch((e) => e);
    expect(error).toBeInstanceOf(ApplyError);
    expect(error.message).toMatch(
      new RegExp(
        `Deployment\\.apps ${ns}/web \\(deployment\\.yaml:12\\): .*imagee: field not declared in schema`,
      ),
    );
    expect(error.message).toMatch(
      new RegExp(
        `Service ${ns}/svc \\(\\.k2e/svc\\.yaml:9\\): .*spec\\.ports\\[0\\]\\.port: Invalid value: 70000`,
      ),
    );
    expect(
      locatedFailures(error)
        .map((f) => `${f.file}:${f.line}`)
        .sort(),
    ).toEqual(['.k2e/svc.yaml:9', 'deployment.yaml:12']);
  });

  test('the CLI prints the field lines', async () => {
    const root = writeDir('fields', files);
    const r = await runNode('dist/cli/index.js', ['plan', root, context, '-n', ns]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Deployment.apps ${ns}/web (deployment.yaml:12):`);
    expect(r.stderr).toContain(`Service ${ns}/svc (.k2e/svc.yaml:9):`);
  });

  describe('the Action', () => {
    let api: GitHubApi;
    beforeAll(async () => {
      api = await startGitHubApi();
    });
    afterAll(async () => {
      await api?.close();
    });

    test('one annotation per object, at the field; the pull request comment says the plan failed, at the field', async () => {
      const root = writeDir('fields', files);
      // The workspace holds the directory, as a checkout does: annotations name files relative to it.
      const workspace = path.dirname(root);
      const r = await runActionStep({
        entry: path.join(ROOT, 'dist/index.js'),
        workspace,
        inputs: {
          path: path.relative(workspace, root),
          kubeconfig: kubeconfigContent(),
          context,
          namespace: ns,
          mode: 'plan',
        },
        event: {
          name: 'pull_request',
          refName: '7/merge',
          headRef: 'feature',
          baseRef: 'main',
          payload: {
            number: 7,
            pull_request: { number: 7, head: { sha: 'feedfacefeedfacefeedfacefeedfacefeedface' } },
          },
        },
        env: { GITHUB_API_URL: api.url, 'INPUT_GITHUB-TOKEN': 'ghs_messages' },
      });
      expect(r.code).not.toBe(0);
      const located = r.log.split('\n').filter((l) => l.startsWith('::error file='));
      const rel = path.relative(workspace, root);
      expect(
        located.map((l) => /^::error file=([^,]+),line=(\d+)::/.exec(l)?.slice(1).join(':')).sort(),
        located.join('\n'),
      ).toEqual([`${rel}/.k2e/svc.yaml:9`, `${rel}/deployment.yaml:12`]);
      expect(api.comments).toHaveLength(1);
      const body = api.comments[0]!.body;
      expect(body.startsWith(`<!-- spread-plan:${context}/${ns}/fields -->`)).toBe(true);
      expect(body).toContain('### ❌ Plan failed: `fields`');
      expect(body).toContain(`\`${rel}/deployment.yaml:12\`: Deployment.apps ${ns}/web (deployment.yaml:12)`);
      expect(body).toContain(`\`${rel}/.k2e/svc.yaml:9\`: Service ${ns}/svc (.k2e/svc.yaml:9)`);
    });
  });
});

describe('a forbidden write', needs('teamA'), () => {
  test('names the verb, resource and namespace, and the Role rule that allows it', async () => {
    // team-a-deployer may write in team-a only (scripts/cluster/team-a.yaml).
    const root = writeDir(uniqueName('messages-forbid'), {
      '.k2e/cm.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: ${other}\ndata: {a: b}\n`,
    });
    const r = await runNode('dist/cli/index.js', ['plan', root, 'spread-team-a']);
    expect(r.code).toBe(1);
    // The plan reads the object first: the refusal is of its get.
    expect(r.stderr).toContain(
      `User "team-a-deployer" cannot get resource "configmaps" in API group "" in the namespace "${other}"; a Role in namespace ${other} with the rule {apiGroups: [""], resources: ["configmaps"], verbs: ["get"]}, bound to User "team-a-deployer", allows it (kubectl create role NAME --verb=get --resource=configmaps -n ${other} and kubectl create rolebinding NAME --role=NAME --user=team-a-deployer -n ${other})`,
    );
  });
});

// The README (now docs/operations.md, "Permissions (RBAC)") once said the built-in admin and edit
// roles do not grant Leases. It now says they do from v1.34 (checked here on each minor the suite runs
// from it) and how to check an older cluster.
describe.skipIf(minor < 34)('the RBAC list of docs/operations.md', () => {
  test.each(['edit', 'admin'])(
    'a user bound to the built-in %s role may take the deploy lock (Leases)',
    async (role) => {
      const user = `messages-${role}-user`;
      await kubectl([
        ...['--context', context, '-n', ns, 'create', 'rolebinding', `${user}`],
        ...[`--clusterrole=${role}`, `--user=${user}`],
      ]);
      for (const verb of ['get', 'create', 'update', 'delete']) {
        const r = await kubectl(
          ['--context', context, 'auth', 'can-i', verb, 'leases.coordination.k8s.io', '-n', ns, '--as', user],
          { allowFail: true },
        );
        expect(r.stdout.trim(), `${role}: ${verb} leases`).toBe('yes');
      }
    },
  );
});
