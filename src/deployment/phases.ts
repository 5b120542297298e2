// Where an object goes in a deploy's order: its phase (pre, main, post) and its wave inside the phase,
// from spread's annotations or, on input that carries them, Helm's and Argo CD's hook annotations.
// A hook the deploy cannot run (test, rollback, delete hooks) is reported and left out, never applied
// as a normal object. docs/phases.md is the user's side of this file.
import {
  groupKindOf,
  isCoreNamespace,
  isCrd,
  type KubeObject,
  nameOf,
  type SourcedObject,
} from '../base/kube-object.js';
import { formatSource, type InputIssue } from '../base/source.js';
import { likelyMeant } from '../base/spelling.js';

/** The phases of a deploy, in order. */
export const PHASES = ['pre', 'main', 'post'] as const;
export type Phase = (typeof PHASES)[number];

/** spread's own annotations, and the ecosystem's it reads (Helm "Chart Hooks", Argo CD "Sync Phases and Waves"). */
export const PHASE_ANNOTATIONS = {
  phase: 'spread.rsprd.com/phase',
  wave: 'spread.rsprd.com/wave',
  helmHook: 'helm.sh/hook',
  helmWeight: 'helm.sh/hook-weight',
  helmDeletePolicy: 'helm.sh/hook-delete-policy',
  argoHook: 'argocd.argoproj.io/hook',
  argoWave: 'argocd.argoproj.io/sync-wave',
  argoDeletePolicy: 'argocd.argoproj.io/hook-delete-policy',
} as const;

/**
 * When a hook object is deleted (Helm's `hook-delete-policy`, Argo CD's `hook-delete-policy`):
 * `beforeCreation`, the previous one is deleted and created again on every deploy (the default of
 * both tools); `succeeded`/`failed`, deleted once it is seen so.
 */
export interface DeletePolicy {
  readonly beforeCreation: boolean;
  readonly succeeded: boolean;
  readonly failed: boolean;
}

/** An object's place in the deploy's order. */
export interface Place {
  readonly phase: Phase;
  /** The wave inside the phase: lower first; 0 unless annotated. */
  readonly wave: number;
  /** Only for a Helm or Argo CD hook: the annotation that made it one, and its delete policy. */
  readonly hook?: { readonly from: string; readonly deletePolicy: DeletePolicy };
}

/** The place of an object no annotation places. */
export const MAIN: Place = { phase: 'main', wave: 0 };

/**
 * What the annotations say of one object: its place, or that it is not deployed (`skip`, a hook of an
 * event spread has no counterpart for), with `errors` (bad values: input errors) and `warnings`.
 */
export interface PlaceReading {
  readonly place?: Place;
  readonly skip?: string;
  readonly errors: string[];
  readonly warnings: string[];
}

const HELM_EVENTS: Readonly<Record<string, Phase | undefined>> = {
  'pre-install': 'pre',
  'pre-upgrade': 'pre',
  'post-install': 'post',
  'post-upgrade': 'post',
  'pre-delete': undefined,
  'post-delete': undefined,
  'pre-rollback': undefined,
  'post-rollback': undefined,
  test: undefined,
  'test-success': undefined,
  'test-failure': undefined,
};
const ARGO_HOOKS: Readonly<Record<string, Phase | undefined>> = {
  PreSync: 'pre',
  Sync: 'main',
  PostSync: 'post',
  SyncFail: undefined,
  PreDelete: undefined,
  PostDelete: undefined,
  Skip: undefined,
};
const HELM_POLICIES = {
  'before-hook-creation': 'beforeCreation',
  'hook-succeeded': 'succeeded',
  'hook-failed': 'failed',
} as const;
const ARGO_POLICIES = {
  BeforeHookCreation: 'beforeCreation',
  HookSucceeded: 'succeeded',
  HookFailed: 'failed',
} as const;

/** A wave: an integer, written as a string (an annotation's value), as Helm and Argo CD parse it. */
function waveOf(value: string | undefined, key: string, errors: string[]): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  const n = /^[+-]?\d+$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isSafeInteger(n) && Math.abs(n) <= 2 ** 31 - 1) return n;
  errors.push(
    `annotation ${key}: "${value}" is not an integer (a wave is a whole number, e.g. "-1", "0", "5")`,
  );
  return undefined;
}

/**
 * A Helm hook's weight as Helm reads it (`calculateHookWeight`: `strconv.Atoi`, 0 when that fails):
 * a weight that is not an integer is wave 0, with a warning, where spread's own wave is an error.
 */
function helmWeightOf(value: string | undefined, warnings: string[]): number | undefined {
  if (value === undefined) return undefined;
  const n = /^[+-]?\d+$/.test(value) ? Number(value) : Number.NaN;
  if (Number.isSafeInteger(n)) return n;
  warnings.push(
    `annotation ${PHASE_ANNOTATIONS.helmWeight}: "${value}" is not an integer; wave 0, as Helm reads it`,
  );
  return 0;
}

