// The images stage: `&` images built, pushed and pinned by digest (a plan only pins what the registry
// holds). Before the first build of a deploy, every object is dry-run with the references the builds
// will push, so a broken manifest costs seconds and pushes nothing.
import type { SourcedObject } from '../../base/kube-object.js';
import { type PreparedImages, prepareImages } from '../../image/index.js';
import type { Run } from './options.js';
import { planStage } from './plan.js';
import type { DirectoryRead } from './read.js';

/** The directory's objects with their images pinned, and the report of each image. */
export function imagesStage(run: Run, read: DirectoryRead): Promise<PreparedImages> {
  const { options, logger } = run;
  return logger.group('Images', () =>
    prepareImages(
      read.read.application,
      read.read.objects,
      {
        ...options.images,
        // A plan writes nothing, not even to a registry: it pins what the registry already holds
        // and names the images the deploy would build.
        ...(options.mode === 'plan' ? { build: false, push: false, plan: true } : {}),
        root: options.path,
        signal: options.signal,
        ...(options.mode === 'deploy'
          ? {
              beforeBuild: async (objects: SourcedObject[]) =>
                void (await planStage(run, read, objects, 'Check before building')),
            }
          : {}),
      },
      logger,
    ),
  );
}
