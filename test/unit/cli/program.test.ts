import { describe, expect, test } from 'vitest';
import { program } from '../../../src/cli/main.js';

describe('the spread program', () => {
  test('lists the user commands and hides the debugging ones', () => {
    const help = program().helpInformation();
    for (const name of ['deploy', 'plan', 'render']) expect(help).toMatch(new RegExp(`^  ${name} `, 'm'));
    expect(help).not.toContain('debug-objects');
    expect(program().commands.map((c) => c.name())).toContain('debug-objects');
  });

  test('deploy takes PATH and CONTEXT and the cluster flags', () => {
    const deploy = program().commands.find((c) => c.name() === 'deploy')!;
    expect(deploy.registeredArguments.map((a) => a.name())).toEqual(['path', 'context']);
    const flags = deploy.options.map((o) => o.long);
    for (const f of [
      '--kubeconfig',
      '--namespace',
      '--name',
      '--timeout',
      '--no-wait',
      '--output',
      '--force-conflicts',
      '--replace',
      '--no-prune',
    ]) {
      expect(flags).toContain(f);
    }
  });
});
