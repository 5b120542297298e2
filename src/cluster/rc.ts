import { createHash } from 'node:crypto';
import { toJson } from '../deployment/json.js';
import type { KubeObject } from '../deployment/kube-object.js';
import type { KubeClient } from './client.js';

/**
 * Annotation spread puts on a ReplicationController's pod template: a digest of the template as
 * applied. Pods made from the template carry it, so the pods of an older template can be told apart
 * (ReplicationControllers, unlike Deployments, have no pod-template-hash of their own).
 */
export const TEMPLATE_HASH = 'spread.rsprd.com/template-hash';

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

interface Pod {
  metadata: { name: string; annotations?: Record<string, string>; deletionTimestamp?: string };
  status?: { conditions?: { type: string; status: string }[] };
}

/** Options of {@link replaceOldPods}. */
export interface RcRollOptions {
  /** Limit of the whole replacement, in milliseconds. */
  readonly timeoutMs: number;
  /** Time between two reads of the pods, in milliseconds. Default 500. */
  readonly intervalMs?: number;
  readonly onProgress?: (line: string) => void;
  readonly signal?: AbortSignal;
}

/**
 * Replaces the pods of a ReplicationController whose template changed, one at a time: an old pod
 * (one whose template hash is not the RC's) is deleted only when every replica is Ready, and the next
 * only after its replacement is Ready, so never fewer than replicas − 1 pods are Ready. This is what
 * `kubectl rolling-update` did for RCs (removed in kubectl 1.18), done in place.
 *
 * @returns the number of pods replaced.
 * @throws Error when the replacement does not finish within the timeout (nothing is left half-done
 *   beyond the pod being replaced; a re-run continues).
 */
export async function replaceOldPods(
  client: KubeClient,
  rc: KubeObject,
  options: RcRollOptions,
): Promise<number> {
  const spec = rc.spec as {
    replicas?: number;
    selector?: Record<string, string>;
    template?: { metadata?: { annotations?: Record<string, string> } };
  };
  const want = spec.template?.metadata?.annotations?.[TEMPLATE_HASH];
  if (!want) return 0;
  const replicas = spec.replicas ?? 1;
  const ns = encodeURIComponent(rc.metadata.namespace ?? 'default');
  const selector = Object.entries(spec.selector ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  const deadline = Date.now() + options.timeoutMs;
  const interval = options.intervalMs ?? 500;
  const isReady = (p: Pod) =>
    p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  let replaced = 0;
  for (;;) {
    const list = await client.request<{ items: Pod[] }>({
      method: 'GET',
      path: `/api/v1/namespaces/${ns}/pods`,
      query: { labelSelector: selector },
      signal: options.signal,
    });
    const live = list.body.items.filter((p) => !p.metadata.deletionTimestamp);
    const old = live
      .filter((p) => p.metadata.annotations?.[TEMPLATE_HASH] !== want)
      .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
    const ready = live.filter(isReady).length;
    if (old.length === 0) return replaced;
    if (Date.now() > deadline) {
      throw new Error(
        `ReplicationController ${rc.metadata.name}: ${old.length} pod(s) of the old template still running after ${Math.round(options.timeoutMs / 1000)}s`,
      );
    }
    if (ready >= replicas) {
      const victim = old[0]!;
      options.onProgress?.(
        `replicationcontroller/${rc.metadata.name}: replacing pod ${victim.metadata.name} (${ready}/${replicas} ready)`,
      );
      try {
        await client.request({
          method: 'DELETE',
          path: `/api/v1/namespaces/${ns}/pods/${encodeURIComponent(victim.metadata.name)}`,
          signal: options.signal,
        });
      } catch (error) {
        if ((error as { code?: number }).code !== 404) throw error;
      }
      replaced++;
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}

function stableJson(v: unknown): string {
  return toJson(v, (_k, value) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : value,
  );
}
