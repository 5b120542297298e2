// Docker image references parsed and normalised as Docker does (distribution/reference): the `&name`
// markers, built images' tags and digests, and registry lookups all read image names through this file.
import { toDnsLabel } from './names.js';

/**
 * Docker image references, parsed and normalised as Docker does (github.com/distribution/reference,
 * `ParseNormalizedNamed`): the grammar is
 *
 * ```
 * reference        := name [ ":" tag ] [ "@" digest ]
 * name             := [domain "/"] path-component ["/" path-component]*
 * domain           := host [":" port]            host := domain-name | "[" IPv6 "]"
 * path-component   := [a-z0-9]+ (separator [a-z0-9]+)*      separator := [_.] | "__" | "-"+
 * tag              := [\w][\w.-]{0,127}
 * digest           := algorithm ":" hex          (sha256: 64, sha384: 96, sha512: 128 lowercase hex)
 * ```
 *
 * The first component is a domain when it holds `.` or `:`, is `localhost`, or has an uppercase letter;
 * otherwise the reference is on Docker Hub (`docker.io`), whose one-component names live under
 * `library/` (`nginx` → `docker.io/library/nginx`). `index.docker.io` is an old name of `docker.io`.
 * The whole name (domain included) is at most 255 characters.
 */

/** Docker Hub's canonical domain. */
export const DOCKER_HUB = 'docker.io';
const LEGACY_DOCKER_HUB = 'index.docker.io';
const OFFICIAL_PREFIX = 'library/';
const NAME_MAX = 255;

const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN_NAME = `${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*`;
const IPV6 = '\\[(?:[a-fA-F0-9:]+)\\]';
const DOMAIN = new RegExp(`^(?:${DOMAIN_NAME}|${IPV6})(?::[0-9]+)?$`);
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]+$/;
const DIGEST_HEX_LENGTH: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };
const IMAGE_ID = /^[a-f0-9]{64}$/;

/** A parsed, normalised image reference. Build one with {@link parseReference}. */
export interface ImageReference {
  /** Registry host with optional port, normalised: `docker.io`, `localhost:5000`, `ghcr.io`. */
  readonly domain: string;
  /** Repository path within the registry: `library/nginx`, `team-a/web`. */
  readonly path: string;
  /** Tag without `:`, or undefined. */
  readonly tag?: string | undefined;
  /** `algorithm:hex` without `@`, or undefined. */
  readonly digest?: string | undefined;
}

/** A string that is not a valid image reference; the message says why (without file or line). */
export class ImageReferenceError extends Error {
  readonly reference: string;
  constructor(reference: string, reason: string) {
    super(`invalid image reference ${JSON.stringify(reference)}: ${reason}`);
    this.name = 'ImageReferenceError';
    this.reference = reference;
  }
}

/**
 * Why `digest` (`algorithm:hex`) is not valid, or undefined when it is (github.com/opencontainers/go-digest
 * `Validate`: only the registered sha256/sha384/sha512, with lowercase hex of their length).
 */
export function digestProblem(digest: string): string | undefined {
  if (!DIGEST.test(digest)) return `digest ${JSON.stringify(digest)} is not algorithm:hex`;
  const colon = digest.indexOf(':');
  const algorithm = digest.slice(0, colon);
  const hex = digest.slice(colon + 1);
  const length = DIGEST_HEX_LENGTH[algorithm];
  if (length === undefined) return `digest algorithm ${JSON.stringify(algorithm)} is not supported`;
  if (hex.length !== length || !/^[a-f0-9]+$/.test(hex)) {
    return `a ${algorithm} digest is ${length} lowercase hex digits`;
  }
  return undefined;
}

/** True when the first path component names a registry host (distribution/reference `splitDockerDomain`). */
function isDomainComponent(first: string): boolean {
  return first.includes('.') || first.includes(':') || first === 'localhost' || first.toLowerCase() !== first;
}

/** An image reference cut into its parts as written, neither checked nor normalised ({@link splitReference}). */
export interface ReferenceParts {
  /** The registry host as written (`localhost:5000`, `ghcr.io`); undefined when the reference names none (Docker Hub). */
  readonly domain: string | undefined;
  /** The repository path as written, without registry, tag and digest: `nginx`, `org/app`. */
  readonly path: string;
  readonly tag: string | undefined;
  /** `algorithm:hex` after `@`. */
  readonly digest: string | undefined;
}

/**
 * Cuts an image reference into registry, path, tag and digest by the grammar above, without
 * checking or normalising them: the digest after the first `@`, the tag after a `:` past the last
 * `/`, the registry the first component when it is a domain. {@link parseReference} checks the parts.
 */
export function splitReference(text: string): ReferenceParts {
  let rest = text;
  const at = rest.indexOf('@');
  const digest = at >= 0 ? rest.slice(at + 1) : undefined;
  if (at >= 0) rest = rest.slice(0, at);
  const colon = rest.lastIndexOf(':');
  const tag = colon > rest.lastIndexOf('/') ? rest.slice(colon + 1) : undefined;
  if (tag !== undefined) rest = rest.slice(0, colon);
  const slash = rest.indexOf('/');
  const domain = slash >= 0 && isDomainComponent(rest.slice(0, slash)) ? rest.slice(0, slash) : undefined;
  return { domain, path: domain === undefined ? rest : rest.slice(slash + 1), tag, digest };
}

