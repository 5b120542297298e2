// The image stage of a promotion: each `&` marker pinned to the reference another environment's revision
// deployed, nothing built or pushed (BuildKit is never started); and whether the registry still holds
// those digests, asked as the image stage asks it (the Docker config's credentials, one client per host).
import type { SourcedObject } from '../base/kube-object.js';
import type { Logger } from '../base/logger.js';
import { familiarName, parseReference } from '../base/reference.js';
import { formatSource, InputError, type InputIssue } from '../base/source.js';
import type { Application } from '../entity/entity.js';
import type { ImageOptions } from './options.js';
import { pinImages } from './pin.js';
import { planBuilds } from './plan.js';
import type { ImageReport, PreparedImages } from './prepare.js';
import { createRun } from './run.js';

/**
 * Pins every `&` image of the application to `pins` (marker as written → pinned reference). Pure: no
 * registry, no Docker. Each image's report says it was neither built nor pushed.
 *
 * @param from names where the pins come from in the error, e.g. `staging's revision 4`.
 * @throws InputError naming, at its file and line, each marker `pins` lacks (the directory marks an
 *   image the promoted revision did not deploy), all at once.
 */
export function pinPromotedImages(
  application: Application,
  objects: readonly SourcedObject[],
  pins: ReadonlyMap<string, string>,
  from: string,
): PreparedImages {
  const plan = planBuilds(application, { requireRegistry: false });
  const issues: InputIssue[] = plan.issues.filter((i) => i.severity === 'error');
  const images: ImageReport[] = [];
  for (const b of plan.builds) {
    const missing = b.marks.filter((m) => !pins.has(m));
    if (missing.length > 0) {
      const had = [...pins.keys()].join(', ') || 'no marked image';
      issues.push({
        source: b.declaredIn,
        object: b.containers[0]!,
        message: `image ${missing.map((m) => JSON.stringify(m)).join(', ')} is not in ${from}, which deployed ${had}: a promotion builds nothing, so every marked image must come from it`,
        severity: 'error',
      });
      continue;
    }
    const reference = pins.get(b.marks[0]!)!;
    const parsed = parseReference(reference);
    images.push({
      name: familiarName({ domain: parsed.domain, path: parsed.path }),
      reference,
      tag: parsed.tag ?? '',
      digest: parsed.digest,
      // Not read: the context is not what decides the image, the promoted revision is.
      contextDigest: '',
      built: false,
      pushed: false,
      context: b.contextDir,
      source: formatSource(b.declaredIn),
      marks: b.marks,
    });
  }
  if (issues.length > 0) throw new InputError(issues);
  return { objects: pinImages(objects, pins), images };
}

/**
 * The references (each `…@sha256:…`) whose digest the registry no longer holds (a 404 for the
 * manifest), in the order given. Asked with the Docker config's credentials as the image stage asks.
 *
 * @throws RegistryAuthError, RegistryError, CredentialError: the registry could not be asked, which is
 *   not an answer that the digest is gone.
 */
export async function digestsGone(
  references: readonly string[],
  options: Pick<ImageOptions, 'dockerConfigDir' | 'insecureRegistries' | 'signal'>,
  logger: Logger,
): Promise<string[]> {
  const run = createRun({ ...options, root: '.' }, logger);
  const answers = await Promise.all(
    references.map(async (reference) => {
      const parsed = parseReference(reference);
      if (!parsed.digest) return reference;
      const registry = await run.registryFor(parsed.domain);
      return (await registry.manifest(parsed.path, parsed.digest)) ? undefined : reference;
    }),
  );
  return answers.filter((r): r is string => r !== undefined);
}
