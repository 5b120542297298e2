// Which objects prune and `spread delete` leave in the cluster because the object itself says so:
// spread's `spread.rsprd.com/prune: keep` and the same promise in Helm's, Argo CD's, Flux's and
// kapp's words, so a chart or manifests written for those tools keep what their authors protected.
import type { KubeObject, SourcedObject } from '../../base/kube-object.js';
import { APPLYSET, DEPLOY_ANNOTATION_KEYS, MANAGED_BY_SPREAD, SPREAD } from '../../base/labels.js';
import type { InputIssue } from '../../base/source.js';
import type { ClusterPort } from '../kube-api.js';
import { FIELD_MANAGER } from '../shared/options.js';
import type { ApplySet, PruneCandidate } from './applyset.js';

/** One annotation that keeps an object, and the tool whose words it is. */
export interface KeepAnnotation {
  readonly key: string;
  /** Whether the annotation's value asks to keep the object. */
  readonly keeps: (value: string) => boolean;
  /** `spread`, `Helm`, `Argo CD`, `Flux`, `kapp`. */
  readonly tool: string;
  /** The value as written in the docs (`keep`, `Prune=false`…). */
  readonly value: string;
}

/**
 * The annotations that keep an object out of prune, in the order they are checked:
 * - `spread.rsprd.com/prune: keep` — spread's own;
 * - `helm.sh/resource-policy: keep` — Helm leaves such a resource on uninstall and upgrade;
 * - `argocd.argoproj.io/sync-options` holding `Prune=false` in its comma list — Argo CD never prunes it;
 * - `kustomize.toolkit.fluxcd.io/prune: disabled` — Flux's kustomize-controller never prunes it;
 * - `kapp.k14s.io/delete-strategy: orphan` — kapp leaves it when it leaves the app.
 */
export const KEEP_ANNOTATIONS: readonly KeepAnnotation[] = [
  { key: SPREAD.prune, keeps: (v) => v === 'keep', tool: 'spread', value: 'keep' },
  { key: 'helm.sh/resource-policy', keeps: (v) => v === 'keep', tool: 'Helm', value: 'keep' },
  {
    key: 'argocd.argoproj.io/sync-options',
    keeps: (v) => v.split(',').some((o) => o.trim() === 'Prune=false'),
    tool: 'Argo CD',
    value: 'Prune=false',
  },
  {
    key: 'kustomize.toolkit.fluxcd.io/prune',
    keeps: (v) => v === 'disabled',
    tool: 'Flux',
    value: 'disabled',
  },
  { key: 'kapp.k14s.io/delete-strategy', keeps: (v) => v === 'orphan', tool: 'kapp', value: 'orphan' },
];

/**
 * Why an object's own annotations keep it (`annotated helm.sh/resource-policy: keep (Helm's
 * keep)`), or undefined when none does. Read on the object as live, which is what its last deploy
 * applied.
 */
export function keptByAnnotation(o: KubeObject): string | undefined {
  const annotations = o.metadata.annotations ?? {};
  for (const a of KEEP_ANNOTATIONS) {
    const value = annotations[a.key];
    if (value !== undefined && a.keeps(value))
      return `annotated ${a.key}: ${value}${a.tool === 'spread' ? '' : ` (${a.tool}'s keep)`}`;
  }
  return undefined;
}

/**
 * The objects whose `spread.rsprd.com/prune` is not `keep` (the only value it has): an error at
 * the object's place, since a misspelt keep would let prune delete what its author meant to keep.
 */
export function pruneAnnotationIssues(objects: readonly SourcedObject[]): InputIssue[] {
  return objects.flatMap((o) => {
    const value = o.object.metadata.annotations?.[SPREAD.prune];
    if (value === undefined || value === 'keep') return [];
    return [
      {
        source: o.source,
        object: `${o.object.kind} ${o.object.metadata.name ?? o.object.metadata.generateName ?? ''}`,
        message: `annotation ${SPREAD.prune}: ${JSON.stringify(value)} is not "keep" (its only value: leave the object in the cluster when the directory drops it)`,
        severity: 'error' as const,
      },
    ];
  });
}

/**
 * Removes spread's labels and annotations from an object this deployment leaves behind (kept by its
 * annotation, or a Namespace or CRD `spread delete` keeps), so that no ApplySet claims it: a JSON
 * merge patch of just those keys; the object's other labels stay. It is annotated
 * `spread.rsprd.com/released-from: <ApplySet id>`, so that a later deploy of the same deployment
 * (same name and namespace) takes it back as its own if the directory holds it again, while any
 * other deployment still refuses it.
 */
export async function releaseFromApplySet(
  client: ClusterPort,
  set: ApplySet,
  candidate: PruneCandidate,
): Promise<void> {
  const { object } = candidate;
  const labels: Record<string, null> = { [APPLYSET.partOf]: null };
  if (object.metadata.labels?.[SPREAD.managedBy] === MANAGED_BY_SPREAD) labels[SPREAD.managedBy] = null;
  const annotations: Record<string, string | null> = {
    ...Object.fromEntries([SPREAD.source, ...DEPLOY_ANNOTATION_KEYS].map((k) => [k, null])),
    // Recognisably this deployment's: its next deploy takes the object back without --adopt.
    [SPREAD.releasedFrom]: set.id,
  };
  await client.request({
    method: 'PATCH',
    path: candidate.path,
    query: { fieldManager: FIELD_MANAGER },
    body: { metadata: { labels, annotations } },
    contentType: 'application/merge-patch+json',
  });
}
