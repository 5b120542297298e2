// How a failed deploy says what it was about: the deployment it was of (for the Action's pull request
// comment), whether the apply had begun (else "nothing was applied"), the report of what was done
// after a failed rollout (DeployError), an interrupt as such, and a refused field at its own line.
import { interruptOf } from '../../base/poll.js';
import { InputError } from '../../base/source.js';
import { withFieldSources } from '../../engine/apply/field-source.js';
import type { DeployReport } from '../../report/report.js';
import type { Run } from './options.js';

/** The deployment a failed deploy or plan was of, known once its directory was read. */
export interface FailureTarget {
  readonly deployment: string;
  readonly namespace: string;
  readonly context: string;
}

const failureTargets = new WeakMap<object, FailureTarget>();

/**
 * The deployment `error` (thrown by {@link deploy}) was about, when the failure came after the
 * directory was read (a plan the server refused): what the Action needs to replace the deployment's
 * pull request comment. Undefined for earlier failures (bad input, an unknown context).
 */
export function failureTarget(error: unknown): FailureTarget | undefined {
  return typeof error === 'object' && error !== null ? failureTargets.get(error) : undefined;
}

/** Records which deployment `error` is about (see {@link failureTarget}), unless it says already. */
function setFailureTarget(error: unknown, target: FailureTarget): void {
  if (typeof error === 'object' && error !== null && !failureTargets.has(error))
    failureTargets.set(error, target);
}

/** The deploy failed after some objects were applied; `report` says what was done. */
export class DeployError extends Error {
  readonly report: DeployReport;
  override readonly cause: Error;
  constructor(cause: Error, report: DeployReport) {
    super(cause.message);
    this.name = 'DeployError';
    this.cause = cause;
    this.report = report;
  }
}

const afterWrites = new WeakSet<object>();

/**
 * Marks `error` as thrown about deployment `name` (see {@link failureTarget}), and, with `wrote`,
 * after the apply began: then {@link deployFailure} does not say that nothing was applied.
 */
export function failedAt(error: unknown, run: Run, name: string, wrote = false): unknown {
  setFailureTarget(error, { deployment: name, namespace: run.namespace, context: run.context });
  if (wrote && typeof error === 'object' && error !== null) afterWrites.add(error);
  return error;
}

/**
 * The error a failed deploy throws: an interrupt as such, a refused field at its own line (not its
 * object's first), with the deployment it was of ({@link failedAt}); a failure before the apply
 * (reading the cluster, an image, the lock, an interrupt) with `nothing was applied` added to its first
 * line, as a failed apply says what it applied. Errors that already say so are left as they are.
 */
export function deployFailure(caught: unknown, run: Run): unknown {
  const error = withFieldSources(interruptOf(caught, run.options.signal), run.options.path);
  const target = failureTarget(caught);
  if (target) setFailureTarget(error, target);
  if (typeof caught === 'object' && caught !== null && afterWrites.has(caught)) return error;
  return nothingWritten(error);
}

/** `error` with `; nothing was applied` after its first line (see {@link deployFailure}). */
export function nothingWritten(error: unknown): unknown {
  if (
    !(error instanceof Error) ||
    error instanceof InputError ||
    /nothing was (written|deployed|applied)/.test(error.message)
  )
    return error;
  const [first, ...rest] = error.message.split('\n');
  error.message = [`${first}; nothing was applied`, ...rest].join('\n');
  return error;
}

/**
 * `error` thrown after the apply and the prune ended (a lost Lease, an API server gone during the
 * wait): its first line says so, unless it says already what was applied (a failed rollout's report).
 */
export function afterApply(error: unknown): unknown {
  if (!(error instanceof Error) || error instanceof DeployError || /\bapplied\b/.test(error.message))
    return error;
  const [first, ...rest] = error.message.split('\n');
  error.message = [
    `${first}; every object was applied and pruned before it, the deploy did not finish (deploy again to converge)`,
    ...rest,
  ].join('\n');
  return error;
}
