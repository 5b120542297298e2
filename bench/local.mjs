// What the bench scripts that drive the CLI share (bench/renderers.mjs, bench/fleet.mjs): the local
// cluster's environment, and the CLI started as npm's `spread` bin starts it.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Reads `clusterDir`/env when the caller did not source it (KUBECONFIG, SPREAD_KUBECTL, …). */
export function loadClusterEnv(clusterDir) {
  if (process.env.SPREAD_KUBECTL && process.env.KUBECONFIG) return;
  const file = path.join(clusterDir, 'env');
  if (!existsSync(file))
    throw new Error('no .cluster/env: start the cluster with `bash scripts/cluster/up.sh`');
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^export ([A-Z_]+)=(.*)$/.exec(line);
    if (m && m[1] !== 'PATH') process.env[m[1]] = m[2].replace(/^'(.*)'$/, '$1');
  }
}

/** The CLI of the build in `dist` as npm's `spread` bin runs it: the Node options and environment of its prologue. */
export function spreadCli(dist) {
  const file = path.join(dist, 'cli', 'index.js');
  const exec = readFileSync(file, 'utf8').split('\n', 2)[1] ?? '';
  const m = /^':' \/\/;((?: \w+="\$\{\w+:-[^}"]*\}")*) exec node((?: --[\w=-]+)*) "\$0" "\$@"$/.exec(exec);
  if (!m) throw new Error(`unexpected start of ${file}: ${exec}`);
  const env = {};
  for (const [, n, fallback] of m[1].matchAll(/(\w+)="\$\{\w+:-([^}"]*)\}"/g))
    env[n] = process.env[n] || fallback;
  return { argv: [...m[2].trim().split(' ').filter(Boolean), file], env };
}
