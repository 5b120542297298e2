// Reads .cluster/env, the file scripts/cluster/up.sh writes for the local cluster, Docker engine and
// registry: `export KEY=VALUE` lines that bash can source. Values are bare, 'single-quoted' or
// "double-quoted"; $VAR and ${VAR} outside single quotes expand from earlier lines, then the environment
// (PATH="${SPREAD_BIN_DIR}:${PATH}" prepends the directory holding kubectl).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root, where `.cluster/` and `scripts/cluster/` are. */
export const repoRoot: string = fileURLToPath(new URL('../../', import.meta.url));

/** The directory up.sh keeps its state in (SPREAD_CLUSTER_DIR overrides it, as for the scripts). */
export function clusterDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.SPREAD_CLUSTER_DIR || join(repoRoot, '.cluster');
}

/** The path of the env file up.sh writes. */
export function clusterEnvFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(clusterDir(env), 'env');
}

/** What .cluster/env sets; up.sh always writes these. */
export interface ClusterEnv {
  KUBECONFIG: string;
  DOCKER_HOST: string;
  DOCKER_CONFIG: string;
  SPREAD_REGISTRY: string;
  SPREAD_KUBECTL: string;
  PATH: string;
  [key: string]: string;
}

const REQUIRED = ['KUBECONFIG', 'DOCKER_HOST', 'DOCKER_CONFIG', 'SPREAD_REGISTRY', 'SPREAD_KUBECTL', 'PATH'];

/** Parses the text of an env file; `base` resolves references to variables the file does not set. */
export function parseClusterEnv(text: string, base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  const lookup = (name: string): string => out[name] ?? base[name] ?? '';
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = /^export ([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!m) throw new Error(`.cluster/env line ${index + 1}: expected "export KEY=VALUE": ${line}`);
    out[m[1]!] = parseValue(m[2]!, lookup, index + 1);
  });
  return out;
}

function parseValue(value: string, lookup: (name: string) => string, lineNo: number): string {
  let result = '';
  let i = 0;
  const expand = (): boolean => {
    // At value[i] === '$': $NAME or ${NAME}; returns false when it is a literal '$'.
    const m = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/.exec(value.slice(i));
    if (!m) return false;
    result += lookup((m[1] ?? m[2])!);
    i += m[0].length;
    return true;
  };
  while (i < value.length) {
    const c = value[i]!;
    if (c === "'") {
      const end = value.indexOf("'", i + 1);
      if (end < 0) throw new Error(`.cluster/env line ${lineNo}: unterminated single quote`);
      result += value.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      i++;
      for (;;) {
        if (i >= value.length) throw new Error(`.cluster/env line ${lineNo}: unterminated double quote`);
        const d = value[i]!;
        if (d === '"') {
          i++;
          break;
        }
        if (d === '\\' && i + 1 < value.length && '$`"\\'.includes(value[i + 1]!)) {
          result += value[i + 1];
          i += 2;
        } else if (d === '$' && expand()) {
          // expanded
        } else {
          result += d;
          i++;
        }
      }
    } else if (c === '\\' && i + 1 < value.length) {
      result += value[i + 1];
      i += 2;
    } else if (c === '$' && expand()) {
      // expanded
    } else if (/\s/.test(c)) {
      throw new Error(`.cluster/env line ${lineNo}: unquoted whitespace`);
    } else {
      result += c;
      i++;
    }
  }
  return result;
}

/**
 * Reads .cluster/env and returns what it sets, without touching process.env.
 * Throws when the file is missing (the cluster was never started, or down.sh removed it).
 */
export function readClusterEnv(
  file: string = clusterEnvFile(),
  base: NodeJS.ProcessEnv = process.env,
): ClusterEnv {
  if (!existsSync(file)) {
    throw new Error(`${file} does not exist: start the local cluster with \`npm run cluster:up\``);
  }
  const env = parseClusterEnv(readFileSync(file, 'utf8'), base);
  const missing = REQUIRED.filter((k) => !env[k]);
  if (missing.length > 0) throw new Error(`${file} does not set ${missing.join(', ')}`);
  return env as ClusterEnv;
}

/** Reads .cluster/env and copies it into process.env (so child processes and clients see it). */
export function loadClusterEnv(file: string = clusterEnvFile()): ClusterEnv {
  const env = readClusterEnv(file);
  Object.assign(process.env, env);
  return env;
}

/** The two Helm majors the chart tests run: Helm 4 (`helm` on the cluster's PATH) and Helm 3. */
export interface HelmBinaries {
  readonly helm4: string;
  readonly helm3: string;
}

/**
 * Where the Helm binaries are: SPREAD_HELM and SPREAD_HELM3 from .cluster/env, else (an env file
 * written before up.sh named them) the cache paths scripts/cluster/build-binaries.sh builds them to.
 */
export function helmBinaries(env: Record<string, string | undefined> = process.env): HelmBinaries {
  const cache = env.SPREAD_CACHE || join(env.XDG_CACHE_HOME || join(env.HOME ?? '', '.cache'), 'spread');
  const pinned = (name: string) => {
    const m = new RegExp(`SPREAD_${name}_VERSION:=([^}]+)\\}`).exec(
      readFileSync(join(repoRoot, 'scripts/cluster/versions.sh'), 'utf8'),
    );
    return env[`SPREAD_${name}_VERSION`] || m?.[1] || '';
  };
  return {
    helm4: env.SPREAD_HELM || join(cache, 'bin', `helm-${pinned('HELM')}`, 'helm'),
    helm3: env.SPREAD_HELM3 || join(cache, 'bin', `helm-${pinned('HELM3')}`, 'helm'),
  };
}

/**
 * The kustomize the tests render with (the reference for kustomizations): SPREAD_KUSTOMIZE, else the
 * one up.sh links into the cluster's bin directory (on the PATH .cluster/env sets), else the cache
 * path scripts/cluster/build-binaries.sh builds it to.
 */
export function kustomizeBinary(env: Record<string, string | undefined> = process.env): string {
  if (env.SPREAD_KUSTOMIZE) return env.SPREAD_KUSTOMIZE;
  const linked = env.SPREAD_BIN_DIR ? join(env.SPREAD_BIN_DIR, 'kustomize') : undefined;
  if (linked && existsSync(linked)) return linked;
  const cache = env.SPREAD_CACHE || join(env.XDG_CACHE_HOME || join(env.HOME ?? '', '.cache'), 'spread');
  const pinned =
    env.SPREAD_KUSTOMIZE_VERSION ||
    /SPREAD_KUSTOMIZE_VERSION:=([^}]+)\}/.exec(
      readFileSync(join(repoRoot, 'scripts/cluster/versions.sh'), 'utf8'),
    )?.[1] ||
    '';
  return join(cache, 'bin', `kustomize-${pinned}`, 'kustomize');
}
