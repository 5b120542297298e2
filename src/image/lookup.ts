// What the registry holds for each image's tag, asked before anything is built: whether a build is
// needed at all, the digest to pin when not, and the objects pinned as far as is known for the check
// a deploy runs before its first build (ImageOptions.beforeBuild).
import type { SourcedObject } from '../base/kube-object.js';
import { CONTEXT_DIGEST_LABEL } from '../base/labels.js';
import { familiarName, type ImageReference } from '../base/reference.js';
import type { BuildContext } from './context.js';
import { CredentialError } from './credentials.js';
import { pinImages } from './pin.js';
import type { PlannedBuild } from './plan.js';
import { RegistryAuthError } from './registry.js';
import type { Run } from './run.js';

/** The per-image facts prepare.ts's prepareOne works from. */
export interface Job {
  readonly b: PlannedBuild;
  readonly context: BuildContext;
  /** The tag looked up and deployed. */
  readonly tag: string;
  /** Further tags a build pushes: the commit's, when {@link tag} is the content-addressed one. */
  readonly extraTags: readonly string[];
  /** The registry's answer for the tag, asked for every image before the first build (see askEarly). */
  readonly held?: Promise<Held | undefined>;
}

/** What the registry holds for a tag: its manifest's digest and its image's labels. */
export interface Held {
  readonly digest: string;
  readonly labels: Record<string, string> | undefined;
}

/** `<registry>/<path>:<tag>[@<digest>]`, familiar form. */
export function fixedRef(repository: ImageReference, tag: string, digest?: string): string {
  return familiarName({ ...repository, tag, digest });
}

/**
 * Runs ImageOptions.beforeBuild when an image is to be built (it is not in the registry from the same
 * context, or push is off): with each image pinned to the registry's digest when it is held from the
 * same context, else to the tag the build will push. Nothing is built before it resolves.
 */
export async function checkBeforeBuild(
  run: Run,
  objects: readonly SourcedObject[],
  jobs: readonly Job[],
  held: Map<Job, Promise<Held | undefined>>,
): Promise<void> {
  const check = run.options.beforeBuild;
  if (!check || !run.build || run.options.plan) return;
  const pins = new Map<string, string>();
  let building = false;
  for (const job of jobs) {
    const holds = await held.get(job)?.catch(() => undefined);
    const same = holds?.labels?.[CONTEXT_DIGEST_LABEL] === job.context.digest ? holds?.digest : undefined;
    if (!same) building = true;
    for (const mark of job.b.marks) pins.set(mark, fixedRef(job.b.repository, job.tag, same));
  }
  if (building) await check(pinImages(objects, pins));
}

/**
 * Building off, and the content-addressed tag missing: what the registry holds for the commit's tag
 * (pushed by a spread that tagged images by commit, or by `docker buildx build`), as a deploy without
 * building found images before; undefined when it holds none.
 */
export async function commitTagged(run: Run, job: Job): Promise<{ tag: string; digest: string } | undefined> {
  const tag = job.extraTags[0];
  if (tag === undefined) return undefined;
  const holds = await registryHolds(run, job.b, tag).catch(() => undefined);
  if (!holds) return undefined;
  const tagged = fixedRef(job.b.repository, tag);
  if (holds.labels?.[CONTEXT_DIGEST_LABEL] === job.context.digest)
    run.logger.info(`${tagged} is in the registry, built from the same context: ${holds.digest}`);
  else
    run.logger.warn(
      `${tagged} in the registry was built from another context (building is off); deploying it as it is`,
    );
  return { tag, digest: holds.digest };
}

/** Whether {@link lookUp} asks the registry: pushing, or not building, or planning. */
export const looksUp = (run: Run): boolean => run.push || !run.build || run.options.plan === true;

/**
 * Asks the registry what it holds for every image's tag at once, once the input is known good and
 * before the first buildx starts: buildx waits for its context until the answer comes, and against
 * a registry some round trips away the answers for several images then overlap. A failure is
 * lookUp's to report; an answer nobody takes (a build failed before) is dropped.
 */
export function askEarly(run: Run, jobs: readonly Job[]): Map<Job, Promise<Held | undefined>> {
  const early = new Map<Job, Promise<Held | undefined>>();
  if (!looksUp(run)) return early;
  for (const job of jobs) {
    const answer = registryHolds(run, job.b, job.tag);
    answer.catch(() => undefined);
    early.set(job, answer);
  }
  return early;
}

/** The registry's manifest digest and image labels for `tag`; undefined when it holds no such tag. */
async function registryHolds(run: Run, b: PlannedBuild, tag: string): Promise<Held | undefined> {
  const registry = await run.registryFor(b.repository.domain);
  const manifest = await registry.manifest(b.repository.path, tag);
  if (!manifest) return undefined;
  return { digest: manifest.digest, labels: await registry.imageLabels(b.repository.path, manifest) };
}

/** The registry's answer for this tag: the digest if built from the same context, else what it holds. */
export async function lookUp(
  run: Run,
  { b, context, tag, held }: Job,
): Promise<{ same?: string; held?: string; lookedUp: boolean }> {
  const tagged = fixedRef(b.repository, tag);
  try {
    const holds = await (held ?? registryHolds(run, b, tag));
    if (!holds) return { lookedUp: true };
    if (holds.labels?.[CONTEXT_DIGEST_LABEL] === context.digest) {
      run.logger.info(`${tagged} is in the registry, built from the same context: ${holds.digest}`);
      return { same: holds.digest, lookedUp: true };
    }
    run.logger.debug(`${tagged} is in the registry, built from another context`);
    return { held: holds.digest, lookedUp: true };
  } catch (e) {
    // A refused or unreadable credential would fail the push too: say so now. Anything else is left
    // to the push.
    if (e instanceof RegistryAuthError || e instanceof CredentialError) throw e;
    run.logger.warn(`could not look up ${tagged} in the registry: ${(e as Error).message}`);
    return { lookedUp: false };
  }
}
