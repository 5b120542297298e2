// Which images an Application marks for building (`&name[:tag]`), grouped by repository and context
// directory, with the input errors (bad names, one name from two folders) found before Docker runs.
import { optionRef } from '../base/option-ref.js';
import {
  type ImageReference,
  namesRegistry,
  parseReference,
  repositoryName,
  tryParseReference,
} from '../base/reference.js';
import { formatSource, type InputIssue, IssueList, type Source } from '../base/source.js';
import type { Application, Image } from '../entity/entity.js';

/** The build mark of an image field (spread convention, DESIGN "Images marked for building"). */
export const BUILD_MARK = '&';

/**
 * One image to build: every `&name[:tag]` of an Application that names the same repository, from the
 * same context directory.
 */
export interface PlannedBuild {
  /** The `image` values as written that this build replaces: `&web`, `&web:v1`. */
  readonly marks: readonly string[];
  /** The repository to tag and push: `{domain: 'localhost:5000', path: 'team-a/web'}` (no tag or digest). */
  readonly repository: ImageReference;
  /** The tag written in the mark (`&web:v1` → `v1`), if any. */
  readonly tag: string | undefined;
  /** The build context, relative to the input root (`.` for the root). */
  readonly contextDir: string;
  /** Where the first mark is. */
  readonly declaredIn: Source;
  /** The containers using it, as `Container web (web.ctr:1) in Deployment app (…)`. */
  readonly containers: readonly string[];
}

/** Options of {@link planBuilds}. */
export interface PlanBuildsOptions {
  /**
   * Registry (and optional namespace) the images are pushed to: `localhost:5000/team-a`, `ghcr.io/org`,
   * `docker.io/user`. A mark naming its own registry (`&ghcr.io/org/web`) does not use it.
   */
  readonly registry?: string | undefined;
  /** Whether `&` images need a registry (true when pushing, or when looking images up without building). */
  readonly requireRegistry: boolean;
}

/** The builds of an Application, and the problems found (errors and warnings, with file and line). */
export interface BuildPlan {
  readonly builds: PlannedBuild[];
  readonly issues: InputIssue[];
}

function containerOf(image: Image): string {
  return image.parent?.describe() ?? image.label();
}

/**
 * Parses the registry option: a registry host with an optional path below it, no tag or digest.
 *
 * @throws Error naming the option's value when it is not one.
 */
export function parseRegistry(registry: string): string {
  const trimmed = registry
    .trim()
    .replace(/^[a-z]+:\/\//i, '')
    .replace(/\/+$/, '');
  const path = trimmed.slice(trimmed.indexOf('/') + 1);
  if (trimmed.includes('/') && path !== path.toLowerCase())
    throw new Error(
      `registry ${JSON.stringify(registry)}: the path below the host must be lower case, as every image repository's (${trimmed.slice(0, trimmed.indexOf('/') + 1)}${path.toLowerCase()}); in a workflow, github.repository_owner keeps the owner's capitals: lower-case it first`,
    );
  const probe = tryParseReference(`${trimmed}/x`);
  if (
    trimmed === '' ||
    probe.error !== undefined ||
    probe.reference.tag !== undefined ||
    probe.reference.digest !== undefined
  ) {
    throw new Error(
      `registry ${JSON.stringify(registry)} is not a registry host with an optional path, e.g. localhost:5000/team-a`,
    );
  }
  return trimmed;
}

/**
 * Finds the images marked for building (`image: "&name[:tag]"`) in an Application, with the rules of
 * spread (DESIGN "Images marked for building"):
 * - the repository is `<registry>/<name>` (`&name` may name its own registry host instead);
 * - the same name from the same context directory is one build, however many containers use it;
 * - the same name from two context directories is an error naming both files, as is the same name
 *   written with two tags, and a mark with a digest (a digest cannot be built);
 * - an invalid reference is an error at the file and line of the `image` field.
 * Images not marked are never built; an invalid one is an error too, at its `image` field: the API
 * server would accept it, and every pod of it would then fail with InvalidImageName.
 * No I/O.
 */
export function planBuilds(application: Application, options: PlanBuildsOptions): BuildPlan {
  const issues = new IssueList();
  const registry = options.registry !== undefined ? parseRegistry(options.registry) : undefined;
  const byRepository = new Map<string, PlannedBuild & { marks: string[]; containers: string[] }>();
  for (const image of application.images()) {
    const where = image.build?.declaredIn ?? image.source;
    const container = containerOf(image);
    if (!image.build) {
      const parsed = tryParseReference(image.raw);
      if (parsed.error !== undefined) issues.error(where, parsed.error, container);
      continue;
    }
    const name = image.raw.slice(BUILD_MARK.length);
    const mark = tryParseReference(name);
    if (mark.error !== undefined) {
      issues.error(
        where,
        `${mark.error.replace('invalid image reference', 'invalid image name')} (marked for building with "&")`,
        container,
      );
      continue;
    }
    if (mark.reference.digest !== undefined) {
      issues.error(
        where,
        `image ${JSON.stringify(image.raw)} is marked for building but names a digest; drop "@${mark.reference.digest}"`,
        container,
      );
      continue;
    }
    const pushedTo = repositoryOf(name, mark.reference, registry);
    if (!pushedTo && options.requireRegistry) {
      issues.error(
        where,
        `image ${JSON.stringify(image.raw)} is marked for building, but no registry is set to push it to: set ${optionRef('registry')} (the CLI also reads SPREAD_REGISTRY), e.g. localhost:5000/team-a, or name the registry in the mark ("&ghcr.io/acme/${name}")`,
        container,
      );
      continue;
    }
    const repository = pushedTo ?? { domain: mark.reference.domain, path: mark.reference.path };
    const key = repositoryName(repository);
    const contextDir = image.build.contextDir;
    const seen = byRepository.get(key);
    if (!seen) {
      byRepository.set(key, {
        marks: [image.raw],
        repository,
        tag: mark.reference.tag,
        contextDir,
        declaredIn: where,
        containers: [container],
      });
      continue;
    }
    if (seen.contextDir !== contextDir) {
      issues.error(
        where,
        `image ${key} is built from two directories: ${contextDir}/ here and ${seen.contextDir}/ (${formatSource(seen.declaredIn)}); give the images different names`,
        container,
      );
      continue;
    }
    if (seen.tag !== mark.reference.tag) {
      const tagOf = (t: string | undefined) => (t === undefined ? 'no tag' : `tag ${t}`);
      issues.error(
        where,
        `image ${key} is written with ${tagOf(mark.reference.tag)} here and ${tagOf(seen.tag)} at ${formatSource(seen.declaredIn)}; write the same tag in both`,
        container,
      );
      continue;
    }
    if (!seen.marks.includes(image.raw)) seen.marks.push(image.raw);
    seen.containers.push(container);
  }
  return { builds: [...byRepository.values()], issues: issues.issues };
}

/**
 * The repository a marked image is pushed to: the mark's own when it names a registry host, else
 * `<registry>/<name>`; undefined when it names none and no registry is given (then the mark's
 * repository on Docker Hub's default domain, or an error where a registry is required).
 */
function repositoryOf(
  name: string,
  mark: ImageReference,
  registry: string | undefined,
): ImageReference | undefined {
  if (namesRegistry(name)) return { domain: mark.domain, path: mark.path };
  if (registry === undefined) return undefined;
  const full = parseReference(`${registry}/${name.replace(/:[^/]*$/, '')}`);
  return { domain: full.domain, path: full.path };
}
