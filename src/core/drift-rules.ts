// Drift from a status report, without I/O: per object, the fields that differ and who changed them
// (field managers and times), less what is not drift: the built-in rules (an HPA's replicas, fields
// other managers set that the directory never declared, `kubectl rollout restart`) and spread.yaml's.
import { type FieldManagerEntry, type Ownership, ownersOf, pathSteps } from '../cluster/managers.js';
import type { FieldChange } from '../deployment/diff.js';
import type { DriftIgnoreRule } from '../project/drift.js';
import type { EntityStatus, ObjectStatus, StatusReport } from './status-report.js';

/** The owners of a changed field as status found them (items by key), else from the paths alone. */
function ownership(o: ObjectStatus, path: string): Ownership {
  const managers = o.managers ?? [];
  const found = o.owners?.find((x) => x.path === path);
  if (!found) return ownersOf(path, managers);
  const owners = found.managers.map((i) => managers[i]).filter((m) => m !== undefined);
  return { owners, ...(found.list ? { list: found.list } : {}) };
}

/** Who changed a field: one of the live object's field managers. */
export type ChangedBy = Omit<FieldManagerEntry, 'fields'>;

/** A field that differs, with the managers that own it now (empty: nobody but spread, e.g. a removal). */
export interface DriftField extends FieldChange {
  readonly changedBy: readonly ChangedBy[];
  /**
   * Set when no manager owns the changed list item itself (by its managedFields key): `changedBy`
   * are then the owners of this list (or of a map above it), not of the item.
   */
  readonly ownersOfList?: string;
}

/** A difference that is not drift, and the rule that says so. */
export interface IgnoredField {
  readonly path: string;
  /** `hpa`, `restarted-at`, `undeclared` (built in), or `spread.yaml:LINE`. */
  readonly rule: string;
  readonly reason: string;
}

/**
 * How an object drifted: `missing` (deleted, or never deployed), `differs` (fields below), `rejected`
 * (the server refused the dry run: `message`), `not in directory` (a deploy would prune it).
 */
export type DriftState = 'missing' | 'differs' | 'rejected' | 'not in directory';

/** One object of the deployment and how it drifted; `fields` hold no Secret value. */
export interface DriftedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly source: string;
  readonly state: DriftState;
  readonly fields: readonly DriftField[];
  readonly message?: string;
}

/** What a drift comparison may compare the cluster with (see DriftOptions.against). */
export type DriftAgainst = 'revision' | 'directory';

/**
 * What the cluster was compared with: the directory (with a note when a revision was asked for and
 * there is none), or the deployment's last deployed revision, its number, commit and time.
 */
export type ComparedWith =
  | { readonly against: 'directory'; readonly note?: string }
  | {
      readonly against: 'revision';
      readonly revision: number;
      readonly commit?: string;
      readonly time: string;
    };

/** The drift of one deployment (`spread status --all-environments -o json` prints one per environment). */
export interface DriftReport {
  readonly deployment: string;
  readonly namespace: string;
  readonly context?: string;
  /** Whether anything drifted (what is ignored does not count). */
  readonly drifted: boolean;
  readonly objects: readonly DriftedObject[];
  /** Differences that are not drift, per object (`Kind/name`). */
  readonly ignored: readonly (IgnoredField & { readonly object: string })[];
  /** What the cluster was compared with; absent when made by {@link driftOf} alone. */
  readonly comparedWith?: ComparedWith;
}

/** What {@link driftOf} needs besides the status. */
export interface DriftContext {
  /** Objects a HorizontalPodAutoscaler targets (`scaleTargetRef`), as `Kind/namespace/name`. */
  readonly hpaTargets: ReadonlySet<string>;
  /** spread.yaml's `drift.ignoreDifferences`. */
  readonly rules: readonly DriftIgnoreRule[];
}

/** The annotation `kubectl rollout restart` sets on a pod template (kubectl's polymorphichelpers). */
export const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';

const RESTARTED_AT_STEPS = ['spec', 'template', 'metadata', 'annotations', RESTARTED_AT];

/**
 * The field managers the API server records for a person's kubectl commands (kubectl's
 * `--field-manager` defaults, checked on Kubernetes 1.34): `kubectl edit`, `patch`, `apply` without
 * `--server-side` (`kubectl-client-side-apply`), `scale` (`kubectl` through the scale subresource,
 * `kubectl-scale` otherwise), `label`, `annotate`, `set`, `rollout`, `replace`. A field one of them
 * added that the deployment does not declare is drift; a controller's is not (docs/drift.md).
 */
