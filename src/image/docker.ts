import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import type { Logger } from '../base/logger.js';
import type { RegistryCredential } from './credentials.js';
import { engineAuthConfig } from './credentials.js';

/**
 * Where the Docker engine listens: a `DOCKER_HOST` string (`unix:///var/run/docker.sock`,
 * `tcp://host:2375`, `npipe:////./pipe/docker_engine`, `ssh://user@host`) or its parts.
 * Absent: the default socket `/var/run/docker.sock`.
 */
export type DockerConnection = string | DockerEndpoint;

/** The parts of a Docker engine address (dockerode `DockerOptions`). */
export interface DockerEndpoint {
  readonly socketPath?: string;
  readonly host?: string;
  readonly port?: number;
  readonly protocol?: 'http' | 'https' | 'ssh';
  readonly username?: string;
  /** PEM contents for TLS (`protocol: 'https'`). */
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
}

/**
 * Turns a `DOCKER_HOST` value into dockerode options, as the docker CLI reads it (docs.docker.com
 * "docker" CLI reference, Environment variables). `tcp://` is plain HTTP unless `tls` is set.
 *
 * @throws Error for an unsupported scheme.
 */
export function parseDockerHost(value: string, tls = false): DockerEndpoint {
  const m = /^([a-z]+):\/\/(.*)$/.exec(value.trim());
  if (!m) throw new Error(`DOCKER_HOST ${JSON.stringify(value)} is not scheme://address`);
  const [, scheme, rest] = m as unknown as [string, string, string];
  switch (scheme) {
    case 'unix':
      return { socketPath: rest };
    case 'npipe':
      return { socketPath: rest.replace(/\//g, '\\') };
    case 'tcp':
    case 'http':
    case 'https': {
      const url = new URL(`http://${rest}`);
      const secure = tls || scheme === 'https';
      return {
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port ? Number(url.port) : secure ? 2376 : 2375,
        protocol: secure ? 'https' : 'http',
      };
    }
    case 'ssh': {
      const url = new URL(`ssh://${rest}`);
      return {
        protocol: 'ssh',
        host: url.hostname,
        port: url.port ? Number(url.port) : 22,
        ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
      };
    }
    default:
      throw new Error(`DOCKER_HOST scheme ${scheme}:// is not supported`);
  }
}

/**
 * A dockerode client for a connection. dockerode (with docker-modem and ssh2) is loaded on the first
 * call, so a deploy that builds and pushes nothing never loads it.
 */
export async function dockerClient(connection: DockerConnection | undefined): Promise<Docker> {
  const { default: Docker } = await import('dockerode');
  const endpoint =
    connection === undefined
      ? { socketPath: '/var/run/docker.sock' }
      : typeof connection === 'string'
        ? parseDockerHost(connection)
        : connection;
  return new Docker({ ...endpoint });
}

/** One JSON message of a build or push stream (Engine API `jsonmessage.JSONMessage`). */
export interface DockerMessage {
  stream?: string;
  status?: string;
  id?: string;
  progress?: string;
  progressDetail?: unknown;
  error?: string;
  errorDetail?: { code?: number; message?: string };
  aux?: { ID?: string; Tag?: string; Digest?: string; Size?: number };
}

/**
 * Reads every JSON message of an Engine API progress stream (newline-separated JSON objects, split
 * across chunks anywhere) and calls `onMessage` for each, in order. Resolves with all messages when the
 * stream ends; rejects when the stream errors. A line that is not JSON is passed on as `{stream: line}`.
 * Failure messages (`errorDetail`/`error`) are passed on like the others: callers decide (STYLE.md 12).
 */
export function readMessages(
  stream: Readable,
  onMessage: (m: DockerMessage) => void,
): Promise<DockerMessage[]> {
  return new Promise((resolve, reject) => {
    const all: DockerMessage[] = [];
    let buffer = '';
    const emit = (line: string) => {
      if (line.trim() === '') return;
      let message: DockerMessage;
      try {
        message = JSON.parse(line) as DockerMessage;
      } catch {
        message = { stream: `${line}\n` };
      }
      all.push(message);
      onMessage(message);
    };
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      buffer += chunk;
      let nl = buffer.indexOf('\n');
      while (nl >= 0) {
        emit(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        nl = buffer.indexOf('\n');
      }
    });
    stream.on('error', reject);
    stream.on('end', () => {
      try {
        emit(buffer);
        resolve(all);
      } catch (e) {
        reject(e);
      }
    });
    // A socket closed early ends without 'end'.
    stream.on('close', () => {
      if (!stream.readableEnded) reject(new Error('the Docker engine closed the stream early'));
    });
  });
}

/** The failure text of a message, if it is one. */
export function messageError(m: DockerMessage): string | undefined {
  if (m.errorDetail !== undefined) return m.errorDetail.message || m.error || 'unknown error';
  if (m.error !== undefined) return m.error || 'unknown error';
  return undefined;
}

/** A `docker build` that failed: the step that failed and its output. */
export class BuildError extends Error {
  /** `Step 2/3 : COPY missing /x`, when a step had started. */
  readonly step: string | undefined;
  /** The lines the failing step printed before the error. */
  readonly output: readonly string[];
  constructor(image: string, detail: string, step: string | undefined, output: readonly string[]) {
    const tail = output.slice(-20);
    super(
      `building ${image} failed${step ? ` at ${step}` : ''}: ${detail}${tail.length > 0 ? `\n${tail.map((l) => `  | ${l}`).join('\n')}` : ''}`,
    );
    this.name = 'BuildError';
    this.step = step;
    this.output = output;
  }
}

/** Options of {@link buildImage}. */
export interface BuildImageOptions {
  /** The tag to give, `localhost:5000/team-a/web:1f2e3d4`. */
  readonly tag: string;
  readonly dockerfile: string;
  readonly buildArgs?: Readonly<Record<string, string>> | undefined;
  readonly target?: string | undefined;
  /** `--network` of RUN steps (`none`, `host`, `default`). */
  readonly networkMode?: string | undefined;
  readonly labels: Readonly<Record<string, string>>;
  /** Images whose layers a step may reuse besides the engine's own (`docker build --cache-from`). */
  readonly cacheFrom?: readonly string[] | undefined;
  /** Credentials for pulling `FROM` images, by registry server address (X-Registry-Config). */
  readonly registryCredentials?: readonly RegistryCredential[] | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Builds an image with the classic builder of the Engine API (`POST /build`), reading every message of
 * its stream: each `Step n/m : …` line is logged with `logger.info`, step output too; everything else
 * goes to `logger.debug`. Resolves with the image ID (`sha256:…`).
 *
 * @throws BuildError when any message carries `errorDetail` or `error`, naming the step it failed at and
 *   that step's output; also when the engine names no image ID at the end.
 */
export async function buildImage(
  docker: Docker,
  context: Readable,
  options: BuildImageOptions,
  logger: Logger,
): Promise<string> {
  const registryconfig: Record<
    string,
    { username?: string; password?: string; identitytoken?: string; serveraddress: string }
  > = {};
  for (const c of options.registryCredentials ?? []) registryconfig[c.serverAddress] = engineAuthConfig(c);
  const stream = (await docker.buildImage(context as unknown as NodeJS.ReadableStream, {
    t: options.tag,
    dockerfile: options.dockerfile,
    labels: { ...options.labels },
    rm: true,
    forcerm: true,
    ...(options.buildArgs && Object.keys(options.buildArgs).length > 0
      ? { buildargs: { ...options.buildArgs } }
      : {}),
    ...(options.target ? { target: options.target } : {}),
    ...(options.networkMode ? { networkmode: options.networkMode } : {}),
    // The Engine API takes cachefrom as a JSON array in one query parameter.
    ...(options.cacheFrom && options.cacheFrom.length > 0
      ? { cachefrom: JSON.stringify(options.cacheFrom) }
      : {}),
    ...(Object.keys(registryconfig).length > 0
      ? { registryconfig: registryconfig as Docker.RegistryConfig }
      : {}),
    ...(options.signal ? { abortSignal: options.signal } : {}),
  })) as unknown as Readable;
  let step: string | undefined;
  let output: string[] = [];
  let failure: string | undefined;
  let imageId: string | undefined;
  await readMessages(stream, (m) => {
    const error = messageError(m);
    if (error !== undefined) {
      failure ??= error;
      return;
    }
    if (m.aux?.ID) imageId = m.aux.ID;
    if (m.stream !== undefined) {
      for (const line of m.stream.replace(/\r/g, '').split('\n')) {
        if (line.trim() === '') continue;
        if (/^Step \d+\/\d+ : /.test(line)) {
          step = line.trim();
          output = [];
          logger.info(step);
        } else if (/^ ---> Using cache/.test(line)) {
          logger.info('  using cache');
        } else if (/^ ---> |^Removing intermediate container |^Successfully (built|tagged) /.test(line)) {
          logger.debug(line);
          const built = /^Successfully built ([0-9a-f]+)/.exec(line);
          if (built && imageId === undefined) imageId = built[1];
        } else {
          output.push(line);
          logger.info(`  ${line}`);
        }
      }
    } else if (m.status !== undefined) {
      logger.debug(`${m.id ? `${m.id}: ` : ''}${m.status}${m.progress ? ` ${m.progress}` : ''}`);
    }
  });
  if (failure !== undefined) throw new BuildError(options.tag, failure.trim(), step, output);
  if (imageId === undefined)
    throw new BuildError(
      options.tag,
      'the Docker engine named no image at the end of the build',
      step,
      output,
    );
  return imageId;
}

/** A push that failed, or ended without a digest. */
export class PushError extends Error {
  readonly registry: string;
  constructor(message: string, registry: string) {
    super(message);
    this.name = 'PushError';
    this.registry = registry;
  }
}

const AUTH_FAILURE =
  /unauthori[sz]ed|authentication required|no basic auth credentials|denied|\b401\b|incorrect username or password/i;

/**
 * Pushes `repository:tag` with the Engine API (`POST /images/{name}/push`), reading every message: the
 * digest comes from the `aux` message (`aux.Digest`) or the final `<tag>: digest: sha256:… size: N` status.
 *
 * @param repository the repository with its registry, `localhost:5000/team-a/web`.
 * @param registry the registry host, for messages.
 * @throws PushError when any message carries `errorDetail`/`error` (a refused credential says
 *   "authentication to <registry> failed"), or no digest was reported.
 */
export async function pushImage(
  docker: Docker,
  repository: string,
  tag: string,
  registry: string,
  credential: RegistryCredential | undefined,
  logger: Logger,
  signal?: AbortSignal,
): Promise<string> {
  const stream = (await docker.getImage(repository).push({
    tag,
    ...(credential ? { authconfig: engineAuthConfig(credential) } : {}),
    ...(signal ? { abortSignal: signal } : {}),
  })) as unknown as Readable;
  let digest: string | undefined;
  let failure: string | undefined;
  const layers = new Map<string, string>();
  await readMessages(stream, (m) => {
    const error = messageError(m);
    if (error !== undefined) {
      failure ??= error;
      return;
    }
    if (m.aux?.Digest) digest = m.aux.Digest;
    if (m.status !== undefined) {
      const final = /digest: (sha256:[a-f0-9]{64})/.exec(m.status);
      if (final) {
        digest ??= final[1];
        logger.info(m.status);
      } else if (m.id && !m.progressDetail) {
        layers.set(m.id, m.status);
      } else if (m.id && m.status !== layers.get(m.id) && !m.progress) {
        layers.set(m.id, m.status);
        logger.debug(`${m.id}: ${m.status}`);
      } else if (!m.id) {
        logger.debug(m.status);
      }
    }
  });
  const name = `${repository}:${tag}`;
  if (failure !== undefined) {
    const detail = failure.trim();
    if (AUTH_FAILURE.test(detail)) {
      const hint = credential
        ? `the credentials from ${credential.from} were refused`
        : 'the Docker config has no credentials for it';
      throw new PushError(
        `pushing ${name}: authentication to ${registry} failed (${hint}): ${detail}`,
        registry,
      );
    }
    throw new PushError(`pushing ${name} to ${registry} failed: ${detail}`, registry);
  }
  if (digest === undefined) {
    throw new PushError(
      `pushing ${name} to ${registry} reported no digest; the push may not have completed`,
      registry,
    );
  }
  return digest;
}
