// The images stage: `&` images built, pushed and pinned by digest (a plan only pins what the registry
// holds). Before the first build of a deploy, every object is dry-run with the references the builds
// will push, so a broken manifest costs seconds and pushes nothing.
import type { SourcedObject } from '../../base/kube-object.js';
import { type PreparedImages, prepareImages } from '../../image/index.js';
import { pinPromotedImages } from '../../image/promoted.js';
import { inputReport } from '../../report/report.js';
import type { ReportBase, Run } from './options.js';
import { planStage } from './plan.js';
import type { DirectoryRead } from './read.js';

/** The directory's objects with their images pinned, and what the report says of the input. */
export interface Pinned {
  readonly objects: readonly SourcedObject[];
  readonly base: ReportBase;
}

/** Builds, pushes and pins the `&` images ({@link Pinned}). */
export async function imagesStage(run: Run, read: DirectoryRead): Promise<Pinned> {
  const { options, logger, namespace, context } = run;
  const prepared = await logger.group('Images', async () =>
    options.pinnedMarks ? promotedImages(run, read, options.pinnedMarks) : built(run, read),
  );
  const { images } = prepared;
  const { environment, promotedFrom } = options.provenance ?? {};
  const base = {
    deployment: read.name,
    namespace,
    context,
    ...(environment ? { environment } : {}),
    ...(promotedFrom ? { promotedFrom } : {}),
    images,
    ...inputReport(read.read.application),
  };
  return { objects: prepared.objects, base };
}

/** A promotion's images: the markers pinned to the promoted revision's references, nothing built. */
function promotedImages(run: Run, read: DirectoryRead, pins: ReadonlyMap<string, string>): PreparedImages {
  const from = run.options.provenance?.promotedFrom;
  const prepared = pinPromotedImages(
    read.read.application,
    read.read.objects,
    pins,
    from ? `${from.environment}'s revision ${from.revision}` : 'the promoted revision',
  );
  for (const i of prepared.images)
    run.logger.info(`${i.marks.join(', ')} → ${i.reference} (promoted, not built)`);
  return prepared;
}

/** The `&` images built (unless the registry holds them from the same context), pushed and pinned. */
function built(run: Run, read: DirectoryRead): Promise<PreparedImages> {
  const { options, logger } = run;
  return prepareImages(
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
              void (await planStage(run, read, objects, { title: 'Check before building' })),
          }
        : {}),
    },
    logger,
  );
}
