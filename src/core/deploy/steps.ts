// The steps of a deploy with phases or waves (docs/phases.md), as the converge runs them: each step's
// objects applied, then waited for with its Jobs' logs followed, its hooks' delete policies applied,
// and a failure turned into the halt that stops the deploy. The steps' waits are the deploy's wait.
import { isConditionTrue } from '../../base/conditions.js';
import type { KubeObject, SourcedObject } from '../../base/kube-object.js';
import { isUnavailable } from '../../cluster/client.js';
import { objectPath } from '../../cluster/discovery.js';
import {
  comparePlaces,
  formatPlace,
  hasSteps,
  isHoisted,
  type Place,
  placeOf,
} from '../../deployment/phases.js';
import type { AppliedObject } from '../../engine/apply/applied.js';
import { deleteObjects } from '../../engine/inventory/applyset.js';
import { followJobLogs } from '../../engine/wait/job-logs.js';
import { RolloutError, type RolloutResult, waitForRollout } from '../../engine/wait/waiter.js';
import type { HealthRules } from '../../project/health.js';
import type { StepOutcome, Steps } from '../converge.js';
import type { Run } from './options.js';

/** The steps of a deploy, and the rollout their waits saw (see {@link deploySteps}). */
export interface DeploySteps extends Steps {
  /** Each step's waited objects and outcomes, appended as the steps are waited for. */
  readonly waited: RolloutResult[];
}

/** A phase's (or wave's) objects failed: what came after it was not applied. */
export class PhaseError extends RolloutError {
  readonly place: Place;
  constructor(place: Place, message: string, results: RolloutError['results']) {
    super(message, results);
    this.name = 'PhaseError';
    this.place = place;
  }
}

/**
 * The steps of a plan in order, and the place of each; undefined when every object is in `main`, wave
 * 0. A Namespace or CRD no annotation places ({@link isHoisted}) makes no step of its own: it is in
 * the first one.
 */
export function placesOf(objects: readonly SourcedObject[]): Place[] | undefined {
  if (!hasSteps(objects)) return undefined;
  const places: Place[] = [];
  for (const o of objects) {
    if (isHoisted(o.object)) continue;
    const p = placeOf(o.object);
    if (!places.some((q) => comparePlaces(p, q) === 0)) places.push({ phase: p.phase, wave: p.wave });
  }
  return places.sort(comparePlaces);
}

/**
 * The converge's {@link Steps} of a deploy with phases or waves (undefined without): a step's objects
 * are waited for (even without `wait`, but for the last step: a phase is the promise that what comes
 * after it finds it done), its Jobs' logs followed meanwhile. Unplaced Namespaces and CRDs are
 * applied in the first step, before the objects of any step that may be in them or of them. With
 * `wait`, the steps' waits are the deploy's whole wait: `waited` holds their outcomes.
 */
export function deploySteps(
  run: Run,
  objects: readonly SourcedObject[],
  health?: HealthRules,
): DeploySteps | undefined {
  const places = placesOf(objects);
  if (!places) return undefined;
  const stepOf = (o: SourcedObject) =>
    isHoisted(o.object) ? 0 : places.findIndex((p) => comparePlaces(p, placeOf(o.object)) === 0);
  const waited: RolloutResult[] = [];
  return {
    stepOf,
    waited,
    afterStep: (step, applied) => {
      if (step === places.length - 1 && !run.options.wait) return Promise.resolve({});
      return run.logger.group(`Wait for ${formatPlace(places[step]!)}`, () =>
        waitForStep(run, places[step]!, applied, health, waited),
      );
    },
  };
}

/** One step's wait (see {@link deploySteps}); a failed wait is the halt, the Jobs' last log lines in it. */
async function waitForStep(
  run: Run,
  place: Place,
  applied: readonly AppliedObject[],
  health: HealthRules | undefined,
  waited: RolloutResult[],
): Promise<StepOutcome> {
  const { api, options, logger } = run;
  const logs = followJobLogs(api, applied, (line) => logger.info(line));
  let failure: RolloutError | undefined;
  try {
    const results = await waitForRollout(api, applied, {
      timeoutMs: options.timeoutMs,
      onProgress: (line) => logger.info(line),
      // The project file's rules hold back what comes after a step as they hold back the end.
      health,
      ...(options.waitLoadBalancer ? { waitLoadBalancer: true } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    waited.push(...results);
  } catch (error) {
    if (!(error instanceof RolloutError)) {
      await logs.stop();
      throw lostDuring(error, place);
    }
    failure = error;
  }
  const last = await logs.stop();
  const outcome = failure ? 'failed' : 'succeeded';
  const deleted = await deleteHooks(run, applied, outcome);
  const deletedBy = `hook-${outcome}` as const;
  if (!failure) return { deleted, deletedBy };
  const quoted = [...last]
    .filter(([, lines]) => lines.length > 0)
    .flatMap(([job, lines]) => [`  last log lines of job/${job}:`, ...lines.map((l) => `    ${l}`)]);
  const later = place.phase === 'pre' ? '; nothing of the main phase was applied' : '';
  const halt = new PhaseError(
    place,
    `${formatPlace(place)} failed${later}: ${failure.message}${quoted.length > 0 ? `\n${quoted.join('\n')}` : ''}`,
    failure.results,
  );
  return { halt, deleted, deletedBy };
}

/**
 * A cluster that stopped answering during a step's wait (its watches gave up: `gave up after N tries,
 * last ECONNRESET: …`) keeps its error, class and code (a fleet names the cluster lost), its first
 * line saying where the deploy stopped, as settle.ts says it of the rollout's wait.
 */
function lostDuring(error: unknown, place: Place): unknown {
  if (!(error instanceof Error) || !isUnavailable(error)) return error;
  const [first, ...rest] = error.message.split('\n');
  const where = `the cluster stopped answering while waiting for ${formatPlace(place)}: its objects and those of the steps before it were applied, not those of the steps after it; nothing was pruned and no revision was recorded (deploy again to converge)`;
  error.message = [`${first}; ${where}`, ...rest].join('\n');
  return error;
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

/**
 * What replacing `live` stops, when it is a Job still running (neither complete nor failed, not
 * suspended): `the running Job will be replaced: its 1 active pod is stopped`. A phase's Job whose
 * template changed, or a hook created again on every deploy, is deleted (propagation Background)
 * and created anew whatever it is doing, as Helm's before-hook-creation does; the plan and the
 * deploy's log say so rather than stop it without a word (docs/phases.md).
 */
export function runningJobNote(live: KubeObject | undefined): string | undefined {
  if (live?.kind !== 'Job' || !live.apiVersion.startsWith('batch/')) return undefined;
  const finished = ['Complete', 'Failed', 'FailureTarget', 'SuccessCriteriaMet'];
  if (finished.some((c) => isConditionTrue(live, c))) return undefined;
  if ((live.spec as { suspend?: boolean } | undefined)?.suspend === true) return undefined;
  const active = (live.status as { active?: number } | undefined)?.active ?? 0;
  return `the running Job will be replaced: its ${active} active pod${active === 1 ? ' is' : 's are'} stopped`;
}
