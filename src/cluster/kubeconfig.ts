// Loading a kubeconfig and its context as kubectl does, never falling back to another cluster than the
// one named; also a kubeconfig given as content (a CI secret, plain or base64) and its secret values.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { setExecExtension } from './auth.js';

/**
 * Where the kubeconfig comes from. Exactly one of the fields is used, in this order:
 * `content` (the file's text, plain YAML or base64 of it, as a CI secret holds it), `paths`
 * (files merged like `KUBECONFIG=a:b` — the first file that sets a value wins, as kubectl does),
 * `inCluster` (the Pod's service account).
 */
export interface KubeconfigSource {
  readonly content?: string;
  readonly paths?: readonly string[];
  readonly inCluster?: boolean;
}

/** A kubeconfig with its context chosen. */
export interface ResolvedKubeconfig {
  readonly kubeConfig: KubeConfig;
  /** The context in use. */
  readonly context: string;
  /** The context's namespace, or `default` when it names none (kubectl's rule). */
  readonly namespace: string;
  /** Every token, password, certificate key and client secret in the kubeconfig, for masking. */
  readonly secrets: readonly string[];
}

/** The kubeconfig is missing, unreadable, or names no such context. */
export class KubeconfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KubeconfigError';
  }
}

/**
 * Loads a kubeconfig and selects `context` (or its current context). A context that does not exist
 * is an error listing those that do: spread never falls back to another cluster. Of `paths`, at
 * least one file must exist (an error names them all otherwise).
 *
 * @throws KubeconfigError
 */
export function loadKubeconfig(source: KubeconfigSource, context?: string): ResolvedKubeconfig {
  const kc = new KubeConfig();
  let origin: string;
  try {
    if (source.content !== undefined && source.content.trim() !== '') {
      const text = decodeKubeconfigContent(source.content);
      kc.loadFromString(text);
      // Content has no directory: a relative exec command stays relative to the working directory,
      // as client-go leaves the paths of a kubeconfig it did not read from a file.
      readExecExtensions(kc, text);
      origin = 'the kubeconfig content';
    } else if (source.paths && source.paths.length > 0) {
      // The front ends drop the files of $KUBECONFIG that do not exist (frontend/kubeconfig.ts);
      // when none does, the error names them all rather than the first one's ENOENT.
      if (!source.paths.some((file) => existsSync(file)))
        throw new KubeconfigError(
          source.paths.length === 1
            ? `no kubeconfig: ${source.paths[0]} does not exist`
            : `no kubeconfig: none of these files exists: ${source.paths.join(', ')}`,
        );
      // client-node has no public merge of several files with kubectl's first-wins rule, so merge
      // the later files in reverse: mergeConfig lets the file merged last win.
      const [first, ...rest] = source.paths;
      loadFile(kc, first!);
      for (const file of rest) {
        const other = new KubeConfig();
        loadFile(other, file);
        mergeFirstWins(kc, other);
      }
      origin = source.paths.join(':');
    } else if (source.inCluster) {
      kc.loadFromCluster();
      origin = 'the in-cluster service account';
    } else {
      throw new KubeconfigError('no kubeconfig: give --kubeconfig, set KUBECONFIG, or run in a cluster');
    }
  } catch (error) {
    if (error instanceof KubeconfigError) throw error;
    throw new KubeconfigError(`cannot read the kubeconfig: ${parseErrorText(error)}`);
  }
  if (kc.getContexts().length === 0 && kc.getClusters().length === 0) {
    throw new KubeconfigError(
      `${origin} holds no clusters and no contexts: is it a kubeconfig (its YAML, or base64 of it)?`,
    );
  }

  const names = kc.getContexts().map((c) => c.name);
  const wanted = context || kc.getCurrentContext();
  if (!wanted) {
    throw new KubeconfigError(
      `${origin} has no current context; name one of: ${names.join(', ') || '(none: the kubeconfig has no contexts)'}`,
    );
  }
  const ctx = kc.getContextObject(wanted);
  if (!ctx) {
    throw new KubeconfigError(
      `context "${wanted}" does not exist in ${origin}; available contexts: ${names.join(', ') || '(none)'}`,
    );
  }
  kc.setCurrentContext(wanted);
  if (!kc.getCurrentCluster())
    throw new KubeconfigError(`context "${wanted}" names cluster "${ctx.cluster}", which does not exist`);
  return {
    kubeConfig: kc,
    context: wanted,
    namespace: ctx.namespace || 'default',
    secrets: kubeconfigSecrets(kc),
  };
}

/**
 * A parse error's text without the code frame: YAML parsers quote the offending lines, which in a
 * kubeconfig can hold a token or a key. Only the reason and the position are kept.
 */
