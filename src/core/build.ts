// `spread build`: the image stage alone, for a pipeline that builds and pushes the `&` images of a
// directory in one job and deploys in another (or not at all).
import type { Logger } from '../base/logger.js';
import { interruptOf } from '../base/poll.js';
import { type ImageOptions, type PreparedImages, prepareImages } from '../image/index.js';
import type { KustomizeOptions } from '../input/kustomize.js';
import { type ChartSettings, readDeployment } from './read.js';

/** Options of {@link build}: the directory, and the image stage's options without its root. */
export interface BuildOptions {
  /** The directory in spread layout; also the root build contexts are relative to. */
  readonly path: string;
  readonly images: Omit<ImageOptions, 'root'>;
  /** How Helm charts in the directory are rendered (settings `helm`, `helm-values`, `helm-set`); Helm's default capabilities. */
  readonly charts?: ChartSettings;
  /** How kustomizations are rendered (see ReadOptions.kustomize). */
  readonly kustomize?: KustomizeOptions | undefined;
  readonly logger: Logger;
}

/**
 * `spread build`: reads the directory (namespace `default`, since no cluster is involved) and runs
 * the image stage on it, building and pushing the images marked `&` without deploying.
 *
 * @returns the image stage's result: each image's reference, action and source.
 * @throws InputError for problems of the directory or of its `&` images; the image stage's
 *   BuildError, PushError, RegistryError and CredentialError (see prepareImages); an Error with
 *   the signal's reason (`interrupted by SIGTERM`) when `images.signal` ended it.
 */
export async function build(options: BuildOptions): Promise<PreparedImages> {
  const read = await readDeployment(options.path, {
    namespace: 'default',
    charts: options.charts,
    kustomize: options.kustomize,
    logger: options.logger,
  });
  try {
    return await prepareImages(
      read.application,
      read.objects,
      { ...options.images, root: options.path },
      options.logger,
    );
  } catch (error) {
    throw interruptOf(error, options.images.signal);
  }
}
