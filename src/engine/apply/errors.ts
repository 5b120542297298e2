// How plan and apply failures are told: one ApplyError naming every failed object with its file and
// line, API errors explained with what to do (--force-conflicts, --replace, RBAC), and Secret values
// never quoted from the server's message.
import type { KubeObject, SourcedObject } from '../../base/kube-object.js';
import { formatObject, isCoreSecret } from '../../base/kube-object.js';
import { optionRef } from '../../base/option-ref.js';
import { formatSource } from '../../base/source.js';
import { KubeApiError, UnauthorizedError } from '../../cluster/client.js';
import { forbiddenHint } from '../../cluster/forbidden.js';
import type { AppliedObject } from './applied.js';

/** A problem with one object, as the API server (or discovery) reported it. */
export interface ObjectFailure {
  readonly object: SourcedObject;
  readonly message: string;
  /** The server refused the apply with 409 Conflict: another field manager owns fields it sets. */
  readonly conflict?: boolean;
}

/**
 * Some objects could not be planned or applied. Each failure names the object and its file and
 * line; after a failed apply, the message also says which objects were applied and which were not.
 */
export class ApplyError extends Error {
  /** `plan`: nothing was written; `apply`: some objects may have been. */
  readonly phase: 'plan' | 'apply';
  readonly failures: readonly ObjectFailure[];
  /**
   * The failures that are only an interrupt (Ctrl-C, a cancelled job) stopping the request: reported
   * as one line, not one per object as if each had failed.
   */
  readonly interrupted: readonly ObjectFailure[];
  /** Objects already applied before the failure (empty for a failed plan). */
  readonly applied: readonly AppliedObject[];
  /** Objects not attempted: later apply groups, or the rest of the group once the server became unavailable. */
  readonly notApplied: readonly SourcedObject[];
  constructor(
    phase: 'plan' | 'apply',
    failures: readonly ObjectFailure[],
    applied: readonly AppliedObject[] = [],
    notApplied: readonly SourcedObject[] = [],
  ) {
    const interrupted: ObjectFailure[] = [];
    const real: ObjectFailure[] = [];
    for (const f of failures) (f.message.startsWith('interrupted by ') ? interrupted : real).push(f);
    const lines = groupedFailureLines(real);
    if (interrupted.length > 0)
      lines.push(
        `  ${interrupted[0]!.message}: ${interrupted.length} object(s) not finished${phase === 'apply' ? ' (a request in flight may have reached the server)' : ''}`,
      );
    const head =
      real.length === 0 && interrupted.length > 0
        ? phase === 'plan'
          ? `${interrupted[0]!.message} during the plan; nothing was written`
          : `${interrupted[0]!.message}: ${applied.length} applied, ${interrupted.length + notApplied.length} not applied; nothing was pruned`
        : phase === 'plan'
          ? // The server's dry run, or spread's own checks before it (ownership, Secret shape, versions).
            `the plan failed for ${failures.length} object(s); nothing was written`
          : `${failures.length} object(s) failed to apply; ${applied.length} applied, ${notApplied.length} not applied; nothing was pruned`;
    // At most 20 names a list: the counts are in the head, and a list of thousands helps no one.
    const names = (list: readonly SourcedObject[]) =>
      list
        .slice(0, 20)
        .map((o) => describeObject(o))
        .join(', ') + (list.length > 20 ? `, … and ${list.length - 20} more` : '');
    const tail =
      phase === 'apply'
        ? [
            `applied: ${applied.length > 0 ? names(applied) : 'none'}`,
            ...(notApplied.length > 0 ? [`not applied: ${names(notApplied)}`] : []),
          ]
        : [];
    super([`${head}:`, ...lines, ...tail].join('\n'));
    this.name = 'ApplyError';
    this.phase = phase;
    this.failures = failures;
    this.interrupted = interrupted;
    this.applied = applied;
    this.notApplied = notApplied;
  }
}

/** Names shown under a cause that several objects share; the count is on the cause's line. */
const NAMES_PER_CAUSE = 5;

/**
 * One line per failure, `  Kind ns/name (file:line): message`, except that failures with the very
 * same message are one entry, in the order of their first object: `  76 objects: namespaces
 * "monitoring" not found`, then an indented line naming the first few of them (`… and 71 more`).
 */
export function groupedFailureLines(failures: readonly ObjectFailure[]): string[] {
  const byMessage = new Map<string, ObjectFailure[]>();
  for (const f of failures) byMessage.set(f.message, [...(byMessage.get(f.message) ?? []), f]);
  return [...byMessage].flatMap(([message, group]) => {
    if (group.length === 1) return [`  ${describeObject(group[0]!.object)}: ${message}`];
    const shown = group.slice(0, NAMES_PER_CAUSE).map((f) => describeObject(f.object));
    const more = group.length - shown.length;
    return [
      `  ${group.length} objects: ${message}`,
      `      ${shown.join(', ')}${more > 0 ? `, … and ${more} more` : ''}`,
    ];
  });
}

