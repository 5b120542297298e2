// The GitLab component (templates/deploy.yml) run by gitlab-ci-local against the local cluster: the
// job's script as GitLab runs it, its dotenv report and its artifacts.
// - The shell executor runs this checkout's dist/ (input `package`) on this machine.
// - The docker executor runs the component's default way: spread's image, built here from the
//   repository's Dockerfile on the local engine with a base made from local parts
//   (scripts/local-images.sh, since nothing can be pulled), its container on the host's network (the
//   engine has no bridge), the cluster's kubeconfig a file-type CI/CD variable.
// The project is a temporary git repository that includes the template with `include: local` (a
// `component:` include needs a GitLab server).
// SPREAD_PACKAGE_DIR runs another build in the shell executor (a directory with dist/spread.js,
// dist/cli/index.js, dist/gitlab/report.js).
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse, stringify } from 'yaml';
import { needs } from './harness.js';
import { kubectl, ROOT, uniqueName } from './helpers.js';

const PACKAGE = process.env.SPREAD_PACKAGE_DIR ?? ROOT;
const GCL = path.join(ROOT, 'node_modules/.bin/gitlab-ci-local');
const ns = uniqueName('itg-gitlab');
const image = `spread.local/spread:${ns}`;
const project = mkdtempSync(path.join(tmpdir(), 'spread-gitlab-'));
/** Longest line a job log may hold: a stack of the bundle would print a minified line of 400,000. */
const LINE_LIMIT = 2_000;

const has = (cmd: string, args: string[]) => {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
// gitlab-ci-local copies the project and the artifacts with rsync (Debian package `rsync`); the docker
// executor needs the engine, and the local images need BusyBox (busybox-static). All are installed
// by .ci/run (scripts/install-system.sh, npm ci, scripts/cluster/up.sh), so CI never skips.
const missing = [
  ...(existsSync(GCL) ? [] : ['gitlab-ci-local (npm ci)']),
  ...(has('rsync', ['--version']) ? [] : ['rsync']),
];
const missingDocker = [
  ...(has('docker', ['version']) ? [] : ['a Docker engine at DOCKER_HOST']),
  ...(has('busybox', ['true']) || existsSync('/bin/busybox') ? [] : ['busybox (busybox-static)']),
];
if (process.env.CI === 'true' && missing.length + missingDocker.length > 0) {
  throw new Error(
    `gitlab.itg.test.ts needs ${[...missing, ...missingDocker].join(', ')}; .ci/run provides them, so CI does not skip`,
  );
}

interface Run {
  code: number;
  log: string;
}

/** Runs one job; `docker` uses the docker executor with the locally built helper image. */
async function gcl(
  job: string,
  options: { docker?: { helperImage: string }; env?: NodeJS.ProcessEnv; variablesFile?: string } = {},
): Promise<Run> {
  const executor = options.docker
    ? ['--network', 'host', '--helper-image', options.docker.helperImage, '--pull-policy', 'if-not-present']
    : ['--force-shell-executor'];
  const variables = options.variablesFile ? ['--variables-file', options.variablesFile] : [];
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [GCL, ...executor, ...variables, '--no-color', '--home', path.join(project, '.home'), job],
      { env: { ...process.env, ...options.env }, cwd: project },
    );
    let log = '';
    child.stdout.on('data', (d) => (log += d));
    child.stderr.on('data', (d) => (log += d));
    child.on('close', (code) => resolve({ code: code ?? 1, log }));
  });
}

/** The files a job uploaded: its artifacts and its dotenv report, as gitlab-ci-local keeps them. */
function artifacts(job: string) {
  const dir = path.join(project, '.gitlab-ci-local/artifacts', job);
  const read = (f: string) => readFileSync(path.join(dir, f), 'utf8');
  return {
    planMd: () => read('.spread/plan.md'),
    summaryMd: () => read('.spread/summary.md'),
    reportJson: () => JSON.parse(read('.spread/report.json')),
    dotenv: () => dotenv(path.join(dir, '.gitlab-ci-reports/dotenv/.spread/spread.env')),
  };
}

