// Any error of the core turned into what the front ends show: failures placed at a file and line (the
// Action's annotations, the CLI's JSON) and the CLI's lines, saying what was not deployed.
import { formatIssue, InputError, type InputIssue } from '../base/source.js';
import { KubeconfigError } from '../cluster/kubeconfig.js';
import { ApplyError, describeObject } from '../engine/apply/errors.js';
import { DeployError } from './deploy/index.js';

/** A failure located in a file, for the Action's `::error file=…,line=…` annotations. */
export interface LocatedFailure {
  readonly message: string;
  readonly file?: string;
  readonly line?: number;
  readonly severity: 'error' | 'warning';
}

/**
 * Every located failure an error holds: each issue of an InputError, each object of an ApplyError.
 * Other errors give one failure without a place.
 */
export function locatedFailures(error: unknown): LocatedFailure[] {
  const cause = error instanceof DeployError ? error.cause : error;
  if (cause instanceof InputError) {
    return cause.issues.map((i: InputIssue) => ({
      message: i.object ? `${i.object}: ${i.message}` : i.message,
      file: i.source.file,
      line: i.source.line || undefined,
      severity: i.severity,
    }));
  }
  if (cause instanceof ApplyError) {
    // An interrupt stopped every request in flight: one failure for all of them (see ApplyError).
    const { interrupted } = cause;
    const skip = new Set(interrupted);
    return [
      ...cause.failures
        .filter((f) => !skip.has(f))
        .map((f) => ({
          message: `${describeObject(f.object)}: ${f.message}`,
          file: f.object.source.file,
          line: f.object.source.line || undefined,
          severity: 'error' as const,
        })),
      ...(interrupted.length > 0
        ? [
            {
              message: `${interrupted[0]!.message}: ${interrupted.length} object(s) not finished`,
              severity: 'error' as const,
            },
          ]
        : []),
    ];
  }
  return [{ message: (cause as Error)?.message ?? String(cause), severity: 'error' }];
}

/**
 * The lines the CLI prints for a failure: a headline, then one line per located problem. `command`
 * is the CLI's command (`build` says nothing was built or pushed; the others, nothing was deployed).
 */
export function failureLines(error: unknown, command?: string): string[] {
  const cause = error instanceof DeployError ? error.cause : error;
  if (cause instanceof InputError) {
    const errors = cause.issues.filter((i) => i.severity === 'error');
    const warnings = cause.issues.filter((i) => i.severity === 'warning');
    return [
      `error: ${errors.length} error(s) in the input; nothing was ${undone(command)}`,
      ...errors.map((i) => `  ${formatIssue(i)}`),
      ...warnings.map((i) => `  warning: ${formatIssue(i)}`),
    ];
  }
  if (cause instanceof KubeconfigError) return [`error: ${cause.message}`];
  const message = (cause as Error)?.message ?? String(cause);
  return [`error: ${message}`];
}

/** What a command refused on its input did not do: `spread plan` deployed nothing because it never does. */
function undone(command: string | undefined): string {
  switch (command) {
    case 'build':
      return 'built or pushed';
    case 'plan':
      return 'planned';
    case 'render':
      return 'rendered';
    case 'delete':
      return 'deleted';
    case undefined:
    case 'deploy':
    case 'promote':
    case 'rollback':
      return 'deployed';
    default:
      return 'done';
  }
}
