// A kubeconfig exec credential plugin for tests, shared by the unit tests (against a stand-in API
// server) and the integration tests (against the local cluster): a node script that logs every call
// and prints an ExecCredential, so a test can count the calls and read what the plugin was given.
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** One call of the plugin, as it logged it. */
export interface ExecPluginCall {
  /** Milliseconds since the epoch when the plugin started. */
  time: number;
  args: string[];
  /** `KUBERNETES_EXEC_INFO`, parsed (null when absent). */
  info: {
    apiVersion: string;
    kind: string;
    spec: { interactive: boolean; cluster?: Record<string, unknown> };
  };
  /** The plugin's `PLUGIN_REGION` (to check a kubeconfig's `env` reaches it). */
  env: string | undefined;
  cwd: string;
}

export interface ExecPlugin {
  /** The plugin's own new directory (tests put their kubeconfig beside it). */
  dir: string;
  /** The executable script. */
  file: string;
  /** Its calls so far. */
  calls: () => ExecPluginCall[];
  /** Sets the tokens it prints: the nth call prints the nth, the last one once they run out. */
  tokens: (...tokens: string[]) => void;
}

/**
 * Writes an executable plugin (a node script with a shebang) into a new directory. Each call appends
 * a line to `calls.log` and prints an ExecCredential of `apiVersion` with the next of `tokens`
 * (`valid-1` unless given), after `delayMs` (so that calls made at once overlap), expiring at
 * `expires` when given.
 */
export function execPlugin(
  options: { tokens?: readonly string[]; apiVersion?: string; delayMs?: number; expires?: string } = {},
): ExecPlugin {
  const dir = mkdtempSync(path.join(tmpdir(), 'spread-exec-plugin-'));
  const file = path.join(dir, 'token-plugin.mjs');
  const log = path.join(dir, 'calls.log');
  const tokens = path.join(dir, 'tokens');
  const setTokens = (...list: string[]) => writeFileSync(tokens, `${list.join('\n')}\n`);
  writeFileSync(log, '');
  setTokens(...(options.tokens ?? ['valid-1']));
  writeFileSync(
    file,
    `#!${process.execPath}
import { appendFileSync, readFileSync } from 'node:fs';
const log = ${JSON.stringify(log)};
const n = readFileSync(log, 'utf8').split('\\n').filter(Boolean).length;
appendFileSync(log, JSON.stringify({ time: Date.now(), args: process.argv.slice(2), info: JSON.parse(process.env.KUBERNETES_EXEC_INFO ?? 'null'), env: process.env.PLUGIN_REGION, cwd: process.cwd() }) + '\\n');
const list = readFileSync(${JSON.stringify(tokens)}, 'utf8').split('\\n').filter(Boolean);
setTimeout(() => process.stdout.write(JSON.stringify({
  apiVersion: ${JSON.stringify(options.apiVersion ?? 'client.authentication.k8s.io/v1')},
  kind: 'ExecCredential',
  status: { token: list[Math.min(n, list.length - 1)]${options.expires ? `, expirationTimestamp: ${JSON.stringify(options.expires)}` : ''} },
})), ${options.delayMs ?? 0});
`,
  );
  chmodSync(file, 0o755);
  return {
    dir,
    file,
    calls: () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as ExecPluginCall),
    tokens: setTokens,
  };
}
