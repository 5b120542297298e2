// The image stage's options, one typed object the front ends fill from their flags, inputs and the
// environment; nothing in the stage reads process.env itself.
import type { SourcedObject } from '../base/kube-object.js';
import type { BuildCache } from './build-cache.js';
import type { Attestations, BuildSecret, BuildxRunner } from './buildx.js';

/** Options of the image stage (prepareImages, src/image/prepare.ts); front ends fill them from flags, inputs and the environment. */
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
   * Tag for built images whose mark has none (`--tag`, the `tag` input), and the one they are deployed
   * with. Absent: the content-addressed tag, `ctx-` and the first 12 hex digits of the context digest.
   */
  readonly tag?: string | undefined;
  /**
   * The commit (GITHUB_SHA / CI_COMMIT_SHA / `git rev-parse`, shortened by the front end): a second
   * tag of the images built with the content-addressed tag, for people who look images up by commit.
   * It is not the deployed reference: a commit that leaves a build context as it was would otherwise
   * push a new tag and roll every pod to the same image. An image reused unchanged keeps the tags it
   * has. With building off, the commit's tag is looked up when the content-addressed one is missing.
   */
  readonly commit?: string | undefined;
  /** `--build-arg`s for every build. */
  readonly buildArgs?: Readonly<Record<string, string>> | undefined;
  /** `--target` stage for every build. */
  readonly target?: string | undefined;
  /** Push built images (default true). Off: images are loaded into the Docker engine and deployed by tag, unpinned. */
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
  /**
   * The Docker engine (`DOCKER_HOST` of the docker CLI that runs buildx: the `docker` builder's engine,
   * and where images are loaded with push off); absent: the CLI's own (its environment, its context).
   */
  readonly docker?: string | undefined;
  /** The directory holding config.json (`$DOCKER_CONFIG`), for every registry a build pulls from or pushes to; `~/.docker` when absent. */
  readonly dockerConfigDir?: string | undefined;
  /** Network of RUN steps (`docker buildx build --network`): `none`, `host`, `default`. */
  readonly networkMode?: string | undefined;
  /** Registry hosts reached over plain HTTP when HTTPS fails (loopback hosts always are). */
  readonly insecureRegistries?: readonly string[] | undefined;
  /** How buildx runs: the docker CLI, the builder, its environment (see {@link BuildxRunner}). */
  readonly buildx?: Omit<BuildxRunner, 'signal'> | undefined;
  /** BuildKit's cache backend between runs (gha, registry, local); absent: only the builder's own cache. */
  readonly cache?: BuildCache | undefined;
  /** Platforms to build (`linux/amd64`, `linux/arm64`); several push a manifest list. Needs push. */
  readonly platforms?: readonly string[] | undefined;
  /** Attestations (off by default: they turn an image into an index); see {@link Attestations}. */
  readonly attestations?: Attestations | undefined;
  /** Build secrets for `RUN --mount=type=secret,id=…`; values never reach a log, a layer or the history. */
  readonly secrets?: readonly BuildSecret[] | undefined;
  /**
   * Called once before the first build, when an image is to be built, with the objects pinned as far
   * as is known: images the registry holds from the same context by digest, the others by the tag
   * the build will push. A deploy checks every object with it (a server-side dry run), so that a
   * broken manifest fails in seconds and pushes nothing. Its rejection ends the stage, nothing built.
   */
  readonly beforeBuild?: ((objects: SourcedObject[]) => Promise<void>) | undefined;
  readonly signal?: AbortSignal | undefined;
}
