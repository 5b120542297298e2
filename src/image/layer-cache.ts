import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type Docker from 'dockerode';
import type { Logger } from '../base/logger.js';
import { type DockerMessage, messageError, readMessages } from './docker.js';

/**
 * Where a CI system keeps a directory between runs, under a key: the GitHub Actions cache, a GitLab
 * `cache:` path, a directory on a self-hosted runner. Entries are immutable: a key is saved once.
 */
export interface LayerCacheStore {
  /** For logs: `the GitHub Actions cache`. */
  readonly description: string;
  /**
   * Fills `dir` with the entry saved under `key`, or else with the newest entry whose key starts with
   * one of `restoreKeys` (the actions/cache rule). Resolves with the key restored, undefined when none.
   */
  restore(dir: string, key: string, restoreKeys: readonly string[]): Promise<string | undefined>;
  /** Saves `dir` under `key`. Resolves false when the store declined (read-only, the key taken meanwhile). */
  save(dir: string, key: string): Promise<boolean>;
}

/** Options of the layer cache of {@link prepareImages}: the store and the directory it fills. */
export interface LayerCacheOptions {
  readonly store: LayerCacheStore;
  /**
   * The directory restored and saved: an absolute path that is the same in every run (actions/cache
   * keys an entry by its paths too), e.g. `$RUNNER_TEMP/spread-layer-cache`.
   */
  readonly dir: string;
  /** Longest wait for the store's restore, in milliseconds (default 2 minutes); then the build goes on without it. */
  readonly restoreTimeoutMs?: number;
  /** Longest wait for the store's save, in milliseconds (default 5 minutes); then the deploy goes on. */
  readonly saveTimeoutMs?: number;
}

/**
 * `promise`, or a rejection naming `what` after `ms`: a cache service that accepts connections and
 * never answers must not hold the deploy (the abandoned request is left behind; the Action exits
 * when its work is done).
 */
function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The file in the cache directory: the images of the last save, as `docker save` writes them. */
export const LAYER_ARCHIVE = 'images.tar';

/** What goes into a cache key for one image: its repository and what its build depends on. */
export interface LayerCacheInput {
  /** `localhost:5000/team-a/web`. */
  readonly repository: string;
  /** The build context digest (`sha256:…`), covering the Dockerfile. */
  readonly contextDigest: string;
  readonly buildArgs?: Readonly<Record<string, string>> | undefined;
  readonly target?: string | undefined;
}

/** The key of a layer cache entry and the prefix that restores an older one. */
export interface LayerCacheKey {
  /** `spread-layers-v1-linux-x64-<images>-<builds>`: the exact entry for these builds. */
  readonly key: string;
  /** `spread-layers-v1-linux-x64-<images>-`: any earlier entry of the same images. */
  readonly restorePrefix: string;
}

const hex = (text: string, length: number) =>
  createHash('sha256').update(text).digest('hex').slice(0, length);

/**
 * The cache key for a set of builds. The prefix depends only on the platform and the set of
 * repositories, so a run whose contexts changed restores the entry of an earlier run of the same
 * images and reuses every layer before the first changed step; the key adds the context digests,
 * build args and targets, so an unchanged set finds its exact entry and is not saved again. The tag is
 * left out: it is the commit, new in every run.
 */
export function layerCacheKey(
  builds: readonly LayerCacheInput[],
  platform: string = `${process.platform}-${process.arch}`,
): LayerCacheKey {
  const repositories = [...new Set(builds.map((b) => b.repository))].sort();
  const inputs = builds
    .map((b) =>
      JSON.stringify([
        b.repository,
        b.contextDigest,
        Object.entries(b.buildArgs ?? {}).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)),
        b.target ?? '',
      ]),
    )
    .sort();
  const restorePrefix = `spread-layers-v1-${platform}-${hex(repositories.join('\n'), 16)}-`;
  return { key: `${restorePrefix}${hex(inputs.join('\n'), 16)}`, restorePrefix };
}

/**
 * The image names a `docker load` stream reports: `Loaded image: <name:tag>` for tagged images,
 * `Loaded image ID: sha256:…` for untagged ones (Engine API `POST /images/load`, quiet=false).
 */
export function loadedImages(messages: readonly DockerMessage[]): string[] {
  const names: string[] = [];
  for (const m of messages) {
    for (const line of (m.stream ?? '').split('\n')) {
      const loaded = /^Loaded image(?: ID)?: (\S+)/.exec(line.trim());
      if (loaded) names.push(loaded[1]!);
    }
  }
  return names;
}

