// Which objects prune and `spread delete` leave in the cluster because the object itself says so:
// spread's `spread.rsprd.com/prune: keep` and the same promise in Helm's, Argo CD's, Flux's and
// kapp's words, so a chart or manifests written for those tools keep what their authors protected.
import type { KubeObject } from '../../base/kube-object.js';
import { APPLYSET, DEPLOY_ANNOTATION_KEYS, MANAGED_BY_SPREAD, SPREAD } from '../../base/labels.js';
import type { ClusterPort } from '../kube-api.js';
import { FIELD_MANAGER } from '../shared/options.js';
import type { ApplySet, PruneCandidate } from './applyset.js';

/** What removes an object: prune (the directory dropped it) or `spread delete` (the whole deployment). */
export type Removal = 'prune' | 'delete';

/** One annotation that keeps an object, and the tool whose words it is. */
export interface KeepAnnotation {
  readonly key: string;
  /**
   * Whether the annotation's value asks to keep the object from `removal`: undefined when not, else
   * what the report says after the annotation (`Helm's keep`, or why a confirmation keeps it).
   */
  readonly keeps: (value: string, removal: Removal) => string | undefined;
  /** `spread`, `Helm`, `Argo CD`, `Flux`, `kapp`. */
  readonly tool: string;
  /** The value as written in the docs (`keep`, `Prune=false`…). */
  readonly value: string;
  /** Whether the tool reads the key as a label too, when no annotation has it (Flux). */
  readonly label?: boolean;
}

/**
 * Argo CD's resource sync options (a comma list, white space trimmed, as Argo CD reads it):
 * `Prune=false` is never pruned (nor deleted, spread's reading since `spread delete` is a prune of
 * everything); `Prune=confirm` is pruned only once a user confirms, and spread has no confirmation,
 * so it keeps it; `Delete=false` stays when the Application is deleted (`spread delete`), not when
 * pruned; `Delete=confirm` likewise waits for a confirmation on delete.
 */
function argoKeeps(value: string, removal: Removal): string | undefined {
  const options = value.split(',').map((o) => o.trim());
  if (options.includes('Prune=false')) return "Argo CD's keep";
  if (options.includes('Prune=confirm'))
    return 'Argo CD would ask for a confirmation before pruning it; spread has no confirmation, so it keeps it: delete it by hand once sure';
  if (removal !== 'delete') return undefined;
  if (options.includes('Delete=false')) return "Argo CD's keep when the application is deleted";
  if (options.includes('Delete=confirm'))
    return 'Argo CD would ask for a confirmation before deleting it with the application; spread has no confirmation, so it keeps it: delete it by hand once sure';
  return undefined;
}

/**
 * The annotations that keep an object out of prune, in the order they are checked:
 * - `spread.rsprd.com/prune: keep` — spread's own;
 * - `helm.sh/resource-policy: keep` — Helm leaves such a resource on uninstall and upgrade (the
 *   value compared as Helm does, trimmed and in any case: `Keep` keeps);
 * - `argocd.argoproj.io/sync-options` holding `Prune=false` or `Prune=confirm` in its comma list, or
 *   for `spread delete` `Delete=false` or `Delete=confirm` ({@link argoKeeps});
 * - `kustomize.toolkit.fluxcd.io/prune: disabled` — Flux's kustomize-controller never prunes it;
 *   read as Flux reads it (fluxcd/pkg ssa `AnyInMetadata`: an annotation or a label, the value
 *   compared with `strings.EqualFold`, untrimmed: `Disabled` keeps);
 * - `kapp.k14s.io/delete-strategy: orphan` — kapp leaves it when it leaves the app; compared as
 *   kapp does (pkg/kapp/clusterapply `DeleteChange`: the annotation only, exactly `orphan`).
 */
export const KEEP_ANNOTATIONS: readonly KeepAnnotation[] = [
  { key: SPREAD.prune, keeps: (v) => (v === 'keep' ? '' : undefined), tool: 'spread', value: 'keep' },
  {
    key: 'helm.sh/resource-policy',
    // pkg/action/resource_policy.go: strings.ToLower(strings.TrimSpace(v)) == "keep".
    keeps: (v) => (v.trim().toLowerCase() === 'keep' ? "Helm's keep" : undefined),
    tool: 'Helm',
    value: 'keep',
  },
  { key: 'argocd.argoproj.io/sync-options', keeps: argoKeeps, tool: 'Argo CD', value: 'Prune=false' },
  {
    key: 'kustomize.toolkit.fluxcd.io/prune',
    keeps: (v) => (v.toLowerCase() === 'disabled' ? "Flux's keep" : undefined),
    tool: 'Flux',
    value: 'disabled',
    label: true,
  },
  {
    key: 'kapp.k14s.io/delete-strategy',
    keeps: (v) => (v === 'orphan' ? "kapp's keep" : undefined),
    tool: 'kapp',
    value: 'orphan',
  },
];

/**
 * Why an object's own annotations (or, for Flux's key, labels) keep it from `removal` (`annotated
 * helm.sh/resource-policy: keep (Helm's keep)`, `labelled kustomize.toolkit.fluxcd.io/prune: disabled
 * (Flux's keep)`), or undefined when none does. Read on the object as live, which is what its last
 * deploy applied.
 */
export function keptByAnnotation(o: KubeObject, removal: Removal = 'prune'): string | undefined {
  const annotations = o.metadata.annotations ?? {};
  const labels = o.metadata.labels ?? {};
  for (const a of KEEP_ANNOTATIONS) {
    for (const [how, value] of [
      ['annotated', annotations[a.key]],
      ['labelled', a.label ? labels[a.key] : undefined],
    ] as const) {
      const note = value === undefined ? undefined : a.keeps(value, removal);
      if (note !== undefined) return `${how} ${a.key}: ${value}${note ? ` (${note})` : ''}`;
    }
  }
  return undefined;
}

/**
 * Why an object whose `spread.rsprd.com/prune` annotation, as live, has a value other than `keep`
 * (`Keep`, `true`, `""`) is not removed either: a misspelt keep most likely meant keep, and a prune
 * cannot be undone. The directory's value is an input error (deployment/prune-annotation.ts), but
 * one set with kubectl on the cluster object is only seen here. Such an object is kept and warned
 * about, not released: it stays the deployment's, and each deploy says so until the annotation is
 * fixed (`keep`: released, as any kept object) or removed (pruned). Undefined when the annotation is
 * absent or `keep`. Only spread's own annotation gets this: the other tools' keep only on their exact
 * values, as their tools read them.
 */
export function misspeltKeep(o: KubeObject, removal: Removal = 'prune'): string | undefined {
  const value = o.metadata.annotations?.[SPREAD.prune];
  if (value === undefined || value === 'keep') return undefined;
  const verb = removal === 'delete' ? 'deleted' : 'pruned';
  return `annotated ${SPREAD.prune}: ${JSON.stringify(value)}, which is not "keep" (its only value): not ${verb}, since a misspelt keep may mean keep; annotate it keep to keep it, or remove the annotation to let spread delete it`;
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
