// Where BuildKit keeps a build's cache between CI runs (the GitHub Actions cache, a registry image, a
// local directory), turned into buildx's --cache-from and --cache-to; without one, every run builds cold.
import { createHash } from 'node:crypto';
import path from 'node:path';

/**
 * Where BuildKit keeps the cache of a build between runs (docs.docker.com "Cache storage backends"):
 * - `gha`: the GitHub Actions cache service (buildx reads ACTIONS_RUNTIME_TOKEN and ACTIONS_RESULTS_URL
 *   or ACTIONS_CACHE_URL from its environment);
 * - `registry`: an image in a registry, by default `<repository>:buildcache` beside the image;
 * - `local`: a directory (a GitLab `cache:` path), one subdirectory per image.
 * Every step is exported (`mode=max`), builder stages of multi-stage builds included.
 */
export type BuildCache =
  | { readonly type: 'gha' }
  | { readonly type: 'registry'; readonly ref?: string | undefined }
  | { readonly type: 'local'; readonly dir: string };

/** The cache backends by name, as the inputs spell them. */
export const CACHE_TYPES = ['gha', 'registry', 'local'] as const;

const hex = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

/**
 * The `--cache-from`/`--cache-to` flags of `docker buildx build` for the image `repository`
 * (`localhost:5000/team-a/web`): each image gets its own scope, ref or directory, so two images never
 * overwrite each other's cache. Pure.
 */
export function cacheFlags(cache: BuildCache | undefined, repository: string): string[] {
  if (!cache) return [];
  let from: string;
  let to: string;
  switch (cache.type) {
    case 'gha':
      from = `type=gha,scope=${repository}`;
      to = `${from},mode=max`;
      break;
    case 'registry': {
      const ref = cache.ref ?? `${repository}:buildcache`;
      from = `type=registry,ref=${ref}`;
      to = `${from},mode=max`;
      break;
    }
    case 'local': {
      const dir = path.join(cache.dir, hex(repository));
      from = `type=local,src=${dir}`;
      to = `type=local,dest=${dir},mode=max`;
      break;
    }
  }
  return ['--cache-from', from, '--cache-to', to];
}

/**
 * Parses a cache option: `gha`, `registry`, `registry=<ref>`, `local=<dir>`, or `''`/`false` for none.
 *
 * @throws Error naming the accepted forms.
 */
export function parseBuildCache(value: string, cwd: string = process.cwd()): BuildCache | undefined {
  const v = value.trim();
  if (v === '' || v === 'false' || v === 'none') return undefined;
  if (v === 'gha') return { type: 'gha' };
  if (v === 'registry') return { type: 'registry' };
  if (v.startsWith('registry=') && v.length > 'registry='.length)
    return { type: 'registry', ref: v.slice('registry='.length) };
  if (v.startsWith('local=') && v.length > 'local='.length)
    return { type: 'local', dir: path.resolve(cwd, v.slice('local='.length)) };
  throw new Error(
    `expected gha, registry, registry=<image ref>, local=<directory> or false, got ${JSON.stringify(value)}`,
  );
}
