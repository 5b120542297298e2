// The GitLab component's mode drift (templates/deploy.yml) run by gitlab-ci-local's shell executor
// against the local cluster, with a local stand-in for GitLab's Issues API (CI_API_V4_URL): one issue
// per drifted deployment, opened, updated, closed when the cluster matches again; heal, also of the
// environments a spread.yaml declares, each deployed from its own folder (`path`).
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { stringify } from 'yaml';
import { type GitLabApi, startGitLabApi } from './gitlab-api.js';
import { needs } from './harness.js';
import { kubectl, ROOT, uniqueName } from './helpers.js';

const GCL = path.join(ROOT, 'node_modules/.bin/gitlab-ci-local');
const ns = uniqueName('drift-gitlab');
/** The namespaces of the deployment `envs`, declared per environment in its spread.yaml. */
const staging = `${ns}-staging`;
const production = `${ns}-production`;
const project = mkdtempSync(path.join(tmpdir(), 'spread-gitlab-drift-'));
const TOKEN = `glpat-${Math.random().toString(36).slice(2)}`;
const hasRsync = (() => {
  try {
    execFileSync('rsync', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
let api: GitLabApi;

function gcl(job: string): Promise<{ code: number; log: string }> {
  const variablesFile = path.join(project, '.home/variables.yml');
  writeFileSync(
    variablesFile,
    stringify({ CI_API_V4_URL: api.url, CI_PROJECT_ID: '42', SPREAD_GITLAB_TOKEN: TOKEN }),
  );
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        GCL,
        '--force-shell-executor',
        '--variables-file',
        variablesFile,
        '--no-color',
        '--home',
        path.join(project, '.home'),
        job,
      ],
      { env: process.env, cwd: project },
    );
    let log = '';
    child.stdout.on('data', (d) => (log += d));
    child.stderr.on('data', (d) => (log += d));
    child.on('close', (code) => resolve({ code: code ?? 1, log }));
  });
}

