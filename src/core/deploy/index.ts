// One deploy (or plan) of a directory, as the list of its stages in order: read, images, lock, plan,
// apply, settle. Each stage is a file of this folder; each one's output type is all that later
// stages may read of it. The cluster comes connected from the front end (src/frontend/cluster.ts).
import { inputRead } from '../../base/heap.js';
import { DeployLease } from '../../engine/inventory/deploy-lease.js';
import type { DeployReport } from '../../report/report.js';
import { applyStage, type Settling, settlingOf } from './apply.js';
import { afterApply, deployFailure, failedAt } from './failure.js';
import { imagesStage } from './images.js';
import { type DeployOptions, type Run, startRun } from './options.js';
import { planForApply, planReport, planStage } from './plan.js';
import { readStage } from './read.js';
import { settleStage } from './settle.js';

export { type Applied, helmReleasesTakenOver, type Settling } from './apply.js';
export * from './failure.js';
export * from './options.js';
export { failureDescription } from './rollback-on-failure.js';

/**
 * Reads the directory, builds its images, takes the deploy's Lease, plans every object (a server-side
 * dry run: nothing is written if any fails), applies and prunes, then waits for the rollout and
 * records the revision; on a failed rollout, records it and (`rollbackOnFailure`) rolls back.
 *
 * @throws InputError (bad input; nothing written), ApplyError (plan: nothing written; apply: names
 *   what was and was not applied), DeployError wrapping a RolloutError.
 */
export async function deploy(options: DeployOptions): Promise<DeployReport> {
  const run = startRun(options);
  const lease = new DeployLease({ ...options, ...run, deploying: options.mode === 'deploy' });
  try {
    const prepared = await readToApply(run, lease);
    if ('report' in prepared) return prepared.report;
    return await settleStage(run, prepared, lease.lock).catch((error: unknown) => {
      throw failedAt(afterApply(error), run, prepared.base.deployment, true);
    });
  } catch (caught) {
    throw deployFailure(caught, run);
  } finally {
    await lease.release();
  }
}

/** The stages up to the apply, in a frame that ends before the wait (bench/RESULTS.md, Deploy, by hand). */
async function readToApply(run: Run, lease: DeployLease): Promise<Settling | { report: DeployReport }> {
  const read = await readStage(run);
  inputRead();
  try {
    const { objects, base } = await imagesStage(run, read);
    await lease.takeBeforePlan(read);
    if (run.options.mode === 'plan')
      return { report: await planReport(run, read, await planStage(run, read, objects), base) };
    const plan = await planForApply(run, read, objects, lease.lock !== undefined);
    const applied = await applyStage(run, read, plan, lease);
    return await settlingOf(run, read, plan.objects, applied, base);
  } catch (error) {
    throw failedAt(error, run, read.name);
  }
}
