// The build context of an image as Docker reads it (.dockerignore, links not followed), its digest so
// that an unchanged context is not built again, and spread's own configuration files left out of it.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import dockerignoreModule from '@balena/dockerignore';
import { type PackOptions, pack } from 'tar-fs';

/** The Dockerfile's name in a build context (Docker's default). */
export const DOCKERFILE = 'Dockerfile';
/** The file of exclusion patterns in a build context. */
export const DOCKERIGNORE = '.dockerignore';

/** spread's controller and pod file stems (DESIGN "The directory convention"). */
const SPREAD_STEMS = ['rc', 'pod', 'deployment', 'statefulset', 'daemonset', 'job', 'cronjob'];

/**
 * spread's own configuration files, as `.dockerignore` patterns at any depth: the objects folders
 * (`.k2e/`, `.kube/`, `rs/`), `*.ctr`, and the controller and pod files (`rc.yaml`, `web.rc.yaml`, …).
 * They are left out of every build context before the context's own `.dockerignore` is applied, so a
 * `!` line there brings any of them back (the last matching pattern wins, as in Docker), and a change
 * to them never changes the context digest.
 */
export const SPREAD_FILES: readonly string[] = [
  '**/.k2e',
  '**/.kube',
  '**/rs',
  '**/*.ctr',
  ...SPREAD_STEMS.flatMap((stem) =>
    ['yaml', 'yml', 'json'].flatMap((ext) => [`**/${stem}.${ext}`, `**/*.${stem}.${ext}`]),
  ),
];

/**
 * A Helm chart's own files, at the root of a chart folder (Helm docs "The Chart File Structure", and
 * the `values-ENV.yaml` files teams keep beside `values.yaml`): an image marked `&` in a chart is
 * built from the chart's folder, and these are left out of that context like {@link SPREAD_FILES},
 * so a changed value or template never changes the image's context digest (nor rebuilds it). Only
 * a context holding `Chart.yaml` at its root leaves them out.
 */
export const CHART_FILES: readonly string[] = [
  'Chart.yaml',
  'Chart.lock',
  'values*.yaml',
  'values*.yml',
  'values.schema.json',
  '.helmignore',
  'charts',
  'crds',
  'templates',
];

/** The mtime every entry of the context tar gets, so the same files give the same tar and layers. */
const FIXED_MTIME = new Date('1980-01-01T00:00:00Z');

/** One file, directory or symbolic link sent to the Docker engine. */
export interface ContextEntry {
  /** Path relative to the context directory, POSIX separators. */
  readonly path: string;
  readonly type: 'file' | 'directory' | 'symlink';
  /** Permission bits (`mode & 0o7777`). */
  readonly mode: number;
  /** Bytes, for files. */
  readonly size: number;
  /** The link's target as stored in the link, for symlinks (never followed). */
  readonly linkname?: string;
  /** `sha256:<hex>` of the content, for files. */
  readonly sha256?: string;
}

/** A build context read from disk: what goes into the tar, and its digest. */
export interface BuildContext {
  /** Absolute path of the context directory. */
  readonly dir: string;
  /** The Dockerfile's path relative to {@link dir}. */
  readonly dockerfile: string;
  /** Entries in the order they are sent: depth first, names sorted by code unit. */
  readonly entries: readonly ContextEntry[];
  /**
   * `sha256:<hex>` over every entry's type, mode, path and content (or link target), in order, and the
   * build options ({@link ContextOptions.buildArgs}, target, dockerfile): equal digests mean the
   * engine would be given the same input. mtimes and owners are not part of it (they are normalised in the tar).
   */
  readonly digest: string;
  /** Symbolic links whose target resolves outside the context (sent as links, never followed). */
  readonly escapingLinks: readonly string[];
  /**
   * The Dockerfile and `.dockerignore` when the patterns exclude them: read for the build, but not
   * part of what `COPY` sees. `docker buildx build DIR` leaves them out of the context (BuildKit reads
   * the Dockerfile from a source of its own and applies the patterns to the whole directory,
   * moby/buildkit frontend/dockerui), whereas a context tar holds whatever it holds: such a context
   * is built from its directory instead (see BuildxBuild.directory). Empty for most contexts.
   */
  readonly excludedBuildFiles: readonly string[];
  /** The exclusion patterns applied, in order: spread's own ({@link SPREAD_FILES}), then the `.dockerignore`'s. */
  readonly ignorePatterns: readonly string[];
}

