// The lock stage: the deploy's Lease, so that two deploys of one deployment never interleave. It is
// taken before anything is read for the plan; a namespace the deploy itself creates cannot hold it
// yet, so then it is taken right after the apply group that creates the namespace.
import { explainApiError } from '../../engine/apply/errors.js';
import { acquireLock, type DeployLock, defaultHolder, leaseName } from '../../engine/inventory/lock.js';
import { namespaceExists } from '../../engine/plan/live.js';
import type { Run } from './options.js';
import type { DirectoryRead } from './read.js';

/** The deploy's Lease once taken, which the deploy releases at its end, however it ends. */
export class DeployLease {
  #lock: DeployLock | undefined;

  constructor(private readonly run: Run) {}

  /** The lock, while held: a prune and a rollback check it first. */
  get lock(): DeployLock | undefined {
    return this.#lock;
  }

  /** A deploy (not a plan) whose namespace exists now takes the lock before it plans. */
  async takeBeforePlan(read: DirectoryRead): Promise<void> {
    const { options, api, namespace } = this.run;
    if (options.mode !== 'deploy') return;
    if (read.namespaceExisted || (await namespaceExists(api, namespace, options.signal)))
      await this.take(read.name);
  }

  /** After an apply group: takes the lock once the namespace the deploy creates exists (a first deploy). */
  async takeOnceNamespaceExists(name: string): Promise<void> {
    const { options, api, namespace } = this.run;
    if (!this.#lock && (await namespaceExists(api, namespace, options.signal))) await this.take(name);
  }

  /** Releases the lock if held; a failure only warns (the Lease expires). */
  async release(): Promise<void> {
    try {
      await this.#lock?.release();
    } catch (error) {
      this.run.logger.warn(`could not release the deploy lock: ${(error as Error).message}`);
    }
  }

  private async take(name: string): Promise<void> {
    const { options, logger, api, namespace } = this.run;
    this.#lock = await acquireLock(api, name, namespace, {
      holder: defaultHolder(options.runUrl),
      ...(options.lockTimeoutMs !== undefined ? { lockTimeoutMs: options.lockTimeoutMs } : {}),
      ...(options.lockLeaseDurationSeconds !== undefined
        ? { leaseDurationSeconds: options.lockLeaseDurationSeconds }
        : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      onWait: (holder) =>
        logger.info(`waiting for ${holder}, which is deploying ${name} (Lease ${leaseName(name)})`),
      onRenewFailed: (error) =>
        logger.warn(
          `could not renew the deploy lock (Lease ${leaseName(name)}), retrying: ${explainApiError(error)}`,
        ),
    });
  }
}
