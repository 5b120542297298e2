// Registry credentials read the way the docker CLI reads them (config.json's credHelpers, credsStore,
// auths), for the registry lookups spread makes itself; buildx reads the same file for its push.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Registry credentials read the way the docker CLI reads them (docs.docker.com "docker login",
 * "Credential stores"; github.com/docker/cli cli/config/configfile): from `<dir>/config.json` where
 * `<dir>` is `$DOCKER_CONFIG` or `~/.docker` (the caller resolves it), looking in `credHelpers` for
 * the registry, else the `credsStore` helper, else `auths`.
 */

/** The key and server URL Docker uses for Docker Hub in config.json and with credential helpers. */
export const DOCKER_HUB_SERVER = 'https://index.docker.io/v1/';
const DOCKER_HUB_ALIASES = new Set([
  'docker.io',
  'index.docker.io',
  'registry-1.docker.io',
  'registry.hub.docker.com',
]);

/**
 * Credentials for one registry. Never log or print any field but {@link serverAddress} and {@link from}.
 */
export interface RegistryCredential {
  /** The server address as Docker passes it: `localhost:5000`, or `https://index.docker.io/v1/`. */
  readonly serverAddress: string;
  readonly username?: string | undefined;
  readonly password?: string | undefined;
  /** An OAuth refresh token (`identitytoken`), used instead of a password. */
  readonly identityToken?: string | undefined;
  /** Where the credential came from, for messages: `auths`, `credHelpers (ecr-login)`, `credsStore (desktop)`. */
  readonly from: string;
}

/** A Docker config that cannot be read, or a credential helper that failed. Never holds a secret. */
export class CredentialError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialError';
  }
}

interface AuthEntry {
  auth?: unknown;
  username?: unknown;
  password?: unknown;
  identitytoken?: unknown;
}

/** The parts of config.json used for registry credentials. */
export interface DockerConfigFile {
  auths?: Record<string, AuthEntry>;
  credHelpers?: Record<string, string>;
  credsStore?: string;
}

/**
 * The host a registry address names, as the docker CLI compares them (`registry.ConvertToHostname`):
 * scheme and path dropped, Docker Hub's aliases (`docker.io`, `index.docker.io`,
 * `https://index.docker.io/v1/`, `registry-1.docker.io`) all `docker.io`. `localhost:5000/team-a` → `localhost:5000`.
 */
export function registryHost(address: string): string {
  let host = address.trim().replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  const slash = host.indexOf('/');
  if (slash >= 0) host = host.slice(0, slash);
  host = host.toLowerCase();
  return DOCKER_HUB_ALIASES.has(host) ? 'docker.io' : host;
}

/** The server address Docker sends to credential helpers and in `serveraddress` for a registry host. */
export function serverAddress(host: string): string {
  return registryHost(host) === 'docker.io' ? DOCKER_HUB_SERVER : registryHost(host);
}

/** Reads `<dir>/config.json`; an absent file is an empty config. @throws CredentialError on invalid JSON. */
export async function readDockerConfig(dir: string): Promise<DockerConfigFile> {
  const file = path.join(dir, 'config.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new CredentialError(`cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new Error('not a JSON object');
    }
    return parsed as DockerConfigFile;
  } catch (e) {
    // JSON.parse messages quote the text near the error, which may be a secret: say only where.
    throw new CredentialError(`${file} is not valid JSON (${(e as Error).name})`);
  }
}

/** Runs a credential helper's `get` and parses its answer; undefined when it has nothing for the server. */
export type CredentialHelperRunner = (helper: string, server: string) => Promise<HelperAnswer | undefined>;

/** What `docker-credential-<helper> get` prints (github.com/docker/docker-credential-helpers). */
export interface HelperAnswer {
  readonly Username?: string;
  readonly Secret?: string;
}

/**
 * Runs `docker-credential-<helper> get` with the server URL on stdin, as the docker CLI does
 * (docker-credential-helpers `client.Get`), found on PATH. "credentials not found" → undefined.
 *
 * @throws CredentialError when the helper is missing or fails; the message holds its exit status and
 *   the first line of its error output, never its answer.
 */
