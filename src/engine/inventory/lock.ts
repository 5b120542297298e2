import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { MANAGED_BY_SPREAD, SPREAD, spreadObjectName } from '../../base/labels.js';
import { sleep } from '../../base/poll.js';
import { KubeApiError } from '../../cluster/client.js';
import type { ClusterPort } from '../kube-api.js';

/** A coordination.k8s.io/v1 Lease as spread reads and writes it. */
export interface Lease {
  apiVersion: 'coordination.k8s.io/v1';
  kind: 'Lease';
  metadata: {
    name: string;
    namespace: string;
    resourceVersion?: string;
    uid?: string;
    labels?: Record<string, string>;
    [field: string]: unknown;
  };
  spec: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    /** metav1.MicroTime, e.g. `2025-01-02T03:04:05.678901Z`. */
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/** Options of {@link acquireLock}. */
export interface LockOptions {
  /** Who holds the lock: the CI run's URL when there is one; `<hostname>/<pid>` by default. */
  readonly holder?: string;
  /** The Lease's `leaseDurationSeconds`: how long after its last renewal another deploy may take it over. Default 30. */
  readonly leaseDurationSeconds?: number;
  /** Time between two renewals, in milliseconds. Default 10 000 (a third of the duration). */
  readonly renewIntervalMs?: number;
  /** How long to wait for another holder to release, in milliseconds. Default 300 000 (5 minutes). */
  readonly lockTimeoutMs?: number;
  /** Time between two reads of a Lease held by someone else, in milliseconds. Default 1000. */
  readonly pollIntervalMs?: number;
  /** Called once when the lock is held by another deploy and this one starts waiting. */
  readonly onWait?: (holder: string, lease: Lease) => void;
  /** Called when a renewal finds the Lease taken over by another holder (this deploy lost the lock). */
  readonly onLost?: (holder: string) => void;
  /**
   * Called when a renewal fails other than by a conflict (refused credentials, an unreachable server),
   * once until a renewal succeeds again: the next tick retries, and the Lease expires
   * `leaseDurationSeconds` after the last renewal that went through.
   */
  readonly onRenewFailed?: (error: unknown) => void;
  readonly signal?: AbortSignal;
}

/** A held lock. Renewed in the background until {@link DeployLock.release}. */
export interface DeployLock {
  readonly name: string;
  readonly namespace: string;
  readonly holder: string;
  /** False once a renewal found another holder in the Lease. */
  readonly held: boolean;
  /** @throws LockLostError when the Lease was taken over (call before irreversible steps such as prune). */
  assertHeld(): void;
  /** Stops renewing and deletes the Lease (only if it is still ours: a resourceVersion precondition). Never throws. */
  release(): Promise<void>;
}

/** Another deploy held the lock for longer than `lockTimeoutMs`. */
export class LockTimeoutError extends Error {
  readonly holder: string;
  constructor(message: string, holder: string) {
    super(message);
    this.name = 'LockTimeoutError';
    this.holder = holder;
  }
}

/** The Lease was taken over by another holder while this deploy ran (its renewals failed for too long). */
export class LockLostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LockLostError';
  }
}

/** The Lease of a deployment: `spread.<name>`, in the deployment's namespace (beside its ApplySet parent). */
export function leaseName(deployment: string): string {
  return spreadObjectName(deployment);
}

/** The default holder identity: the CI run's URL when given, else `<hostname>/<pid>`, then ` #` and 6 random hex digits. */
export function defaultHolder(runUrl?: string): string {
  // The suffix tells apart two deploys of one process or one CI run (a matrix, a retried step).
  return `${runUrl || `${hostname()}/${process.pid}`} #${randomBytes(3).toString('hex')}`;
}

/** metav1.MicroTime of a moment: RFC 3339 in UTC with six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * Whether a Lease may be taken: it has no holder (released), or it expired —
 * `renewTime` (else `acquireTime`) + `leaseDurationSeconds` is before `nowMs` (client-go
 * leaderelection's rule; a crashed holder stops renewing). A Lease with no time is expired.
 */
export function leaseExpired(lease: Pick<Lease, 'spec'>, nowMs: number): boolean {
  const spec = lease.spec ?? {};
  if (!spec.holderIdentity) return true;
  const renewed = Date.parse(spec.renewTime ?? spec.acquireTime ?? '');
  if (!Number.isFinite(renewed)) return true;
  return renewed + (spec.leaseDurationSeconds ?? 0) * 1000 < nowMs;
}

