// The settle stage: the rollout waited for, the revision recorded, the application's URL found; a
// failed rollout is recorded as failed and, with rollbackOnFailure, the last good revision applied
// again. It reads only Settling (apply.ts): nothing of the directory, the plan or the dry runs.

import type { KubeObject } from '../../base/kube-object.js';
import { KubeApiError } from '../../cluster/client.js';
import { objectPath } from '../../cluster/discovery.js';
import { formatPlace } from '../../deployment/phases.js';
import type { ApplySet } from '../../engine/inventory/applyset.js';
import {
  type EncodedObjectSet,
  type PriorRevisions,
  type RevisionStatus,
  recordRevision,
  writeAppliedState,
  writeRolloutChecked,
} from '../../engine/inventory/history.js';
import type { DeployLock } from '../../engine/inventory/lock.js';
import { markedImages } from '../../engine/inventory/provenance.js';
import type { ClusterPort } from '../../engine/kube-api.js';
import { fingerprintsDigest } from '../../engine/plan/fingerprint.js';
import { RolloutError, type RolloutResult, waitForRollout } from '../../engine/wait/waiter.js';
import type { HealthRules } from '../../project/health.js';
import type { DeployReport } from '../../report/report.js';
import { applicationUrl, urlKindOf } from '../../report/url.js';
import { rolloutRef } from '../converge.js';
import { cutShort } from '../cut-short.js';
import type { Settling } from './apply.js';
import { DeployError } from './failure.js';
import type { DeployOptions, Run } from './options.js';
import { failureDescription, rollBackOrFail } from './rollback-on-failure.js';
import { PhaseError } from './steps.js';
import type { SettlingConverged } from './trim.js';

/** Waits for the rollout, records the revision and finds the URL; a failed rollout goes to {@link failedRollout}. */
export async function settleStage(
  run: Run,
  settling: Settling,
  lock: DeployLock | undefined,
): Promise<DeployReport> {
  const { api: client, options } = run;
  const { converged, reported, revisionBefore, toRecord, base } = settling;
  let rollout: RolloutResult[];
  const halted = converged.halted?.error;
  if (halted instanceof PhaseError && halted.place.phase === 'pre')
    return preFailed(run, settling, lock, halted);
  if (halted instanceof RolloutError) return failedRollout(run, settling, lock, halted);
  try {
    // A deploy with phases or waves waited for each step as it went: not again (docs/phases.md).
    rollout = settling.stepsWaited
      ? [...settling.stepsWaited]
      : await settle(client, converged, options, settling.health);
  } catch (error) {
    if (error instanceof RolloutError) return failedRollout(run, settling, lock, error);
    throw cutShort(error, reported, 'the rollout', 'no revision was recorded (the next deploy records it)');
  }
  const state = appliedState(converged);
  const { kept, encoded } = toRecord;
  // The same objects, fingerprinted anew (a dry run found one unchanged whose recorded fingerprint no
  // longer matched, e.g. a scaled Deployment): the revision notes it, or a rollback would take the
  // parent's new fingerprints for an unrecorded deploy.
  if (kept?.appliedState && state !== kept.appliedState)
    await writeAppliedState(client, settling.set, kept.revision, state).catch((error: unknown) =>
      options.logger.warn(`could not note the revision's applied state: ${(error as Error).message}`),
    );
  // Its rollout was not checked when it was recorded (--no-wait); this deploy saw it ready.
  if (kept?.rolloutUnchecked && options.wait)
    await writeRolloutChecked(client, settling.set, kept.revision).catch((error: unknown) =>
      options.logger.warn(`could not note the revision's rollout as checked: ${(error as Error).message}`),
    );
  const revision = kept
    ? { revision: revisionBefore }
    : await record(
        client,
        settling.set,
        encoded,
        options,
        { appliedState: state },
        await prior(settling),
        base.images,
      );
  const url = await findUrl(client, converged, options);
  return {
    ...base,
    mode: 'deploy',
    ...revision,
    ...(url ? { url } : {}),
    objects: reported,
    rollout: rollout.map(rolloutRef),
    durationMs: Date.now() - run.started,
  };
}

/**
 * The pre phase failed: nothing of the main phase was written, so the deployment is still at its
 * revision, and none is recorded. With `rollbackOnFailure`, what the pre phase changed that runs
 * nothing (a ConfigMap, a Secret, a ServiceAccount) is restored by a rollback to the last good
 * revision, which runs no Job; a pre phase that changed only its Jobs and Pods leaves nothing to undo.
 *
 * @throws DeployError, always.
 */