/** `Deployment default/web (deployment.yaml:1)` */
export function describeObject(o: SourcedObject): string {
  return `${formatObject(o.object)} (${formatSource(o.source)})`;
}

/** Whether the server rejected a change of an immutable field (422 Invalid, "field is immutable"). */
export function isImmutableFieldError(error: unknown): boolean {
  if (!(error instanceof KubeApiError) || error.code !== 422) return false;
  const texts = [error.message, ...(error.status?.details?.causes ?? []).map((c) => c.message ?? '')];
  // A Pod's spec is immutable but for a few fields; its validation says so in other words.
  return texts.some((t) => /immutable|pod updates may not change fields/i.test(t));
}

/** A readable message for an API error, with what to do about it where spread knows. */
export function explainApiError(error: unknown, options?: { readonly forceConflicts?: boolean }): string {
  if (!(error instanceof KubeApiError)) return (error as Error).message ?? String(error);
  const causes = (error.status?.details?.causes ?? [])
    .map((c) => (c.field ? `${c.field}: ${c.message}` : c.message))
    .filter(Boolean);
  let message = error.message;
  if (error.code === 409 && error.reason === 'Conflict' && !options?.forceConflicts) {
    message += ` (another field manager owns these fields; use ${optionRef('force-conflicts')} to take them over)`;
  }
  // An UnauthorizedError already names the kubeconfig user and context and how to refresh them.
  if (error.code === 401 && !(error instanceof UnauthorizedError))
    message = `unauthorized: the server refused the credentials (${message})`;
  if (error.code === 403) {
    const hint = forbiddenHint(message);
    message = `forbidden: ${message}${hint ? `; ${hint}` : ''}`;
  }
  if (isImmutableFieldError(error))
    message += ` (use ${optionRef('replace')} to delete and re-create the object)`;
  if (causes.length > 0 && !causes.every((c) => message.includes(c!))) message += ` [${causes.join('; ')}]`;
  return message;
}

/** The shortest Secret value {@link redactSecretValues} hides: shorter ones would mangle the message. */
const MIN_REDACTED = 3;

/**
 * An API error about `object` as text ({@link explainApiError}); for a core/v1 Secret, every value of
 * its `data` (as sent and base64-decoded) and `stringData` that the server's message quotes is
 * replaced by `<redacted>`, from 3 characters on.
 */
export function objectError(
  object: KubeObject,
  error: unknown,
  options?: { readonly forceConflicts?: boolean },
): string {
  return redactSecretValues(explainApiError(error, options), object);
}

function redactSecretValues(message: string, object: KubeObject): string {
  if (!isCoreSecret(object)) return message;
  const secrets = new Set<string>();
  const collect = (v: unknown, decode: boolean) => {
    if (typeof v === 'string') {
      secrets.add(v);
      if (decode) secrets.add(Buffer.from(v, 'base64').toString('utf8'));
    } else if (v && typeof v === 'object') for (const x of Object.values(v)) collect(x, decode);
  };
  collect(object.data, true);
  collect(object.stringData, false);
  let out = message;
  // Longest first, so that a value containing another is hidden whole.
  for (const s of [...secrets].filter((s) => s.length >= MIN_REDACTED).sort((a, b) => b.length - a.length))
    out = out.split(s).join('<redacted>');
  return out;
}

/** Failures in the order of `order` (the objects as given), then by name. */
export function sortFailures(failures: ObjectFailure[], order: readonly SourcedObject[]): ObjectFailure[] {
  const index = new Map(order.map((o, i) => [o.object, i]));
  const at = (f: ObjectFailure) => index.get(f.object.object) ?? order.length;
  // By the order given, then by name, so that the same input always lists its failures alike.
  return [...failures].sort(
    (a, b) => at(a) - at(b) || describeObject(a.object).localeCompare(describeObject(b.object)),
  );
}

/**
 * The managers a 409 apply conflict names (its causes read `conflict with "kubectl" using v1`), or
 * undefined for any other error.
 */
export function conflictManagers(error: unknown): string[] | undefined {
  if (!(error instanceof KubeApiError) || error.code !== 409) return undefined;
  const texts = [...(error.status?.details?.causes ?? []).map((c) => c.message ?? ''), error.message];
  const names = texts.flatMap((t) => [...t.matchAll(/conflicts? with "([^"]+)"/g)].map((m) => m[1]!));
  return [...new Set(names)];
}