/**
 * Takes the deployment's lock: the Lease `spread.<deployment>` in `namespace`
 * (coordination.k8s.io/v1). Creates it when absent; takes it over when it is released or expired
 * ({@link leaseExpired}) or already ours; otherwise waits, reading it every `pollIntervalMs`, for up
 * to `lockTimeoutMs`. Every write carries the resourceVersion read (optimistic concurrency): a 409
 * means another deploy won the race, and the Lease is read again. Once held, the Lease is renewed
 * every `renewIntervalMs` until `release()`.
 *
 * Different deployments have different Leases and never wait for each other.
 *
 * @throws LockTimeoutError naming the holder and since when it holds the lock.
 * @throws KubeApiError when the Lease cannot be read or written (403: the deploying identity needs
 *   get/create/update/delete on leases.coordination.k8s.io in the namespace).
 */
export async function acquireLock(
  client: ClusterPort,
  deployment: string,
  namespace: string,
  options: LockOptions = {},
): Promise<DeployLock> {
  const duration = options.leaseDurationSeconds ?? 30;
  const timeout = options.lockTimeoutMs ?? 300_000;
  const collection = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
  const name = leaseName(deployment);
  const target: LeaseTarget = {
    deployment,
    namespace,
    name,
    holder: options.holder || defaultHolder(),
    duration,
    collection,
    path: `${collection}/${encodeURIComponent(name)}`,
  };
  const deadline = Date.now() + timeout;
  let waitingReported = false;
  // The first attempt creates the Lease without reading it first: a finished deploy deletes its
  // Lease, so it is usually absent, and a 409 (AlreadyExists) sends the loop to read it. One round
  // trip fewer on the critical path of every deploy.
  let first = true;
  for (;;) {
    options.signal?.throwIfAborted();
    const live = first ? undefined : await client.getOrUndefined<Lease>(target.path, options.signal);
    first = false;
    let lease: Lease | undefined;
    try {
      lease = await tryTake(client, target, live, Date.now(), options.signal);
    } catch (error) {
      // 409 on create (AlreadyExists) or update (stale resourceVersion): another deploy moved first.
      if (error instanceof KubeApiError && error.code === 409) continue;
      // Stopped (SIGTERM) while the write was in flight: it may have reached the server, and a
      // Lease left ours would hold the next deploy up to its expiry.
      if (options.signal?.aborted) await releaseIfOurs(client, target);
      throw error;
    }
    if (lease) return heldLock(client, target, lease, options);
    const current = live!.spec.holderIdentity ?? '';
    if (!waitingReported) {
      options.onWait?.(current, live!);
      waitingReported = true;
    }
    // The last try comes at the deadline itself, not a poll interval before it.
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new LockTimeoutError(
        `deployment ${deployment} in ${namespace} is locked by ${current} (Lease ${name}, held since ${live!.spec.acquireTime ?? 'an unknown time'}, renewed ${live!.spec.renewTime ?? 'never'}); gave up after ${Math.round(timeout / 1000)}s`,
        current,
      );
    }
    await sleep(Math.min(options.pollIntervalMs ?? 1000, left), options.signal);
  }
}

/**
 * Deletes the Lease if it is `target.holder`'s (with preconditions on it as read), after a write
 * whose answer never came. Read twice, 250 ms apart, when first absent: the aborted write may still
 * be on its way. Never throws; each request has 5 s.
 */
async function releaseIfOurs(client: ClusterPort, target: LeaseTarget): Promise<void> {
  const read = () =>
    client.getOrUndefined<Lease>(target.path, AbortSignal.timeout(5000)).catch(() => undefined);
  let live = await read();
  if (!live) {
    await sleep(250);
    live = await read();
  }
  if (live?.spec.holderIdentity !== target.holder) return;
  const preconditions = { uid: live.metadata.uid, resourceVersion: live.metadata.resourceVersion };
  await client
    .request({
      method: 'DELETE',
      path: target.path,
      body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions },
      signal: AbortSignal.timeout(5000),
    })
    .catch(() => undefined);
}

/** The Lease of one deployment's lock, and who takes it for how long. */
interface LeaseTarget {
  readonly deployment: string;
  readonly namespace: string;
  /** The Lease's name ({@link leaseName}). */
  readonly name: string;
  readonly holder: string;
  /** `leaseDurationSeconds`: how long the Lease holds without renewal. */
  readonly duration: number;
  readonly collection: string;
  readonly path: string;
}