export const HUMAN_MANAGERS: ReadonlySet<string> = new Set([
  'kubectl',
  'kubectl-edit',
  'kubectl-patch',
  'kubectl-client-side-apply',
  'kubectl-scale',
  'kubectl-label',
  'kubectl-annotate',
  'kubectl-set',
  'kubectl-rollout',
  'kubectl-replace',
]);

const SCALED_KINDS = new Set(['Deployment', 'StatefulSet', 'ReplicaSet', 'ReplicationController']);

/**
 * The drift of a status report compared with a cluster: every object not `in sync`, each differing
 * field with its owners ({@link ownersOf}), less the fields a rule ignores; an object whose every
 * difference is ignored is not drifted. Built-in rules, each where kubectl and Argo CD agree or the
 * cluster itself says so (docs/drift.md gives the reasons):
 * - `undeclared`: fields a controller set that the directory does not declare (a webhook's sidecar):
 *   a deploy leaves them, and neither `kubectl diff` nor Argo CD shows them; the same fields added by a
 *   person's kubectl ({@link HUMAN_MANAGERS}: `kubectl edit`, `label`…) are drift;
 * - `restarted-at`: the pod template's `kubectl.kubernetes.io/restartedAt` of `kubectl rollout restart`;
 * - `hpa`: `spec.replicas` of an object a HorizontalPodAutoscaler targets.
 */
export function driftOf(report: StatusReport, context: DriftContext): DriftReport {
  const objects: DriftedObject[] = [];
  const ignored: (IgnoredField & { object: string })[] = [];
  for (const o of objectsOf(report.root)) {
    if (o.state === undefined || o.state === 'in sync') continue;
    const ref = `${o.kind}/${o.name}`;
    const base = identity(o);
    if (o.state !== 'differs') {
      objects.push({ ...base, state: o.state, fields: [], ...(o.message ? { message: o.message } : {}) });
      continue;
    }
    const fields: DriftField[] = [];
    for (const change of o.changes ?? []) {
      const { owners, list } = ownership(o, change.path);
      const rule = ignoreRule(o, change.path, owners, context);
      const byKey = rule
        ? undefined
        : ignoredKeys(change, (path) => ignoreRule(o, path, ownership(o, path).owners, context));
      if (rule) ignored.push({ object: ref, path: change.path, ...rule });
      else if (byKey) ignored.push(...byKey.map((i) => ({ object: ref, ...i })));
      else
        fields.push({
          ...change,
          changedBy: owners.map(({ fields: _, ...m }) => m),
          ...(list ? { ownersOfList: list } : {}),
        });
    }
    // Fields a person's kubectl added, shown `- path: live value` (the directory has none).
    let added = false;
    for (const f of o.foreign ?? [])
      f.fields.forEach((path, i) => {
        const field = { op: 'remove' as const, path, before: f.values?.[i] ?? '(set)' };
        const rule = undeclaredRule(o, f.manager, path, context);
        const byKey = rule
          ? undefined
          : ignoredKeys(field, (key) => undeclaredRule(o, f.manager, key, context));
        if (rule) ignored.push({ object: ref, path, ...rule });
        else if (byKey) ignored.push(...byKey.map((i) => ({ object: ref, ...i })));
        else {
          added = true;
          fields.push({ ...field, changedBy: changedBy(o, f.manager) });
        }
      });
    // A difference the dry run could not list (its Namespace or CRD comes with the deploy) is drift.
    if (fields.length > 0 || (!o.changes && !o.foreign))
      objects.push({
        ...base,
        state: 'differs',
        fields,
        ...(o.message && (!o.foreign || added) ? { message: o.message } : {}),
      });
  }
  for (const o of report.notInDirectory ?? [])
    objects.push({ ...identity(o), state: 'not in directory', fields: [], message: 'a deploy prunes it' });
  return {
    deployment: report.deployment,
    namespace: report.namespace,
    ...(report.context !== undefined ? { context: report.context } : {}),
    drifted: objects.length > 0,
    objects,
    ignored,
  };
}

/**
 * The rule that makes a field another manager added, and the directory does not declare, no drift:
 * `undeclared` for a controller's (not one of {@link HUMAN_MANAGERS}), `restarted-at`, or a rule of
 * spread.yaml; undefined for a person's kubectl: drift.
 */
function undeclaredRule(
  o: ObjectStatus,
  manager: string,
  path: string,
  context: DriftContext,
): Omit<IgnoredField, 'path'> | undefined {
  if (!HUMAN_MANAGERS.has(manager))
    return {
      rule: 'undeclared',
      reason: `set by ${manager}, not a person's kubectl; the directory does not declare it and a deploy leaves it`,
    };
  if (
    path === `spec.template.metadata.annotations.${RESTARTED_AT}` ||
    sameSteps(pathSteps(path, true), RESTARTED_AT_STEPS)
  )
    return {
      rule: 'restarted-at',
      reason: 'kubectl rollout restart restarts pods; it changes no configuration',
    };
  return ignoreRule(o, path, o.managers?.filter((m) => m.manager === manager) ?? [], context, false);
}

