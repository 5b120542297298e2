import { describe, expect, test } from 'vitest';
import { contextOf } from '../../../src/cli/args.js';
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
      '--context',
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

  test('every command with a CONTEXT argument also takes --context, as kubectl does', () => {
    for (const c of program().commands) {
      if (!c.registeredArguments.some((a) => a.name() === 'context')) continue;
      expect(
        c.options.map((o) => o.long),
        c.name(),
      ).toContain('--context');
    }
    expect(contextOf('prod', undefined)).toBe('prod');
    expect(contextOf(undefined, 'prod')).toBe('prod');
    expect(contextOf('prod', 'prod')).toBe('prod');
    expect(contextOf(undefined, undefined)).toBeUndefined();
    expect(() => contextOf('prod', 'staging')).toThrow('two contexts given: "prod" and --context "staging"');
  });

  test('plan has no flags about waiting, locking or building; build has no --no-build', () => {
    const flags = (name: string) =>
      program()
        .commands.find((c) => c.name() === name)!
        .options.map((o) => o.long);
    const deployOnly = [
      '--timeout',
      '--no-wait',
      '--lock-timeout',
      '--lock-lease-duration',
      '--wait-load-balancer',
      '--rollback-on-failure',
      '--url-from',
      '--no-build',
    ];
    for (const f of deployOnly) expect(flags('deploy')).toContain(f);
    for (const f of [...deployOnly, '--no-push']) expect(flags('plan')).not.toContain(f);
    expect(flags('build')).not.toContain('--no-build');
    expect(flags('build')).toContain('--no-push');
  });

  test('--url-from takes KIND/NAME of an Ingress, HTTPRoute or Service, and refuses another kind', () => {
    const parse = (value: string) => {
      const deploy = program().commands.find((c) => c.name() === 'deploy')!;
      const option = deploy.options.find((o) => o.long === '--url-from')!;
      return option.parseArg!(value, undefined);
    };
    expect(parse('svc/web')).toEqual({ kind: 'service', name: 'web' });
    expect(() => parse('configmap/web')).toThrow(
      /expected KIND\/NAME of an Ingress, HTTPRoute or LoadBalancer Service .*got "configmap\/web"/,
    );
  });
});