const dotenv = (file: string) =>
  Object.fromEntries(
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

const longestLine = (log: string) => Math.max(...log.split('\n').map((l) => l.length));

const include = (inputs: Record<string, string | boolean>) =>
  `  - local: templates/deploy.yml\n    inputs:\n${Object.entries(inputs)
    .map(([k, v]) => `      ${k}: ${JSON.stringify(v)}`)
    .join('\n')}\n`;

/** A directory with one ConfigMap, whose value `a` the tests change. */
const configMapApp = (a: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: "${a}"\n`;

const reviewHost = `review-${ns}.example.com`;

const kubeconfigOfContext = async () =>
  (await kubectl(['config', 'view', '--flatten', '--minify', '--context', 'spread-local'])).stdout;

describe.skipIf(missing.length > 0)(
  'the GitLab component in gitlab-ci-local',
  needs('gitlabCiLocal', 'docker', 'buildkit', 'registry'),
  () => {
    beforeAll(async () => {
      await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
      cpSync(path.join(ROOT, 'templates'), path.join(project, 'templates'), { recursive: true });
      cpSync(path.join(ROOT, 'examples/mattermost'), path.join(project, 'app'), { recursive: true });
      // A review app that answers behind an Ingress: its URL is the environment's.
      mkdirSync(path.join(project, 'web/.k2e'), { recursive: true });
      writeFileSync(
        path.join(project, 'web/.k2e/web.yaml'),
        `apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {selector: {app: web}, ports: [{port: 80}]}\n---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\nspec:\n  tls: [{hosts: ["${reviewHost}"]}]\n  rules: [{host: "${reviewHost}"}]\n`,
      );
      mkdirSync(path.join(project, 'settings/.k2e'), { recursive: true });
      writeFileSync(path.join(project, 'settings/.k2e/settings.yaml'), configMapApp('1'));
      // A YAML error on line 6: the failed job's artifacts name rc.yaml:6.
      mkdirSync(path.join(project, 'broken'));
      writeFileSync(
        path.join(project, 'broken/rc.yaml'),
        'apiVersion: v1\nkind: ReplicationController\nmetadata:\n  name: web\n  labels: [oops\n',
      );
      // An image marked `&` with a BuildKit-only Dockerfile: built inside the job, in spread's image.
      mkdirSync(path.join(project, 'built'));
      writeFileSync(
        path.join(project, 'built/Dockerfile'),
        `FROM ${process.env.SPREAD_BASE_IMAGE_REF}\nRUN --mount=type=cache,target=/cache echo built-in-job > /hello\nCOPY --chmod=755 run.sh /run.sh\n`,
      );
      writeFileSync(path.join(project, 'built/run.sh'), '#!/bin/sh\ncat /hello\n');
      writeFileSync(path.join(project, 'built/web.ctr'), 'name: web\nimage: "&web"\n');
      mkdirSync(path.join(project, '.home'));
      // Environments declared in spread.yaml: the input environment also picks the declared one.
      const { stdout: uid } = await kubectl([
        '--context',
        'spread-local',
        'get',
        'namespace',
        'kube-system',
        '-o',
        'jsonpath={.metadata.uid}',
      ]);
      mkdirSync(path.join(project, 'declared'));
      writeFileSync(
        path.join(project, 'declared/configmap.yaml'),
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: declared\ndata:\n  a: b\n',
      );
      writeFileSync(
        path.join(project, 'declared/spread.yaml'),
        `environments:\n  staging:\n    context: spread-local\n    namespace: ${ns}\n    kubeSystemUID: ${uid.trim()}\n  production:\n    context: spread-local\n    namespace: ${ns}\n    kubeSystemUID: 00000000-0000-4000-8000-000000000000\n`,
      );
      const common = { path: 'app', context: 'spread-local', namespace: ns, package: PACKAGE, wait: false };
      const settings = { ...common, path: 'settings', 'resource-group': 'spread-settings' };
      const jobs = [
        { ...common, stage: 'plan', 'job-name': 'plan', mode: 'plan', 'environment-action': 'prepare' },
        { ...common, stage: 'deploy', 'job-name': 'deploy', 'environment-url': 'https://shop.example.com' },
        {
          ...common,
          package: '',
          stage: 'plan',
          'job-name': 'no-package',
          mode: 'plan',
          'resource-group': 'spread-no-package',
        },
        {
          ...common,
          package: 'some-package',
          stage: 'plan',
          'job-name': 'no-version',
          mode: 'plan',
          'resource-group': 'spread-no-version',
        },
        {
          ...common,
          path: 'broken',
          stage: 'deploy',
          'job-name': 'broken',
          'resource-group': 'spread-broken',
        },
        ...(['staging', 'production'] as const).map((environment) => ({
          path: 'declared',
          package: PACKAGE,
          wait: false,
          stage: 'deploy',
          'job-name': `declared-${environment}`,
          environment,
          'resource-group': `spread-declared-${environment}`,
        })),
        // Every input the CLI has beyond the first ones, on a deploy (they must reach the CLI, which
        // refuses unknown flags) and on a plan (which takes none of the deploy-only ones).
        ...(['deploy', 'plan'] as const).map((mode) => ({
          ...common,
          stage: mode,
          mode,
          'job-name': `all-inputs-${mode}`,
          'resource-group': `spread-all-inputs-${mode}`,
          adopt: true,
          'prune-crds': true,
          'force-conflicts': true,
          replace: true,
          'rollback-on-failure': true,
          'lock-timeout': '45s',
          'lock-lease-duration': '40s',
          tag: 'v1.2.3',
          'build-args': 'GREETING=hello world\nSECRET_TOKEN=s3cr3t-build-value\n',
          cache: 'registry',
          platforms: 'linux/amd64',
          'build-secrets': 'project=CI_PROJECT_NAME\n',
          'url-from': 'service/mattermost',
        })),
        {
          ...common,
          stage: 'plan',
          'job-name': 'bad-build-args',
          mode: 'plan',
          'build-args': 'NOEQUALS',
          'resource-group': 'spread-bad-build-args',
        },
        // A review environment: its URL from the dotenv report, and `mode: delete` as its on_stop job.
        ...(['review', 'stop-review'] as const).map((job) => ({
          ...common,
          path: 'web',
          stage: 'deploy',
          'job-name': job,
          environment: 'review/main',
          'resource-group': 'spread-review',
          ...(job === 'stop-review' ? { mode: 'delete', 'environment-action': 'stop' } : {}),
        })),
        { ...settings, stage: 'deploy', 'job-name': 'settings' },
        { ...settings, stage: 'deploy', 'job-name': 'settings-forced', 'force-conflicts': true },
        {
          ...common,
          stage: 'plan',
          'job-name': 'own-kubeconfig',
          mode: 'plan',
          'resource-group': 'spread-own-kubeconfig',
        },
        {
          ...common,
          package: '',
          image,
          stage: 'deploy',
          'job-name': 'image-deploy',
          'resource-group': 'spread-image',
        },
        {
          ...common,
          package: '',
          image,
          path: 'built',
          registry: `${process.env.SPREAD_REGISTRY}/${ns}`,
          tag: 'job-1',
          stage: 'deploy',
          'job-name': 'image-build',
          'resource-group': 'spread-image-build',
        },
        {
          ...common,
          package: '',
          image,
          path: 'broken',
          stage: 'deploy',
          'job-name': 'image-broken',
          'resource-group': 'spread-image-broken',
        },
      ];
      // GitLab merges a job of .gitlab-ci.yml into the included job of the same name: that is how the
      // deploy job names its stop job. A later job reads the dotenv report as GitLab passes it on.
      const review = [
        // The job's builder, as a GitLab job makes one for a BuildKit service (buildx's remote driver):
        // here the local buildkitd's loopback TCP listener, on the host's network.
        'image-build:',
        '  before_script:',
        `    - docker buildx create --name job --driver remote ${process.env.SPREAD_BUILDKIT_TCP} --use`,
        'review:',
        '  environment:',
        '    on_stop: stop-review',
        'review-url:',
        '  stage: verify',
        '  needs: [review]',
        '  script: [\'echo "review answers at $SPREAD_ENVIRONMENT_URL"\']',
        '',
      ].join('\n');
      writeFileSync(
        path.join(project, '.gitlab-ci.yml'),
        `stages: [plan, deploy, verify]\ninclude:\n${jobs.map(include).join('')}${review}`,
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
      rmSync(project, { recursive: true, force: true });
    });

    describe('shell executor, this checkout', () => {
      test('deploy: the dotenv report, the Markdown artifacts, the objects in the cluster', async () => {
        const r = await gcl('deploy');
        expect(r.code, r.log).toBe(0);
        const out = artifacts('deploy');
        expect(out.dotenv()).toMatchObject({
          SPREAD_OUTCOME: 'success',
          SPREAD_ERROR: '',
          SPREAD_DEPLOYMENT: 'shop-app',
          SPREAD_NAMESPACE: ns,
          SPREAD_CONTEXT: 'spread-local',
          SPREAD_CHANGED: 'true',
          SPREAD_IMAGES: '[]',
          SPREAD_ENVIRONMENT_URL: 'https://shop.example.com',
        });
        expect(out.summaryMd()).toContain('### Deploy: `shop-app` → context `spread-local`');
        // `app` is a common folder name: the project's name goes before it (CI_PROJECT_PATH acme/shop).
        expect(out.reportJson().deployment).toBe('shop-app');
        expect(r.log).not.toContain('mattermost-example-password');
        await kubectl(['--context', 'spread-local', '-n', ns, 'get', 'rc', 'mattermost']);
      });

      test('declared environments: the input environment deploys the declared one, and refuses the wrong cluster', async () => {
        const staging = await gcl('declared-staging');
        expect(staging.code, staging.log).toBe(0);
        expect(artifacts('declared-staging').dotenv()).toMatchObject({
          SPREAD_OUTCOME: 'success',
          SPREAD_NAMESPACE: ns,
          SPREAD_CONTEXT: 'spread-local',
        });
        await kubectl(['--context', 'spread-local', '-n', ns, 'get', 'configmap', 'declared']);
        const production = await gcl('declared-production');
        expect(production.code).not.toBe(0);
        expect(production.log).toContain(
          'wrong cluster: environment production is kube-system uid 00000000-0000-4000-8000-000000000000',
        );
      });

      test("a review environment: its URL read from the dotenv report (the Ingress's https host), passed on to a later job; mode delete as its on_stop job", {
        retry: 1,
      }, async () => {
        const r = await gcl('review');
        expect(r.code, r.log).toBe(0);
        const report = artifacts('review').dotenv();
        expect(report).toMatchObject({ SPREAD_OUTCOME: 'success', SPREAD_DEPLOYMENT: 'web' });
        expect(report.SPREAD_ENVIRONMENT_URL).toBe(`https://${reviewHost}`);
        // The job as GitLab sees it (gitlab-ci-local --preview: includes and merges expanded): its
        // environment's URL is the dotenv variable, which GitLab reads from the job's own report when the
        // job ends, and its on_stop is the delete job, which stops the same environment.
        const previewText = execFileSync(
          process.execPath,
          [GCL, '--preview', '--home', path.join(project, '.home')],
          { cwd: project, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
        );
        const preview = parse(previewText) as Record<
          string,
          { environment?: { name?: string; url?: string; on_stop?: string; action?: string } }
        >;
        expect(preview.review?.environment).toEqual({
          name: 'review/main',
          url: '$SPREAD_ENVIRONMENT_URL',
          action: 'start',
          on_stop: 'stop-review',
        });
        // Seen twice in five whole runs of this file (never alone): the preview's stop-review job without
        // its environment. The cause is not found yet: the message shows what was there, and the test
        // runs once more (every step of it is idempotent) before it fails.
        expect(
          preview['stop-review']?.environment,
          `stop-review in gitlab-ci-local --preview: ${JSON.stringify(preview['stop-review'])?.slice(0, 2000)}`,
        ).toMatchObject({ name: 'review/main', action: 'stop' });
        const url = preview.review!.environment!.url!.replace(
          /\$(\w+)/g,
          (_, name: string) => report[name] ?? '',
        );
        expect(url).toBe(`https://${reviewHost}`);
        const later = await gcl('review-url');
        expect(later.code, later.log).toBe(0);
        expect(later.log).toContain(`review answers at https://${reviewHost}`);

        const stop = await gcl('stop-review');
        expect(stop.code, stop.log).toBe(0);
        // No name given: the path, which the CLI names as deploy named the folder.
        expect(stop.log).toContain(
          `spread delete ./web spread-local --namespace ${ns} --lock-timeout 5m --lock-lease-duration 30s --output json`,
        );
        const gone = await kubectl(['--context', 'spread-local', '-n', ns, 'get', 'ingress', 'web'], {
          allowFail: true,
        });
        expect(gone.stderr).toMatch(/NotFound/);
        expect(artifacts('stop-review').dotenv().SPREAD_OUTCOME).toBe('success');
      });

      test('plan after the deploy: no changes, in plan.md', async () => {
        const r = await gcl('plan');
        expect(r.code, r.log).toBe(0);
        expect(artifacts('plan').planMd()).toContain('✅ **No changes.**');
        expect(artifacts('plan').dotenv().SPREAD_CHANGED).toBe('false');
      });

      test('a failed job (a YAML error) leaves plan.md, summary.md and the dotenv report with the error, and a log without minified code', async () => {
        const r = await gcl('broken');
        expect(r.code).not.toBe(0);
        expect(r.log).toContain('rc.yaml:6');
        expect(longestLine(r.log)).toBeLessThan(LINE_LIMIT);
        expect(r.log).not.toMatch(/is not iterable|internal error/);
        const out = artifacts('broken');
        for (const md of [out.planMd(), out.summaryMd()]) {
          expect(md).toContain('### ❌ Deploy failed: directory `broken`, context `spread-local`');
          expect(md).toMatch(/rc\.yaml:6: YAML: Flow sequence/);
        }
        expect(out.dotenv()).toMatchObject({
          SPREAD_OUTCOME: 'failure',
          SPREAD_DEPLOYMENT: '',
          SPREAD_CHANGED: '',
        });
        expect(out.dotenv().SPREAD_ERROR).toMatch(/^\S[^\n]* rc\.yaml:6: YAML: Flow sequence/);
      });

      test('the inputs prune-crds, force-conflicts, replace, adopt, rollback-on-failure, lock-timeout, lock-lease-duration, tag, cache, platforms, build-secrets, build-args and url-from reach the CLI; build argument values stay out of the log', async () => {
        const deploy = await gcl('all-inputs-deploy');
        expect(deploy.code, deploy.log).toBe(0);
        const command = (log: string) =>
          log.split('\n').find((l) => / > spread (deploy|plan) app /.test(l)) ?? '';
        expect(command(deploy.log)).toContain(
          `spread deploy app spread-local --namespace ${ns} --tag v1.2.3 --cache registry --platform linux/amd64 --secret id=project,env=CI_PROJECT_NAME --prune-crds --adopt --force-conflicts --replace --no-wait --timeout 5m --lock-timeout 45s --lock-lease-duration 40s --rollback-on-failure --url-from service/mattermost --output json --build-arg GREETING=… --build-arg SECRET_TOKEN=…`,
        );
        const plan = await gcl('all-inputs-plan');
        expect(plan.code, plan.log).toBe(0);
        expect(command(plan.log)).toContain(
          `spread plan app spread-local --namespace ${ns} --tag v1.2.3 --cache registry --platform linux/amd64 --secret id=project,env=CI_PROJECT_NAME --prune-crds --adopt --force-conflicts --replace --output json --build-arg GREETING=… --build-arg SECRET_TOKEN=…`,
        );
        for (const log of [deploy.log, plan.log]) expect(log).not.toMatch(/s3cr3t-build-value|hello world/);
        const bad = await gcl('bad-build-args');
        expect(bad.code).not.toBe(0);
        expect(bad.log).toContain("spread: input 'build-args': expected KEY=VALUE on each line");
      });

      test('force-conflicts: a value another field manager took over fails the deploy, naming it; with the input, the deploy takes it back', async () => {
        const first = await gcl('settings');
        expect(first.code, first.log).toBe(0);
        await kubectl([
          '--context',
          'spread-local',
          '-n',
          ns,
          'patch',
          'configmap',
          'settings',
          '--type=merge',
          '--field-manager=intruder',
          '-p',
          '{"data":{"a":"2"}}',
        ]);
        writeFileSync(path.join(project, 'settings/.k2e/settings.yaml'), configMapApp('3'));
        const refused = await gcl('settings');
        expect(refused.code).not.toBe(0);
        expect(refused.log).toMatch(/conflict with "intruder"/);
        // Named as this component's input, not as the CLI's flag.
        expect(refused.log).toContain('the input force-conflicts: true');
        expect(refused.log).not.toContain('use --force-conflicts');
        expect(artifacts('settings').dotenv().SPREAD_OUTCOME).toBe('failure');
        expect(artifacts('settings').planMd()).toMatch(/conflict with "intruder"/);
        const forced = await gcl('settings-forced');
        expect(forced.code, forced.log).toBe(0);
        const live = await kubectl([
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
        expect(live.stdout).toBe('3');
      });

      test('SPREAD_KUBECONFIG (base64, as GitLab masks it): spread reads a 0600 file in a 0700 directory, removed when the job ends', async () => {
        // A `node` first on PATH records the file spread is given, then runs the real Node.
        const bin = mkdtempSync(path.join(tmpdir(), 'spread-gitlab-node-'));
        const record = path.join(bin, 'kubeconfig-seen');
        writeFileSync(
          path.join(bin, 'node'),
          `#!/bin/sh\nif [ -n "$KUBECONFIG" ] && [ ! -e '${record}' ]; then stat -c '%a %n' "$KUBECONFIG" "$(dirname "$KUBECONFIG")" > '${record}'; fi\nexec '${process.execPath}' "$@"\n`,
        );
        chmodSync(path.join(bin, 'node'), 0o755);
        const variablesFile = path.join(project, '.home/own-kubeconfig.yml');
        writeFileSync(
          variablesFile,
          stringify({ SPREAD_KUBECONFIG: Buffer.from(await kubeconfigOfContext()).toString('base64') }),
        );
        const temp = mkdtempSync(path.join(tmpdir(), 'spread-gitlab-tmp-'));
        const r = await gcl('own-kubeconfig', {
          variablesFile,
          // No other kubeconfig: only SPREAD_KUBECONFIG can reach the cluster.
          env: {
            PATH: `${bin}:${process.env.PATH}`,
            KUBECONFIG: path.join(temp, 'none'),
            TMPDIR: temp,
            NODE_DISABLE_COMPILE_CACHE: '1',
          },
        });
        expect(r.code, r.log).toBe(0);
        const [file, dir] = readFileSync(record, 'utf8').trim().split('\n');
        expect(file).toMatch(new RegExp(`^600 ${temp}/spread-job\\.\\w+/kubeconfig$`));
        expect(dir).toMatch(/^700 /);
        expect(existsSync(file!.slice(4))).toBe(false);
        expect(readdirSync(temp)).toEqual([]);
        expect(r.log).not.toContain('client-key-data');
      });

      test('an empty input package with an image that has no spread, or a package name without version: the job fails saying what to set, installing nothing', async () => {
        const none = await gcl('no-package', { env: { SPREAD_HOME: '' } });
        expect(none.code).not.toBe(0);
        expect(none.log).toContain(
          "does not provide spread (no $SPREAD_HOME/dist/cli/index.js); use spread's image (input 'image')",
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

    describe.skipIf(missingDocker.length > 0)(
      "docker executor, spread's image built from this checkout",
      () => {
        let helperImage = '';
        let variablesFile = '';
        beforeAll(async () => {
          const built = execFileSync('bash', [path.join(ROOT, 'scripts/local-images.sh')], {
            encoding: 'utf8',
          });
          const images = Object.fromEntries(
            built
              .trim()
              .split('\n')
              .map((l) => l.split('=')),
          );
          helperImage = images.SPREAD_GCL_HELPER_IMAGE;
          execFileSync(
            'docker',
            [
              'build',
              '--quiet',
              '--network',
              'none',
              '--build-arg',
              `BASE=${images.SPREAD_NODE_BASE_IMAGE}`,
              '--build-arg',
              `DOCKER_CLI=${images.SPREAD_DOCKER_CLI_IMAGE}`,
              '--build-arg',
              `BUILDX=${images.SPREAD_BUILDX_IMAGE}`,
              '--build-arg',
              `HELM=${images.SPREAD_HELM_IMAGE}`,
              '--build-arg',
              `KUSTOMIZE=${images.SPREAD_KUSTOMIZE_IMAGE}`,
              '-t',
              image,
              ROOT,
            ],
            { env: { ...process.env, DOCKER_BUILDKIT: '0' }, stdio: ['ignore', 'ignore', 'pipe'] },
          );
          // The kubeconfig as a file-type CI/CD variable (its certificates inline), as GitLab gives it.
          variablesFile = path.join(project, '.home/file-kubeconfig.yml');
          // The registry's credentials as DOCKER_AUTH_CONFIG, which the job turns into its Docker config.
          writeFileSync(
            variablesFile,
            stringify({
              KUBECONFIG: { type: 'file', values: { '*': await kubeconfigOfContext() } },
              DOCKER_AUTH_CONFIG: {
                values: { '*': readFileSync(path.join(process.env.DOCKER_CONFIG!, 'config.json'), 'utf8') },
              },
            }),
          );
        });
        afterAll(() => {
          execFileSync('docker', ['image', 'rm', '--force', image], { stdio: 'ignore' });
        });

        test('the image runs spread as the non-root user node, from /opt/spread', () => {
          const run = (...args: string[]) =>
            execFileSync('docker', ['run', '--rm', '--network', 'none', ...args], {
              encoding: 'utf8',
            }).trim();
          expect(run(image, '--version')).toBe(
            JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version,
          );
          expect(run('--entrypoint', 'id', image, '-u')).toBe('1000');
          expect(
            run('--entrypoint', 'sh', image, '-c', 'echo "$SPREAD_HOME"; ls /opt/spread/dist/gitlab'),
          ).toBe('/opt/spread\ndrift.js\nfleet-plan.js\nfleet.js\nreport.js');
        });

        test('deploy: the job runs in the image against the local cluster; artifacts and dotenv report', async () => {
          const r = await gcl('image-deploy', { docker: { helperImage }, variablesFile });
          expect(r.code, r.log).toBe(0);
          expect(r.log).toContain(`image-deploy starting ${image}`);
          const out = artifacts('image-deploy');
          expect(out.dotenv()).toMatchObject({
            SPREAD_OUTCOME: 'success',
            SPREAD_DEPLOYMENT: 'shop-app',
            SPREAD_NAMESPACE: ns,
            SPREAD_CONTEXT: 'spread-local',
          });
          expect(out.summaryMd()).toContain('### Deploy: `shop-app` → context `spread-local`');
          expect(r.log).not.toContain('mattermost-example-password');
        });

        test("an & image with a BuildKit-only Dockerfile is built in the job with the image's docker CLI and buildx, pushed and deployed pinned", async () => {
          const r = await gcl('image-build', { docker: { helperImage }, variablesFile });
          expect(r.code, r.log).toBe(0);
          expect(r.log).toMatch(/RUN --mount=type=cache,target=\/cache echo built-in-job/);
          const [built] = JSON.parse(artifacts('image-build').dotenv().SPREAD_IMAGES!) as {
            reference: string;
            built: boolean;
          }[];
          expect(built).toMatchObject({ built: true });
          expect(built!.reference).toMatch(
            new RegExp(`^${process.env.SPREAD_REGISTRY}/${ns}/web:job-1@sha256:[0-9a-f]{64}$`),
          );
          const rc = await kubectl([
            '--context',
            'spread-local',
            '-n',
            ns,
            'get',
            'deployment',
            'built',
            '-o',
            'json',
          ]);
          expect(JSON.parse(rc.stdout).spec.template.spec.containers[0].image).toBe(built!.reference);
          expect(r.log).not.toContain(
            readFileSync(process.env.SPREAD_REGISTRY_PASSWORD_FILE!, 'utf8').trim(),
          );
        });

        test('a failed job leaves plan.md, summary.md and the dotenv report with the error, and a log without minified code', async () => {
          const r = await gcl('image-broken', { docker: { helperImage }, variablesFile });
          expect(r.code).not.toBe(0);
          expect(longestLine(r.log)).toBeLessThan(LINE_LIMIT);
          const out = artifacts('image-broken');
          expect(out.planMd()).toMatch(/### ❌ Deploy failed: directory `broken`[\s\S]*rc\.yaml:6: YAML/);
          expect(out.summaryMd()).toMatch(/rc\.yaml:6: YAML/);
          expect(out.dotenv()).toMatchObject({ SPREAD_OUTCOME: 'failure' });
        });
      },
    );
  },
);
