// Why pods do not become ready (image pull errors, crash loops, unschedulable) from their statuses and
// events, so that a failing rollout ends early with the cause instead of at its timeout.
import type { KubeObject } from '../base/kube-object.js';
import type { KubeClient } from './client.js';

/** The requests this module sends (a KubeClient, or the engine's ClusterPort). */
type Requests = Pick<KubeClient, 'request' | 'getOrUndefined'>;

/** Container waiting reasons that mean the image cannot be pulled (kubelet's images package). */
export const PULL_ERRORS = new Set([
  'ImagePullBackOff',
  'ErrImagePull',
  'ErrImageNeverPull',
  'InvalidImageName',
  'RegistryUnavailable',
]);

/** Waiting reasons that fail at once: they never resolve without a new deploy. */
const HOPELESS = new Set(['InvalidImageName', 'ErrImageNeverPull', 'CreateContainerConfigError']);

/** Why a pod of a rollout is failing, as {@link diagnosePod} finds it. */
export interface PodProblem {
  readonly pod: string;
  /** `ImagePullBackOff`, `CrashLoopBackOff`, `Unschedulable`, `CreateContainerConfigError`, `Failed`… */
  readonly reason: string;
  /** `container web: ImagePullBackOff: Back-off pulling image "x"` or the scheduler's message. */
  readonly message: string;
  /** Whether the rollout should fail now (else: a problem to report, not yet final). */
  readonly fatal: boolean;
}

/** Thresholds of {@link diagnosePod}. */
export interface DiagnoseOptions {
  /** The current time, in milliseconds since the epoch. */
  readonly now: number;
  /** How long a pod may stay Unschedulable before the rollout fails, in milliseconds. Default 15 000. */
  readonly unschedulableGraceMs?: number;
  /** How many observations of an image pull error fail the rollout. Default 2. */
  readonly pullErrorObservations?: number;
  /** How many times this pod's current pull error was observed so far (the caller counts). */
  readonly pullErrorSeen?: number;
}

interface ContainerStatus {
  name: string;
  ready?: boolean;
  restartCount?: number;
  state?: {
    waiting?: { reason?: string; message?: string };
    terminated?: { reason?: string; exitCode?: number; message?: string };
    running?: object;
  };
  lastState?: { terminated?: { reason?: string; exitCode?: number; message?: string } };
}

/** Every container status of a pod, init containers first. */
export function containerStatuses(pod: KubeObject): ContainerStatus[] {
  const s = (pod.status ?? {}) as {
    initContainerStatuses?: ContainerStatus[];
    containerStatuses?: ContainerStatus[];
  };
  return [...(s.initContainerStatuses ?? []), ...(s.containerStatuses ?? [])];
}

/** The pull-error reason a pod shows now (`ErrImagePull`, `ImagePullBackOff`…), if any. */
export function pullError(pod: KubeObject): string | undefined {
  return containerStatuses(pod)
    .map((c) => c.state?.waiting?.reason)
    .find((r): r is string => r !== undefined && PULL_ERRORS.has(r));
}

/**
 * What keeps a pod of a rollout from becoming Ready, and whether that fails the rollout now.
 * The kubelet's and scheduler's own words are used:
 * - a container waiting with an image pull error (`ErrImagePull`, `ImagePullBackOff`…) fails after
 *   `pullErrorObservations` observations (a single ErrImagePull can be a registry hiccup);
 *   `InvalidImageName`, `ErrImageNeverPull`, `CreateContainerConfigError` fail at once;
 * - `CrashLoopBackOff` fails at once (the kubelet sets it only after the container crashed);
 * - `PodScheduled=False` with reason `Unschedulable` fails once it is older than the grace;
 * - phase `Failed` fails at once.
 * Returns `undefined` for a pod with no problem (running, starting, or done).
 */
