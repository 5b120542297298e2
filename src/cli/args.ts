import { InvalidArgumentError } from 'commander';
import { parseDuration } from '../core/duration.js';

/** Commander argument parser for durations (`90s`, `5m`, `1m30s`, bare seconds): milliseconds. */
export function durationArg(value: string): number {
  try {
    return parseDuration(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}
