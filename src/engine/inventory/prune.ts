import {
  formatObject,
  formatObjectRef,
  isCoreNamespace,
  isCrd,
  type KubeObject,
  type SourcedObject,
} from '../../base/kube-object.js';
import { formatSource } from '../../base/source.js';
import { KubeApiError } from '../../cluster/client.js';
import { crdDefinition } from '../apply/crd.js';
import type { ClusterPort } from '../kube-api.js';
import type { PruneCandidate } from './applyset.js';
import { findForeignObjects, type NamespaceContents } from './foreign.js';
import { keptByAnnotation, misspeltKeep, type Removal } from './prune-policy.js';

/** A prune candidate that is not deleted, and why (one sentence, for the report). */
export interface KeptObject {
  readonly candidate: PruneCandidate;
  readonly reason: string;
  /**
   * Kept by its own annotation ({@link keptByAnnotation}): it leaves the ApplySet for good (its
   * part-of label removed, {@link releaseFromApplySet}), as kubectl's applyset leaves an object it
   * no longer owns. Other kept objects (a Namespace still in use, a CRD) stay in the set.
   */
  readonly released?: boolean;
  /** A Helm hook this deploy does not run (`notRun`, `keepHooks`): the directory may still hold it. */
  readonly notRun?: boolean;
  /**
   * Kept because its `spread.rsprd.com/prune` annotation is not `keep` ({@link misspeltKeep}): a
   * warning, not a plain note, and it stays in the ApplySet so that each deploy says it again.
   */
  readonly warning?: boolean;
  /** A Job or Pod the failed deploy a rollback undoes ran (`ran`): kept, with its logs, in the set. */
  readonly ran?: boolean;
}

/**
 * Why an object is kept, as the step log says it after `kept: `: a hook not run is not one the
 * directory dropped (it may hold it), so it says so rather than "the directory dropped it".
 */
export function keptWhy(k: KeptObject): string {
  if (k.ran) return k.reason;
  return k.notRun
    ? `a hook this deploy does not run (${k.reason})`
    : `the directory dropped it, but ${k.reason}`;
}

/** The prune candidates split into those deleted and those kept; see {@link splitPrune}. */
export interface PruneDecision {
  /** The candidates that prune deletes. */
  readonly pruned: PruneCandidate[];
  readonly kept: KeptObject[];
  /** For each CRD in `pruned`: how many custom resources deleting it deletes. */
  readonly notes: Map<PruneCandidate, string>;
}

/**
 * Splits prune candidates into those deleted and those kept (one prune policy, for deploy, plan,
 * status and delete):
 * - an object whose own annotations keep it (`spread.rsprd.com/prune: keep`, Helm's
 *   `helm.sh/resource-policy: keep`, Argo CD's `Prune=false`, Flux's `prune: disabled`, kapp's
 *   `delete-strategy: orphan`; {@link keptByAnnotation}) is kept and released from the ApplySet,
 *   unless `includeKept` (`spread delete --include-kept`); `removal: 'delete'` reads the annotations
 *   that keep only from `spread delete` too (Argo CD's `Delete=false`);
 * - an object whose `spread.rsprd.com/prune` has another value (`Keep`) is kept with a `warning`,
 *   in the set ({@link misspeltKeep}), unless `includeKept`;
 * - a Namespace or CRD that an object kept by its annotation is in or of is kept, since deleting it
 *   would delete that object ({@link holdsKept});
 * - a Namespace that still holds objects of `plan` is kept, since deleting it would delete them (the
 *   Namespace lifecycle); so is one that holds objects not of the deployment (made by hand, another
 *   deployment's), as `foreign` finds them ({@link findForeignObjects});
 * - a CustomResourceDefinition that objects of `plan` are of (their CRD left the directory, they did
 *   not) is always kept, `pruneCrds` or not: deleting it would delete them right after their apply;
 * - any other CustomResourceDefinition is kept unless `pruneCrds` (Helm's rule: deleting a CRD deletes every
 *   custom resource of it, whoever made them); its custom resources are counted (one LIST with
 *   `limit=1`, counted by `metadata.remainingItemCount`) for the report, kept or pruned.
 */
