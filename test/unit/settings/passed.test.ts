// The settings the front ends pass on to the deploy as they are parsed (a row's `passedAs`): the CLI's
// flags and the Action's inputs give the same options, each under the deploy's field name.
import { describe, expect, test } from 'vitest';
import { passedOptions as inputOptions, parseInputs } from '../../../src/action/inputs.js';
import { program } from '../../../src/cli/main.js';
import { type CliFlags, passedOptions as flagOptions } from '../../../src/cli/options.js';

/** `spread COMMAND ARGS…`'s flags as its action gets them. */
async function flagsOf(command: 'deploy' | 'plan', args: string[]) {
  const root = program().exitOverride();
  const cmd = root.commands.find((c) => c.name() === command)!;
  cmd.action(() => {});
  await root.parseAsync(['node', 'spread', command, ...args]);
  return cmd.opts();
}

const given = {
  timeout: '90s',
  'lock-timeout': '2m',
  'lock-lease-duration': '1m',
  concurrency: '3',
  prune: 'false',
  wait: 'false',
  adopt: 'true',
  replace: 'true',
  'force-conflicts': 'true',
  'prune-crds': 'true',
  'rollback-on-failure': 'true',
  'wait-load-balancer': 'true',
};
const options = {
  timeoutMs: 90_000,
  lockTimeoutMs: 120_000,
  lockLeaseDurationSeconds: 60,
  concurrency: 3,
  prune: false,
  wait: false,
  adopt: true,
  replace: true,
  forceConflicts: true,
  pruneCrds: true,
  rollbackOnFailure: true,
  waitLoadBalancer: true,
};

describe('the options passed on as parsed', () => {
  test('deploy: the CLI flags and the Action inputs give the same options', async () => {
    const flags = await flagsOf('deploy', [
      ...['--timeout', '90s', '--lock-timeout', '2m', '--lock-lease-duration', '1m', '--concurrency', '3'],
      ...['--no-prune', '--no-wait', '--adopt', '--replace', '--force-conflicts', '--prune-crds'],
      ...['--rollback-on-failure', '--wait-load-balancer'],
    ]);
    expect(flagOptions('deploy', flags as CliFlags<'deploy'>)).toEqual({ ...options, allowEmpty: false });
    const inputs = parseInputs((name) => given[name as keyof typeof given] ?? '');
    expect(inputOptions(inputs)).toEqual(options);
  });

  test('plan: only what plan takes (no wait, no lock), with the defaults', async () => {
    const flags = await flagsOf('plan', []);
    expect(flagOptions('plan', flags as CliFlags<'plan'>)).toEqual({
      prune: true,
      pruneCrds: false,
      forceConflicts: false,
      replace: false,
      adopt: false,
      concurrency: 64,
      allowEmpty: false,
    });
  });
});