function parseErrorText(error: unknown): string {
  const e = error as { reason?: string; mark?: { line?: number; column?: number }; message?: string };
  if (e.reason && e.mark)
    return `YAML error at line ${(e.mark.line ?? 0) + 1}, column ${(e.mark.column ?? 0) + 1}: ${e.reason}`;
  const first = String(e.message ?? error).split('\n')[0] ?? '';
  // js-yaml's one-line form is `reason (line:column)`; anything longer may quote the file.
  return first.length > 200 ? `${first.slice(0, 200)}…` : first;
}

/**
 * A kubeconfig given as content: plain YAML/JSON, or base64 of it (CI secrets often hold it so).
 * Base64 is recognised by its alphabet and by decoding to something that looks like a kubeconfig.
 */
export function decodeKubeconfigContent(content: string): string {
  const trimmed = content.trim();
  if (/^[A-Za-z0-9+/=\s_-]+$/.test(trimmed) && !trimmed.includes(':')) {
    const decoded = Buffer.from(trimmed.replace(/\s+/g, ''), 'base64').toString('utf8');
    if (/\b(apiVersion|clusters|contexts)\b/.test(decoded)) return decoded;
  }
  return content;
}

/** The secret values in a kubeconfig: tokens, passwords, client keys, exec/auth-provider secrets. */
export function kubeconfigSecrets(kc: KubeConfig): string[] {
  const out = new Set<string>();
  const add = (v: unknown) => {
    if (typeof v === 'string' && v.length >= 4) out.add(v);
  };
  for (const user of kc.getUsers()) {
    add(user.token);
    add(user.password);
    add(user.keyData);
    add(user.certData);
    const provider = user.authProvider as { config?: Record<string, unknown> } | undefined;
    for (const [k, v] of Object.entries(provider?.config ?? {})) if (/secret|token/i.test(k)) add(v);
    const exec = user.exec as { env?: { name: string; value: string }[] } | undefined;
    for (const e of exec?.env ?? []) if (/secret|token|password|key/i.test(e.name)) add(e.value);
  }
  for (const key of [...out]) {
    if (/^[A-Za-z0-9+/=]+$/.test(key)) {
      // certData/keyData are base64 of PEM: the decoded PEM body must be masked as well.
      const decoded = Buffer.from(key, 'base64').toString('utf8');
      for (const line of decoded.split('\n'))
        if (line.length >= 16 && !line.startsWith('-----')) out.add(line.trim());
    }
  }
  return [...out];
}

/**
 * Loads one kubeconfig file as kubectl does (clientcmd's ResolveLocalPaths): besides the certificate
 * and key files client-node resolves, an exec `command` holding a path separator (`./bin/token`) is
 * taken relative to the file's directory, not the working directory; a bare name is looked up on PATH.
 */
function loadFile(kc: KubeConfig, file: string): void {
  const text = readFileSync(file, 'utf8');
  kc.loadFromString(text);
  const dir = path.dirname(path.resolve(file));
  kc.makePathsAbsolute(dir);
  for (const user of kc.getUsers()) {
    const exec = user.exec as { command?: unknown } | undefined;
    if (
      typeof exec?.command === 'string' &&
      exec.command.includes(path.sep) &&
      !path.isAbsolute(exec.command)
    )
      (user as { exec: unknown }).exec = { ...exec, command: path.join(dir, exec.command) };
  }
  readExecExtensions(kc, text);
}

/**
 * Keeps each cluster's `client.authentication.k8s.io/exec` extension (client-node drops `extensions`),
 * which KUBERNETES_EXEC_INFO passes to a plugin with `provideClusterInfo`. A file that does not parse
 * here has been refused by client-node already.
 */
function readExecExtensions(kc: KubeConfig, text: string): void {
  let raw: {
    clusters?: { name?: string; cluster?: { extensions?: { name?: string; extension?: unknown }[] } }[];
  };
  try {
    raw = parse(text) ?? {};
  } catch {
    return;
  }
  for (const entry of Array.isArray(raw.clusters) ? raw.clusters : []) {
    const ext = entry?.cluster?.extensions?.find?.((e) => e?.name === 'client.authentication.k8s.io/exec');
    const cluster = kc.getClusters().find((c) => c.name === entry?.name);
    if (ext && cluster) setExecExtension(cluster, ext.extension);
  }
}

function mergeFirstWins(target: KubeConfig, other: KubeConfig): void {
  const has = <T extends { name: string }>(list: T[], name: string) => list.some((x) => x.name === name);
  for (const c of other.getClusters()) if (!has(target.getClusters(), c.name)) target.addCluster(c);
  for (const u of other.getUsers()) if (!has(target.getUsers(), u.name)) target.addUser(u);
  for (const c of other.getContexts()) if (!has(target.getContexts(), c.name)) target.addContext(c);
  if (!target.getCurrentContext() && other.getCurrentContext())
    target.setCurrentContext(other.getCurrentContext());
}
