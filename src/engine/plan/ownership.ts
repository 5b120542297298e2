import type { KubeObject } from '../../base/kube-object.js';
import { APPLYSET, SPREAD } from '../../base/labels.js';
import { optionRef } from '../../base/option-ref.js';
import type { KubeApi } from '../kube-api.js';

/**
 * Which live objects a deploy may write, as Helm and kapp decide it: an object labelled part of
 * another deployment's ApplySet, or one that exists without an ApplySet label (made by hand or by
 * another tool), is refused (`refuse`, the default: once applied, it would be pruned with this
 * deployment), or taken over (`adopt`, `--adopt`; Helm's `--take-ownership`). Adopting also takes
 * over the fields of the kubectl family's field managers (see takeover.ts).
 */
export interface OwnershipPolicy {
  /** The ApplySet id of this deployment (`applyset.kubernetes.io/id`). */
  readonly applySetId: string;
  readonly foreign: 'refuse' | 'adopt';
}

/** Whether the policy adopts foreign objects (absent: no). */
export function adopts(policy: OwnershipPolicy | undefined): boolean {
  return policy?.foreign === 'adopt';
}

/**
 * Why the policy refuses to write over `live`, or undefined when it may: another deployment's
 * object (named when its ApplySet parent can be read), or one no deployment owns.
 */
export async function ownershipProblem(
  client: KubeApi,
  live: KubeObject | undefined,
  policy: OwnershipPolicy | undefined,
  signal?: AbortSignal,
): Promise<string | undefined> {
  if (!live || !policy || policy.foreign === 'adopt') return undefined;
  const owner = live.metadata.labels?.[APPLYSET.partOf];
  if (owner === policy.applySetId) return undefined;
  if (owner) {
    const other = await ownerName(client, owner, live.metadata.namespace, signal);
    return `belongs to another deployment${other ? ` (${other})` : ''}: its ${APPLYSET.partOf} label is ${owner}; rename the object, or deploy it from that deployment (adopting takes it over: ${optionRef('adopt')})`;
  }
  // Like Helm, spread does not silently take over what it did not create: once applied, the
  // object would be pruned with this deployment (a hand-made Namespace with all it holds).
  return `exists, but no spread deployment owns it (no ${APPLYSET.partOf} label: made by hand or by another tool, or the label was removed); taking it over would make a later deploy without it delete it. Adopt it to take it over (${optionRef('adopt')}; with ${optionRef('force-conflicts')} where another manager owns its fields)`;
}

/** The deployment (`namespace/name`) whose ApplySet parent carries `id`, if it can be found. */
async function ownerName(client: KubeApi, id: string, namespace: string | undefined, signal?: AbortSignal) {
  try {
    const path = namespace
      ? `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets`
      : '/api/v1/secrets';
    const list = await client.request<{ items: KubeObject[] }>({
      method: 'GET',
      path,
      query: { labelSelector: `${APPLYSET.id}=${id}` },
      signal,
    });
    const parent = list.body.items[0];
    const name = parent?.metadata.annotations?.[SPREAD.deployment];
    return parent
      ? `spread deployment ${parent.metadata.namespace}/${name ?? parent.metadata.name}`
      : undefined;
  } catch {
    return undefined;
  }
}