/**
 * Parses an image reference as `docker pull` does (distribution/reference `ParseNormalizedNamed`),
 * normalising Docker Hub names: `nginx` → `{domain: 'docker.io', path: 'library/nginx'}`,
 * `index.docker.io/x/y` → `docker.io`. A reference with both tag and digest keeps both.
 *
 * @throws ImageReferenceError for an empty reference, an uppercase or otherwise invalid repository
 *   name, an empty or invalid tag, an invalid or unsupported digest, a bad registry host, a name over
 *   255 characters, or a bare 64-hex image ID.
 */
export function parseReference(text: string): ImageReference {
  const fail = (reason: string): never => {
    throw new ImageReferenceError(text, reason);
  };
  if (text === '') fail('it is empty');
  if (/\s/.test(text)) fail('it holds whitespace');
  if (IMAGE_ID.test(text)) fail('a 64-hex string is an image ID, not a repository name');
  const parts = splitReference(text);
  const { digest, tag } = parts;
  if (digest !== undefined) {
    if (digest === '') fail('the digest after "@" is empty');
    const problem = digestProblem(digest);
    if (problem) fail(problem);
  }
  if (tag !== undefined) {
    if (tag === '') fail('the tag after ":" is empty');
    if (!TAG.test(tag)) {
      fail(
        `tag ${JSON.stringify(tag)} is invalid: up to 128 letters, digits, "_", "." and "-", not starting with "." or "-"`,
      );
    }
  }
  if (parts.domain === undefined && parts.path === '') fail('the repository name is empty');
  let domain = parts.domain ?? DOCKER_HUB;
  let path = parts.path;
  if (parts.domain !== undefined && !DOMAIN.test(domain))
    fail(`registry host ${JSON.stringify(domain)} is invalid`);
  if (domain === LEGACY_DOCKER_HUB) domain = DOCKER_HUB;
  if (path === '') fail('the repository name is empty');
  for (const component of path.split('/')) {
    if (component === '') fail('the repository name has an empty path component');
    if (component.toLowerCase() !== component) fail('the repository name must be lowercase');
    if (!PATH_COMPONENT.test(component)) {
      fail(
        `path component ${JSON.stringify(component)} is invalid: lowercase letters and digits, separated by ".", "_", "__" or "-"`,
      );
    }
  }
  if (domain === DOCKER_HUB && !path.includes('/')) path = OFFICIAL_PREFIX + path;
  if (domain.length + 1 + path.length > NAME_MAX) fail(`the name is longer than ${NAME_MAX} characters`);
  return { domain, path, tag, digest };
}

/** Like {@link parseReference}, returning the problem instead of throwing. */
export function tryParseReference(
  text: string,
): { reference: ImageReference; error?: undefined } | { reference?: undefined; error: string } {
  try {
    return { reference: parseReference(text) };
  } catch (e) {
    if (e instanceof ImageReferenceError) return { error: e.message };
    throw e;
  }
}

/** True when `tag` is a valid tag (`[\w][\w.-]{0,127}`, distribution/reference). */
export function isValidTag(tag: string): boolean {
  return TAG.test(tag);
}

/** True when a reference names its registry host (`localhost:5000/web`, `ghcr.io/o/web`), rather than Docker Hub by default. */
export function namesRegistry(text: string): boolean {
  return splitReference(text).domain !== undefined;
}

/** `domain/path` without tag or digest, canonical: `docker.io/library/nginx`. */
export function repositoryName(ref: ImageReference): string {
  return `${ref.domain}/${ref.path}`;
}

/**
 * The canonical string: `docker.io/library/nginx:1.27@sha256:…` (distribution/reference `String`).
 * {@link parseReference} of it gives back an equal reference.
 */
export function formatReference(ref: ImageReference): string {
  return `${repositoryName(ref)}${ref.tag !== undefined ? `:${ref.tag}` : ''}${ref.digest !== undefined ? `@${ref.digest}` : ''}`;
}

/**
 * The name as people write it (distribution/reference `FamiliarString`): Docker Hub's `docker.io/` and
 * `library/` left out, `nginx:1.27`, `bitnami/redis`, `localhost:5000/web:1@sha256:…`.
 */
export function familiarName(ref: ImageReference): string {
  let name = repositoryName(ref);
  if (ref.domain === DOCKER_HUB) {
    name = ref.path;
    if (name.startsWith(OFFICIAL_PREFIX) && !name.slice(OFFICIAL_PREFIX.length).includes('/')) {
      name = name.slice(OFFICIAL_PREFIX.length);
    }
  }
  return `${name}${ref.tag !== undefined ? `:${ref.tag}` : ''}${ref.digest !== undefined ? `@${ref.digest}` : ''}`;
}

/**
 * A DNS-1123 label for naming objects after an image (Kubernetes IsDNS1123Label: `[a-z0-9-]`, at most
 * 63 characters): the last path component, `.` and `_` runs turned into `-`; names longer than 63 are cut
 * and given 8 hex digits of their SHA-256 (spread convention, as for directory names). Deterministic:
 * `localhost:5000/team-a/web:1` → `web`, `nginx` → `nginx`.
 */
export function dnsLabel(ref: ImageReference): string {
  const last = ref.path.slice(ref.path.lastIndexOf('/') + 1);
  return toDnsLabel(last, 'image');
}

/** True when two references are equal after normalisation. */
export function sameReference(a: ImageReference, b: ImageReference): boolean {
  return a.domain === b.domain && a.path === b.path && a.tag === b.tag && a.digest === b.digest;
}
