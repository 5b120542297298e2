// Builds and pushes an image with `docker buildx build` (BuildKit, what `docker build` and
// build-push-action use): the argument list, build secrets passed only through the environment, and
// the digest read back from buildx's metadata file.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from '../base/logger.js';
import { type BuildCache, cacheFlags } from './build-cache.js';
import { BuildError, failureDetail, heldLines, unreachableEngine } from './buildx-output.js';
import { buildxCommand, standaloneEnv } from './buildx-plugin.js';
import { DOCKERFILE } from './context.js';

/** A build secret (`RUN --mount=type=secret,id=<id>`): its value reaches buildx only through its environment. */
export interface BuildSecret {
  /** The id the Dockerfile mounts: `npm` for `--mount=type=secret,id=npm`. */
  readonly id: string;
  readonly value: string;
}

/** Where and how the docker CLI's `buildx` runs. */
export interface BuildxRunner {
  /** The docker CLI; `docker` (from PATH) when absent. */
  readonly docker?: string | undefined;
  /** The buildx builder (`docker buildx build --builder`); absent: buildx's own choice (BUILDX_BUILDER, the current one). */
  readonly builder?: string | undefined;
  /** The environment of the docker CLI (DOCKER_HOST, DOCKER_CONFIG, ACTIONS_* for `type=gha`); absent: this process's. */
  readonly env?: NodeJS.ProcessEnv | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * One `docker buildx build` of a context sent as a tar on standard input, or (with {@link directory})
 * of a context directory.
 */
export interface BuildxBuild {
  /** Tags, `localhost:5000/team-a/web:1f2e3d4`. */
  readonly tags: readonly string[];
  /** The Dockerfile's path inside the context tar. */
  readonly dockerfile: string;
  /**
   * Build from this directory instead of a tar, the Dockerfile sent beside it (`--file` of a copy in a
   * directory of its own, with `Dockerfile.dockerignore` holding `ignorePatterns`, which BuildKit
   * applies instead of the context's `.dockerignore`). For a context whose patterns exclude the
   * Dockerfile or `.dockerignore`: a tar context is taken by BuildKit as it is, so only this leaves
   * them out of what `COPY` sees, as `docker buildx build DIR` does.
   */
  readonly directory?: { readonly dir: string; readonly ignorePatterns: readonly string[] } | undefined;
  readonly buildArgs?: Readonly<Record<string, string>> | undefined;
  readonly target?: string | undefined;
  readonly labels?: Readonly<Record<string, string>> | undefined;
  /** `--network` of RUN steps (`none`, `host`, `default`). */
  readonly network?: string | undefined;
  /** `linux/amd64`, `linux/arm64`: several give a manifest list. Absent: the builder's own platform. */
  readonly platforms?: readonly string[] | undefined;
  /**
   * Attestations: `true` provenance (`--provenance=mode=min`) and SBOM (`--sbom`, which runs BuildKit's
   * scanner image docker/buildkit-syft-scanner from Docker Hub), `provenance` provenance only; off
   * unless given.
   */
  readonly attestations?: Attestations | undefined;
  readonly secrets?: readonly BuildSecret[] | undefined;
  readonly cache?: BuildCache | undefined;
  /** The repository the cache is kept for (`localhost:5000/team-a/web`): its gha scope, registry ref, directory. */
  readonly cacheFor: string;
  /** `push`: the builder pushes to the registry; `load`: the image goes into the Docker engine. */
  readonly output: 'push' | 'load';
  /**
   * Where the build comes from, named in its error: `api/Dockerfile, marked at api/web.ctr:2` (the
   * Dockerfile as the directory names it, and the marker's file and line).
   */
  readonly source?: string | undefined;
}

/** Which attestations to attach: none (`false`), provenance only, or provenance and SBOM (`true`). */
export type Attestations = boolean | 'provenance';

/** The runner has no docker CLI, no buildx plugin, or no builder. */
export class BuildxMissingError extends Error {
  constructor(detail: string) {
    super(
      `building images needs the docker CLI with the buildx plugin and a BuildKit builder (${detail}): on GitHub add a docker/setup-buildx-action step before spread; in the GitLab component give the job a Docker engine, the inputs \`services\` (e.g. a docker:dind service aliased docker) and \`docker-host\` (tcp://docker:2375); elsewhere install docker-buildx (docs.docker.com/build/install-buildx) and create a builder with \`docker buildx create --use\``,
    );
    this.name = 'BuildxMissingError';
  }
}

/**
 * `linux/amd64` items, comma- or line-separated (build-push-action's `platforms`, OCI platform form).
 *
 * @throws Error naming the first item that is not a platform.
 */
export function parsePlatforms(text: string): string[] {
  const items = text
    .split(/[,\n]/)
    .map((p) => p.trim())
    .filter((p) => p !== '');
  for (const p of items)
    if (!/^[a-z0-9]+\/[a-z0-9_]+(\/[a-z0-9]+)?$/.test(p))
      throw new Error(`"${p}" is not a platform like linux/amd64 or linux/arm64/v8`);
  return items;
}

/**
 * What output lines are searched for to hide a secret: each line of its value, without its line
 * ending and outer spaces (buildx prints a multi-line secret, or one with a trailing newline, a line
 * at a time, so the whole value never appears on one line). Pure.
 */
export function secretPieces(secrets: readonly BuildSecret[]): string[] {
  return secrets.flatMap((s) =>
    s.value
      .split(/\r?\n/)
      .map((piece) => piece.trim())
      .filter((piece) => piece.length > 0),
  );
}

/** The environment variable name a secret's value travels in (never the command line). */
const secretEnv = (index: number) => `SPREAD_BUILD_SECRET_${index}`;

/**
 * The arguments of `docker buildx build` for a build (docs.docker.com "docker buildx build"), ending
 * with `-` (the context is the tar on standard input), or with {@link BuildxBuild.directory} and the
 * Dockerfile copied beside `metadataFile`. Attestations are off unless asked for, so a
 * single-platform build pushes one manifest, not an index. Secrets are named by environment
 * variable (`--secret id=…,env=…`), never by value. Pure.
 */
export function buildxArgs(build: BuildxBuild, metadataFile: string, builder?: string): string[] {
  const args = ['buildx', 'build', '--progress=plain', '--metadata-file', metadataFile];
  if (builder) args.push('--builder', builder);
  for (const t of build.tags) args.push('--tag', t);
  args.push('--file', build.directory ? path.join(path.dirname(metadataFile), DOCKERFILE) : build.dockerfile);
  for (const [k, v] of Object.entries(build.buildArgs ?? {})) args.push('--build-arg', `${k}=${v}`);
  if (build.target) args.push('--target', build.target);
  for (const [k, v] of Object.entries(build.labels ?? {})) args.push('--label', `${k}=${v}`);
  if (build.network) args.push('--network', build.network);
  if (build.platforms && build.platforms.length > 0) args.push('--platform', build.platforms.join(','));
  const attest = build.attestations ?? false;
  args.push(`--provenance=${attest ? 'mode=min' : 'false'}`, `--sbom=${attest === true ? 'true' : 'false'}`);
  for (const [i, s] of (build.secrets ?? []).entries())
    args.push('--secret', `id=${s.id},env=${secretEnv(i)}`);
  args.push(...cacheFlags(build.cache, build.cacheFor));
  args.push(build.output === 'push' ? '--push' : '--load', build.directory?.dir ?? '-');
  return args;
}

/** A step header of buildx's plain progress: `#7 [stage-0 2/3] RUN make`. */
const STEP = /^#(\d+) (\[[^\]]+\] .*)$/;
/** The `containerimage.digest` of a buildx metadata file (`--metadata-file`), if any. */
export function metadataDigest(text: string): string | undefined {
  const meta = JSON.parse(text) as Record<string, unknown>;
  const digest = meta['containerimage.digest'];
  return typeof digest === 'string' ? digest : undefined;
}

/**
 * The errors of piping the context into a child that had already closed its input, or exited
 * (ERR_STREAM_UNABLE_TO_PIPE: a docker CLI without the plugin prints its help and exits at once).
 */
const CHILD_CLOSED = new Set([
  'EPIPE',
  'PREMATURE_CLOSE',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_STREAM_UNABLE_TO_PIPE',
]);

/**
 * Runs the docker CLI with `args`; resolves with its exit code, passing each output line to `onLine`.
 * `stdin`, when given, is piped in once it resolves; resolving with undefined ends the child instead
 * (SIGTERM and the end of its input), before it had any input.
 */
function run(
  runner: BuildxRunner,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  onLine: (line: string) => void,
  stdin?: Promise<Readable | undefined>,
  command = buildxCommand(runner.docker, env, args),
): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command.command, command.args, {
      env: command.args === args ? env : standaloneEnv(env),
      stdio: [stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      ...(runner.signal ? { signal: runner.signal } : {}),
    });
    let rest = '';
    const read = (chunk: Buffer) => {
      rest += chunk.toString('utf8');
      const lines = rest.split(/\r?\n/);
      rest = lines.pop() ?? '';
      for (const l of lines) onLine(l);
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.on('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'ENOENT' ? new BuildxMissingError(`no ${runner.docker ?? 'docker'} command`) : e),
    );
    child.on('close', (code) => {
      if (rest) onLine(rest);
      resolve(code ?? 1);
    });
    child.stdin?.on('error', () => {});
    void stdin?.then((input) => {
      if (!input || !child.stdin) {
        // buildx cancels on SIGTERM but then waits for its context: the end of its input lets it exit.
        child.kill('SIGTERM');
        child.stdin?.end();
        return;
      }
      // A child that ends (or never starts) before reading the whole context closes the pipe: that is
      // its exit code's to report. Any other failure of the context stream (a file unreadable while
      // packing) fails the build.
      pipeline(input, child.stdin).catch((e: NodeJS.ErrnoException) => {
        if (!CHILD_CLOSED.has(e.code ?? '')) reject(e);
      });
    });
  });
}

