// The image stage: builds and pushes each `&` image (unless the registry holds it from the same
// context), confirms its digest and pins the objects to it; without `&` images it never runs Docker.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { SourcedObject } from '../base/kube-object.js';
import { CONTEXT_DIGEST_LABEL } from '../base/labels.js';
import type { Logger } from '../base/logger.js';
import { familiarName, isValidTag } from '../base/reference.js';
import { formatSource, InputError, type InputIssue, issueText } from '../base/source.js';
import type { Application } from '../entity/entity.js';
import { engineImage, type StartedBuild, startBuildx } from './buildx.js';
import { type BuildContext, ContextError, packContext, readContext } from './context.js';
import { PushError } from './docker.js';
import { askEarly, checkBeforeBuild, commitTagged, fixedRef, type Job, looksUp, lookUp } from './lookup.js';
import type { ImageOptions } from './options.js';
import { pinImages } from './pin.js';
import { type PlannedBuild, planBuilds } from './plan.js';
import { createRun, type Run } from './run.js';

export type { ImageOptions } from './options.js';

/** What was done for one `&` image. */
export interface ImageReport {
  /** The repository, familiar form: `localhost:5000/team-a/web`. */
  readonly name: string;
  /** What containers run: `localhost:5000/team-a/web:1f2e3d4@sha256:…` (unpinned when no digest is known). */
  readonly reference: string;
  readonly tag: string;
  /** Other tags pushed with it by this run (the commit's, see ImageOptions.commit). */
  readonly extraTags?: readonly string[];
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

/** Reads every context before anything is contacted, so all input problems are reported at once. */
async function readContexts(
  builds: readonly PlannedBuild[],
  options: ImageOptions,
  issues: InputIssue[],
  manifestFiles: readonly string[],
): Promise<Map<PlannedBuild, BuildContext>> {
  const contexts = new Map<PlannedBuild, BuildContext>();
  for (const b of builds) {
    try {
      const dir = path.resolve(options.root, b.contextDir);
      // Plain manifests inside the context are configuration, like rc.yaml: not sent, not digested.
      const prefix = b.contextDir === '.' ? '' : `${b.contextDir}/`;
      const configFiles = manifestFiles
        .filter((f) => f.startsWith(prefix))
        .map((f) => f.slice(prefix.length));
      contexts.set(b, await readContext(dir, { ...options, platforms: options.platforms, configFiles }));
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
  return contexts;
}

/**
 * The image stage (DESIGN "Images marked for building"), between reading and planning: builds every
 * image marked `&name[:tag]` from the directory of the file that marks it with `docker buildx build`
 * (BuildKit), tags it `<registry>/<name>:<tag>`, pushes it (the builder pushes, with the Docker
 * config's credentials), confirms the digest with the registry, and returns the objects with those
 * images pinned (`<registry>/<name>:<tag>@sha256:…`). An image whose registry tag (or, push off, local
 * image) already carries the same context digest is not built again. Referenced images are never
 * built or pushed. Without `&` images this returns the objects unchanged and never runs Docker.
 *
 * Each image's work is logged in a `logger.group`, with buildx's progress. Credentials and build
 * secrets never appear in logs or errors.
 *
 * @throws InputError for problems of the input, all at once with file and line: invalid `&` names, the
 *   same name from two directories or with two tags, a missing Dockerfile, `&` images without a registry.
 * @throws BuildxMissingError (what to install), BuildError (the failing step and its output),
 *   PushError, RegistryAuthError ("authentication to <registry> failed"), RegistryError, CredentialError.
 */
export async function prepareImages(
  application: Application,
  objects: readonly SourcedObject[],
  options: ImageOptions,
  logger: Logger,
): Promise<PreparedImages> {
  const run = createRun(options, logger);
  // Without building, the registry is still needed to find what to pin; only a local build may go without.
  const plan = planBuilds(application, {
    registry: options.registry,
    requireRegistry: run.push || !run.build,
  });
  const issues: InputIssue[] = [...plan.issues];
  for (const w of issues.filter((i) => i.severity === 'warning')) {
    logger.warn(issueText(w), { file: w.source.file, line: w.source.line });
  }
  if (plan.builds.length === 0 && !issues.some((i) => i.severity === 'error')) {
    return { objects: objects.map((o) => ({ ...o })), images: [] };
  }
  checkOptions(run);
  const contexts = await readContexts(plan.builds, options, issues, application.manifestFiles());
  if (issues.some((i) => i.severity === 'error')) throw new InputError(issues);

  const jobs = plan.builds.map((b): Job => {
    const context = contexts.get(b)!;
    const contentTag = `ctx-${context.digest.slice('sha256:'.length, 'sha256:'.length + TAG_FROM_DIGEST_LENGTH)}`;
    const tag = b.tag ?? options.tag ?? contentTag;
    const extraTags = tag === contentTag && options.commit && options.commit !== tag ? [options.commit] : [];
    return { b, context, tag, extraTags };
  });
  const held = askEarly(run, jobs);
  await checkBeforeBuild(run, objects, jobs, held);
  const reports: ImageReport[] = [];
  for (const job of jobs) {
    const tagged = fixedRef(job.b.repository, job.tag);
    reports.push(
      await logger.group(`Image ${tagged}`, () => prepareOne(run, { ...job, held: held.get(job) })),
    );
  }
  const pins = new Map<string, string>();
  for (const r of reports) for (const mark of r.marks) pins.set(mark, r.reference);
  return { objects: pinImages(objects, pins), images: reports };
}

function checkOptions(run: Run): void {
  const { tag, platforms } = run.options;
  if (tag !== undefined && !isValidTag(tag)) {
    throw new Error(
      `tag ${JSON.stringify(tag)} is not a valid image tag: up to 128 letters, digits, "_", "." and "-", not starting with "." or "-"`,
    );
  }
  if ((platforms?.length ?? 0) > 1 && !run.push && run.build && !run.options.plan) {
    throw new Error(
      `building for several platforms (${platforms!.join(', ')}) gives a manifest list, which only a registry holds: push is needed`,
    );
  }
}

/** One image: unchanged in the registry, or a plan, or not built, or built (and pushed). */
async function prepareOne(run: Run, job: Job): Promise<ImageReport> {
  const { b, context, tag } = job;
  const { logger } = run;
  const tagged = fixedRef(b.repository, tag);
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
  const done: Done = (digest, built, pushed, as = tag) => ({
    name: familiarName(b.repository),
    tag: as,
    ...(built && job.extraTags.length > 0 ? { extraTags: job.extraTags } : {}),
    contextDigest: context.digest,
    context: b.contextDir,
    source: formatSource(b.declaredIn),
    marks: b.marks,
    reference: fixedRef(b.repository, as, digest),
    digest,
    built,
    pushed,
  });
  // buildx starts while the registry and the engine are asked whether the build is needed at all,
  // and is ended unbuilt when it is not.
  const started = run.build && !run.options.plan ? await startOne(run, job) : undefined;
  let outcome: ImageReport | undefined;
  try {
    outcome = await notBuilt(run, job, done);
  } catch (error) {
    // A failed lookup (credentials the registry refuses) ends the waiting buildx too.
    await started?.cancel();
    throw error;
  }
  if (outcome) {
    await started?.cancel();
    return outcome;
  }
  const digest = await started!.send(fromDirectory(context) ? undefined : packContext(context));
  logger.info(`built ${tagged}${digest ? ` (${digest})` : ''}`);
  if (!run.push) return done(undefined, true, false);
  await confirmPush(run, job, digest);
  logger.info(`pushed ${fixedRef(b.repository, tag, digest)}`);
  return done(digest, true, true);
}

/** An image's report: its digest, whether built and pushed, and the tag it is deployed with (the job's when absent). */
type Done = (digest: string | undefined, built: boolean, pushed: boolean, as?: string) => ImageReport;

/**
 * The report of an image that is not built: unchanged in the registry (or, push off, in the engine),
 * a plan, or building off. Undefined when it is to be built.
 */
async function notBuilt(run: Run, job: Job, done: Done): Promise<ImageReport | undefined> {
  const { options, logger } = run;
  const { b, context, tag } = job;
  const tagged = fixedRef(b.repository, tag);
  const lookup = looksUp(run) ? await lookUp(run, job) : { lookedUp: false };
  if (lookup.same) return done(lookup.same, false, false);
  if (options.plan) {
    logger.info(`${tagged}: the deploy builds it (the registry does not hold it from this context)`);
    return { ...done(undefined, false, false), wouldBuild: true };
  }
  if (!run.build) {
    if (lookup.held) {
      logger.warn(
        `${tagged} in the registry was built from another context (building is off); deploying it as it is`,
      );
      return done(lookup.held, false, false);
    }
    const byCommit = lookup.lookedUp ? await commitTagged(run, job) : undefined;
    if (byCommit) return done(byCommit.digest, false, false, byCommit.tag);
    if (lookup.lookedUp)
      throw new Error(
        `${tagged} (marked at ${formatSource(b.declaredIn)}) is not in the registry and building is off: no pod could pull it; build it first, or deploy with building on`,
      );
    logger.warn(
      `${tagged}: the registry could not be asked whether it holds it (building is off); deploying it unpinned`,
    );
    return done(undefined, false, false);
  }
  if (!run.push) {
    const local = await localImage(run, tagged, context.digest);
    if (local) {
      logger.info(`${tagged} is in the Docker engine, built from the same context (${local})`);
      return done(undefined, false, false);
    }
  }
  return undefined;
}

/** The ID of the engine's image `tagged` when it carries this context digest. */
async function localImage(run: Run, tagged: string, contextDigest: string): Promise<string | undefined> {
  const local = await engineImage(await run.buildx(), tagged);
  return local?.labels[CONTEXT_DIGEST_LABEL] === contextDigest ? local.id : undefined;
}

/** Whether the context is built from its directory (its Dockerfile or .dockerignore excluded), not a tar. */
const fromDirectory = (context: BuildContext): boolean => context.excludedBuildFiles.length > 0;

/** Starts buildx for one image (see startBuildx); the context is sent once the build is needed. */
async function startOne(run: Run, job: Job): Promise<StartedBuild> {
  const { b, context, tag } = job;
  const { options } = run;
  const dockerfileText = await readFile(path.join(context.dir, context.dockerfile), 'utf8');
  return startBuildx(
    await run.buildx(),
    {
      tags: [tag, ...job.extraTags].map((t) => fixedRef(b.repository, t)),
      dockerfile: context.dockerfile,
      directory: fromDirectory(context)
        ? { dir: context.dir, ignorePatterns: context.ignorePatterns }
        : undefined,
      buildArgs: options.buildArgs,
      target: options.target,
      labels: { [CONTEXT_DIGEST_LABEL]: context.digest },
      network: options.networkMode,
      platforms: options.platforms,
      attestations: options.attestations,
      secrets: options.secrets,
      cache: options.cache,
      cacheFor: familiarName(b.repository),
      output: run.push ? 'push' : 'load',
      source: `${path.posix.join(b.contextDir, context.dockerfile)}, marked at ${formatSource(b.declaredIn)}`,
    },
    dockerfileText,
    run.logger,
  );
}

/** The registry holds the tag at the digest buildx reported. */
async function confirmPush(run: Run, { b, tag }: Job, digest: string | undefined): Promise<void> {
  const host = b.repository.domain;
  const tagged = fixedRef(b.repository, tag);
  const confirmed = await (await run.registryFor(host)).manifest(b.repository.path, tag);
  if (!confirmed) throw new PushError(`pushed ${tagged}, but the registry ${host} does not hold it`, host);
  if (digest === undefined)
    throw new PushError(
      `pushing ${tagged} to ${host} reported no digest; the push may not have completed`,
      host,
    );
  if (confirmed.digest !== digest) {
    throw new PushError(
      `pushed ${tagged} as ${digest}, but the registry ${host} holds ${confirmed.digest} for the tag (pushed by someone else meanwhile?)`,
      host,
    );
  }
}