/**
 * A map added, removed or replaced whole (the diff, or a foreign manager's fields, name the map when
 * one side has none: `kubectl rollout restart` of a template without annotations gives
 * `spec.template.metadata.annotations`) whose every differing key `ruleOf` ignores (given the key's
 * path, `map["key"]`): those keys, each with its rule; else undefined (drift).
 * A value the diff shortened (over 120 characters, `…`) cannot be read per key: drift.
 */
function ignoredKeys(
  change: FieldChange,
  ruleOf: (path: string) => Omit<IgnoredField, 'path'> | undefined,
): IgnoredField[] | undefined {
  const before = mapOf(change.before);
  const after = mapOf(change.after);
  if ((!before && change.before !== undefined) || (!after && change.after !== undefined)) return undefined;
  if (!before && !after) return undefined;
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  const out: IgnoredField[] = [];
  for (const key of keys) {
    if (JSON.stringify(before?.[key]) === JSON.stringify(after?.[key])) continue;
    const path = `${change.path}[${JSON.stringify(key)}]`;
    const rule = ruleOf(path);
    if (!rule) return undefined;
    out.push({ path, ...rule });
  }
  return out.length > 0 ? out : undefined;
}

/** A field change's value (JSON text) as a map, or undefined (absent, not a map, or shortened). */
function mapOf(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The entries of `manager` on the object, as a field's changedBy (the manager alone when none is listed). */
function changedBy(o: ObjectStatus, manager: string): ChangedBy[] {
  const entries = (o.managers ?? []).filter((m) => m.manager === manager);
  return entries.length > 0 ? entries.map(({ fields: _, ...m }) => m) : [{ manager }];
}

/** The rule that makes a changed field no drift, or undefined. */
function ignoreRule(
  o: ObjectStatus,
  path: string,
  owners: readonly FieldManagerEntry[],
  context: DriftContext,
  builtIn = true,
): Omit<IgnoredField, 'path'> | undefined {
  const steps = pathSteps(path, true);
  const key = `${o.kind}/${o.namespace ?? ''}/${o.name}`;
  if (
    builtIn &&
    SCALED_KINDS.has(o.kind) &&
    sameSteps(steps, ['spec', 'replicas']) &&
    context.hpaTargets.has(key)
  )
    return { rule: 'hpa', reason: 'a HorizontalPodAutoscaler targets the object and sets its replicas' };
  if (builtIn && sameSteps(steps, RESTARTED_AT_STEPS))
    return {
      rule: 'restarted-at',
      reason: 'kubectl rollout restart restarts pods; it changes no configuration',
    };
  for (const r of context.rules) {
    if (!ruleSelects(r, o)) continue;
    if (r.jsonPointers.some((p) => pointerCovers(p, steps)))
      return { rule: r.source, reason: 'a jsonPointers rule of spread.yaml' };
    const managers = new Set(r.managedFieldsManagers);
    if (owners.length > 0 && owners.every((m) => managers.has(m.manager)))
      return {
        rule: r.source,
        reason: `set by ${owners.map((m) => m.manager).join(', ')} (managedFieldsManagers of spread.yaml)`,
      };
  }
  return undefined;
}

/** Whether rule `r` names object `o` (its group, kind, name, namespace; `*` for any group or kind). */
export function ruleSelects(
  r: DriftIgnoreRule,
  o: Pick<ObjectStatus, 'apiVersion' | 'kind' | 'name' | 'namespace'>,
): boolean {
  const group = o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : '';
  return (
    (r.group === '*' || r.group === group) &&
    (r.kind === '*' || r.kind === o.kind) &&
    (r.name === undefined || r.name === o.name) &&
    (r.namespace === undefined || r.namespace === (o.namespace ?? ''))
  );
}

/** Whether the JSON pointer (RFC 6901) names the field at `steps` or a map or list that holds it. */
export function pointerCovers(pointer: string, steps: readonly string[]): boolean {
  const tokens = pointer
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  return tokens.length <= steps.length && tokens.every((t, i) => t === steps[i]);
}

function sameSteps(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

function objectsOf(e: EntityStatus): ObjectStatus[] {
  return [...(e.object ? [e.object] : []), ...e.objects, ...e.children.flatMap(objectsOf)];
}

function identity(
  o: ObjectStatus,
): Pick<DriftedObject, 'apiVersion' | 'kind' | 'namespace' | 'name' | 'source'> {
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    ...(o.namespace ? { namespace: o.namespace } : {}),
    name: o.name,
    source: o.source,
  };
}
