// Whether a deploy may write over a live object another deployment, tool or person made (spread refuses
// unless adopting, as Helm does), and the way out the message gives for each kind of owner.
import type { KubeObject } from '../../base/kube-object.js';
import { APPLYSET, SPREAD } from '../../base/labels.js';
import { optionRef } from '../../base/option-ref.js';
import { type DeploymentOrigin, formatOrigin, originOfAnnotations, sameOrigin } from '../../base/origin.js';
import type { KubeApi } from '../kube-api.js';
import type { OwnershipPolicy } from '../shared/options.js';

/**
 * Why the policy refuses to write over `live`, or undefined when it may: another ApplySet's object
 * (its parent named, with the tool that made it, when the parent can be read), or one no ApplySet
 * owns. An object `spread delete` of this same deployment released (`spread.rsprd.com/released-from`
 * is this ApplySet's id) is this deployment's again.
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
    const parent = await findParent(client, owner, live.metadata.namespace, signal);
    return parent
      ? otherApplySet(parent, policy)
      : `belongs to another deployment: its ${APPLYSET.partOf} label is ${owner}; rename the object, or deploy it from that deployment (adopting takes it over: ${optionRef('adopt')})`;
  }
  if (live.metadata.annotations?.[SPREAD.releasedFrom] === policy.applySetId) return undefined;
  // Like Helm, spread does not silently take over what it did not create: once applied, the
  // object would be pruned with this deployment (a hand-made Namespace with all it holds).
  return `exists, but no spread deployment owns it (no ${APPLYSET.partOf} label: made by hand or by another tool, or the label was removed); taking it over would make a later deploy without it delete it. Adopt it to take it over (${optionRef('adopt')}; with ${optionRef('force-conflicts')} where another manager owns its fields)`;
}

/** The ApplySet parent an object's part-of label names, as far as the message needs it. */
interface OwnerParent {
  /** `secret/spread.web`, `configmap/shop`. */
  readonly ref: string;
  readonly namespace: string;
  /** `applyset.kubernetes.io/tooling`: `spread/v0.4.0`, `kubectl/v1.34.4`; absent when it names none. */
  readonly tooling?: string;
  /** spread's: the deployment's name, and where it was deployed from (absent on older parents). */
  readonly deployment: string;
  readonly origin?: DeploymentOrigin;
}

/** Why an object of another ApplySet is refused, and the way out fitting who owns it. */
function otherApplySet(parent: OwnerParent, policy: OwnershipPolicy): string {
  const tooling = parent.tooling ?? '';
  if (!tooling.startsWith('spread/')) {
    const tool = tooling ? `${tooling.split('/')[0]} (${tooling})` : 'a tool its parent does not name';
    return `belongs to an ApplySet of ${tool}, not of spread: its parent is ${parent.ref} in ${parent.namespace}; rename the object, or remove it from that ApplySet (adopting takes it over: ${optionRef('adopt')})`;
  }
  const other = `spread deployment ${parent.namespace}/${parent.deployment}`;
  const self = policy.deployment;
  const flags = [
    self?.name !== parent.deployment ? `${optionRef('name')} ${parent.deployment}` : '',
    self?.namespace !== parent.namespace ? `${optionRef('namespace')} ${parent.namespace}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  if (!parent.origin)
    return `belongs to another deployment (${other}), whose parent records no origin (an older spread deployed it); if it is this directory's deployment under its earlier name or namespace, deploy with ${flags}; otherwise rename the object (adopting takes it over: ${optionRef('adopt')})`;
  const from = `${other}, deployed from ${formatOrigin(parent.origin)}`;
  const origin = self?.origin;
  if (origin && sameOrigin(origin, parent.origin))
    return `belongs to another deployment (${from}), of this same folder: its name or namespace changed (the folder's name, ${optionRef('name')}, or the context's namespace); deploy it as that deployment with ${flags}, or delete that one first (spread delete ${parent.deployment} -n ${parent.namespace})`;
  if (origin?.repository && origin.repository === parent.origin.repository)
    return `belongs to another deployment (${from}), of this repository: if this folder was moved or renamed from ${parent.origin.path}, deploy it as that deployment with ${flags} ${optionRef('adopt')} (which records the new path); otherwise rename the object`;
  return `belongs to another deployment (${from}); rename the object, or deploy it from there (adopting takes it over: ${optionRef('adopt')})`;
}

/**
 * The ApplySet parent whose `applyset.kubernetes.io/id` label is `id`: a Secret (spread's, and
 * `kubectl apply --applyset`'s default) or a ConfigMap, in the object's namespace, else in any
 * namespace (a cluster-scoped object's, or one in an additional namespace). Undefined when none can be
 * found or read (listing all namespaces needs a ClusterRole).
 */
async function findParent(
  client: KubeApi,
  id: string,
  namespace: string | undefined,
  signal?: AbortSignal,
): Promise<OwnerParent | undefined> {
  // A child in one of the ApplySet's additional namespaces has its parent in another: then any namespace.
  const where = [...(namespace ? [`/api/v1/namespaces/${encodeURIComponent(namespace)}`] : []), '/api/v1'];
  for (const [base, resource] of where.flatMap((b) =>
    ['secrets', 'configmaps'].map((r) => [b, r] as const),
  )) {
    try {
      const path = `${base}/${resource}`;
      const list = await client.request<{ items: KubeObject[] }>({
        method: 'GET',
        path,
        query: { labelSelector: `${APPLYSET.id}=${id}` },
        signal,
      });
      const parent = list.body.items.find((p) => p.metadata.labels?.[APPLYSET.id] === id);
      if (!parent) continue;
      const a = parent.metadata.annotations ?? {};
      const origin = originOfAnnotations(a);
      return {
        ref: `${resource === 'secrets' ? 'secret' : 'configmap'}/${parent.metadata.name}`,
        namespace: parent.metadata.namespace ?? '',
        ...(a[APPLYSET.tooling] ? { tooling: a[APPLYSET.tooling] } : {}),
        deployment: a[SPREAD.deployment] ?? (parent.metadata.name ?? '').replace(/^spread\./, ''),
        ...(origin ? { origin } : {}),
      };
    } catch {}
  }
  return undefined;
}