export async function splitPrune(
  client: ClusterPort,
  candidates: readonly PruneCandidate[],
  plan: readonly SourcedObject[],
  options: {
    readonly pruneCrds?: boolean;
    /** Delete objects whose annotations ask to be kept too (`spread delete --include-kept`). */
    readonly includeKept?: boolean;
    /**
     * Objects of the directory this deploy does not run (a Helm hook of another event: an
     * install-only hook on an upgrade), by {@link objectKey}, each with why: the live one is kept in
     * the set, neither applied nor pruned, as Helm never deletes a hook that does not run. For a
     * hook named by `generateName`, every live object made from it ({@link generatedKey}).
     */
    readonly notRun?: ReadonlyMap<string, string>;
    /**
     * Keep every Helm hook (a live object annotated `helm.sh/hook`), with this reason: a rollback
     * runs no hook, and Helm's deletes none.
     */
    readonly keepHooks?: string;
    /**
     * The Jobs and Pods a failed deploy ran, by {@link objectKey}, each with why: a rollback after
     * it keeps them as they are, since they hold the failure's logs (docs/phases.md).
     */
    readonly ran?: ReadonlyMap<string, string>;
    /** Prune (default) or `spread delete`, for the annotations that keep only from one. */
    readonly removal?: Removal;
    /** What a Namespace holds besides the deployment's objects; unchecked when absent. */
    readonly foreign?: (namespace: string) => Promise<NamespaceContents>;
  } = {},
): Promise<PruneDecision> {
  const used = new Set(plan.map((o) => o.object.metadata.namespace).filter(Boolean));
  const pruned: PruneCandidate[] = [];
  const kept: KeptObject[] = [];
  const notes = new Map<PruneCandidate, string>();
  const annotatedKept = keptByAnnotations(candidates, options);
  for (const c of candidates) {
    const annotated = annotatedKept.get(c);
    const holds = annotated ? undefined : holdsKept(c, [...annotatedKept.keys()]);
    const notRun = notRunReason(c.object, options);
    const ran = options.ran?.get(objectKey(c.object));
    if (ran) {
      kept.push({ candidate: c, reason: ran, ran: true });
    } else if (notRun) {
      kept.push({ candidate: c, reason: `${notRun}; Helm deletes no hook it does not run`, notRun: true });
    } else if (annotated?.misspelt) {
      kept.push({ candidate: c, reason: annotated.reason, warning: true });
    } else if (annotated) {
      kept.push({ candidate: c, reason: `${annotated.reason}: ${RELEASED}`, released: true });
    } else if (holds) {
      kept.push({ candidate: c, reason: holds });
    } else if (isCoreNamespace(c.object) && used.has(c.object.metadata.name)) {
      kept.push({ candidate: c, reason: 'objects of this deployment are still in it' });
    } else if (isCoreNamespace(c.object) && options.foreign) {
      const contents = await options.foreign(c.object.metadata.name ?? '');
      if (contents.foreign.length > 0 || contents.unlisted.length > 0)
        kept.push({ candidate: c, reason: foreignReason(contents) });
      else pruned.push(c);
    } else if (isCrd(c.object) && needing(c.object, plan).length > 0) {
      kept.push({ candidate: c, reason: neededReason(needing(c.object, plan)) });
    } else if (isCrd(c.object)) {
      // Custom resources of it that this prune deletes anyway are not counted as going with it.
      const defines = crdDefinition(c.object);
      const ownPruned = candidates.filter(
        (x) => x.object.kind === defines?.kind && x.object.apiVersion.split('/')[0] === defines?.group,
      ).length;
      const held = await countCustomResources(client, c.object, ownPruned);
      if (options.pruneCrds) {
        pruned.push(c);
        notes.set(c, `deletes ${held} with it`);
      } else {
        kept.push({
          candidate: c,
          reason: `a CRD is pruned only when asked for, since deleting it deletes its ${held}`,
        });
      }
    } else pruned.push(c);
  }
  return { pruned, kept, notes };
}