export function diagnosePod(pod: KubeObject, options: DiagnoseOptions): PodProblem | undefined {
  const name = pod.metadata.name ?? '';
  const status = (pod.status ?? {}) as {
    phase?: string;
    reason?: string;
    message?: string;
    conditions?: {
      type: string;
      status: string;
      reason?: string;
      message?: string;
      lastTransitionTime?: string;
    }[];
  };
  if (pod.metadata.deletionTimestamp) return undefined;
  if (status.phase === 'Failed') {
    return {
      pod: name,
      reason: status.reason ?? 'Failed',
      message: `pod failed${status.reason ? `: ${status.reason}` : ''}${status.message ? `: ${status.message}` : ''}`,
      fatal: true,
    };
  }
  for (const c of containerStatuses(pod)) {
    const waiting = c.state?.waiting;
    if (!waiting?.reason) continue;
    const text = `container ${c.name}: ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`;
    if (HOPELESS.has(waiting.reason))
      return { pod: name, reason: waiting.reason, message: text, fatal: true };
    if (PULL_ERRORS.has(waiting.reason)) {
      // ImagePullBackOff is the kubelet backing off after a failed pull: final at once. A lone
      // ErrImagePull may be a registry hiccup, so it counts only once seen in enough updates.
      const fatal =
        waiting.reason === 'ImagePullBackOff' ||
        (options.pullErrorSeen ?? 1) >= (options.pullErrorObservations ?? 2);
      return { pod: name, reason: waiting.reason, message: text, fatal };
    }
    if (waiting.reason === 'CrashLoopBackOff') {
      const last = c.lastState?.terminated;
      const exit = last ? ` (last exit: ${last.reason ?? 'terminated'}, code ${last.exitCode ?? '?'})` : '';
      return {
        pod: name,
        reason: 'CrashLoopBackOff',
        message: `${text}${exit}; ${c.restartCount ?? 0} restarts`,
        fatal: true,
      };
    }
  }
  const scheduled = status.conditions?.find((c) => c.type === 'PodScheduled');
  if (scheduled?.status === 'False' && scheduled.reason === 'Unschedulable') {
    const since = Date.parse(scheduled.lastTransitionTime ?? '');
    const age = Number.isFinite(since) ? options.now - since : 0;
    return {
      pod: name,
      reason: 'Unschedulable',
      message: `unschedulable: ${scheduled.message ?? ''}`.trim(),
      fatal: age >= (options.unschedulableGraceMs ?? 15_000),
    };
  }
  return undefined;
}

/** A core/v1 Event as spread reads it (both `events.k8s.io` style and legacy timestamps). */
export interface PodEvent {
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  readonly count: number;
  /** ISO time of the last occurrence. */
  readonly time: string;
}

/**
 * The most recent events whose involvedObject is the pod (`kubectl describe pod`'s Events), oldest
 * first, at most `limit`. A failure to read events gives an empty list: they only enrich an error.
 */
