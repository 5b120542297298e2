import { createHash } from 'node:crypto';
import { stableJson } from '../../base/json.js';
import type { KubeObject } from '../../base/kube-object.js';
import type { ClusterPort } from '../kube-api.js';
import type { ApplySet } from './applyset.js';
import { type RevisionStatus, readRevision } from './history.js';
import { splitSourceLine } from './revision-source.js';

/**
 * What a deploy that changed nothing needs of the current revision: its status, its applied state and
 * a digest of its object set, not the objects (thousands of decoded objects, held otherwise through
 * the whole rollout wait).
 */
export interface RevisionCheck {
  readonly revision: number;
  readonly status: RevisionStatus;
  /** Recorded by a deploy that did not wait for the rollout. */
  readonly rolloutUnchecked?: true;
  readonly appliedState?: string;
  /** {@link objectSetDigest} of the revision's objects. */
  readonly objectSet: string;
}

/** Reads revision `revision` of `set` as a {@link RevisionCheck}; undefined when its Secret is gone. */
export async function readRevisionCheck(
  client: ClusterPort,
  set: ApplySet,
  revision: number,
): Promise<RevisionCheck | undefined> {
  const r = await readRevision(client, set, revision);
  return r
    ? {
        revision: r.revision,
        status: r.status,
        ...(r.rolloutUnchecked ? { rolloutUnchecked: true as const } : {}),
        ...(r.appliedState ? { appliedState: r.appliedState } : {}),
        // As the deploy compares it: the objects as applied, their source's line left out.
        objectSet: objectSetDigest(r.objects.map((o) => splitSourceLine(o).object)),
      }
    : undefined;
}

/**
 * A hex SHA-256 of a set of objects in any order: of the sorted SHA-256s of each object's
 * {@link stableJson}. Two sets have the same digest when they hold the same objects (as JSON values),
 * each as many times.
 */
export function objectSetDigest(objects: readonly KubeObject[]): string {
  const each = objects.map((o) => createHash('sha256').update(stableJson(o)).digest('base64')).sort();
  return createHash('sha256').update(each.join('\n')).digest('hex');
}
