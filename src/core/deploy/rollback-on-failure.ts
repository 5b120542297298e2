// --rollback-on-failure: after a failed rollout, or a failed pre phase that changed objects that run
// nothing (docs/phases.md), the newest revision before this deploy whose rollout did not fail is
// applied again through the one rollback path (core/rollback.ts), which runs no phase.

import {
  lastGoodRevision,
  listRevisions,
  readRevision,
  recordRollback,
} from '../../engine/inventory/history.js';
import type { DeployLock } from '../../engine/inventory/lock.js';
import type { RolloutError } from '../../engine/wait/waiter.js';
import type { DeployReport } from '../../report/report.js';
import { rollbackTo } from '../rollback.js';
import type { Settling } from './apply.js';
import { DeployError } from './failure.js';
import type { Run } from './options.js';

/**
 * Rolls back to the newest revision below `below` whose rollout did not fail, with
 * `rollbackOnFailure`; `what` failed (`the rollout failed`) says why in the log.
 *
 * @throws DeployError, always: `error` (and the rollback's outcome), with `failed` as its report.
 */
export async function rollBackOrFail(
  run: Run,
  applied: Pick<Settling, 'set' | 'applyOptions' | 'health' | 'revisionBefore'>,
  lock: DeployLock | undefined,
  error: RolloutError,
  failed: DeployReport,
  below: number | undefined,
  what: string,
): Promise<never> {
  const { api: client, options, logger } = run;
  const { revisionBefore, set } = applied;
  // Back to the newest revision before this deploy whose rollout did not fail.
  const target =
    below === undefined
      ? undefined
      : lastGoodRevision(
          await listRevisions(client, set).catch(() => [
            { revision: revisionBefore ?? 0, status: 'deployed' as const },
          ]),
          below,
        );
  if (options.rollbackOnFailure && target === undefined && revisionBefore !== undefined)
    logger.warn(`${what}, and no earlier revision succeeded: nothing to roll back to`);
  if (!options.rollbackOnFailure || target === undefined) throw new DeployError(error, failed);
  // The rollout's error is the deploy's error, printed once by the front end at the end.
  logger.warn(`${what}; rolling back to revision ${target}`);
  const now = await logger
    .group(`Roll back to revision ${target}`, () =>
      rollBackAfterFailure(run, applied, lock, target, error, failed),
    )
    .catch((rollbackError: unknown) => {
      if (rollbackError instanceof DeployError) throw rollbackError;
      // Both failures in one error, printed once by the front end, with the deploy's report.
      throw new DeployError(
        new Error(
          `${error.message}\nthe rollback to revision ${target} failed too: ${(rollbackError as Error).message}`,
        ),
        failed,
      );
    });
  throw new DeployError(new Error(`${error.message}\nrolled back to revision ${target}`), {
    ...failed,
    // The deployment's revision now: the rollback's.
    ...(now !== undefined ? { revision: now } : {}),
    rolledBackTo: target,
  });
}

/**
 * `--rollback-on-failure`: {@link rollbackTo} the target with this deploy's apply options (ownership
 * checked as in a deploy: an object made by hand since the revision was current is not taken over,
 * unless `--adopt`). Answers the revision the rollback recorded (undefined when recording failed,
 * which only warns).
 *
 * @throws DeployError when the revision is gone; the rollback's RolloutError or ApplyError.
 */
async function rollBackAfterFailure(
  run: Run,
  step: Pick<Settling, 'set' | 'applyOptions' | 'health'>,
  lock: DeployLock | undefined,
  target: number,
  error: RolloutError,
  failed: DeployReport,
): Promise<number | undefined> {
  const { api: client, options, logger } = run;
  const stored = await readRevision(client, step.set, target);
  if (!stored)
    throw new DeployError(new Error(`${error.message}\nrevision ${target} to roll back to is gone`), failed);
  const keep = options.historyLimit ?? 10;
  const back = await rollbackTo({
    client,
    discovery: run.discovery,
    set: step.set,
    stored,
    target,
    apply: step.applyOptions,
    ...(options.wait
      ? {
          wait: {
            timeoutMs: options.timeoutMs,
            ...(options.waitLoadBalancer ? { waitLoadBalancer: true } : {}),
            health: step.health,
          },
        }
      : {}),
    logger,
    ...(lock ? { lock } : {}),
    ...(options.runUrl ? { runUrl: options.runUrl } : {}),
    keep,
    describeFailure: failureDescription,
  });
  if (back.failure) throw back.failure.error;
  // Recording is not the rollback: a failure to record only warns, as after a deploy.
  const recordedBack = await recordRollback(client, step.set, stored, target, {
    ...(options.runUrl ? { runUrl: options.runUrl } : {}),
    keep,
  }).catch((recordError: unknown) => {
    logger.warn(`rolled back, but the revision was not recorded: ${(recordError as Error).message}`);
    return undefined;
  });
  logger.info(`rolled back to revision ${target}`);
  return recordedBack?.revision;
}

/**
 * A failed revision's description: `rollout failed: ` and the first object named in the error
 * (its pod's reason), at most 200 characters.
 */
export function failureDescription(error: RolloutError): string {
  const [head, first] = error.message.split('\n');
  const why = `${(head ?? '').replace(/:$/, '')}: ${(first ?? '').trim()}`.replace(/: $/, '');
  return why.length > 200 ? `${why.slice(0, 199)}…` : why;
}