export async function podEvents(
  client: Requests,
  namespace: string,
  pod: string,
  limit = 5,
  signal?: AbortSignal,
): Promise<PodEvent[]> {
  try {
    const res = await client.request<{ items?: Record<string, unknown>[] }>({
      method: 'GET',
      path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`,
      query: { fieldSelector: `involvedObject.kind=Pod,involvedObject.name=${pod}` },
      signal,
    });
    return recentEvents(res.body.items ?? [], limit);
  } catch {
    return [];
  }
}

/** Sorts raw core/v1 Events by last occurrence and keeps the `limit` newest, oldest first. */
export function recentEvents(items: readonly Record<string, unknown>[], limit: number): PodEvent[] {
  const time = (e: Record<string, unknown>) =>
    String(
      (e.series as { lastObservedTime?: string } | undefined)?.lastObservedTime ??
        e.lastTimestamp ??
        e.eventTime ??
        (e.metadata as { creationTimestamp?: string } | undefined)?.creationTimestamp ??
        '',
    );
  return items
    .map((e) => ({
      type: String(e.type ?? 'Normal'),
      reason: String(e.reason ?? ''),
      message: String(e.message ?? e.note ?? '').trim(),
      count: Number(e.count ?? (e.series as { count?: number } | undefined)?.count ?? 1),
      time: time(e),
    }))
    .sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0))
    .slice(-limit);
}

/** `Warning Failed (x3): Failed to pull image …` — one line per event. */
export function formatEvent(e: PodEvent): string {
  return `${e.type} ${e.reason}${e.count > 1 ? ` (x${e.count})` : ''}: ${e.message}`;
}

/** One line per container: `web: waiting ImagePullBackOff: …`, `db: running, ready`. */
export function formatContainerStates(pod: KubeObject): string[] {
  return containerStatuses(pod).map((c) => {
    const s = c.state ?? {};
    if (s.waiting)
      return `${c.name}: waiting ${s.waiting.reason ?? ''}${s.waiting.message ? `: ${s.waiting.message}` : ''}`;
    if (s.terminated)
      return `${c.name}: terminated ${s.terminated.reason ?? ''} (exit ${s.terminated.exitCode ?? '?'})`;
    if (s.running) return `${c.name}: running${c.ready ? ', ready' : ', not ready'}`;
    return `${c.name}: unknown state`;
  });
}

/** A selector expression of a LabelSelector's `matchExpressions`. */
interface SelectorExpression {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[];
}

/**
 * The parts of a workload's selector: a LabelSelector (`matchLabels`, `matchExpressions`) or a
 * ReplicationController's plain map (pairs only). Undefined when there is no selector object.
 */
export function selectorParts(
  selector: unknown,
): { readonly pairs: [string, string][]; readonly expressions: readonly SelectorExpression[] } | undefined {
  if (!selector || typeof selector !== 'object') return undefined;
  const s = selector as { matchLabels?: Record<string, string>; matchExpressions?: SelectorExpression[] };
  const isLabelSelector = 'matchLabels' in s || 'matchExpressions' in s;
  const labels = isLabelSelector ? (s.matchLabels ?? {}) : (selector as Record<string, string>);
  return {
    pairs: Object.entries(labels).map(([k, v]) => [k, String(v)]),
    expressions: isLabelSelector ? (s.matchExpressions ?? []) : [],
  };
}

/**
 * A label selector string from a workload's selector (see {@link selectorParts}): `matchExpressions`
 * with In/NotIn/Exists/DoesNotExist. `undefined` when there is no selector or it is empty.
 */
export function selectorString(selector: unknown): string | undefined {
  const parts = selectorParts(selector);
  if (!parts) return undefined;
  const out = parts.pairs.map(([k, v]) => `${k}=${v}`);
  for (const e of parts.expressions) {
    const values = (e.values ?? []).join(',');
    if (e.operator === 'In') out.push(`${e.key} in (${values})`);
    else if (e.operator === 'NotIn') out.push(`${e.key} notin (${values})`);
    else if (e.operator === 'Exists') out.push(e.key);
    else if (e.operator === 'DoesNotExist') out.push(`!${e.key}`);
  }
  return out.length > 0 ? out.join(',') : undefined;
}

/**
 * Whether an object's `labels` match a workload's selector, as the API server's label selector
 * ({@link selectorString} of the same selector) would: every pair of `matchLabels` (or of a
 * ReplicationController's plain map), and each of `matchExpressions`: `In` (the key has one of the
 * values), `NotIn` (it has none of them, or the key is absent), `Exists`, `DoesNotExist`. An
 * unknown operator matches nothing. Pure.
 */
export function matchesSelector(
  selector: unknown,
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  const parts = selectorParts(selector);
  if (!parts) return false;
  const own = labels ?? {};
  for (const [k, v] of parts.pairs) if (!Object.hasOwn(own, k) || own[k] !== v) return false;
  for (const e of parts.expressions) {
    const has = Object.hasOwn(own, e.key);
    const values = e.values ?? [];
    if (e.operator === 'In' && !(has && values.includes(own[e.key]!))) return false;
    if (e.operator === 'NotIn' && has && values.includes(own[e.key]!)) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
    if (!['In', 'NotIn', 'Exists', 'DoesNotExist'].includes(e.operator)) return false;
  }
  return true;
}