export const runCredentialHelper: CredentialHelperRunner = (helper, server) =>
  new Promise((resolve, reject) => {
    const program = `docker-credential-${helper}`;
    const child = spawn(program, ['get'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      reject(
        new CredentialError(
          e.code === 'ENOENT'
            ? `credential helper ${program} is not on PATH`
            : `credential helper ${program} could not start: ${e.message}`,
        ),
      );
    });
    child.on('close', (code) => {
      if (code !== 0) {
        const said = (stdout.trim() || stderr.trim()).split('\n')[0] ?? '';
        if (/credentials not found/i.test(said)) return resolve(undefined);
        return reject(
          new CredentialError(
            `credential helper ${program} failed for ${server} (exit code ${code})${said && !stdout.trim() ? `: ${said.slice(0, 200)}` : ''}`,
          ),
        );
      }
      try {
        resolve(JSON.parse(stdout) as HelperAnswer);
      } catch {
        reject(new CredentialError(`credential helper ${program} printed no JSON for ${server}`));
      }
    });
    child.stdin.on('error', () => {});
    child.stdin.end(server);
  });

function stringOf(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function fromAuths(config: DockerConfigFile, host: string, file: string): RegistryCredential | undefined {
  const auths = config.auths ?? {};
  const key = Object.keys(auths).find((k) => registryHost(k) === host);
  if (key === undefined) return undefined;
  const entry = auths[key] ?? {};
  const server = serverAddress(host);
  let username = stringOf(entry.username);
  let password = stringOf(entry.password);
  const auth = stringOf(entry.auth);
  if (auth !== undefined) {
    const decoded = Buffer.from(auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new CredentialError(`the auth of ${key} in ${file} is not base64 of user:password`);
    username = decoded.slice(0, colon);
    password = decoded.slice(colon + 1);
  }
  const identityToken = stringOf(entry.identitytoken);
  if (username === undefined && password === undefined && identityToken === undefined) return undefined;
  return { serverAddress: server, username, password, identityToken, from: 'auths' };
}

/** Options of {@link resolveCredential}. */
export interface ResolveCredentialOptions {
  /** Runs credential helpers; {@link runCredentialHelper} when absent (tests pass a fake). */
  readonly runHelper?: CredentialHelperRunner;
}

/**
 * Finds the credentials for a registry in a Docker config directory, in the docker CLI's order: a
 * `credHelpers` entry for the host, else `credsStore`, else `auths` (an `auth` of base64 `user:password`,
 * or `username`/`password`, or `identitytoken`). A helper that has nothing for the host falls back to
 * `auths`. A helper answering Username `<token>` gives an identity token. Undefined: no credentials
 * (the registry is used anonymously).
 *
 * @param configDir the directory holding config.json (`$DOCKER_CONFIG` or `~/.docker`).
 * @param registry a registry host or address (`localhost:5000`, `docker.io`, `https://index.docker.io/v1/`).
 * @throws CredentialError for an unreadable config or a failing helper (never with a secret in it).
 */
export async function resolveCredential(
  configDir: string,
  registry: string,
  options: ResolveCredentialOptions = {},
): Promise<RegistryCredential | undefined> {
  const file = path.join(configDir, 'config.json');
  const config = await readDockerConfig(configDir);
  const host = registryHost(registry);
  const server = serverAddress(host);
  const helperKey = Object.keys(config.credHelpers ?? {}).find((k) => registryHost(k) === host);
  const helper = helperKey !== undefined ? config.credHelpers?.[helperKey] : config.credsStore;
  if (helper) {
    const from = helperKey !== undefined ? `credHelpers (${helper})` : `credsStore (${helper})`;
    const answer = await (options.runHelper ?? runCredentialHelper)(helper, server);
    const username = stringOf(answer?.Username);
    const secret = stringOf(answer?.Secret);
    if (secret !== undefined) {
      return username === '<token>' || username === undefined
        ? { serverAddress: server, identityToken: secret, from }
        : { serverAddress: server, username, password: secret, from };
    }
  }
  return fromAuths(config, host, file);
}

/**
 * The `authconfig` the Docker Engine API takes in `X-Registry-Auth` (Engine API "Authentication").
 */
export function engineAuthConfig(credential: RegistryCredential): {
  username?: string;
  password?: string;
  identitytoken?: string;
  serveraddress: string;
} {
  return {
    serveraddress: credential.serverAddress,
    ...(credential.identityToken !== undefined
      ? { identitytoken: credential.identityToken }
      : { username: credential.username ?? '', password: credential.password ?? '' }),
  };
}