async function preFailed(
  run: Run,
  settling: Settling,
  lock: DeployLock | undefined,
  error: PhaseError,
): Promise<never> {
  const failed: DeployReport = {
    ...settling.base,
    mode: 'deploy',
    ...(settling.revisionBefore !== undefined ? { revision: settling.revisionBefore } : {}),
    objects: settling.reported,
    rollout: rolloutOf(settling, error),
    failedBeforeMain: formatPlace(error.place),
    failedIn: formatPlace(error.place),
    ...skippedOf(settling),
    durationMs: Date.now() - run.started,
  };
  const { revisionBefore } = settling;
  if (!run.options.rollbackOnFailure) throw new DeployError(error, failed);
  const nothing =
    revisionBefore === undefined
      ? "this was the deployment's first deploy, so there is no earlier revision (what the pre phase applied stays)"
      : !changedWhatRunsNothing(settling)
        ? `the ${error.place.phase} phase created or changed only Jobs and Pods, which a rollback keeps as they are (they hold the logs), and the main phase was not written`
        : undefined;
  if (nothing !== undefined || revisionBefore === undefined) {
    run.logger.warn(`${formatPlace(error.place)} failed; nothing to roll back: ${nothing}`);
    throw new DeployError(error, failed);
  }
  return rollBackOrFail(
    run,
    settling,
    lock,
    error,
    failed,
    revisionBefore + 1,
    `${formatPlace(error.place)} failed`,
  );
}

/**
 * A failed deploy's rollout: the steps waited for before the failed one (docs/phases.md: the report's
 * rollout lists every step's objects), then what the failed wait saw.
 */
function rolloutOf(settling: Pick<Settling, 'stepsWaited'>, error: RolloutError): DeployReport['rollout'] {
  return [...(settling.stepsWaited ?? []), ...error.results].map(rolloutRef);
}

/** The report's `skipped`, only when a failed step left objects unapplied. */
function skippedOf(settling: Pick<Settling, 'skipped'>): Pick<DeployReport, 'skipped'> {
  return settling.skipped.length > 0 ? { skipped: settling.skipped } : {};
}

/** Whether the deploy created or changed an object other than a Job or a Pod (which a rollback does not run). */
function changedWhatRunsNothing(settling: Settling): boolean {
  return settling.reported.some(
    (o) =>
      (o.action === 'created' || o.action === 'configured') &&
      !(o.kind === 'Job' && o.apiVersion.startsWith('batch/')) &&
      !(o.kind === 'Pod' && o.apiVersion === 'v1'),
  );
}

/** What a revision records of the parent the converge left: its fingerprints' digest. */
function appliedState(converged: SettlingConverged): string | undefined {
  return fingerprintsDigest(converged.fingerprints);
}

/**
 * The rollout failed: the cluster now holds this object set, so it is a revision, marked failed (as
 * Helm records a failed release), so that history shows it and a rollback goes back from it. With
 * `rollbackOnFailure`, the newest revision before it whose rollout did not fail is applied again.
 *
 * @throws DeployError, always: the rollout's error (and the rollback's outcome).
 */
async function failedRollout(
  run: Run,
  applied: Settling,
  lock: DeployLock | undefined,
  error: RolloutError,
): Promise<never> {
  const { api: client, options } = run;
  const { revisionBefore, toRecord, base, set } = applied;
  // A changed deploy always has its objects encoded (only an unchanged one keeps a revision).
  const recorded =
    applied.unchanged || !toRecord.encoded
      ? {}
      : await record(
          client,
          set,
          toRecord.encoded,
          options,
          {
            status: 'failed',
            description: failureDescription(error),
            appliedState: appliedState(applied.converged),
          },
          await prior(applied),
          base.images,
        );
  const failed: DeployReport = {
    ...base,
    mode: 'deploy' as const,
    ...recorded,
    objects: applied.reported,
    rollout: rolloutOf(applied, error),
    failedIn: error instanceof PhaseError ? formatPlace(error.place) : 'rollout',
    ...skippedOf(applied),
    durationMs: Date.now() - run.started,
  };
  const below = recorded.revision ?? (revisionBefore === undefined ? undefined : revisionBefore + 1);
  return rollBackOrFail(run, applied, lock, error, failed, below, 'the rollout failed');
}

