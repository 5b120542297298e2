import { InvalidArgumentError } from 'commander';

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