/**
 * The Docker engine's image `ref` (`docker image inspect`, the engine of the runner's DOCKER_HOST):
 * its ID and labels; undefined when the engine has no such image.
 *
 * @throws BuildxMissingError when there is no docker CLI; Error with the CLI's output on any other failure.
 */
export async function engineImage(
  runner: BuildxRunner,
  ref: string,
): Promise<{ id: string; labels: Record<string, string> } | undefined> {
  const lines: string[] = [];
  const code = await run(runner, ['image', 'inspect', ref], { ...(runner.env ?? process.env) }, (l) =>
    lines.push(l),
  );
  const text = lines.join('\n');
  if (code !== 0) {
    if (/no such (image|object)/i.test(text)) return undefined;
    throw new Error(`docker image inspect ${ref} failed: ${text.trim() || `exit code ${code}`}`);
  }
  const [image] = JSON.parse(text) as { Id: string; Config?: { Labels?: Record<string, string> | null } }[];
  return image ? { id: image.Id, labels: image.Config?.Labels ?? {} } : undefined;
}

/**
 * Checks that the docker CLI has buildx and that its builder answers (`docker buildx inspect
 * --bootstrap`), to diagnose a build that failed before any step. Resolves with the builder's driver (`remote`, `docker-container`, `docker`).
 *
 * @throws BuildxMissingError saying what to install.
 */
