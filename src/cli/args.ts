import { InvalidArgumentError } from 'commander';
import { parseDuration, parseLeaseDuration } from '../core/duration.js';

/** Commander argument parser for durations (`90s`, `5m`, `1m30s`, bare seconds): milliseconds. */
export function durationArg(value: string): number {
  try {
    return parseDuration(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/** Commander argument parser for a Lease duration (whole seconds ≥ 1, e.g. `30s`, `2m`): seconds. */
export function leaseDurationArg(value: string): number {
  try {
    return parseLeaseDuration(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/**
 * The kubeconfig context of a command: its CONTEXT argument, or `--context` (kubectl's flag).
 *
 * @throws InvalidArgumentError when both are given and differ.
 */
export function contextOf(argument: string | undefined, flag: string | undefined): string | undefined {
  if (argument && flag && argument !== flag)
    throw new InvalidArgumentError(`two contexts given: "${argument}" and --context "${flag}"`);
  return argument || flag || undefined;
}
