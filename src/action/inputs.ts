import * as core from '@actions/core';
import { parseDuration } from '../core/duration.js';

/**
 * The Action's inputs, read once and typed, keyed like action.yml. Nothing below the front end
 * reads inputs or the environment.
 */
export interface Inputs {
  /** Directory in spread layout, relative to the workspace. action.yml `path`, default `.`. */
  readonly path: string;
  /** kubeconfig context; empty: the kubeconfig's current context. */
  readonly context: string;
  /** kubeconfig content (plain or base64), from a secret. Empty: $KUBECONFIG or ~/.kube/config. */
  readonly kubeconfig: string;
  /** Namespace for objects that name none; empty: the context's. */
  readonly namespace: string;
  /** The deployment's name; empty: the directory's name. */
  readonly name: string;
  readonly mode: 'deploy' | 'plan';
  readonly wait: boolean;
  /** Rollout wait limit in milliseconds (input given as a duration, e.g. `5m`). */
  readonly timeoutMs: number;
  readonly forceConflicts: boolean;
  /** Delete objects of this deployment that the directory no longer holds. */
  readonly prune: boolean;
  readonly concurrency: number;
}

/**
 * Reads and checks every input.
 * @throws Error naming the input when a value is invalid.
 */
export function getInputs(): Inputs {
  const mode = core.getInput('mode') || 'deploy';
  if (mode !== 'deploy' && mode !== 'plan')
    throw new Error(`input mode: expected deploy or plan, got "${mode}"`);
  const concurrency = Number(core.getInput('concurrency') || '16');
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new Error(`input concurrency: expected a whole number ≥ 1`);
  let timeoutMs: number;
  try {
    timeoutMs = parseDuration(core.getInput('timeout') || '5m');
  } catch (error) {
    throw new Error(`input timeout: ${(error as Error).message}`);
  }
  return {
    path: core.getInput('path') || '.',
    context: core.getInput('context'),
    kubeconfig: core.getInput('kubeconfig'),
    namespace: core.getInput('namespace'),
    name: core.getInput('name'),
    mode,
    wait: booleanInput('wait', true),
    timeoutMs,
    forceConflicts: booleanInput('force-conflicts', false),
    prune: booleanInput('prune', true),
    concurrency,
  };
}

/** A boolean input with a default when empty (core.getBooleanInput throws on empty). */
function booleanInput(name: string, fallback: boolean): boolean {
  return core.getInput(name) === '' ? fallback : core.getBooleanInput(name);
}