/** Waits for the rollout (only with `wait`); the wait also replaces the pods of changed ReplicationControllers. */
async function settle(
  client: ClusterPort,
  converged: SettlingConverged,
  options: DeployOptions,
  health: HealthRules,
): Promise<RolloutResult[]> {
  if (!options.wait) return [];
  const { logger } = options;
  return logger.group('Wait', () =>
    waitForRollout(client, converged.applied, {
      timeoutMs: options.timeoutMs,
      onProgress: (line) => logger.info(line),
      ...(options.waitLoadBalancer ? { waitLoadBalancer: true } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      health,
    }),
  );
}

/**
 * The application's URL after the rollout (report/url.ts), from the objects as stored: a
 * LoadBalancer Service read again (its address may have come during the wait), an HTTPRoute's parent
 * Gateways read for the scheme. A failed read only warns: the deploy happened.
 */
async function findUrl(
  client: ClusterPort,
  converged: SettlingConverged,
  options: DeployOptions,
): Promise<string | undefined> {
  try {
    const live = await Promise.all(
      converged.applied.map(async (a) => {
        const spec = a.live.spec as { type?: string } | undefined;
        if (urlKindOf(a.live) !== 'service' || spec?.type !== 'LoadBalancer') return a.live;
        const path = objectPath(a.resource, a.live.metadata.namespace, a.live.metadata.name);
        return (await client.getOrUndefined<KubeObject>(path, options.signal)) ?? a.live;
      }),
    );
    const gateways = new Map<string, KubeObject | undefined>();
    for (const o of live) {
      if (urlKindOf(o) !== 'httproute') continue;
      for (const ref of (o.spec as { parentRefs?: { kind?: string; namespace?: string; name?: string }[] })
        ?.parentRefs ?? []) {
        if ((ref.kind ?? 'Gateway') !== 'Gateway' || !ref.name) continue;
        const key = `${ref.namespace ?? o.metadata.namespace}/${ref.name}`;
        if (gateways.has(key)) continue;
        const [ns, gname] = key.split('/');
        gateways.set(
          key,
          await client
            .getOrUndefined<KubeObject>(
              `/apis/gateway.networking.k8s.io/v1/namespaces/${ns}/gateways/${gname}`,
              options.signal,
            )
            .catch(() => undefined),
        );
      }
    }
    const found = applicationUrl(live, {
      ...(options.urlFrom ? { from: options.urlFrom } : {}),
      gateway: (ns, gname) => gateways.get(`${ns}/${gname}`),
    });
    if (found) options.logger.info(`URL ${found.url} (${found.object})`);
    else if (options.urlFrom)
      options.logger.warn(
        `the object named for the URL, ${options.urlFrom.kind}/${options.urlFrom.name}, has no host or address yet: no URL`,
      );
    return found?.url;
  } catch (error) {
    options.logger.warn(`could not read where the application answers: ${(error as Error).message}`);
    return undefined;
  }
}

/**
 * The revisions as the deploy found them under its lock: those listed beside the converge, and the
 * parent's current one as the plan read it. Undefined when that list was not read or failed (then
 * the record reads them itself).
 */
async function prior(applied: Settling): Promise<PriorRevisions | undefined> {
  const existing = await applied.revisionsPending?.catch(() => undefined);
  return existing ? { existing, current: applied.revisionBefore } : undefined;
}

/**
 * Records the deployed object set as a new revision (marked failed after a failed rollout); a
 * failure to record only warns (the deploy happened).
 */
async function record(
  client: ClusterPort,
  set: ApplySet,
  objects: EncodedObjectSet,
  options: DeployOptions,
  outcome: { status?: RevisionStatus; description?: string; appliedState?: string | undefined } = {},
  known?: PriorRevisions,
  images: Settling['base']['images'] = [],
): Promise<{ revision?: number }> {
  const { environment, promotedFrom } = options.provenance ?? {};
  try {
    const r = await recordRevision(
      client,
      set,
      {
        objects,
        ...(environment ? { environment } : {}),
        ...(promotedFrom ? { promotedFrom } : {}),
        marks: markedImages(images ?? []),
        ...(options.commit ? { commit: options.commit } : {}),
        ...(options.runUrl ? { runUrl: options.runUrl } : {}),
        ...(outcome.status ? { status: outcome.status } : {}),
        // Applied but not seen ready: promote refuses it (core/promote.ts).
        ...(!options.wait && outcome.status !== 'failed' ? { rolloutUnchecked: true } : {}),
        ...(outcome.description ? { description: outcome.description } : {}),
        ...(outcome.appliedState ? { appliedState: outcome.appliedState } : {}),
      },
      { keep: options.historyLimit ?? 10, ...(known ? { prior: known } : {}) },
    );
    options.logger.info(`revision ${r.revision} recorded${r.status === 'failed' ? ' as failed' : ''}`);
    return { revision: r.revision };
  } catch (error) {
    const why = error instanceof KubeApiError ? `${error.code} ${error.message}` : (error as Error).message;
    options.logger.warn(`deployed, but the revision was not recorded: ${why}`);
    return {};
  }
}