/** Options of {@link readContext}. */
export interface ContextOptions {
  /** Dockerfile path relative to the context; `Dockerfile` when absent. */
  readonly dockerfile?: string | undefined;
  /** Build arguments; they change the image, so they are part of the digest. */
  readonly buildArgs?: Readonly<Record<string, string>> | undefined;
  /** Target stage; part of the digest. */
  readonly target?: string | undefined;
  /** Platforms built (`linux/amd64`); part of the digest. */
  readonly platforms?: readonly string[] | undefined;
  /** Attestations on; part of the digest (they change what is pushed). */
  readonly attestations?: boolean | 'provenance' | undefined;
  /**
   * Files of the input's configuration inside the context, relative to it (plain manifests): left
   * out like {@link SPREAD_FILES}, so editing a Service beside the Dockerfile does not rebuild the image.
   */
  readonly configFiles?: readonly string[] | undefined;
}

/** A build context that cannot be read or has no Dockerfile. */
export class ContextError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContextError';
  }
}

interface Matcher {
  ignores(path: string): boolean;
}

// The package is CommonJS with `module.exports = factory`, typed as a default export.
const dockerignore = ((dockerignoreModule as unknown as { default?: unknown }).default ??
  dockerignoreModule) as unknown as (options?: { ignorecase?: boolean }) => {
  add(patterns: string[]): Matcher;
};

/**
 * Reads `.dockerignore` into a matcher with Docker's rules (docs.docker.com "The .dockerignore file";
 * moby patternmatcher, ported by @balena/dockerignore): one pattern a line, `#` comments, `!` exceptions,
 * `**`, matched against paths relative to the context; a pattern also excludes everything below a
 * directory it matches. Case-sensitive, as on Linux.
 */
export function dockerignoreMatcher(
  text: string,
  defaults: readonly string[] = [],
): { matcher: Matcher; hasExceptions: boolean; patterns: string[] } {
  const patterns = [
    ...defaults,
    ...text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#')),
  ];
  return {
    matcher: dockerignore({ ignorecase: false }).add(patterns),
    hasExceptions: patterns.some((p) => p.startsWith('!')),
    patterns,
  };
}

async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return `sha256:${hash.digest('hex')}`;
}

/**
 * Reads a Docker build context as `docker build DIR` would send it: every file, directory and symbolic
 * link under `dir`, minus spread's own files ({@link SPREAD_FILES}), a chart folder's chart files
 * ({@link CHART_FILES}) and what `.dockerignore` excludes. The
 * Dockerfile and `.dockerignore` are always among the entries (they define the build, so they are part
 * of the digest); when the patterns exclude them they are listed in {@link BuildContext.excludedBuildFiles}
 * and the build leaves them out of the context, as `docker buildx build DIR` does. Symbolic links are sent as links
 * and never followed (as the docker CLI does); those pointing outside the context are listed in
 * {@link BuildContext.escapingLinks}, since a `COPY` of them fails in the engine. Sockets, FIFOs and
 * devices are left out.
 *
 * @throws ContextError when `dir` is not a directory or holds no Dockerfile.
 */
