// A setting's default is written once, in its row of src/base/settings.ts: changed there (on a copy
// of the checkout), it reaches the CLI's parsed flags, the Action's parsed inputs, and action.yml and
// templates/deploy.yml once regenerated, with no other edit; a default restated anywhere fails here.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { describe, expect, test } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { checkoutCopyWith } from './checkout-copy.js';

/** A copy of what scripts/settings.mjs reads and writes, with `edit` applied to the settings rows. */
function copyWith(edit: (rows: string) => string): string {
  return checkoutCopyWith('spread-defaults-', 'src/base/settings.ts', edit);
}

/** What the copy's front ends parse when given nothing: `spread COMMAND`'s flags and the Action's inputs. */
async function parsedDefaults(dir: string, command: string) {
  const out = path.join(dir, 'defaults.mjs');
  await build({
    stdin: {
      contents: `
        import { program } from './src/cli/main.ts';
        import { parseInputs } from './src/action/inputs.ts';
        const root = program().exitOverride();
        const cmd = root.commands.find((c) => c.name() === ${JSON.stringify(command)});
        cmd.action(() => {});
        await root.parseAsync(['node', 'spread', ${JSON.stringify(command)}]);
        console.log(JSON.stringify({ cli: cmd.opts(), action: parseInputs(() => '') }));`,
      resolveDir: dir,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile: out,
    logLevel: 'error',
  });
  const r = spawnSync(process.execPath, [out], { cwd: dir, encoding: 'utf8' });
  return { code: r.status, stderr: r.stderr, ...(r.status === 0 ? JSON.parse(r.stdout) : {}) };
}

/** Runs scripts/settings.mjs in the copy (`--check`, or generating when `check` is false). */
function settingsScript(dir: string, check: boolean) {
  const r = spawnSync(process.execPath, ['scripts/settings.mjs', ...(check ? ['--check'] : [])], {
    cwd: dir,
    encoding: 'utf8',
  });
  return { code: r.status, stderr: r.stderr };
}

describe('a default changed in the settings table alone', () => {
  // Each case bundles src/ with esbuild and runs it: seconds on a loaded machine.
  test('timeout 5m → 7m, concurrency 64 → 16: the CLI, the Action, action.yml and the component', {
    timeout: 120_000,
  }, async () => {
    const dir = copyWith((rows) =>
      rows
        .replace(/(key: 'timeout',[^}]*default: )'5m'/, "$1'7m'")
        .replace(/(key: 'concurrency',[^}]*default: )'64'/, "$1'16'"),
    );
    const parsed = await parsedDefaults(dir, 'deploy');
    expect(parsed.stderr).toBe('');
    expect(parsed.cli).toMatchObject({ timeout: 420_000, concurrency: 16 });
    expect(parsed.action).toMatchObject({ timeoutMs: 420_000, concurrency: 16 });

    // The generated files differ from the table until regenerated, then match it with no other edit
    // (the generating run also reports what it found different before it wrote).
    expect(settingsScript(dir, true).stderr).toContain('action.yml: setting timeout: default "5m"');
    settingsScript(dir, false);
    expect(settingsScript(dir, true)).toEqual({ code: 0, stderr: '' });
    const action = parse(readFileSync(path.join(dir, 'action.yml'), 'utf8'));
    expect(action.inputs.timeout.default).toBe('7m');
    expect(action.inputs.concurrency.default).toBe('16');
    const [spec] = parseAllDocuments(readFileSync(path.join(dir, 'templates/deploy.yml'), 'utf8')).map((d) =>
      d.toJS(),
    );
    expect(spec.spec.inputs.timeout.default).toBe('7m');
  });

  test('a boolean whose CLI flag is --no-wait turned off by default: the CLI refuses to start, naming it', {
    timeout: 120_000,
  }, async () => {
    const dir = copyWith((rows) => rows.replace(/(key: 'wait',[^}]*default: )'true'/, "$1'false'"));
    const parsed = await parsedDefaults(dir, 'deploy');
    expect(parsed.code).not.toBe(0);
    expect(parsed.stderr).toContain('setting wait: --no-wait does not fit its default "false"');
  });
});
