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
import { objectKey } from '../../engine/inventory/prune.js';
import type { RolloutError } from '../../engine/wait/waiter.js';
import type { DeployReport, ObjectReport } from '../../report/report.js';
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
  if (options.rollbackOnFailure && target === undefined)
    logger.warn(
      revisionBefore === undefined
        ? `${what}; nothing to roll back: this was the deployment's first deploy, so there is no earlier revision (what it applied stays)`
        : `${what}, and no earlier revision succeeded: nothing to roll back to`,
    );
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
    ...(now.revision !== undefined ? { revision: now.revision } : {}),
    rolledBackTo: target,
    rollback: now.objects,
  });
}

/**
 * `--rollback-on-failure`: {@link rollbackTo} the target with this deploy's apply options (ownership
 * checked as in a deploy: an object made by hand since the revision was current is not taken over,
 * unless `--adopt`). Answers the revision the rollback recorded (undefined when recording failed,
 * which only warns), and the rollback's report lines. The Jobs and Pods the failed deploy created or
 * ran are kept as they are ({@link ranByDeploy}): they hold its logs.
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
): Promise<{ readonly revision: number | undefined; readonly objects: readonly ObjectReport[] }> {
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
    ran: ranByDeploy(failed.objects),
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
  return { revision: recordedBack?.revision, objects: back.objects };
}

/**
 * The Jobs (batch) and Pods (core) a failed deploy created, re-created or ran, by objectKey, each
 * with why its rollback keeps it: they hold the failure's logs (`kubectl logs job/migrate`), and a
 * rollback runs no phase (docs/phases.md). Its other objects are rolled back as usual.
 */
export function ranByDeploy(objects: readonly ObjectReport[]): Map<string, string> {
  const ran = new Map<string, string>();
  for (const o of objects) {
    const job = o.kind === 'Job' && o.apiVersion.startsWith('batch/');
    const pod = o.kind === 'Pod' && o.apiVersion === 'v1';
    if (!(job || pod) || !['created', 'configured', 'unchanged'].includes(o.action)) continue;
    const key = objectKey({
      apiVersion: o.apiVersion,
      kind: o.kind,
      metadata: { name: o.name, ...(o.namespace ? { namespace: o.namespace } : {}) },
    });
    const logs = `kubectl logs ${job ? 'job' : 'pod'}/${o.name}${o.namespace ? ` -n ${o.namespace}` : ''}`;
    ran.set(key, `the failed deploy ran it: a rollback keeps it as it is, with its logs (${logs})`);
  }
  return ran;
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