/** Why a live object is a hook this deploy does not run ({@link splitPrune}'s `notRun`, `keepHooks`). */
function notRunReason(
  o: KubeObject,
  options: { readonly notRun?: ReadonlyMap<string, string>; readonly keepHooks?: string },
): string | undefined {
  return (
    options.notRun?.get(objectKey(o)) ??
    (o.metadata.generateName ? options.notRun?.get(generatedKey(o)) : undefined) ??
    (options.keepHooks && o.metadata.annotations?.['helm.sh/hook'] ? options.keepHooks : undefined)
  );
}

/**
 * An object's identity for {@link splitPrune}'s `notRun`: group, kind, namespace and name; for one
 * the server names (`generateName`), its {@link generatedKey}.
 */
export function objectKey(o: KubeObject): string {
  if (o.metadata.name === undefined && o.metadata.generateName) return generatedKey(o);
  return [groupOf(o.apiVersion), o.kind, o.metadata.namespace ?? '', o.metadata.name ?? ''].join('/');
}

/**
 * The identity every object made from one `generateName` template shares, the directory's and each
 * live one the server named from it: group, kind, namespace and `generateName*`.
 */
export function generatedKey(o: KubeObject): string {
  return [
    groupOf(o.apiVersion),
    o.kind,
    o.metadata.namespace ?? '',
    `${o.metadata.generateName ?? ''}*`,
  ].join('/');
}

/** Why an object's own annotations keep it; `misspelt` when it is spread's with a value not `keep`. */
export interface AnnotationKeep {
  readonly reason: string;
  readonly misspelt?: boolean;
}

/**
 * The candidates their own annotations keep (none with `includeKept`), each with why: by a keep
 * annotation ({@link keptByAnnotation}), or by spread's with another value ({@link misspeltKeep}).
 */
export function keptByAnnotations(
  candidates: readonly PruneCandidate[],
  options: { readonly includeKept?: boolean | undefined; readonly removal?: Removal | undefined },
): Map<PruneCandidate, AnnotationKeep> {
  const kept = new Map<PruneCandidate, AnnotationKeep>();
  if (options.includeKept) return kept;
  const removal = options.removal ?? 'prune';
  for (const c of candidates) {
    const reason = keptByAnnotation(c.object, removal);
    const misspelt = reason ? undefined : misspeltKeep(c.object, removal);
    if (reason) kept.set(c, { reason });
    else if (misspelt) kept.set(c, { reason: misspelt, misspelt: true });
  }
  return kept;
}

/**
 * Why a Namespace or CRD stays because objects kept by their annotation (`kept`) are in it or of it:
 * deleting the Namespace, or the CRD, would delete them, breaking the promise their annotation
 * makes. Undefined for any other candidate, or when none is.
 */
export function holdsKept(c: PruneCandidate, kept: readonly PruneCandidate[]): string | undefined {
  let held: PruneCandidate[] = [];
  let what = '';
  if (isCoreNamespace(c.object)) {
    held = kept.filter((k) => k.object.metadata.namespace === c.object.metadata.name);
    what = 'it holds';
  } else if (isCrd(c.object)) {
    const defines = crdDefinition(c.object);
    held = kept.filter(
      (k) => k.object.kind === defines?.kind && groupOf(k.object.apiVersion) === defines?.group,
    );
    what = 'custom resources of it are';
  }
  if (held.length === 0) return undefined;
  const names = held.slice(0, FOREIGN_NAMES).map((k) => formatObject(k.object));
  const more = held.length - names.length;
  const list = `${names.join(', ')}${more > 0 ? `, … and ${more} more` : ''}`;
  const one = held.length === 1;
  const by = `kept by ${one ? 'its' : 'their'} annotation`;
  return what === 'it holds'
    ? `it holds ${held.length} object${one ? '' : 's'} ${by} (${list}), which deleting it would delete`
    : `its custom resource${one ? '' : 's'} ${list} ${one ? 'is' : 'are'} ${by}, which deleting it would delete`;
}

