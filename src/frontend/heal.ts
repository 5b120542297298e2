// Drift's heal, for the Action's and the GitLab component's mode drift: the deployment's last good
// revision (the one drift compares with) deployed again through the rollback path.
import type { Logger } from '../base/logger.js';
import type { KubeconfigSource } from '../cluster/kubeconfig.js';
import { lastDeployedRevision } from '../engine/inventory/history.js';
import type { HealNote } from './drift-issue.js';
import { history, rollback } from './manage.js';

/** Where and how to heal: the cluster, the deployment's namespace, the rollout's and lock's limits. */
export interface HealRequest {
  readonly kubeconfig: KubeconfigSource;
  readonly context?: string | undefined;
  readonly namespace: string;
  readonly logger: Logger;
  readonly signal?: AbortSignal | undefined;
  readonly timeoutMs?: number | undefined;
  readonly lockTimeoutMs?: number | undefined;
}

/**
 * Deploys deployment `name`'s last good revision again (lastDeployedRevision: the current one when
 * it did not fail, else the newest before it that did not), through the rollback path (plan, apply,
 * prune, wait), taking back the fields other managers changed (force-conflicts). A revision
 * `rollback to N` is recorded only when something was written. Never throws: a failure is the note's
 * `error`.
 */
export async function healDeployment(name: string, request: HealRequest): Promise<HealNote> {
  const { timeoutMs, lockTimeoutMs, ...where } = request;
  try {
    const { revisions, current } = await history(name, where);
    const good = lastDeployedRevision(revisions, current);
    if (good === undefined) return { revision: 0, error: 'the deployment has no revision that did not fail' };
    const back = await rollback(name, good, {
      ...where,
      forceConflicts: true,
      // A heal that changed nothing leaves the history as it was.
      recordUnchanged: false,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(lockTimeoutMs !== undefined ? { lockTimeoutMs } : {}),
    }).catch((error: unknown) => error as Error);
    if (back instanceof Error) return { revision: good, error: back.message };
    return back.revision === undefined
      ? { revision: good, unchanged: true }
      : { revision: good, recorded: back.revision };
  } catch (error) {
    return { revision: 0, error: (error as Error).message };
  }
}

/** The heal in one sentence, for a closing comment or a summary. */
export function healText(h: HealNote): string {
  if (h.unchanged)
    return `Heal: revision ${h.revision} (the last good deploy) was applied again and changed nothing; no revision recorded.`;
  return `Healed: revision ${h.revision} (the last good deploy) was deployed again${h.recorded !== undefined ? ` as revision ${h.recorded}` : ''}.`;
}