/**
 * An Argo CD sync wave as Argo CD reads it (gitops-engine syncwaves `Wave`: `strconv.Atoi` of the
 * value, untrimmed; when that fails, the Helm hook weight, else 0): a value that is not an integer
 * (`" 1"` too) is left unread, with a warning, where spread's own wave is an error.
 */
function argoWaveOf(value: string | undefined, warnings: string[]): number | undefined {
  if (value === undefined) return undefined;
  const n = /^[+-]?\d+$/.test(value) ? Number(value) : Number.NaN;
  if (Number.isSafeInteger(n)) return n;
  warnings.push(
    `annotation ${PHASE_ANNOTATIONS.argoWave}: "${value}" is not an integer; ignored as Argo CD ignores it (wave 0, or a Helm hook's weight)`,
  );
  return undefined;
}

/** A Helm hook annotation's events as Helm reads them (`strings.ToLower(strings.TrimSpace(…))` each). */
function helmEventsOf(value: string): string[] {
  return listOf(value).map((e) => e.toLowerCase());
}

function listOf(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * The place of `object` in the deploy's order (see {@link PlaceReading}). spread's annotations win
 * over Helm's and Argo CD's; an object with none of them is in the main phase, wave 0.
 */
export function readPlace(object: KubeObject): PlaceReading {
  const a = object.metadata.annotations ?? {};
  const errors: string[] = [];
  const warnings: string[] = [];
  const K = PHASE_ANNOTATIONS;
  const hook = hookOf(a, warnings);
  if ('skip' in hook) return { skip: hook.skip, errors, warnings };
  let phase: Phase = hook.phase ?? 'main';
  const own = a[K.phase];
  if (own !== undefined) {
    if ((PHASES as readonly string[]).includes(own.trim())) phase = own.trim() as Phase;
    else errors.push(`annotation ${K.phase}: "${own}" is not a phase; use pre, main or post`);
  }
  const ownWave = waveOf(a[K.wave], K.wave, errors);
  const argoWave = argoWaveOf(a[K.argoWave], warnings);
  // Helm reads a hook's weight on hooks only.
  const helmWave = hook.from === K.helmHook ? helmWeightOf(a[K.helmWeight], warnings) : undefined;
  const wave = ownWave ?? argoWave ?? helmWave ?? 0;
  const place: Place = {
    phase,
    wave,
    ...(hook.from ? { hook: { from: hook.from, deletePolicy: deletePolicyOf(a, hook.from, warnings) } } : {}),
  };
  return { place, errors, warnings };
}

/** The phase a Helm or Argo CD hook annotation gives, or why the object is not deployed. */
function hookOf(
  a: Readonly<Record<string, string>>,
  warnings: string[],
): { phase?: Phase; from?: string } | { skip: string } {
  const K = PHASE_ANNOTATIONS;
  // Argo CD's hook annotation wins over Helm's when it names a hook type Argo CD knows (gitops-engine
  // hook.Types: "we ignore Helm hooks if we have Argo hook").
  for (const [key, table] of [
    [K.argoHook, ARGO_HOOKS],
    [K.helmHook, HELM_EVENTS],
  ] as const) {
    const value = a[key];
    if (value === undefined) continue;
    const events = key === K.helmHook ? helmEventsOf(value) : listOf(value);
    const unknown = events.filter((e) => !Object.hasOwn(table, e));
    if (key === K.argoHook && a[K.helmHook] !== undefined && unknown.length === events.length) {
      if (unknown.length > 0) warnings.push(`${unknownHooks(key, unknown)}; ${K.helmHook} is read instead`);
      continue;
    }
    const phases = new Set<Phase>();
    const unsupported: string[] = [];
    for (const e of events) {
      const p = Object.hasOwn(table, e) ? table[e] : undefined;
      if (p) phases.add(p);
      else if (!unknown.includes(e)) unsupported.push(e);
    }
    if (phases.size === 0) return { skip: skipped(key, value, unknown, unsupported) };
    if (unknown.length > 0)
      warnings.push(`${unknownHooks(key, unknown)}, ignored; the hook runs as ${[...phases].join(', ')}`);
    // Argo CD skips only a hook whose one type is Skip (gitops-engine hook.Skip): beside another
    // type, Skip is ignored and the hook runs.
    if (unsupported.length > 0)
      warnings.push(
        `annotation ${key}: ${unsupported.join(', ')} not run by spread; the hook runs as ${[...phases].join(', ')}${unsupported.includes('Skip') ? ' (Argo CD ignores Skip beside another hook type)' : ''}`,
      );
    const phase: Phase = phases.has('pre') ? 'pre' : phases.has('main') ? 'main' : 'post';
    if (phases.size > 1)
      warnings.push(
        `annotation ${key}: ${value} names more than one phase; spread runs the hook once, in ${phase}`,
      );
    return { phase, from: key };
  }
  return {};
}

/** Why a hook annotation that gives no phase leaves its object out: Skip, unknown or unsupported types. */
function skipped(key: string, value: string, unknown: string[], unsupported: string[]): string {
  if (value.trim() === 'Skip') return `annotated ${key}: Skip`;
  const notRun = `a hook (${key}: ${value}) of an event spread does not run (it runs pre-install/pre-upgrade, post-install/post-upgrade, PreSync, Sync and PostSync hooks)`;
  if (unknown.length === 0) return notRun;
  // Helm runs no hook of an event it does not know (releaseutil SortManifests keeps only known
  // events); gitops-engine's hook.Types drops unknown Argo CD types, so such a hook never runs.
  const tool = key === PHASE_ANNOTATIONS.helmHook ? 'Helm skips it too' : 'Argo CD never runs it either';
  return `${unknownHooks(key, unknown)}: ${tool}${unsupported.length > 0 ? `; ${notRun}` : ''}`;
}

/**
 * `annotation helm.sh/hook: "pre-instal" is not a Helm hook event (did you mean pre-install? known:
 * …)`: the unknown events or types, the likely ones meant, and the known ones (Helm's events in lower
 * case, as Helm reads them; Argo CD's types case-sensitive).
 */
function unknownHooks(key: string, unknown: readonly string[]): string {
  const helm = key === PHASE_ANNOTATIONS.helmHook;
  const known = Object.keys(helm ? HELM_EVENTS : ARGO_HOOKS);
  const what = helm ? 'Helm hook event' : 'Argo CD hook type';
  const meant = unknown.flatMap((e) => {
    const m = likelyMeant(e, known);
    if (m === undefined) return [];
    return unknown.length === 1 ? [m] : [`${m} for "${e}"`];
  });
  const verb = unknown.length === 1 ? `is not ${helm ? 'a' : 'an'} ${what}` : `are not ${what}s`;
  const guess = meant.length > 0 ? `did you mean ${meant.join(', ')}? ` : '';
  return `annotation ${key}: ${unknown.map((e) => `"${e}"`).join(', ')} ${verb} (${guess}known: ${known.join(', ')})`;
}

function deletePolicyOf(a: Readonly<Record<string, string>>, from: string, warnings: string[]): DeletePolicy {
  const K = PHASE_ANNOTATIONS;
  const [key, table] =
    from === K.helmHook
      ? ([K.helmDeletePolicy, HELM_POLICIES as Record<string, keyof DeletePolicy>] as const)
      : ([K.argoDeletePolicy, ARGO_POLICIES as Record<string, keyof DeletePolicy>] as const);
  const value = a[key];
  // Helm 3's and Argo CD's default: before-hook-creation.
  if (value === undefined) return { beforeCreation: true, succeeded: false, failed: false };
  const policy = { beforeCreation: false, succeeded: false, failed: false };
  // Helm reads each policy as it reads hook types (releaseutil operateAnnotationValues:
  // strings.ToLower(strings.TrimSpace(…))); Argo CD's names are case-sensitive.
  const policies = from === K.helmHook ? helmEventsOf(value) : listOf(value);
  for (const p of policies) {
    const field = table[p];
    if (field) policy[field] = true;
    else
      warnings.push(
        `annotation ${key}: unknown policy "${p}" ignored (known: ${Object.keys(table).join(', ')})`,
      );
  }
  return policy;
}

/** The place of an object already read (its errors were reported when the set was built). */
export function placeOf(object: KubeObject): Place {
  return readPlace(object).place ?? MAIN;
}

/** Whether any object of the set is placed other than in the main phase's wave 0. */
export function hasSteps(objects: readonly { object: KubeObject }[]): boolean {
  return objects.some((o) => {
    const p = placeOf(o.object);
    return p.phase !== 'main' || p.wave !== 0 || p.hook !== undefined;
  });
}

/** The order of two places: phase, then wave. */
export function comparePlaces(x: Place, y: Place): number {
  return PHASES.indexOf(x.phase) - PHASES.indexOf(y.phase) || x.wave - y.wave;
}

/** A place as text: `pre`, `main wave 2`. */
export function formatPlace(p: Place): string {
  return p.wave === 0 ? p.phase : `${p.phase} wave ${p.wave}`;
}

/**
 * Whether the deploy re-creates `object` without `--replace` (docs/phases.md, "Jobs that run on
 * every deploy"): `always`, a hook whose delete policy is before-hook-creation (Helm's and Argo CD's
 * default: the hook runs on every deploy); `immutable`, a Job of the pre or post phase whose template
 * changed (a Job's template is immutable; the new one runs). Otherwise undefined.
 */
export function recreateOf(object: KubeObject): 'always' | 'immutable' | undefined {
  const p = readPlace(object).place;
  if (!p) return undefined;
  if (p.hook?.deletePolicy.beforeCreation) return 'always';
  if (p.phase !== 'main' && object.kind === 'Job') return 'immutable';
  return undefined;
}

/**
 * Why a Helm hook does not run on this deploy, if it does not: Helm runs `pre-install`/`post-install`
 * hooks only on a release's first install and `pre-upgrade`/`post-upgrade` ones only on an upgrade.
 * spread's first deploy of a deployment (no revision yet) is the install; every later one an upgrade.
 */
export function helmHookSkipped(object: KubeObject, event: 'install' | 'upgrade'): string | undefined {
  const value = object.metadata.annotations?.[PHASE_ANNOTATIONS.helmHook];
  if (value === undefined || object.metadata.annotations?.[PHASE_ANNOTATIONS.phase] !== undefined)
    return undefined;
  // Argo CD's hook annotation, when it names a type Argo CD knows, is read instead of Helm's.
  const argo = object.metadata.annotations?.[PHASE_ANNOTATIONS.argoHook];
  if (argo !== undefined && listOf(argo).some((e) => e in ARGO_HOOKS)) return undefined;
  const events = helmEventsOf(value).filter((e) => HELM_EVENTS[e] !== undefined);
  if (events.length === 0 || events.some((e) => e.endsWith(`-${event}`))) return undefined;
  return `a Helm hook of ${events.join(', ')} only, and this deploy is ${event === 'install' ? 'the first (an install)' : 'an upgrade'}: not run`;
}

/** Whether any of spread's, Helm's or Argo CD's annotations places `object` (an explicit `main` too). */
export function isPlaced(object: KubeObject): boolean {
  const a = object.metadata.annotations ?? {};
  const K = PHASE_ANNOTATIONS;
  return [K.phase, K.wave, K.argoWave, K.helmHook, K.argoHook].some((k) => a[k] !== undefined);
}

/**
 * Whether `object` goes in the deploy's first step whatever its place would be: a Namespace or a
 * CustomResourceDefinition that no annotation places, since objects of any step may be in it or of
 * it (kapp's default change rules apply them first too). Its kind order puts it first in that step.
 */
export function isHoisted(object: KubeObject): boolean {
  return (isCoreNamespace(object) || isCrd(object)) && !isPlaced(object);
}

/**
 * The input errors of a set whose placed Namespace or CRD comes after an object that needs it (an
 * object in it, a custom resource of it): that object's write would fail, "namespace not found" or
 * no such kind. One error at the needing object's file and line, naming both objects and their files.
 */
export function stepOrderIssues(objects: readonly SourcedObject[]): InputIssue[] {
  const needed = new Map<string, SourcedObject>();
  for (const o of objects) {
    if (isHoisted(o.object)) continue;
    if (isCoreNamespace(o.object)) needed.set(`ns/${o.object.metadata.name}`, o);
    const spec = isCrd(o.object)
      ? (o.object.spec as { group?: string; names?: { kind?: string } } | undefined)
      : undefined;
    if (spec?.group && spec.names?.kind) needed.set(`kind/${spec.names.kind}.${spec.group}`, o);
  }
  if (needed.size === 0) return [];
  const issues: InputIssue[] = [];
  for (const o of objects) {
    // A hoisted Namespace or CRD is in no Namespace and of no CRD: it needs nothing placed.
    if (isHoisted(o.object)) continue;
    const gk = groupKindOf(o.object);
    const ns = o.object.metadata.namespace;
    const own = placeOf(o.object);
    for (const dep of [
      ns === undefined ? undefined : needed.get(`ns/${ns}`),
      needed.get(`kind/${gk.kind}.${gk.group}`),
    ]) {
      if (!dep || dep === o) continue;
      const at = placeOf(dep.object);
      if (comparePlaces(at, own) <= 0) continue;
      const what = isCoreNamespace(dep.object)
        ? `in Namespace ${nameOf(dep.object)}`
        : `a custom resource of CustomResourceDefinition ${nameOf(dep.object)}`;
      issues.push({
        source: o.source,
        object: `${o.object.kind} ${nameOf(o.object)}`,
        severity: 'error',
        message: `placed in ${formatPlace(own)}, it is ${what}, which is placed later, in ${formatPlace(at)} (${formatSource(dep.source)}): its write would fail; place ${dep.object.kind} ${nameOf(dep.object)} no later than ${formatPlace(own)}, or drop its phase and wave annotations (a Namespace or CRD no annotation places is applied first)`,
      });
    }
  }
  return issues;
}