const dotenv = (job: string) =>
  Object.fromEntries(
    readFileSync(
      path.join(project, '.gitlab-ci-local/artifacts', job, '.gitlab-ci-reports/dotenv/.spread/spread.env'),
      'utf8',
    )
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

describe.skipIf(!existsSync(GCL) || !hasRsync)(
  'the GitLab component, mode drift',
  needs('gitlabCiLocal'),
  () => {
    beforeAll(async () => {
      api = await startGitLabApi();
      for (const n of [ns, staging, production])
        await kubectl(['--context', 'spread-local', 'create', 'namespace', n]);
      cpSync(path.join(ROOT, 'templates'), path.join(project, 'templates'), { recursive: true });
      mkdirSync(path.join(project, 'settings/.k2e'), { recursive: true });
      mkdirSync(path.join(project, '.home'));
      writeFileSync(
        path.join(project, 'settings/.k2e/settings.yaml'),
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: "1"}\n',
      );
      // A deployment declared through spread.yaml's environments, each with its own folder (`path`)
      // holding the same ConfigMap: the directory itself cannot be deployed, only an environment.
      const settings = (a: string) =>
        `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: "${a}"}\n`;
      for (const [file, text] of Object.entries({
        'envs/spread.yaml': [
          'environments:',
          `  staging: {context: spread-local, namespace: ${staging}, path: overlays/staging}`,
          `  production: {context: spread-local, namespace: ${production}, path: overlays/production}`,
          '',
        ].join('\n'),
        'envs/overlays/staging/settings.yaml': settings('s1'),
        'envs/overlays/production/settings.yaml': settings('p1'),
      })) {
        mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
        writeFileSync(path.join(project, file), text);
      }
      const common = { path: 'settings', context: 'spread-local', namespace: ns, package: ROOT, wait: false };
      // No context or namespace: spread.yaml names them per environment.
      const envs = { path: 'envs', package: ROOT, wait: false };
      const jobs = [
        { ...common, stage: 'deploy', 'job-name': 'deploy', 'force-conflicts': true },
        { ...common, stage: 'drift', 'job-name': 'drift', mode: 'drift', 'resource-group': 'spread-drift' },
        { ...common, stage: 'drift', 'job-name': 'drift-heal', mode: 'drift', heal: true, timeout: '2m' },
        ...['staging', 'production'].map((e) => ({
          ...envs,
          stage: 'deploy',
          'job-name': `deploy-${e}`,
          environment: e,
        })),
        { ...envs, stage: 'drift', 'job-name': 'drift-envs', mode: 'drift', heal: true, timeout: '2m' },
      ];
      writeFileSync(
        path.join(project, '.gitlab-ci.yml'),
        `stages: [deploy, drift]\ninclude:\n${jobs
          .map(
            (inputs) =>
              `  - local: templates/deploy.yml\n    inputs:\n${Object.entries(inputs)
                .map(([k, v]) => `      ${k}: ${JSON.stringify(v)}`)
                .join('\n')}\n`,
          )
          .join('')}`,
      );
      execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: project });
      execFileSync('git', ['remote', 'add', 'origin', 'https://gitlab.example/acme/shop.git'], {
        cwd: project,
      });
      execFileSync('git', ['add', '-A'], { cwd: project });
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init'], {
        cwd: project,
      });
      const r = await gcl('deploy');
      expect(r.code, r.log).toBe(0);
    });
    afterAll(async () => {
      await api?.close();
      for (const n of [ns, staging, production])
        await kubectl(['--context', 'spread-local', 'delete', 'namespace', n, '--wait=false'], {
          allowFail: true,
        });
    });

    test('in sync: no issue; kubectl patch: one issue; again: the same one; a deploy: closed with a note', async () => {
      const clean = await gcl('drift');
      expect(clean.code, clean.log).toBe(0);
      expect(api.issues).toEqual([]);
      expect(dotenv('drift')).toMatchObject({ SPREAD_DRIFTED: 'false', SPREAD_DRIFT_ISSUES: '' });

      await kubectl([
        '--context',
        'spread-local',
        '-n',
        ns,
        'patch',
        'configmap',
        'settings',
        '-p',
        '{"data":{"a":"2"}}',
      ]);
      const drifted = await gcl('drift');
      expect(drifted.code, drifted.log).toBe(0);
      expect(api.issues).toHaveLength(1);
      const issue = api.issues[0]!;
      expect(issue.labels).toEqual(['spread-drift']);
      expect(issue.title).toMatch(new RegExp(`^Drift: .* in ${ns}$`));
      expect(issue.description).toContain('~ data.a: "2" → "1"');
      expect(issue.description).toContain('`data.a`: changed by **kubectl-patch** (Update)');
      expect(dotenv('drift')).toMatchObject({ SPREAD_DRIFTED: 'true', SPREAD_DRIFT_ISSUES: '1' });
      expect(drifted.log).not.toContain(TOKEN);

      const again = await gcl('drift');
      expect(again.code, again.log).toBe(0);
      expect(api.issues).toHaveLength(1);
      expect(api.requests).toContain(`PUT /api/v4/projects/42/issues/1`);

      const deployed = await gcl('deploy');
      expect(deployed.code, deployed.log).toBe(0);
      const closed = await gcl('drift');
      expect(closed.code, closed.log).toBe(0);
      expect(issue.state).toBe('closed');
      expect(issue.notes).toEqual([
        expect.stringMatching(/The cluster matches the last deployed revision \d+ /),
      ]);
      expect([...api.tokens]).toEqual([TOKEN]);
    });

    test('heal: the last good revision deployed again, the issue says so and is closed', async () => {
      const before = api.issues.length;
      const healedNothing = await gcl('drift-heal');
      expect(healedNothing.code, healedNothing.log).toBe(0);
      expect(healedNothing.log).not.toContain('spread: Healed');
      await kubectl([
        '--context',
        'spread-local',
        '-n',
        ns,
        'patch',
        'configmap',
        'settings',
        '-p',
        '{"data":{"a":"3"}}',
      ]);
      const healed = await gcl('drift-heal');
      expect(healed.code, healed.log).toBe(0);
      expect(api.issues).toHaveLength(before + 1);
      const issue = api.issues[before]!;
      expect(issue.description).toContain('~ data.a: "3" → "1"');
      expect(issue.description).toMatch(
        /\*\*Healed\*\*: revision \d+ \(the last good deploy\) was deployed again/,
      );
      expect(issue.state).toBe('closed');
      expect(issue.notes).toEqual([expect.stringMatching(/^Healed: revision \d+/)]);
      expect(dotenv('drift-heal')).toMatchObject({ SPREAD_DRIFTED: 'true' });
      const value = await kubectl([
        '--context',
        'spread-local',
        '-n',
        ns,
        'get',
        'configmap',
        'settings',
        '-o',
        'jsonpath={.data.a}',
      ]);
      expect(value.stdout).toBe('1');
      expect(healed.log).not.toContain(TOKEN);
    });

    test('heal of environments declared in spread.yaml, each with its own folder: the drifted one healed, its issue closed', async () => {
      for (const e of ['staging', 'production']) {
        const r = await gcl(`deploy-${e}`);
        expect(r.code, r.log).toBe(0);
      }
      const before = api.issues.length;
      const clean = await gcl('drift-envs');
      expect(clean.code, clean.log).toBe(0);
      expect(api.issues.length, clean.log).toBe(before);
      expect(dotenv('drift-envs')).toMatchObject({ SPREAD_DRIFTED: 'false', SPREAD_DRIFT_ISSUES: '' });

      const a = (n: string) =>
        kubectl([
          '--context',
          'spread-local',
          '-n',
          n,
          'get',
          'configmap',
          'settings',
          '-o',
          'jsonpath={.data.a}',
        ]);
      await kubectl([
        '--context',
        'spread-local',
        '-n',
        production,
        'patch',
        'configmap',
        'settings',
        '-p',
        '{"data":{"a":"p2"}}',
      ]);
      const healed = await gcl('drift-envs');
      expect(healed.code, healed.log).toBe(0);
      expect(api.issues.slice(before).map((i) => i.title)).toEqual([
        `Drift: envs in ${production} (production)`,
      ]);
      const issue = api.issues[before]!;
      expect(issue.description).toContain(`### ConfigMap/settings in ${production} — differs`);
      expect(issue.description).toContain('~ data.a: "p2" → "p1"');
      expect(issue.description).toContain('`data.a`: changed by **kubectl-patch** (Update)');
      expect(issue.description).toMatch(
        /\*\*Healed\*\*: revision \d+ \(the last good deploy\) was deployed again/,
      );
      expect(issue.state, healed.log).toBe('closed');
      expect(issue.notes).toEqual([expect.stringMatching(/^Healed: revision \d+/)]);
      expect(dotenv('drift-envs')).toMatchObject({
        SPREAD_DRIFTED: 'true',
        SPREAD_DRIFT_ISSUES: String(issue.iid),
      });
      // The environment's own folder deployed again, on its namespace; the other one left alone.
      expect((await a(production)).stdout).toBe('p1');
      expect((await a(staging)).stdout).toBe('s1');
      expect(healed.log).not.toContain(TOKEN);

      // Healed and closed: the next run finds nothing and opens nothing.
      const after = await gcl('drift-envs');
      expect(after.code, after.log).toBe(0);
      expect(api.issues.length).toBe(before + 1);
      expect(dotenv('drift-envs')).toMatchObject({ SPREAD_DRIFTED: 'false' });
    });
  },
);
