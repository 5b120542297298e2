// The GitLab component (templates/deploy.yml) run by gitlab-ci-local with the shell executor against
// the local cluster: the job's script as GitLab runs it, its dotenv report and its artifacts.
// The project is a temporary git repository that includes the template with `include: local` (a
// `component:` include needs a GitLab server) and runs this checkout's dist/ (input `package`).
// SPREAD_PACKAGE_DIR runs another build (a directory with dist/spread.js, dist/cli/index.js, gitlab/).
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { kubectl, ROOT, uniqueName } from './helpers.js';

const PACKAGE = process.env.SPREAD_PACKAGE_DIR ?? ROOT;
const GCL = path.join(ROOT, 'node_modules/.bin/gitlab-ci-local');
const ns = uniqueName('itg-gitlab');
const project = mkdtempSync(path.join(tmpdir(), 'spread-gitlab-'));

function pipeline(jobs: string): string {
  return `stages: [plan, deploy]\n${jobs}`;
}

const include = (inputs: Record<string, string | boolean>) =>
  `  - local: templates/deploy.yml\n    inputs:\n${Object.entries(inputs)
    .map(([k, v]) => `      ${k}: ${JSON.stringify(v)}`)
    .join('\n')}\n`;

async function gcl(job: string): Promise<{ code: number; log: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [GCL, '--force-shell-executor', '--no-color', '--home', path.join(project, '.home'), job],
      { env: { ...process.env, KUBECONFIG: process.env.KUBECONFIG }, cwd: project },
    );
    let log = '';
    child.stdout.on('data', (d) => (log += d));
    child.stderr.on('data', (d) => (log += d));
    child.on('close', (code) => resolve({ code: code ?? 1, log }));
  });
}

const dotenv = (file: string) =>
  Object.fromEntries(
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

/** gitlab-ci-local copies the project with rsync (Debian package `rsync`). */
const hasRsync = (() => {
  try {
    execFileSync('rsync', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!existsSync(GCL) || !hasRsync)('the GitLab component in gitlab-ci-local', () => {
  beforeAll(async () => {
    await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
    cpSync(path.join(ROOT, 'templates'), path.join(project, 'templates'), { recursive: true });
    cpSync(path.join(ROOT, 'examples/mattermost'), path.join(project, 'app'), { recursive: true });
    mkdirSync(path.join(project, '.home'));
    const common = { path: 'app', context: 'spread-local', namespace: ns, package: PACKAGE, wait: false };
    writeFileSync(
      path.join(project, '.gitlab-ci.yml'),
      pipeline(
        `include:\n${include({ ...common, stage: 'plan', 'job-name': 'plan', mode: 'plan', 'environment-action': 'prepare' })}${include({ ...common, stage: 'deploy', 'job-name': 'deploy', 'environment-url': 'https://shop.example.com' })}${include({ path: 'app', context: 'spread-local', namespace: ns, package: '', stage: 'plan', 'job-name': 'no-package', mode: 'plan', 'resource-group': 'spread-no-package' })}${include({ ...common, package: 'some-package', stage: 'plan', 'job-name': 'no-version', mode: 'plan', 'resource-group': 'spread-no-version' })}`,
      ),
    );
    const git = (...args: string[]) => execFileSync('git', args, { cwd: project });
    git('init', '-q', '-b', 'main');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'add', '.');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '-m', 'app');
    git('remote', 'add', 'origin', 'https://gitlab.example.com/acme/shop.git');
    git('update-ref', 'refs/remotes/origin/main', 'HEAD');
    git('symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/main');
  });
  afterAll(async () => {
    await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
      allowFail: true,
    });
  });

  test('deploy: the dotenv report, the Markdown artifacts, the objects in the cluster', async () => {
    const r = await gcl('deploy');
    expect(r.code, r.log).toBe(0);
    const out = path.join(project, '.spread');
    expect(dotenv(path.join(out, 'spread.env'))).toMatchObject({
      SPREAD_DEPLOYMENT: 'app',
      SPREAD_NAMESPACE: ns,
      SPREAD_CONTEXT: 'spread-local',
      SPREAD_CHANGED: 'true',
      SPREAD_IMAGES: '[]',
      SPREAD_ENVIRONMENT_URL: 'https://shop.example.com',
    });
    expect(readFileSync(path.join(out, 'summary.md'), 'utf8')).toContain(
      '### Deploy: `app` → context `spread-local`',
    );
    expect(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')).deployment).toBe('app');
    expect(r.log).not.toContain('mattermost-example-password');
    await kubectl(['--context', 'spread-local', '-n', ns, 'get', 'rc', 'mattermost']);
  });

  test('plan after the deploy: no changes, in plan.md', async () => {
    const r = await gcl('plan');
    expect(r.code, r.log).toBe(0);
    const out = path.join(project, '.spread');
    expect(readFileSync(path.join(out, 'plan.md'), 'utf8')).toContain('✅ **No changes.**');
    expect(dotenv(path.join(out, 'spread.env')).SPREAD_CHANGED).toBe('false');
  });

  test('an empty input package (GitLab refuses a missing one), or a package name without version: the job fails saying what to set, installing nothing', async () => {
    const none = await gcl('no-package');
    expect(none.code).not.toBe(0);
    expect(none.log).toContain(
      "spread: set the component's input 'package' to the npm package that provides spread (with 'version')",
    );
    expect(none.log).not.toMatch(/npm (install|error)/);
    const unpinned = await gcl('no-version');
    expect(unpinned.code).not.toBe(0);
    expect(unpinned.log).toContain(
      "spread: set the component's input 'version' to the exact version of some-package",
    );
    expect(unpinned.log).not.toMatch(/npm (install|error)/);
  });
});
