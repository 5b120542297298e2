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

describe('the image flags of build (settings rows cache, platforms, attestations, build-secrets, builder)', () => {
  /** The flags `spread build` parses from `args` (nothing runs: the action is replaced). */
  const parsed = (...args: string[]) => {
    const root = program().exitOverride();
    const build = root.commands.find((c) => c.name() === 'build')!;
    build.exitOverride().configureOutput({ writeErr: () => {} });
    let flags: Record<string, unknown> = {};
    build.action((_dir: string, f: Record<string, unknown>) => {
      flags = f;
    });
    root.parse(['node', 'spread', 'build', '.', ...args]);
    return flags;
  };

  test.each<[string, string[], Record<string, unknown>]>([
    ['none given', [], { secret: [] }],
    ['--cache registry', ['--cache', 'registry'], { cache: { type: 'registry' } }],
    [
      '--cache registry=REF',
      ['--cache', 'registry=r.example/c:x'],
      { cache: { type: 'registry', ref: 'r.example/c:x' } },
    ],
    ['--platform', ['--platform', 'linux/amd64,linux/arm64'], { platform: ['linux/amd64', 'linux/arm64'] }],
    ['--attestations', ['--attestations', 'provenance'], { attestations: 'provenance' }],
    [
      '--secret, repeatable',
      ['--secret', 'id=npm,env=NPM_TOKEN', '--secret', 'id=git,env=GIT_TOKEN'],
      {
        secret: [
          { id: 'npm', env: 'NPM_TOKEN' },
          { id: 'git', env: 'GIT_TOKEN' },
        ],
      },
    ],
    ['--builder', ['--builder', 'ci'], { builder: 'ci' }],
  ])('%s', (_, args, expected) => {
    expect(parsed(...args)).toMatchObject(expected);
  });

  test.each([
    [['--cache', 'nfs'], /expected gha, registry, registry=<image ref>, local=<directory> or false/],
    [['--platform', 'amd64'], /"amd64" is not a platform/],
    [['--attestations', 'all'], /Allowed choices are false, provenance, true/],
    [['--secret', 'npm=tok'], /expected id=ID,env=VARIABLE, got "npm=tok"/],
  ])('refuses %j', (args, message) => {
    expect(() => parsed(...args)).toThrow(message);
  });
});

test("rollback's default revision: its help and the docs' command list say it in the words of rollback-on-failure", async () => {
  const { readFileSync } = await import('node:fs');
  const { ROLLBACK_DEFAULT_REVISION, SETTINGS } = await import('../../../src/frontend/settings.js');
  const rollback = program().commands.find((c) => c.name() === 'rollback')!;
  expect(rollback.description()).toContain(`(default: ${ROLLBACK_DEFAULT_REVISION})`);
  const readme = readFileSync(new URL('../../../docs/cli.md', import.meta.url), 'utf8');
  expect(readme).toMatch(
    /^spread rollback NAME .*\(default: the last revision before the current whose rollout succeeded\)/m,
  );
  expect(readme).toContain(`(default: ${ROLLBACK_DEFAULT_REVISION})`);
  const onFailure = SETTINGS.find((s) => s.key === 'rollback-on-failure')!;
  expect(onFailure.cli?.help).toContain('the last revision whose rollout succeeded');
});