/**
 * The name an image has in the layer cache: `spread-layer-cache/<digest of the repository>:layers`.
 * Images are saved and loaded under these names, never under their own tags, so that loading an
 * older entry cannot move a tag the run already built or found.
 */
export function layerCacheName(repository: string): string {
  return `spread-layer-cache/${hex(repository, 16)}:layers`;
}

/** The state of one run's layer cache: restored at most once, saved at most once. */
export class LayerCache {
  readonly #docker: () => Promise<Docker>;
  readonly #options: LayerCacheOptions;
  readonly #key: LayerCacheKey;
  readonly #logger: Logger;
  #restored: Promise<string[]> | undefined;
  #matchedKey: string | undefined;

  constructor(options: LayerCacheOptions, key: LayerCacheKey, docker: () => Promise<Docker>, logger: Logger) {
    this.#options = options;
    this.#key = key;
    this.#docker = docker;
    this.#logger = logger;
  }

  /**
   * Restores the newest entry for these images into the engine (`docker load`), once per run, before
   * the first build. Resolves with the image names loaded, to be passed as the builds' `cachefrom`.
   * A failure only warns: a build without cache is slower, not wrong.
   */
  restore(): Promise<string[]> {
    this.#restored ??= this.#restore().catch((e: Error) => {
      this.#logger.warn(
        `layer cache: could not restore from ${this.#options.store.description}: ${e.message}`,
      );
      return [];
    });
    return this.#restored;
  }

  async #restore(): Promise<string[]> {
    const { store, dir } = this.#options;
    mkdirSync(dir, { recursive: true });
    const matched = await bounded(
      store.restore(dir, this.#key.key, [this.#key.restorePrefix]),
      this.#options.restoreTimeoutMs ?? 120_000,
      `restoring from ${store.description}`,
    );
    const archive = path.join(dir, LAYER_ARCHIVE);
    if (matched === undefined || !existsSync(archive)) {
      this.#logger.info(`layer cache: nothing in ${store.description} for ${this.#key.restorePrefix}*`);
      return [];
    }
    this.#matchedKey = matched;
    const stream = (await (
      await this.#docker()
    ).loadImage(createReadStream(archive), {
      quiet: false,
    })) as unknown as Readable;
    const messages = await readMessages(stream, () => {});
    const failure = messages.map(messageError).find((e) => e !== undefined);
    if (failure !== undefined) throw new Error(`docker load failed: ${failure}`);
    const images = loadedImages(messages);
    this.#logger.info(
      `layer cache: restored ${matched}${matched === this.#key.key ? '' : ' (an earlier build of these images)'} from ${store.description}: ${images.join(', ') || 'no images'}`,
    );
    return images;
  }

  /**
   * Saves `images` (`docker save`: every layer of each, under its {@link layerCacheName}) under this
   * run's key, unless the restored entry already had that key (entries are immutable). A failure only warns.
   *
   * @param images the images in the engine: their tag (`localhost:5000/web:1f2e3d4`) and repository.
   */
  async save(images: readonly { readonly tagged: string; readonly repository: string }[]): Promise<void> {
    if (images.length === 0) return;
    if (this.#matchedKey === this.#key.key) {
      this.#logger.debug(`layer cache: ${this.#key.key} was restored as is; not saved again`);
      return;
    }
    const { store, dir } = this.#options;
    const docker = await this.#docker();
    const names = images.map((i) => layerCacheName(i.repository));
    try {
      mkdirSync(dir, { recursive: true });
      for (const [n, image] of images.entries()) {
        const [repo, tag] = names[n]!.split(':') as [string, string];
        await docker.getImage(image.tagged).tag({ repo, tag });
      }
      // dockerode's getImages (GET /images/get?names=…, `docker save`) is missing from @types/dockerode.
      const engine = docker as unknown as { getImages(options: { names: string[] }): Promise<Readable> };
      const archive = await engine.getImages({ names });
      await pipeline(archive, createWriteStream(path.join(dir, LAYER_ARCHIVE)));
      const saved = await bounded(
        store.save(dir, this.#key.key),
        this.#options.saveTimeoutMs ?? 300_000,
        `saving to ${store.description}`,
      );
      if (saved) {
        this.#logger.info(
          `layer cache: saved ${images.map((i) => i.tagged).join(', ')} to ${store.description} as ${this.#key.key}`,
        );
      } else {
        this.#logger.info(`layer cache: ${store.description} did not save ${this.#key.key}`);
      }
    } catch (e) {
      this.#logger.warn(`layer cache: could not save to ${store.description}: ${(e as Error).message}`);
    }
  }
}
