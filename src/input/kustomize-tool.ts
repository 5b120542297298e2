// Finding and running the user's kustomize (src/input/kustomize.ts): the named binary, else `kustomize`,
// else `kubectl kustomize`, with the version it says it is; a run is a child process with an
// explicit argument list, its output kept whole.
import { spawn } from 'node:child_process';
import path from 'node:path';

/** Options of kustomizeRenderer (src/input/kustomize.ts). */
export interface KustomizeOptions {
  /**
   * The kustomize binary: a name looked up on the environment's PATH, or a path. A `kubectl` binary
   * is run as `kubectl kustomize`. Absent or empty: `kustomize`, else `kubectl kustomize`.
   */
  readonly command?: string | undefined;
  /** Inflate the kustomizations' `helmCharts` with Helm (`--enable-helm`), as the user enables it. */
  readonly enableHelm?: boolean | undefined;
  /** The Helm binary kustomize runs for `helmCharts` (`--helm-command`); absent: kustomize's default, `helm`. */
  readonly helmCommand?: string | undefined;
  /** The environment the tool runs in (its PATH finds the binary); absent: spread's own. */
  readonly env?: NodeJS.ProcessEnv | undefined;
  /** Ends a running kustomize (SIGTERM). */
  readonly signal?: AbortSignal | undefined;
}

/** How kustomize is run: the command, the arguments before the folder, and what it says it is. */
export interface Tool {
  readonly command: string;
  readonly build: readonly string[];
  /** `kustomize v5.8.2`, `kustomize v5.5.0 (kubectl v1.32.4)`. */
  readonly name: string;
}

/** What a run of a tool gave. */
export interface Run {
  readonly code: number;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/** A tool that could not be started: its command and why. */
export class ToolMissing extends Error {}

/** Runs a command with an explicit argument list; rejects with ToolMissing when it cannot be started. */
export function run(command: string, args: readonly string[], options: KustomizeOptions): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.env ? { env: options.env } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'ENOENT' || e.code === 'EACCES' ? new ToolMissing(`${command}: ${e.code}`) : e),
    );
    child.on('close', (code) =>
      resolve({ code: code ?? 1, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') }),
    );
  });
}

/** The first `vMAJOR.MINOR.PATCH…` in a version text (`v5.8.2`, `{Version:kustomize/v4.5.7 …}`). */
function versionIn(text: string): string | undefined {
  return /\bv\d+\.\d+\.\d+[^\s,}]*/.exec(text)?.[0];
}

/** Whether a command names kubectl (`kubectl`, `/usr/bin/kubectl`), which renders as `kubectl kustomize`. */
function isKubectl(command: string): boolean {
  return /^kubectl(\.exe)?$/.test(path.basename(command));
}

async function kubectlTool(command: string, options: KustomizeOptions): Promise<Tool> {
  const said = await run(command, ['version', '--client'], options);
  const kustomize = /Kustomize Version:\s*(\S+)/.exec(said.stdout.toString('utf8'))?.[1];
  const kubectl = /Client Version:\s*(\S+)/.exec(said.stdout.toString('utf8'))?.[1];
  return {
    command,
    build: ['kustomize'],
    name: `kustomize ${kustomize ?? '(version unknown)'} (kubectl${kubectl ? ` ${kubectl}` : ''})`,
  };
}

/**
 * The kustomize to run: the named one, else `kustomize` on PATH, else `kubectl kustomize`.
 *
 * @throws ToolMissing saying what was looked for when none can be started.
 */
export async function findTool(options: KustomizeOptions): Promise<Tool> {
  const named = options.command?.trim() || undefined;
  const command = named ?? 'kustomize';
  try {
    if (isKubectl(command)) return await kubectlTool(command, options);
    const said = await run(command, ['version'], options);
    const version = versionIn(`${said.stdout.toString('utf8')} ${said.stderr}`);
    return { command, build: ['build'], name: `kustomize ${version ?? '(version unknown)'}` };
  } catch (e) {
    if (!(e instanceof ToolMissing)) throw e;
    if (named)
      throw new ToolMissing(
        `rendering this kustomization needs kustomize: the kustomize setting names ${named}, which cannot be run (${e.message})`,
      );
  }
  try {
    return await kubectlTool('kubectl', options);
  } catch (e) {
    if (!(e instanceof ToolMissing)) throw e;
    throw new ToolMissing(
      'rendering this kustomization needs kustomize: neither kustomize nor kubectl (kubectl kustomize) is on PATH; install kustomize, or name it with the kustomize setting',
    );
  }
}

/** The tool {@link findTool} finds when the named command (or `kustomize`) can be started. */
export function likelyTool(options: KustomizeOptions): Pick<Tool, 'command' | 'build'> {
  const command = options.command?.trim() || 'kustomize';
  return { command, build: isKubectl(command) ? ['kustomize'] : ['build'] };
}
