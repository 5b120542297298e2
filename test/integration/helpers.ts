import { execFile, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { silentLogger } from '../../src/base/logger.js';
import type { DeployRequest as DeployOptions } from '../../src/frontend/deploy.js';

const run = promisify(execFile);

/** The repository root. */
export const ROOT = path.resolve(import.meta.dirname, '../..');

/** The harness's kubectl (from .cluster/env), with the local kubeconfig. */
export async function kubectl(
  args: readonly string[],
  options: { allowFail?: boolean; input?: string } = {},
) {
  const bin = process.env.SPREAD_KUBECTL ?? 'kubectl';
  if (options.input !== undefined) {
    return new Promise<{ stdout: string; stderr: string; code: number }>((resolve, reject) => {
      const child = spawn(bin, args, { env: process.env });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      // A kubectl that cannot start, or ends before reading its input (EPIPE on stdin), rejects
      // too: a throw inside these handlers would be uncaught and leave the test waiting.
      child.on('error', reject);
      child.stdin.on('error', () => {});
      child.on('close', (code) => {
        if (code !== 0 && !options.allowFail)
          reject(new Error(`kubectl ${args.join(' ')} failed: ${stderr}`));
        else resolve({ stdout, stderr, code: code ?? 1 });
      });
      child.stdin.end(options.input);
    });
  }
  try {
    const { stdout, stderr } = await run(bin, [...args], { env: process.env, maxBuffer: 64 * 1024 * 1024 });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; code?: number };
    if (!options.allowFail) throw new Error(`kubectl ${args.join(' ')} failed: ${e.stderr}`);
    return { stdout: e.stdout ?? '', stderr: e.stderr ?? '', code: typeof e.code === 'number' ? e.code : 1 };
  }
}

/** Runs a built entry point (dist/…) with Node, as a user or a runner would. Never throws on exit code. */
export async function runNode(
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ stdout: string; stderr: string; code: number }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, script), ...args], { env, cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ stdout, stderr, code: code ?? 1 }));
  });
}

/**
 * Starts `command` (its argv, the executable first) in the repository and resolves once its standard
 * error matches `until`, or after `withinMs` milliseconds: `stderr()` is what it printed so far,
 * `stop(signal)` sends the signal and resolves with the exit code.
 */
export async function startUntil(
  command: readonly string[],
  until: RegExp,
  withinMs: number,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ stderr: () => string; stop: (signal: NodeJS.Signals) => Promise<number | null> }> {
  const child = spawn(command[0]!, command.slice(1), { cwd: ROOT, env });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  const started = Date.now();
  while (!until.test(stderr) && Date.now() - started < withinMs) await new Promise((r) => setTimeout(r, 100));
  return {
    stderr: () => stderr,
    stop: (signal) => {
      child.kill(signal);
      return exited;
    },
  };
}

/** A fresh namespace name for one test file, so runs against a cluster left up never collide. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
}

/** Copies a directory (e.g. an example) to a temporary place a test may change; returns the copy's path. */
export function copyDir(source: string, name = path.basename(source)): string {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'spread-itg-')), name);
  cpSync(source, dir, { recursive: true });
  return dir;
}

/** The local cluster's kubeconfig file. */
export function kubeconfigPath(): string {
  const p = process.env.KUBECONFIG;
  if (!p) throw new Error('KUBECONFIG is not set: the integration global setup did not run');
  return p;
}

export function kubeconfigContent(): string {
  return readFileSync(kubeconfigPath(), 'utf8');
}

/**
 * Writes a spread directory named `name` (in a fresh temporary folder) from relative path → content;
 * returns its path.
 */
export function writeDir(name: string, files: Record<string, string>): string {
  const root = path.join(mkdtempSync(path.join(tmpdir(), 'spread-itg-')), name);
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), content);
  }
  return root;
}

/** Options of a deploy of `root` into namespace `ns` of the local cluster (spread-local), overridable. */
export function localDeploy(root: string, ns: string, extra: Partial<DeployOptions> = {}): DeployOptions {
  return {
    path: root,
    kubeconfig: { paths: [kubeconfigPath()] },
    context: 'spread-local',
    namespace: ns,
    mode: 'deploy',
    wait: true,
    timeoutMs: 120_000,
    forceConflicts: false,
    prune: true,
    concurrency: 8,
    logger: silentLogger,
    ...extra,
  };
}
