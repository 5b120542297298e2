// The kubeconfig secret of the Action: masked in the log line by line and value by value, kept in memory,
// and written to a private temporary file only when an exec or auth-provider plugin needs to read it.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as core from '@actions/core';
import {
  decodeKubeconfigContent,
  KubeconfigError,
  type KubeconfigSource,
  loadKubeconfig,
} from '../cluster/kubeconfig.js';
import type { RunnerEnv } from './runner.js';

/** The kubeconfig the deploy uses, and how to clean up after it. */
export interface PreparedKubeconfig {
  readonly source: KubeconfigSource;
  /** The 0600 file written for exec plugins, if one was. */
  readonly file?: string;
  /** Removes the file (idempotent; safe to call when none was written). */
  readonly cleanup: () => void;
}

/**
 * Masks a kubeconfig secret in the log and chooses how the deploy reads it.
 *
 * Masking: the content as given, its decoded form when it was base64, every line of it that holds a
 * credential, and each token, key and password inside (a value printed on its own is masked too).
 *
 * The content stays in memory, except when a user authenticates with an `exec` plugin or an
 * `auth-provider`: those run other programs that may read `$KUBECONFIG` (kubelogin, some cloud
 * plugins), so it is written to a 0600 file in a fresh directory under RUNNER_TEMP, KUBECONFIG points
 * to it for child processes, and {@link PreparedKubeconfig.cleanup} removes it (also on exit: a
 * cancelled run's SIGINT/SIGTERM stops the deploy, see frontend/interrupts.ts, and the process exits).
 * spread itself still reads the content: the file's directory is a temporary one, and a relative exec
 * `command` (`./bin/token`) means the workspace's, as for any kubeconfig not read from a file.
 *
 * Without content, the environment's kubeconfig is used ({@link RunnerEnv.kubeconfig}: the rule of
 * every front end, kubectl's); when it has none either, the error says first that the input was empty,
 * since that is what a secret that is not set (or not given to a fork's pull request) gives.
 * @throws KubeconfigError when the content is not a kubeconfig or lacks the context, or when it is
 *   empty and the runner has no kubeconfig file.
 */
export function prepareKubeconfig(
  content: string,
  context: string,
  env: { readonly temp: string; readonly kubeconfig: KubeconfigSource },
): PreparedKubeconfig {
  if (content.trim() === '') {
    const missing = missingFiles(env.kubeconfig);
    if (missing) throw new KubeconfigError(emptyInputMessage(missing));
    return { source: env.kubeconfig, cleanup: () => {} };
  }
  const decoded = decodeKubeconfigContent(content);
  for (const value of new Set([content, content.trim(), decoded, decoded.trim()])) core.setSecret(value);
  for (const line of decoded.split('\n')) {
    const value = line.replace(/^[\s-]*[\w.-]+:\s*/, '').replace(/^["']|["']$/g, '');
    if (/(token|key|secret|password|data)/i.test(line) && value.length >= 8) {
      core.setSecret(line.trim());
      core.setSecret(value);
    }
  }
  const resolved = loadKubeconfig({ content }, context || undefined);
  for (const secret of resolved.secrets) core.setSecret(secret);

  const plugins = resolved.kubeConfig.getUsers().some((u) => u.exec || u.authProvider);
  if (!plugins) return { source: { content }, cleanup: () => {} };

  const dir = mkdtempSync(path.join(env.temp, 'spread-'));
  const file = path.join(dir, 'kubeconfig');
  writeFileSync(file, decoded, { mode: 0o600 });
  const previous = process.env.KUBECONFIG;
  process.env.KUBECONFIG = file;
  let done = false;
  const cleanup = () => {
    if (done) return;
    done = true;
    rmSync(dir, { recursive: true, force: true });
    if (previous === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = previous;
    process.off('exit', cleanup);
  };
  process.on('exit', cleanup);
  core.info(`kubeconfig with an exec or auth-provider plugin: written to ${file} (0600) for this step`);
  return { source: { content }, file, cleanup };
}

/** The files of a kubeconfig source when none of them exists (a kubeconfig the input did not give); else undefined. */
function missingFiles(source: KubeconfigSource): readonly string[] | undefined {
  if (!source.paths || source.paths.length === 0) return undefined;
  return source.paths.some((file) => existsSync(file)) ? undefined : source.paths;
}

/** What an empty `kubeconfig` input with no kubeconfig on the runner means, and the two ways out. */
export function emptyInputMessage(missing: readonly string[]): string {
  const files =
    missing.length === 1 ? `${missing[0]} does not exist` : `none of ${missing.join(', ')} exists`;
  return `no kubeconfig: the input kubeconfig is empty, and the runner has none (${files}). When the input comes from a secret (kubeconfig: \${{ secrets.KUBECONFIG }}), that secret is empty or not set in this repository or environment, or not given to this run (workflows of pull requests from forks get no secrets); otherwise write a kubeconfig in an earlier step and point KUBECONFIG at it`;
}
