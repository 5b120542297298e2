import { createHash } from 'node:crypto';
import { isPodAvailable, isPodReady } from '../../base/conditions.js';
import { stableJson } from '../../base/json.js';
import type { KubeObject } from '../../base/kube-object.js';
import { TEMPLATE_HASH } from '../../base/labels.js';

/** The first 16 hex digits of the SHA-256 of the template's JSON with sorted keys, without the hash itself. */
export function templateHash(template: unknown): string {
  const copy = structuredClone(template ?? {}) as { metadata?: { annotations?: Record<string, string> } };
  if (copy.metadata?.annotations) {
    delete copy.metadata.annotations[TEMPLATE_HASH];
    // Without the hash, an empty annotations map is the same template as none at all.
    if (Object.keys(copy.metadata.annotations).length === 0) delete copy.metadata.annotations;
  }
  return createHash('sha256').update(stableJson(copy)).digest('hex').slice(0, 16);
}

/** A copy of an RC with {@link TEMPLATE_HASH} set on its pod template; other objects are returned as they are. */
export function withTemplateHash(object: KubeObject): KubeObject {
  if (object.kind !== 'ReplicationController' || object.apiVersion !== 'v1') return object;
  const copy = structuredClone(object);
  const spec = (copy.spec ?? {}) as { template?: { metadata?: { annotations?: Record<string, string> } } };
  if (!spec.template) return object;
  spec.template.metadata ??= {};
  spec.template.metadata.annotations = {
    ...spec.template.metadata.annotations,
    [TEMPLATE_HASH]: templateHash(spec.template),
  };
  return copy;
}

/**
 * The next pod to delete in the rollout of a ReplicationController whose pod template changed, among
 * `pods` (those its selector matches, without the ones already deleted), or `undefined` when none is
 * to go now. ReplicationControllers do not roll by themselves (`kubectl rolling-update` did it for
 * them until kubectl 1.18), so spread replaces the pods of an older template (a {@link TEMPLATE_HASH}
 * other than the RC's) one at a time, in name order:
 * - an old pod that is not Ready goes at once: it serves nothing (a broken pod left by a failed
 *   rollout, or one still starting), as a Deployment scales unhealthy old pods down first;
 * - a Ready old pod goes only while every replica is available (Ready for `spec.minReadySeconds`
 *   at `now`, as the controller counts `availableReplicas`), so never fewer than replicas − 1 are;
 * - nothing goes until the RC's controller has observed its new generation, so that the pod it
 *   makes in place of the deleted one comes from the new template.
 * The RC must carry the template hash (spread's {@link withTemplateHash}); without it, `undefined`.
 */
export function podToReplace(
  rc: KubeObject,
  pods: readonly KubeObject[],
  now: number = Date.now(),
): KubeObject | undefined {
  const spec = (rc.spec ?? {}) as {
    replicas?: number;
    minReadySeconds?: number;
    template?: { metadata?: { annotations?: Record<string, string> } };
  };
  const want = spec.template?.metadata?.annotations?.[TEMPLATE_HASH];
  if (!want) return undefined;
  const observed = Number(
    (rc.status as { observedGeneration?: unknown } | undefined)?.observedGeneration ?? 0,
  );
  if (observed < Number(rc.metadata.generation ?? 0)) return undefined;
  const uid = rc.metadata.uid;
  const live = pods.filter(
    (p) =>
      !p.metadata.deletionTimestamp &&
      (uid === undefined ||
        ((p.metadata.ownerReferences ?? []) as { uid?: string }[]).some((r) => r.uid === uid)),
  );
  const old = live
    .filter((p) => p.metadata.annotations?.[TEMPLATE_HASH] !== want)
    .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  const unready = old.find((p) => !isPodReady(p));
  if (unready) return unready;
  const available = live.filter((p) => isPodAvailable(p, Number(spec.minReadySeconds ?? 0), now)).length;
  return old.length > 0 && available >= (spec.replicas ?? 1) ? old[0] : undefined;
}
