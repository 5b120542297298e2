// Jobs that delete themselves once finished (`spec.ttlSecondsAfterFinished`, as ingress-nginx's
// admission Jobs do) and hooks deleted once they succeeded: absent right after a successful deploy.
// `spread status` asks the deployment's current revision whether it ran them as the directory
// declares them. A Helm hook of install events only is absent after an upgrade, by design.
import { stableJson } from '../base/json.js';
import type { KubeObject, SourcedObject } from '../base/kube-object.js';
import { helmHookSkipped, placeOf } from '../deployment/phases.js';
import type { ApplySet, ParentState } from '../engine/inventory/applyset.js';
import { readRevision, revisionOfParent } from '../engine/inventory/history.js';
import type { ClusterPort } from '../engine/kube-api.js';
import { type ClusterState, objectKey } from './status-report.js';

/**
 * A batch Job that sets `spec.ttlSecondsAfterFinished` (the TTL controller deletes it once finished),
 * or a hook whose delete policy is hook-succeeded (the deploy deletes it once its wait saw it succeed,
 * docs/phases.md).
 */
export function removesItself(o: KubeObject): boolean {
  return ttlOf(o) !== undefined || placeOf(o).hook?.deletePolicy.succeeded === true;
}

function ttlOf(o: KubeObject): number | undefined {
  const group = o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : '';
  const ttl = (o.spec as { ttlSecondsAfterFinished?: unknown } | undefined)?.ttlSecondsAfterFinished;
  return o.kind === 'Job' && group === 'batch' && typeof ttl === 'number' ? ttl : undefined;
}

/**
 * Turns `missing` into `in sync` for each Job of `objects` that {@link removesItself} and that the
 * deployment's current revision applied as the directory declares it (same spec and labels) with a
 * rollout that did not fail: the Job ran and the TTL controller removed it, which is no drift (a
 * deploy runs it again). A revision is recorded `deployed` only once the rollout wait saw every Job
 * complete (a deploy with the wait turned off records it unseen). Reads the revision only when such
 * a Job is missing; a revision that cannot be read changes nothing.
 */
export async function finishedJobs(
  client: ClusterPort,
  set: ApplySet,
  parent: ParentState,
  objects: readonly SourcedObject[],
  states: Map<string, ClusterState>,
): Promise<void> {
  const number = revisionOfParent(parent.object);
  // A Helm hook of install events only: it ran at the first deploy and runs on no later one.
  for (const o of objects) {
    const why = number === undefined ? undefined : helmHookSkipped(o.object, 'upgrade');
    if (why && states.get(objectKey(o))?.state === 'missing')
      states.set(objectKey(o), {
        state: 'in sync',
        message: why.replace(/: not run$/, ': a deploy does not run it'),
      });
  }
  const missing = objects.filter(
    (o) => states.get(objectKey(o))?.state === 'missing' && removesItself(o.object),
  );
  if (missing.length === 0 || number === undefined) return;
  const revision = await readRevision(client, set, number).catch(() => undefined);
  if (!revision || revision.status === 'failed') return;
  for (const o of missing) {
    const applied = revision.objects.find((r) => sameObject(r, o.object));
    if (!applied || runOf(applied) !== runOf(o.object)) continue;
    const ttl = ttlOf(o.object);
    const by =
      ttl !== undefined ? `its ttlSecondsAfterFinished (${ttl})` : 'its hook-delete-policy hook-succeeded';
    states.set(objectKey(o), {
      state: 'in sync',
      message: `finished and removed by ${by} after revision ${revision.revision} ran it; a deploy runs it again`,
    });
  }
}

function sameObject(a: KubeObject, b: KubeObject): boolean {
  return (
    a.apiVersion === b.apiVersion &&
    a.kind === b.kind &&
    a.metadata.name === b.metadata.name &&
    (a.metadata.namespace ?? '') === (b.metadata.namespace ?? '')
  );
}

/** What decides what a Job runs: its spec and labels (not the per-deploy annotations). */
function runOf(o: KubeObject): string {
  return stableJson({ spec: o.spec ?? {}, labels: o.metadata.labels ?? {} });
}