/**
 * One try: creates the Lease when absent, takes it when it is ours or expired; answers it as
 * written, or undefined while someone else holds it.
 *
 * @throws KubeApiError, 409 when another deploy wrote first.
 */
async function tryTake(
  client: ClusterPort,
  target: LeaseTarget,
  live: Lease | undefined,
  now: number,
  signal: AbortSignal | undefined,
): Promise<Lease | undefined> {
  const { holder, duration } = target;
  if (!live) {
    const body = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: target.name,
        namespace: target.namespace,
        labels: {
          [SPREAD.managedBy]: MANAGED_BY_SPREAD,
          [SPREAD.deployment]: target.deployment,
        },
      },
      spec: {
        holderIdentity: holder,
        leaseDurationSeconds: duration,
        acquireTime: microTime(now),
        renewTime: microTime(now),
        leaseTransitions: 0,
      },
    } satisfies Lease;
    return (
      await client.request<Lease>({
        method: 'POST',
        path: target.collection,
        body,
        ...(signal ? { signal } : {}),
      })
    ).body;
  }
  if (live.spec.holderIdentity !== holder && !leaseExpired(live, now)) return undefined;
  const ours = live.spec.holderIdentity === holder;
  const spec = {
    ...live.spec,
    holderIdentity: holder,
    leaseDurationSeconds: duration,
    acquireTime: ours ? live.spec.acquireTime : microTime(now),
    renewTime: microTime(now),
    leaseTransitions: (live.spec.leaseTransitions ?? 0) + (ours ? 0 : 1),
  };
  return (
    await client.request<Lease>({
      method: 'PUT',
      path: target.path,
      body: { ...live, spec },
      ...(signal ? { signal } : {}),
    })
  ).body;
}

/** Calls a callback; one that fails (a log write) must not reject `renewing`, which release awaits. */
function safely(callback: () => void): void {
  try {
    callback();
  } catch {
    // nothing to do: the lock goes on
  }
}

/**
 * The lock once taken: renewed every `renewIntervalMs` (a 409 re-reads the Lease; someone else's
 * Lease means the lock is lost, `onLost`), and deleted on `release()` with preconditions on the
 * Lease as last written.
 */
function heldLock(client: ClusterPort, target: LeaseTarget, lease: Lease, options: LockOptions): DeployLock {
  const { path, holder } = target;
  const renewEvery = options.renewIntervalMs ?? Math.max(1000, Math.floor((target.duration * 1000) / 3));
  let current: Lease = lease;
  let held = true;
  let stopped = false;
  let renewing: Promise<void> = Promise.resolve();
  let failing = false;
  const failed = (error: unknown) => {
    if (!failing) safely(() => options.onRenewFailed?.(error));
    failing = true;
  };
  const lost = (live: Lease | undefined) => {
    held = false;
    stopped = true;
    clearInterval(timer);
    safely(() => options.onLost?.(live?.spec.holderIdentity ?? ''));
  };
  const renew = async () => {
    for (let attempt = 0; attempt < 3 && !stopped; attempt++) {
      try {
        const body = { ...current, spec: { ...current.spec, renewTime: microTime(Date.now()) } };
        current = (await client.request<Lease>({ method: 'PUT', path, body })).body;
        failing = false;
        return;
      } catch (error) {
        if (!(error instanceof KubeApiError && error.code === 409)) return failed(error); // retried at the next tick
        const live = await client.getOrUndefined<Lease>(path).catch(() => undefined);
        if (live && live.spec.holderIdentity === holder) {
          current = live;
          continue;
        }
        lost(live);
        return;
      }
    }
  };
  const timer = setInterval(() => {
    renewing = renewing.then(renew);
  }, renewEvery);
  timer.unref?.();
  return {
    name: target.name,
    namespace: target.namespace,
    holder,
    get held() {
      return held;
    },
    assertHeld() {
      if (!held)
        throw new LockLostError(
          `the lock of deployment ${target.deployment} in ${target.namespace} (Lease ${target.name}) was taken over by another deploy`,
        );
    },
    async release() {
      stopped = true;
      clearInterval(timer);
      // Whatever a renewal ended with, the Lease is still deleted.
      await renewing.catch(() => {});
      if (!held) return;
      held = false;
      const preconditions = { uid: current.metadata.uid, resourceVersion: current.metadata.resourceVersion };
      try {
        await client.request({
          method: 'DELETE',
          path,
          body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions },
        });
      } catch {
        // Someone else's now (409), already gone (404), or unreachable: it expires by itself.
      }
    },
  };
}
