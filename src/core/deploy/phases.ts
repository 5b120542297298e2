// A deploy's phases and waves (docs/phases.md) as the converge's steps: the places of the plan's
// objects in order, and after each step the wait for its objects, with its Jobs' logs shown as they
// run, the hooks' delete policies applied, and a failure turned into the halt that stops the deploy.
import type { SourcedObject } from '../../base/kube-object.js';
import { objectPath } from '../../cluster/discovery.js';
import { comparePlaces, formatPlace, hasSteps, type Place, placeOf } from '../../deployment/phases.js';
import type { AppliedObject } from '../../engine/apply/applied.js';
import { deleteObjects } from '../../engine/inventory/applyset.js';
import { followJobLogs } from '../../engine/wait/job-logs.js';
import { RolloutError, waitForRollout } from '../../engine/wait/waiter.js';
import type { StepOutcome, Steps } from '../converge.js';
import type { Run } from './options.js';

/** A phase's (or wave's) objects failed: what came after it was not applied. */
export class PhaseError extends RolloutError {
  readonly place: Place;
  constructor(place: Place, message: string, results: RolloutError['results']) {
    super(message, results);
    this.name = 'PhaseError';
    this.place = place;
  }
}

/** The steps of a plan in order, and the place of each; undefined when every object is in `main`, wave 0. */
export function placesOf(objects: readonly SourcedObject[]): Place[] | undefined {
  if (!hasSteps(objects)) return undefined;
  const places: Place[] = [];
  for (const o of objects) {
    const p = placeOf(o.object);
    if (!places.some((q) => comparePlaces(p, q) === 0)) places.push({ phase: p.phase, wave: p.wave });
  }
  return places.sort(comparePlaces);
}

/**
 * The converge's {@link Steps} of a deploy with phases or waves (undefined without): a step's objects
 * are waited for (even without `wait`, but for the last step: a phase is the promise that what comes
 * after it finds it done), its Jobs' logs followed meanwhile.
 */
export function deploySteps(run: Run, objects: readonly SourcedObject[]): Steps | undefined {
  const places = placesOf(objects);
  if (!places) return undefined;
  const stepOf = (o: SourcedObject) => places.findIndex((p) => comparePlaces(p, placeOf(o.object)) === 0);
  return {
    stepOf,
    afterStep: (step, applied) => {
      if (step === places.length - 1 && !run.options.wait) return Promise.resolve({});
      return run.logger.group(`Wait for ${formatPlace(places[step]!)}`, () =>
        waitForStep(run, places[step]!, applied),
      );
    },
  };
}

/** One step's wait (see {@link deploySteps}); a failed wait is the halt, the Jobs' last log lines in it. */
async function waitForStep(run: Run, place: Place, applied: readonly AppliedObject[]): Promise<StepOutcome> {
  const { api, options, logger } = run;
  const logs = followJobLogs(api, applied, (line) => logger.info(line));
  let failure: RolloutError | undefined;
  try {
    await waitForRollout(api, applied, {
      timeoutMs: options.timeoutMs,
      onProgress: (line) => logger.info(line),
      ...(options.waitLoadBalancer ? { waitLoadBalancer: true } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if (!(error instanceof RolloutError)) {
      await logs.stop();
      throw error;
    }
    failure = error;
  }
  const last = await logs.stop();
  const deleted = await deleteHooks(run, applied, failure ? 'failed' : 'succeeded');
  if (!failure) return { deleted };
  const quoted = [...last]
    .filter(([, lines]) => lines.length > 0)
    .flatMap(([job, lines]) => [`  last log lines of job/${job}:`, ...lines.map((l) => `    ${l}`)]);
  const later = place.phase === 'pre' ? '; nothing of the main phase was applied' : '';
  const halt = new PhaseError(
    place,
    `${formatPlace(place)} failed${later}: ${failure.message}${quoted.length > 0 ? `\n${quoted.join('\n')}` : ''}`,
    failure.results,
  );
  return { halt, deleted };
}

/** Deletes the step's hooks whose delete policy names this outcome (hook-succeeded, hook-failed). */
async function deleteHooks(
  run: Run,
  applied: readonly AppliedObject[],
  outcome: 'succeeded' | 'failed',
): Promise<AppliedObject[]> {
  const gone = applied.filter((a) => placeOf(a.object).hook?.deletePolicy[outcome]);
  for (const a of gone) {
    const path = objectPath(a.resource, a.live.metadata.namespace, a.live.metadata.name);
    await deleteObjects(run.api, [{ object: a.live, path }]).catch((error: unknown) =>
      run.logger.warn(
        `could not delete hook ${a.object.kind} ${a.live.metadata.name}: ${(error as Error).message}`,
      ),
    );
    run.logger.info(`${a.object.kind} ${a.live.metadata.name} deleted (hook-delete-policy: hook-${outcome})`);
  }
  return gone;
}
