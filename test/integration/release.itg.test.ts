// The release workflow (.github/workflows/release.yml) under act, as GitHub runs it on a tag push, in
// a scratch repository holding what the workflow uses of this checkout. DRY_RUN=true (a repository
// variable) stops it before what needs the network: the suite is skipped (it is what runs this
// test), npm publish runs with --dry-run and the major tag moves in the workspace only. The image is
// built for real on the local Docker engine, from a Node base made of local parts
// (scripts/local-images.sh; nothing can be pulled here), and pushed to the local registry.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { stringify } from 'yaml';
import { type ActRun, removeScratch, runAct, scratchRepo } from './act.js';
import { missingHarness, needs } from './harness.js';
import { ROOT, uniqueName } from './helpers.js';

const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const version: string = manifest.version;
const major = version.split('.')[0];
const ns = uniqueName('itg-release');

/** What the workflow reads of the checkout (the Dockerfile's context, npm pack's files) and itself. */
const COPY = {
  '.github/workflows/release.yml': '.github/workflows/release.yml',
  'package.json': 'package.json',
  'README.md': 'README.md',
  LICENSE: 'LICENSE',
  dist: 'dist',
  Dockerfile: 'Dockerfile',
  '.dockerignore': '.dockerignore',
};

/**
 * The actions of the workflow that need the network (act would clone them from GitHub while it sets
 * up the job, even for steps it then skips): local stand-ins that fail the job if they ever run,
 * since under act every one of them must be skipped by its `if:`.
 */
const standInDir = mkdtempSync(path.join(tmpdir(), 'spread-release-actions-'));
let standInArgs: string[] | undefined;
function standIns(): string[] {
  if (standInArgs) return standInArgs;
  const dir = standInDir;
  const args: string[] = [];
  for (const action of ['actions/setup-go@v5', 'actions/cache@v4', 'actions/setup-node@v4']) {
    const d = path.join(dir, action.replace(/[/@]/g, '-'));
    mkdirSync(d);
    writeFileSync(
      path.join(d, 'action.yml'),
      stringify({
        name: `${action} (stand-in)`,
        inputs: Object.fromEntries(
          ['go-version', 'path', 'key', 'node-version', 'registry-url'].map((i) => [i, { required: false }]),
        ),
        runs: {
          using: 'composite',
          steps: [{ shell: 'bash', run: `echo "::error::${action} ran under act, where it cannot"; exit 1` }],
        },
      }),
    );
    args.push('--local-repository', `${action}=${d}`);
  }
  standInArgs = args;
  return args;
}

/** The CHANGELOG with a section for `release`, as the release commit has it. */
function changelog(release = version): string {
  const text = readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8');
  return text.replace('## [Unreleased]\n', `## [Unreleased]\n\n## [${release}] - 2026-12-01\n`);
}

function git(repo: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: repo,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: repo, GIT_CONFIG_NOSYSTEM: '1' },
  }).trim();
}

interface ReleaseOptions {
  /** Files of the scratch repository that replace the checkout's (CHANGELOG.md has a section for this version). */
  files?: Record<string, string>;
  /** Other tags on the same commit, as earlier or later releases would be. */
  otherTags?: string[];
  /** The image's repository in the local registry. Default `<ns>/spread`. */
  repository?: string;
}

/** A scratch repository at `tag`, then act's run of the tag push with DRY_RUN. */
async function release(tag: string, options: ReleaseOptions = {}): Promise<ActRun> {
  const files = options.files ?? {};
  // scratchRepo copies after writing: a file given here replaces the checkout's.
  const copy = Object.fromEntries(Object.entries(COPY).filter(([dest]) => !(dest in files)));
  const repo = await scratchRepo({ copy, files: { 'CHANGELOG.md': changelog(), ...files } });
  for (const t of [tag, ...(options.otherTags ?? [])]) git(repo, 'tag', t);
  return runAct({
    repo,
    event: 'push',
    payload: { ref: `refs/tags/${tag}` },
    workflows: '.github/workflows/release.yml',
    vars: {
      DRY_RUN: 'true',
      IMAGE: `${registry()}/${options.repository ?? `${ns}/spread`}`,
      IMAGE_BASE: base,
      IMAGE_DOCKER_CLI: dockerCli,
      IMAGE_BUILDX: buildx,
      IMAGE_HELM: helmImage,
      IMAGE_KUSTOMIZE: kustomize,
    },
    env: {
      DOCKER_HOST: process.env.DOCKER_HOST!,
      DOCKER_CONFIG: process.env.DOCKER_CONFIG!,
      // The local Docker CLI has no buildx plugin: the classic builder, as scripts/local-images.sh uses.
      DOCKER_BUILDKIT: '0',
      // npm publish --dry-run would ask the registry who is logged in; the update check would too.
      npm_config_offline: 'true',
      npm_config_update_notifier: 'false',
    },
    args: standIns(),
  });
}