export async function checkBuildx(runner: BuildxRunner): Promise<string> {
  const env = { ...(runner.env ?? process.env) };
  const docker = async (args: string[]) => {
    const lines: string[] = [];
    return { code: await run(runner, args, env, (l) => lines.push(l)), text: lines.join('\n').trim() };
  };
  const version = await docker(['buildx', 'version']);
  if (version.code !== 0) throw new BuildxMissingError('docker has no buildx plugin');
  const builder = runner.builder ? ['--builder', runner.builder] : [];
  const inspect = await docker(['buildx', 'inspect', '--bootstrap', ...builder]);
  if (inspect.code !== 0)
    throw new BuildxMissingError(
      `the builder does not answer: ${inspect.text || `exit code ${inspect.code}`}`,
    );
  return /^Driver:\s*(\S+)/m.exec(inspect.text)?.[1] ?? 'unknown';
}

/** A `docker buildx build` started before its context is known (see {@link startBuildx}). */
export interface StartedBuild {
  /**
   * Sends the context (a tar; none for a {@link BuildxBuild.directory} build, which starts now) and waits for the build: resolves with the image (or manifest list)
   * digest of `--metadata-file`'s `containerimage.digest`.
   *
   * @throws BuildError naming the failing step, with the last output lines; a `# syntax=` frontend
   *   that cannot be pulled is named as such. BuildxMissingError when buildx or its builder is missing.
   */
  send(context?: Readable): Promise<string | undefined>;
  /** Ends buildx before it had a context: nothing is built or pushed, and nothing it printed is logged. */
  cancel(): Promise<void>;
}

/**
 * A directory build's Dockerfile source (see BuildxBuild.directory): the Dockerfile, and the context's
 * exclusions as its `Dockerfile.dockerignore`, which BuildKit reads instead of the context's `.dockerignore`.
 */