export async function readContext(dir: string, options: ContextOptions = {}): Promise<BuildContext> {
  const root = path.resolve(dir);
  const dockerfile = (options.dockerfile ?? DOCKERFILE).split(path.sep).join('/');
  const rootStat = await lstat(root).catch(() => undefined);
  if (!rootStat?.isDirectory()) throw new ContextError(`build context ${root} is not a directory`);
  const dockerfileStat = await lstat(path.join(root, dockerfile)).catch(() => undefined);
  if (!dockerfileStat?.isFile()) throw new ContextError(`no ${dockerfile} in the build context ${root}`);
  const ignoreText = await readFile(path.join(root, DOCKERIGNORE), 'utf8').catch(() => undefined);
  const configFiles = (options.configFiles ?? []).map((f) => `/${f.replace(/[*?[\]\\]/g, '\\$&')}`);
  const chart = (await lstat(path.join(root, 'Chart.yaml')).catch(() => undefined))?.isFile() ?? false;
  const ignore = dockerignoreMatcher(ignoreText ?? '', [
    ...SPREAD_FILES,
    ...(chart ? CHART_FILES : []),
    ...configFiles,
  ]);
  const alwaysSent = new Set([dockerfile, DOCKERIGNORE]);
  const excludedBuildFiles = [dockerfile, ...(ignoreText !== undefined ? [DOCKERIGNORE] : [])].filter((f) =>
    ignore.matcher.ignores(f),
  );

  const entries: ContextEntry[] = [];
  const escapingLinks: string[] = [];
  const walk = async (relDir: string): Promise<void> => {
    const names = (await readdir(path.join(root, relDir))).sort();
    for (const name of names) {
      const rel = relDir === '' ? name : `${relDir}/${name}`;
      const abs = path.join(root, rel);
      const stat = await lstat(abs);
      const excluded = ignore.matcher.ignores(rel) && !alwaysSent.has(rel);
      const mode = stat.mode & 0o7777;
      if (stat.isDirectory()) {
        // An excluded directory is still walked when an exception pattern may bring back a file below it.
        if (excluded && !ignore.hasExceptions) continue;
        if (!excluded) entries.push({ path: rel, type: 'directory', mode, size: 0 });
        await walk(rel);
      } else if (excluded) {
      } else if (stat.isSymbolicLink()) {
        const linkname = await readlink(abs);
        const target = path.resolve(path.dirname(abs), linkname);
        if (path.isAbsolute(linkname) || path.relative(root, target).startsWith('..'))
          escapingLinks.push(rel);
        entries.push({ path: rel, type: 'symlink', mode, size: 0, linkname });
      } else if (stat.isFile()) {
        entries.push({ path: rel, type: 'file', mode, size: stat.size, sha256: await fileSha256(abs) });
      }
    }
  };
  await walk('');

  const hash = createHash('sha256');
  for (const e of entries) {
    hash.update(`${e.type}\0${e.mode.toString(8)}\0${e.path}\0${e.sha256 ?? e.linkname ?? ''}\n`);
  }
  hash.update(`dockerfile\0${dockerfile}\n`);
  // The same files make another image when the Dockerfile or .dockerignore leave the context.
  for (const f of excludedBuildFiles) hash.update(`excluded\0${f}\n`);
  if (options.target) hash.update(`target\0${options.target}\n`);
  if (options.platforms?.length) hash.update(`platforms\0${options.platforms.join(',')}\n`);
  if (options.attestations) hash.update(`attestations\0${options.attestations}\n`);
  for (const [k, v] of Object.entries(options.buildArgs ?? {}).sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  )) {
    hash.update(`arg\0${k}\0${v}\n`);
  }
  return {
    dir: root,
    dockerfile,
    entries,
    digest: `sha256:${hash.digest('hex')}`,
    escapingLinks,
    excludedBuildFiles,
    ignorePatterns: ignore.patterns,
  };
}

/**
 * The context as an uncompressed tar stream (`docker buildx build -`): exactly the entries of
 * `context`, in its order, with owner 0:0 (as the docker CLI sends) and a fixed mtime (1980-01-01), so
 * the same files give the same tar. Files are read again while streaming.
 */
export function packContext(context: BuildContext): Readable {
  const options: PackOptions & { umask: number } = {
    entries: context.entries.map((e) => e.path),
    // The entries list is complete: nothing found by reading a directory is added again.
    ignore: () => true,
    umask: 0,
    map: (header) =>
      ({ ...header, mtime: FIXED_MTIME, uid: 0, gid: 0, uname: '', gname: '' }) as typeof header,
  };
  return pack(context.dir, options) as unknown as Readable;
}