let base: string;
/** The local stand-ins for the Dockerfile's DOCKER_CLI and BUILDX images (nothing can be pulled here). */
let dockerCli: string;
let buildx: string;
let helmImage: string;
let kustomize: string;
const registry = () => process.env.SPREAD_REGISTRY!;

/** The tag's manifest in the local registry (its config's labels), read with the registry's HTTP API. */
async function inRegistry(repository: string, tag: string): Promise<Record<string, string> | undefined> {
  const config = JSON.parse(readFileSync(path.join(process.env.DOCKER_CONFIG!, 'config.json'), 'utf8'));
  const authorization = `Basic ${config.auths[registry()].auth}`;
  const res = await fetch(`http://${registry()}/v2/${repository}/manifests/${tag}`, {
    headers: {
      accept:
        'application/vnd.docker.distribution.manifest.v2+json, application/vnd.oci.image.manifest.v1+json',
      authorization,
    },
  });
  if (res.status === 404) return undefined;
  expect(res.status).toBe(200);
  const digest = ((await res.json()) as { config: { digest: string } }).config.digest;
  const blob = await fetch(`http://${registry()}/v2/${repository}/blobs/${digest}`, {
    headers: { authorization },
  });
  return ((await blob.json()) as { config: { Labels: Record<string, string> } }).config.Labels;
}

afterAll(() => {
  // Top-level hooks run even when every test of the file is skipped (harness.ts).
  if (missingHarness('act', 'docker', 'registry')) return;
  removeScratch();
  rmSync(standInDir, { recursive: true, force: true });
});

beforeAll(() => {
  if (missingHarness('act', 'docker', 'registry')) return;
  const out = execFileSync('bash', [path.join(ROOT, 'scripts/local-images.sh')], {
    encoding: 'utf8',
    env: process.env,
  });
  const value = (name: string) => {
    const line = out.split('\n').find((l) => l.startsWith(`${name}=`));
    if (!line) throw new Error(`scripts/local-images.sh printed no ${name}:\n${out}`);
    return line.slice(line.indexOf('=') + 1);
  };
  base = value('SPREAD_NODE_BASE_IMAGE');
  dockerCli = value('SPREAD_DOCKER_CLI_IMAGE');
  buildx = value('SPREAD_BUILDX_IMAGE');
  helmImage = value('SPREAD_HELM_IMAGE');
  kustomize = value('SPREAD_KUSTOMIZE_IMAGE');
}, 600_000);

describe(
  `a tag v${version} (package.json's version), with DRY_RUN`,
  needs('act', 'docker', 'registry'),
  () => {
    let run: ActRun;
    beforeAll(async () => {
      run = await release(`v${version}`);
    }, 600_000);

    test('the run succeeds; the suite, the registry login and the actions that need the network are skipped', () => {
      expect(run.code, run.log).toBe(0);
      // act reports no skipped step; a stand-in that ran would have failed the job (standIns()).
      const ran = (job: string) => run.steps.filter((s) => s.job === job).map((s) => s.id);
      expect(ran('test')).not.toContain('suite');
      expect(run.log).not.toMatch(/The whole suite/);
      expect(ran('release')).toEqual(
        expect.arrayContaining(['version', 'pack', 'publish', 'image', 'major-tag']),
      );
      expect(ran('release')).not.toContain('login');
      for (const id of ['version', 'pack', 'publish', 'image', 'major-tag'])
        expect(run.step(id).result, id).toBe('success');
    });

    test('the version, its major, and the release is no prerelease', () => {
      expect(run.step('version').outputs).toEqual({ version, major, prerelease: 'false', newest: 'true' });
    });

    test('npm pack, installed from the tarball, says its version; npm publish runs with --dry-run', () => {
      expect(run.step('pack').outputs).toEqual({ tarball: `redspread-spread-${version}.tgz` });
      const publish = run.step('publish').log;
      expect(publish).toMatch(
        new RegExp(`npm publish \\./redspread-spread-${version}\\.tgz --access public --dry-run`),
      );
      expect(publish).toMatch(new RegExp(`\\+ @redspread/spread@${version}`));
      expect(publish).not.toMatch(/--provenance/);
    });

    test(`the image is built from the Dockerfile and pushed as :${version} and :${major}, labelled with the version`, async () => {
      for (const tag of [version, major!]) {
        const labels = await inRegistry(`${ns}/spread`, tag);
        expect(labels, `${ns}/spread:${tag}`).toBeDefined();
        expect(labels?.['org.opencontainers.image.version']).toBe(version);
      }
      // The pushed image runs spread (its entry point).
      const out = execFileSync(
        'docker',
        ['run', '--rm', '--network', 'none', `${registry()}/${ns}/spread:${version}`, '--version'],
        { encoding: 'utf8', env: process.env },
      );
      expect(out.trim()).toBe(version);
    });

    test(`the major tag v${major} moves to the release (in the workspace: no push in a dry run)`, () => {
      expect(run.step('major-tag').log).toMatch(
        new RegExp(`dry run: would run git push --force origin refs/tags/v${major} \\([0-9a-f]{40}\\)`),
      );
    });
  },
);