function writeDockerfileBeside(dir: string, dockerfileText: string, patterns: readonly string[]): void {
  writeFileSync(path.join(dir, DOCKERFILE), dockerfileText);
  writeFileSync(
    path.join(dir, `${DOCKERFILE}.dockerignore`),
    `# written by spread: the exclusions of the build context\n${patterns.join('\n')}\n`,
  );
}

/**
 * Starts `docker buildx build` with the context to come as a tar on standard input, so the docker CLI
 * and buildx start (about a third of a second) while the caller still decides whether to build, and
 * logs every line of buildx's plain progress (each step, each layer pulled and pushed) with
 * `logger.info` as it comes once the context is sent. Secret values go to buildx in its environment
 * only, and any line holding one is dropped. buildx's provenance of the metadata file is off
 * (BUILDX_METADATA_PROVENANCE=disabled, unless the environment sets it): spread reads only the digest.
 */
export function startBuildx(
  runner: BuildxRunner,
  build: BuildxBuild,
  dockerfileText: string,
  logger: Logger,
): StartedBuild {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'spread-buildx-'));
  const metadata = path.join(dir, 'metadata.json');
  const env: NodeJS.ProcessEnv = { BUILDX_METADATA_PROVENANCE: 'disabled', ...(runner.env ?? process.env) };
  build.secrets?.forEach((s, i) => {
    env[secretEnv(i)] = s.value;
  });
  const values = secretPieces(build.secrets ?? []);
  // Steps by their number (`#7`), to name the one whose `#7 ERROR:` line fails the build.
  const steps = new Map<string, string>();
  let step: string | undefined;
  const output: string[] = [];
  const held = heldLines(logger);
  let give: (context: Readable | undefined) => void = () => {};
  const context = new Promise<Readable | undefined>((resolve) => {
    give = resolve;
  });
  const args = buildxArgs(build, metadata, runner.builder);
  const command = buildxCommand(runner.docker, env, args);
  logger.debug(`buildx: ${command.command}`);
  if (build.directory) writeDockerfileBeside(dir, dockerfileText, build.directory.ignorePatterns);
  const onLine = (raw: string) => {
    const line = values.some((v) => raw.includes(v)) ? '(a line holding a build secret, not shown)' : raw;
    if (line.trim() === '') return;
    const header = STEP.exec(line);
    if (header) steps.set(header[1]!, header[2]!);
    const failed = /^#(\d+) ERROR:/.exec(line);
    if (failed && steps.has(failed[1]!)) step ??= steps.get(failed[1]!);
    // A step's own output comes as `#7 0.053 text`: kept as `text`.
    output.push(line.replace(/^#\d+ \d+\.\d+ /, ''));
    held.log(line);
  };
  // A directory context cannot be held back on standard input: buildx starts once it is sent.
  const exit = build.directory
    ? context.then((go) => (go ? run(runner, args, env, onLine, undefined, command) : 0))
    : run(runner, args, env, onLine, context, command);
  // Its failure (no docker command) is send's to report; until then it is not unhandled.
  exit.catch(() => undefined);
  const cleanup = () => rm(dir, { recursive: true, force: true });
  return {
    async send(tar) {
      held.sent();
      give(tar ?? Readable.from([]));
      try {
        const code = await exit;
        if (code !== 0) {
          // Nothing was built: buildx or its builder may be missing, which checkBuildx names.
          if (steps.size === 0 && !output.some((l) => /^#\d+ /.test(l))) {
            await checkBuildx(runner);
            const engine = unreachableEngine(output);
            if (engine) throw new BuildxMissingError(`its Docker engine cannot be reached: ${engine}`);
          }
          held.release();
          throw new BuildError(
            build.tags[0] ?? 'image',
            failureDetail(output, dockerfileText),
            step,
            output,
            build.source,
          );
        }
        held.release();
        const text = await readFile(metadata, 'utf8').catch(() => undefined);
        return text === undefined ? undefined : metadataDigest(text);
      } finally {
        await cleanup();
      }
    },
    async cancel() {
      give(undefined);
      await exit.catch(() => undefined);
      await cleanup();
    },
  };
}

/**
 * Builds with `docker buildx build`, the context given as a tar on standard input: {@link startBuildx}
 * and its `send` at once.
 */
export function buildxBuild(
  runner: BuildxRunner,
  build: BuildxBuild,
  context: Readable,
  dockerfileText: string,
  logger: Logger,
): Promise<string | undefined> {
  return startBuildx(runner, build, dockerfileText, logger).send(context);
}
