import os from 'node:os';
import path from 'node:path';
import type Docker from 'dockerode';
import type { SourcedObject } from '../base/kube-object.js';
import { CONTEXT_DIGEST_LABEL } from '../base/labels.js';
import type { Logger } from '../base/logger.js';
import { familiarName, type ImageReference, isValidTag } from '../base/reference.js';
import { formatSource, InputError, type InputIssue, issueText } from '../base/source.js';
import type { Application } from '../entity/entity.js';
import { type BuildContext, ContextError, packContext, readContext } from './context.js';
import { type RegistryCredential, registryHost, resolveCredential } from './credentials.js';
import { buildImage, type DockerConnection, dockerClient, PushError, pushImage } from './docker.js';
import { LayerCache, type LayerCacheOptions, layerCacheKey, layerCacheName } from './layer-cache.js';
import { pinImages } from './pin.js';
import { type PlannedBuild, planBuilds } from './plan.js';
import { RegistryAuthError, RegistryClient } from './registry.js';

/** Options of {@link prepareImages}; front ends fill them from flags, inputs and the environment. */
export interface ImageOptions {
  /** The input root directory: contexts are relative to it. */
  readonly root: string;
  /**
   * Where built images are pushed: a registry host with an optional path (`localhost:5000/team-a`,
   * `ghcr.io/org`). Needed when there are `&` images, unless they are only built locally
   * ({@link push} off, {@link build} on) or name their own registry (`&ghcr.io/org/web`).
   */
  readonly registry?: string | undefined;
  /**
   * Tag for built images whose mark has none: the commit (GITHUB_SHA / CI_COMMIT_SHA / `git rev-parse
   * --short HEAD`, resolved by the front end). Absent: `ctx-` and the first 12 hex digits of the context digest.
   */
  readonly tag?: string | undefined;
  /** `--build-arg`s for every build. */
  readonly buildArgs?: Readonly<Record<string, string>> | undefined;
  /** `--target` stage for every build. */
  readonly target?: string | undefined;
  /** Push built images (default true). Off: images are built locally and deployed by tag, unpinned. */
  readonly push?: boolean | undefined;
  /**
   * Build images (default true). Off: nothing is built or pushed; each image is pinned to what the
   * registry holds for its tag (with a warning when that was built from another context); a tag the
   * registry lacks is an error, since no pod could pull it.
   */
  readonly build?: boolean | undefined;
  /**
   * A plan: nothing is built or pushed (whatever `build` and `push` say), and an image the registry
   * does not hold from the same context is reported as one the deploy would build (`wouldBuild`).
   */
  readonly plan?: boolean | undefined;
  /** The Docker engine: a DOCKER_HOST value or its parts; `/var/run/docker.sock` when absent. */
  readonly docker?: DockerConnection | undefined;
  /** The directory holding config.json (`$DOCKER_CONFIG`); `~/.docker` when absent. */
  readonly dockerConfigDir?: string | undefined;
  /** Network of RUN steps (`docker build --network`): `none`, `host`, `default`. */
  readonly networkMode?: string | undefined;
  /** Registry hosts reached over plain HTTP when HTTPS fails (loopback hosts always are). */
  readonly insecureRegistries?: readonly string[] | undefined;
  /**
   * Keep the layers of built images between runs (the Action: the GitHub Actions cache). Restored
   * before the first build that is needed, saved after the builds; without it, only the engine's own
   * cache is used.
   */
  readonly layerCache?: LayerCacheOptions | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** What was done for one `&` image. */
export interface ImageReport {
  /** The repository, familiar form: `localhost:5000/team-a/web`. */
  readonly name: string;
  /** What containers run: `localhost:5000/team-a/web:1f2e3d4@sha256:…` (unpinned when no digest is known). */
  readonly reference: string;
  readonly tag: string;
  /** The manifest digest in the registry (`sha256:…`); undefined when not pushed and not found. */
  readonly digest: string | undefined;
  /** The digest of the build context (see {@link readContext}), also the image's label {@link CONTEXT_DIGEST_LABEL}. */
  readonly contextDigest: string;
  /** An image was built by this run (false when an image of the same context already existed). */
  readonly built: boolean;
  /** The image was pushed by this run (false when the registry already held it). */
  readonly pushed: boolean;
  /** Plan only: the registry does not hold this tag from this context, so the deploy builds (and pushes) it. */
  readonly wouldBuild?: boolean;
  /** The context directory relative to the input root (`.` for the root). */
  readonly context: string;
  /** Where the image is first marked, `web/web.ctr:3`. */
  readonly source: string;
  /** The `image` values as written that were replaced: `&web`. */
  readonly marks: readonly string[];
}

/** The result of {@link prepareImages}. */
export interface PreparedImages {
  /** The objects with `&` images replaced by their pinned references (new objects where changed). */
  readonly objects: SourcedObject[];
  readonly images: ImageReport[];
}

const TAG_FROM_DIGEST_LENGTH = 12;

function fixedRef(repository: ImageReference, tag: string, digest?: string): string {
  return familiarName({ ...repository, tag, digest });
}

function labelsOf(labels: Record<string, string> | null | undefined): Record<string, string> {
  return labels ?? {};
}

/**
 * The image stage (DESIGN "Images marked for building"), between reading and planning: builds every
 * image marked `&name[:tag]` from the directory of the file that marks it, tags it
 * `<registry>/<name>:<tag>`, pushes it with the Docker config's credentials, confirms the digest with
 * the registry, and returns the objects with those images pinned
 * (`<registry>/<name>:<tag>@sha256:…`). An image whose registry tag, or local image, already carries the
 * same context digest is not built again. With {@link ImageOptions.layerCache}, the layers of an earlier
 * run are restored before the first build and this run's images saved after the builds. Referenced
 * images are never built or pushed. Without `&` images
 * this returns the objects unchanged and never contacts Docker.
 *
 * Each image's work is logged in a `logger.group`. Credentials never appear in logs or errors.
 *
 * @throws InputError for problems of the input, all at once with file and line: invalid `&` names, the
 *   same name from two directories or with two tags, a missing Dockerfile, `&` images without a registry.
 * @throws BuildError (the failing step and its output), PushError / RegistryAuthError
 *   ("authentication to <registry> failed"), RegistryError, CredentialError.
 */
// over 80 lines because it is the image stage's whole sequence (plan, build, push, pin).
export async function prepareImages(
  application: Application,
  objects: readonly SourcedObject[],
  options: ImageOptions,
  logger: Logger,
): Promise<PreparedImages> {
  const push = options.push ?? true;
  const build = options.build ?? true;
  // Without building, the registry is still needed to find what to pin; only a local build may go without.
  const plan = planBuilds(application, { registry: options.registry, requireRegistry: push || !build });
  const issues: InputIssue[] = [...plan.issues];
  for (const w of issues.filter((i) => i.severity === 'warning')) {
    logger.warn(issueText(w), { file: w.source.file, line: w.source.line });
  }
  if (plan.builds.length === 0 && !issues.some((i) => i.severity === 'error')) {
    return { objects: objects.map((o) => ({ ...o })), images: [] };
  }
  if (options.tag !== undefined && !isValidTag(options.tag)) {
    throw new Error(
      `tag ${JSON.stringify(options.tag)} is not a valid image tag: up to 128 letters, digits, "_", "." and "-", not starting with "." or "-"`,
    );
  }

  // Every context is read before Docker is contacted, so all input problems are reported at once.
  const contexts = new Map<PlannedBuild, BuildContext>();
  for (const b of plan.builds) {
    try {
      contexts.set(
        b,
        await readContext(path.resolve(options.root, b.contextDir), {
          buildArgs: options.buildArgs,
          target: options.target,
        }),
      );
    } catch (e) {
      if (!(e instanceof ContextError)) throw e;
      const dockerfile = b.contextDir === '.' ? 'Dockerfile' : `${b.contextDir}/Dockerfile`;
      issues.push({
        source: b.declaredIn,
        object: b.containers[0]!,
        message: `image ${JSON.stringify(b.marks[0])} is built from ${b.contextDir === '.' ? 'the input root' : `${b.contextDir}/`}, which has no Dockerfile (${dockerfile})`,
        severity: 'error',
      });
    }
  }
  if (issues.some((i) => i.severity === 'error')) throw new InputError(issues);

  const configDir = options.dockerConfigDir ?? path.join(os.homedir(), '.docker');
  const credentials = new Map<string, Promise<RegistryCredential | undefined>>();
  const credentialFor = (host: string) => {
    let c = credentials.get(host);
    if (!c) {
      c = resolveCredential(configDir, host);
      credentials.set(host, c);
    }
    return c;
  };
  const registries = new Map<string, RegistryClient>();
  const registryFor = async (host: string) => {
    let r = registries.get(host);
    if (!r) {
      r = new RegistryClient(host, {
        credential: await credentialFor(host),
        insecure: options.insecureRegistries?.some((h) => registryHost(h) === host) || undefined,
        signal: options.signal,
      });
      registries.set(host, r);
    }
    return r;
  };
  let docker: Promise<Docker> | undefined;
  const dockerFor = () => {
    docker ??= dockerClient(options.docker);
    return docker;
  };
  const layerCache =
    options.layerCache &&
    new LayerCache(
      options.layerCache,
      layerCacheKey(
        plan.builds.map((b) => ({
          repository: familiarName(b.repository),
          contextDigest: contexts.get(b)!.digest,
          buildArgs: options.buildArgs,
          target: options.target,
        })),
      ),
      dockerFor,
      logger,
    );
  // The images in the engine after the builds (built now or before), for the layer cache.
  const inEngine: { tagged: string; repository: string }[] = [];
  let anyBuilt = false;

  const reports: ImageReport[] = [];
  for (const b of plan.builds) {
    const context = contexts.get(b)!;
    const tag =
      b.tag ??
      options.tag ??
      `ctx-${context.digest.slice('sha256:'.length, 'sha256:'.length + TAG_FROM_DIGEST_LENGTH)}`;
    const name = familiarName(b.repository);
    const tagged = fixedRef(b.repository, tag);
    const host = b.repository.domain;
    // over 80 lines because it builds, pushes and reports one image in one log group.
    const report = await logger.group(`Image ${tagged}`, async (): Promise<ImageReport> => {
      logger.info(
        `context ${b.contextDir}/ (${context.entries.length} entries, ${context.digest}), marked at ${formatSource(b.declaredIn)}`,
      );
      for (const link of context.escapingLinks) {
        logger.warn(
          `${b.contextDir}/${link} is a symbolic link to outside the build context; Docker does not follow it`,
          {
            file: path.posix.join(b.contextDir, link),
          },
        );
      }
      const base = {
        name,
        tag,
        contextDigest: context.digest,
        context: b.contextDir,
        source: formatSource(b.declaredIn),
        marks: b.marks,
      };
      const done = (digest: string | undefined, built: boolean, pushed: boolean): ImageReport => ({
        ...base,
        reference: fixedRef(b.repository, tag, digest),
        digest,
        built,
        pushed,
      });

      // 1. The registry already holds this tag, built from the same context: nothing to do.
      let held: { digest: string } | undefined;
      let lookedUp = false;
      if (push || !build || options.plan) {
        const registry = await registryFor(host);
        try {
          const manifest = await registry.manifest(b.repository.path, tag);
          lookedUp = true;
          if (manifest) {
            const labels = await registry.imageLabels(b.repository.path, manifest);
            if (labels?.[CONTEXT_DIGEST_LABEL] === context.digest) {
              logger.info(`${tagged} is in the registry, built from the same context: ${manifest.digest}`);
              return done(manifest.digest, false, false);
            }
            held = manifest;
            logger.debug(`${tagged} is in the registry, built from another context`);
          }
        } catch (e) {
          // A refused credential would fail the push too: say so now. Anything else is left to the push.
          if (e instanceof RegistryAuthError) throw e;
          logger.warn(`could not look up ${tagged} in the registry: ${(e as Error).message}`);
        }
      }
      if (options.plan) {
        logger.info(`${tagged}: the deploy builds it (the registry does not hold it from this context)`);
        return { ...done(undefined, false, false), wouldBuild: true };
      }
      if (!build) {
        if (held) {
          logger.warn(
            `${tagged} in the registry was built from another context (building is off); deploying it as it is`,
          );
          return done(held.digest, false, false);
        }
        if (lookedUp)
          throw new Error(
            `${tagged} (marked at ${formatSource(b.declaredIn)}) is not in the registry and building is off: no pod could pull it; build it first, or deploy with building on`,
          );
        logger.warn(
          `${tagged}: the registry could not be asked whether it holds it (building is off); deploying it unpinned`,
        );
        return done(undefined, false, false);
      }

      // 2. The engine has an image of this tag built from the same context, maybe after restoring
      // the layer cache; else build it, reusing the cached layers.
      const engine = await dockerFor();
      let built = false;
      const sameContext = async (image = tagged) => {
        const local = await engine
          .getImage(image)
          .inspect()
          .catch((e: { statusCode?: number }) => {
            if (e.statusCode === 404) return undefined;
            throw e;
          });
        return local && labelsOf(local.Config?.Labels)[CONTEXT_DIGEST_LABEL] === context.digest
          ? local.Id
          : undefined;
      };
      let localId = await sameContext();
      const restored = localId === undefined && layerCache ? await layerCache.restore() : [];
      // With cachefrom, the classic builder uses only those images' layers, not the engine's own
      // cache: add the engine's images of this repository, which a persistent engine keeps.
      const cacheFrom =
        restored.length === 0
          ? []
          : [
              ...restored,
              ...(await engine.listImages({ filters: { reference: [name] } })).flatMap(
                (i) => i.RepoTags?.filter((t) => t !== '<none>:<none>') ?? [],
              ),
            ];
      const cached = layerCacheName(name);
      if (localId === undefined && cacheFrom.includes(cached) && (await sameContext(cached))) {
        // The cache holds this very build (the same context): tag it rather than build it again.
        await engine.getImage(cached).tag({ repo: name, tag });
        localId = await sameContext();
      }
      if (localId !== undefined) {
        logger.info(`${tagged} is in the Docker engine, built from the same context (${localId})`);
      } else {
        const credential = push ? await credentialFor(host) : undefined;
        const id = await buildImage(
          engine,
          packContext(context),
          {
            tag: tagged,
            dockerfile: context.dockerfile,
            buildArgs: options.buildArgs,
            target: options.target,
            networkMode: options.networkMode,
            labels: { [CONTEXT_DIGEST_LABEL]: context.digest },
            cacheFrom,
            registryCredentials: credential ? [credential] : [],
            signal: options.signal,
          },
          logger,
        );
        built = true;
        anyBuilt = true;
        logger.info(`built ${tagged} (${id})`);
      }
      inEngine.push({ tagged, repository: name });
      if (!push) return done(undefined, built, false);

      // 3. Push, then confirm the digest with the registry.
      const credential = await credentialFor(host);
      logger.debug(
        credential
          ? `credentials for ${host} from ${credential.from} (${configDir})`
          : `no credentials for ${host} in ${configDir}`,
      );
      const repository = familiarName(b.repository);
      const digest = await pushImage(engine, repository, tag, host, credential, logger, options.signal);
      const confirmed = await (await registryFor(host)).manifest(b.repository.path, tag);
      if (!confirmed) {
        throw new PushError(`pushed ${tagged}, but the registry ${host} does not hold it`, host);
      }
      if (confirmed.digest !== digest) {
        throw new PushError(
          `pushed ${tagged} as ${digest}, but the registry ${host} holds ${confirmed.digest} for the tag (pushed by someone else meanwhile?)`,
          host,
        );
      }
      logger.info(`pushed ${fixedRef(b.repository, tag, digest)}`);
      return done(digest, built, true);
    });
    reports.push(report);
  }
  if (layerCache && anyBuilt) {
    await layerCache.save(inEngine);
  }

  const pins = new Map<string, string>();
  for (const r of reports) for (const mark of r.marks) pins.set(mark, r.reference);
  return { objects: pinImages(objects, pins), images: reports };
}
