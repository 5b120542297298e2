// The GitHub Actions runner, as far as a JavaScript action sees it: `node <entry>` with INPUT_* and the
// runner's files (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_EVENT_PATH, RUNNER_TEMP).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The event that triggered the workflow run. */
export interface ActionEvent {
  name: string;
  payload?: unknown;
  refName?: string;
  headRef?: string;
  baseRef?: string;
}

export interface StepResult {
  code: number;
  /** stdout and stderr, interleaved as they came. */
  log: string;
  outputs: Record<string, string>;
  summary: string;
  outputsText: string;
  /** RUNNER_TEMP of the step. */
  temp: string;
}

export interface StepOptions {
  /** The bundled entry point, dist/index.js. */
  entry: string;
  /** GITHUB_WORKSPACE, also the working directory. */
  workspace: string;
  /** action.yml input names → values (INPUT_<NAME>). */
  inputs: Record<string, string>;
  event?: ActionEvent | undefined;
  /** RUNNER_TEMP; default: a new directory. Hosted runners use the same path in every run. */
  temp?: string | undefined;
  /** More environment variables (GITHUB_API_URL, ACTIONS_RESULTS_URL, …). */
  env?: NodeJS.ProcessEnv | undefined;
  /** Called with the started `node <entry>` process and a function that returns its log so far. */
  onSpawn?: ((child: ChildProcess, log: () => string) => void) | undefined;
}

/**
 * The runner's repository variables for a checkout in `workspace`, from which a deploy reads its
 * origin (src/frontend/origin.ts). A test that also deploys a workspace folder through the CLI gives
 * the CLI these too, as a user's CI job would, so both runs are one deployment from one origin.
 */
export function repositoryEnv(workspace: string): NodeJS.ProcessEnv {
  return { GITHUB_REPOSITORY: 'acme/shop', GITHUB_SERVER_URL: 'https://gh', GITHUB_WORKSPACE: workspace };
}

/** Runs the Action once as a step of a workflow run. */
export async function runActionStep(options: StepOptions): Promise<StepResult> {
  const event = options.event ?? { name: 'push', refName: 'main' };
  const dir = mkdtempSync(path.join(tmpdir(), 'spread-action-runner-'));
  const files = {
    output: path.join(dir, 'output'),
    summary: path.join(dir, 'summary'),
    event: path.join(dir, 'event.json'),
  };
  const temp = options.temp ?? path.join(dir, 'temp');
  mkdirSync(temp, { recursive: true });
  writeFileSync(files.output, '');
  writeFileSync(files.summary, '');
  writeFileSync(files.event, JSON.stringify(event.payload ?? {}));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: options.workspace,
    GITHUB_OUTPUT: files.output,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_EVENT_PATH: files.event,
    GITHUB_EVENT_NAME: event.name,
    GITHUB_REF_NAME: event.refName ?? '',
    GITHUB_HEAD_REF: event.headRef ?? '',
    GITHUB_BASE_REF: event.baseRef ?? '',
    GITHUB_SHA: '0123456789abcdef0123456789abcdef01234567',
    ...repositoryEnv(options.workspace),
    GITHUB_RUN_ID: '77',
    GITHUB_RUN_ATTEMPT: '1',
    RUNNER_TEMP: temp,
    ...options.env,
  };
  for (const [k, v] of Object.entries(options.inputs)) env[`INPUT_${k.toUpperCase()}`] = v;
  const { code, log } = await new Promise<{ code: number; log: string }>((resolve) => {
    const child = spawn(process.execPath, [options.entry], { env, cwd: options.workspace });
    let log = '';
    child.stdout.on('data', (d) => (log += d));
    child.stderr.on('data', (d) => (log += d));
    child.on('close', (c) => resolve({ code: c ?? 1, log }));
    options.onSpawn?.(child, () => log);
  });
  const outputsText = readFileSync(files.output, 'utf8');
  return {
    code,
    log,
    outputs: parseOutputs(outputsText),
    summary: readFileSync(files.summary, 'utf8'),
    outputsText,
    temp,
  };
}

/** GITHUB_OUTPUT's `name<<delimiter` … `delimiter` blocks. */
export function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^<]+)<<(.+)$/.exec(lines[i]!);
    if (!m) continue;
    const end = lines.indexOf(m[2]!, i + 1);
    out[m[1]!] = lines.slice(i + 1, end).join('\n');
    i = end;
  }
  return out;
}
