// The deploy's Lease as one deploy holds it, so that two deploys of one deployment never interleave.
// It is taken before anything is read for the plan; a namespace the deploy itself creates cannot hold
// it yet, so then it is taken right after the apply group that creates the namespace.
import type { Logger } from '../../base/logger.js';
import { explainApiError } from '../apply/errors.js';
import type { ClusterPort } from '../kube-api.js';
import { namespaceExists } from '../plan/live.js';
import { acquireLock, type DeployLock, defaultHolder, leaseName } from './lock.js';

/** Where and how a {@link DeployLease} is taken. */
export interface DeployLeaseOptions {
  readonly api: ClusterPort;
  /** The deployment's namespace, which holds its Lease. */
  readonly namespace: string;
  readonly logger: Logger;
  /** A deploy takes the Lease; a plan (which writes nothing) does not. */
  readonly deploying: boolean;
  /** The CI run's URL, named as the holder so a waiting deploy says whom it waits for. */
  readonly runUrl?: string | undefined;
  readonly lockTimeoutMs?: number | undefined;
  readonly lockLeaseDurationSeconds?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** The deploy's Lease once taken, which the deploy releases at its end, however it ends. */
export class DeployLease {
  #lock: DeployLock | undefined;

  constructor(private readonly options: DeployLeaseOptions) {}

  /** The lock, while held: a prune and a rollback check it first. */
  get lock(): DeployLock | undefined {
    return this.#lock;
  }

  /** A deploy (not a plan) whose namespace exists now takes the lock before it plans. */
  async takeBeforePlan(read: { readonly name: string; readonly namespaceExisted: boolean }): Promise<void> {
    const { deploying, api, namespace, signal } = this.options;
    if (!deploying) return;
    if (read.namespaceExisted || (await namespaceExists(api, namespace, signal))) await this.take(read.name);
  }

  /** After an apply group: takes the lock once the namespace the deploy creates exists (a first deploy). */
  async takeOnceNamespaceExists(name: string): Promise<void> {
    const { api, namespace, signal } = this.options;
    if (!this.#lock && (await namespaceExists(api, namespace, signal))) await this.take(name);
  }

  /** Releases the lock if held; a failure only warns (the Lease expires). */
  async release(): Promise<void> {
    try {
      await this.#lock?.release();
    } catch (error) {
      this.options.logger.warn(`could not release the deploy lock: ${(error as Error).message}`);
    }
  }

  private async take(name: string): Promise<void> {
    const { logger, api, namespace, runUrl, lockTimeoutMs, lockLeaseDurationSeconds, signal } = this.options;
    this.#lock = await acquireLock(api, name, namespace, {
      holder: defaultHolder(runUrl),
      ...(lockTimeoutMs !== undefined ? { lockTimeoutMs } : {}),
      ...(lockLeaseDurationSeconds !== undefined ? { leaseDurationSeconds: lockLeaseDurationSeconds } : {}),
      ...(signal ? { signal } : {}),
      onWait: (holder) =>
        logger.info(`waiting for ${holder}, which is deploying ${name} (Lease ${leaseName(name)})`),
      onRenewFailed: (error) =>
        logger.warn(
          `could not renew the deploy lock (Lease ${leaseName(name)}), retrying: ${explainApiError(error)}`,
        ),
    });
  }
}