test(
  `a patch of an older minor (v${version} after v${major}.999.0) leaves :${major} and v${major} where they are`,
  needs('act', 'docker', 'registry'),
  async () => {
    const run = await release(`v${version}`, { otherTags: [`v${major}.999.0`], repository: `${ns}/older` });
    expect(run.code, run.log).toBe(0);
    expect(run.step('version').outputs).toMatchObject({ version, newest: 'false' });
    expect(run.steps.map((s) => s.id)).not.toContain('major-tag');
    expect(await inRegistry(`${ns}/older`, version)).toBeDefined();
    expect(await inRegistry(`${ns}/older`, major!)).toBeUndefined();
  },
);

test(
  'a push of a branch runs no job (act, unlike GitHub, ignores the `tags:` filter: the jobs check the ref)',
  needs('act', 'docker'),
  async () => {
    const repo = await scratchRepo({ copy: COPY, files: { 'CHANGELOG.md': changelog() } });
    const run = await runAct({
      repo,
      event: 'push',
      payload: { ref: 'refs/heads/main' },
      workflows: '.github/workflows/release.yml',
      vars: { DRY_RUN: 'true' },
      args: standIns(),
    });
    expect(run.code, run.log).toBe(0);
    expect(run.jobs).toEqual({});
    expect(run.steps).toEqual([]);
  },
);

// Each failure is an `::error` annotation and the job summary; the test reads the summary, since act
// 0.2.89 drops the `::error` line of a failing step from its JSON log in about one run of three
// (measured: 8 and 9 of 12 runs kept it; the summary, 12 of 12).
describe('failures stop the release before anything is published', needs('act', 'docker'), () => {
  const published = (run: ActRun) =>
    run.steps.filter((s) => ['publish', 'image', 'major-tag'].includes(s.id));

  test("a tag that is not package.json's version fails the first step, naming package.json", async () => {
    const run = await release('v99.0.0');
    expect(run.code).not.toBe(0);
    expect(run.step('version').result).toBe('failure');
    expect(run.step('version').summary).toBe(
      `### Release v99.0.0 stopped\n\nthe tag v99.0.0 does not name package.json's version ${version} (expected the tag v${version})\n`,
    );
    expect(published(run)).toEqual([]);
    expect(await inRegistry(`${ns}/spread`, '99.0.0')).toBeUndefined();
  });

  test('a release without its CHANGELOG section fails, naming CHANGELOG.md', async () => {
    const run = await release(`v${version}`, {
      files: { 'CHANGELOG.md': '# Changelog\n\n## [Unreleased]\n' },
    });
    expect(run.code).not.toBe(0);
    expect(run.step('version').result).toBe('failure');
    expect(run.step('version').summary).toBe(
      `### Release v${version} stopped\n\nCHANGELOG.md has no section "## [${version}]" for this release\n`,
    );
    expect(published(run)).toEqual([]);
  });

  test("a version bump without a rebuilt dist/ fails at the packed CLI's version", async () => {
    const bumped = `${major}.999.0`;
    const run = await release(`v${bumped}`, {
      files: {
        'package.json': `${JSON.stringify({ ...manifest, version: bumped }, null, 2)}\n`,
        'CHANGELOG.md': changelog(bumped),
      },
    });
    expect(run.code).not.toBe(0);
    expect(run.step('version').outputs.version).toBe(bumped);
    expect(run.step('pack').result).toBe('failure');
    expect(run.step('pack').summary).toContain(
      `the packed spread says it is version ${version}, not ${bumped}`,
    );
    expect(published(run)).toEqual([]);
    expect(await inRegistry(`${ns}/spread`, bumped)).toBeUndefined();
  });
});