/** What happens to an object kept by its annotation, said in every report that lists it. */
export const RELEASED = 'left in the cluster and released from the ApplySet (its part-of label removed)';

/** The objects of `plan` whose GroupKind the CRD defines, in any version. */
function needing(crd: KubeObject, plan: readonly SourcedObject[]): SourcedObject[] {
  const defines = crdDefinition(crd);
  if (!defines) return [];
  return plan.filter((o) => o.object.kind === defines.kind && groupOf(o.object.apiVersion) === defines.group);
}

function groupOf(apiVersion: string): string {
  return apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.lastIndexOf('/')) : '';
}

/**
 * Why a CRD the directory still needs stays: `the directory still declares 12 of its custom
 * resources (ServiceMonitor.monitoring.coreos.com monitoring/a (.k2e/sm.yaml:1), …), which deleting
 * it would delete: …`.
 */
function neededReason(objects: readonly SourcedObject[]): string {
  const names = objects
    .slice(0, FOREIGN_NAMES)
    .map((o) => `${formatObject(o.object)} (${formatSource(o.source)})`);
  const more = objects.length - names.length;
  return `the directory still declares ${objects.length} of its custom resource${objects.length === 1 ? '' : 's'} (${names.join(', ')}${more > 0 ? `, … and ${more} more` : ''}), which deleting it would delete: add the CRD's file back, or remove them too`;
}

/** Names shown of the objects that keep a Namespace. */
const FOREIGN_NAMES = 5;

/**
 * Why a Namespace stays: `it holds 2 objects not of this deployment (configmap/a, secret/b), which
 * deleting it would delete` — a few named, then a count —; and the kinds it could not be checked for.
 */
export function foreignReason(contents: NamespaceContents): string {
  const parts: string[] = [];
  const { foreign, unlisted } = contents;
  if (foreign.length > 0) {
    const names = foreign
      .slice(0, FOREIGN_NAMES)
      .map(
        (o) =>
          `${formatObjectRef(o, { group: true })}${o.applySet ? ` (of spread deployment ${o.applySet})` : ''}`,
      );
    const more = foreign.length - names.length;
    parts.push(
      `it holds ${foreign.length} object${foreign.length === 1 ? '' : 's'} not of this deployment (${names.join(', ')}${more > 0 ? `, … and ${more} more` : ''}), which deleting it would delete`,
    );
  }
  if (unlisted.length > 0) {
    const more = unlisted.length - FOREIGN_NAMES;
    parts.push(
      `it could not be checked for ${unlisted.slice(0, FOREIGN_NAMES).join(', ')}${more > 0 ? `, … and ${more} more kinds` : ''}, which may hold objects not of this deployment`,
    );
  }
  return parts.join('; ');
}

/**
 * "3 custom resources" of a CRD as the cluster has it (every namespace), less `minus` (those pruned
 * with it anyway); "custom resources" when they cannot be listed.
 */
async function countCustomResources(client: ClusterPort, crd: KubeObject, minus = 0): Promise<string> {
  const defines = crdDefinition(crd);
  if (!defines?.plural || !defines.storage) return 'custom resources';
  try {
    const list = await client.request<{ items?: unknown[]; metadata?: { remainingItemCount?: number } }>({
      method: 'GET',
      path: `/apis/${defines.group}/${defines.storage}/${defines.plural}`,
      query: { limit: '1' },
    });
    const n = Math.max(
      0,
      (list.body.items?.length ?? 0) + (list.body.metadata?.remainingItemCount ?? 0) - minus,
    );
    return `${n} custom resource${n === 1 ? '' : 's'}`;
  } catch (error) {
    if (error instanceof KubeApiError && error.code === 404) return '0 custom resources';
    return 'custom resources (they could not be counted)';
  }
}
