// scripts/settings.mjs --check (in npm run lint) on a copy of the files it checks, each changed the
// way a forgotten edit would change it: the check fails, naming the file and the setting.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { checkoutCopyWith, ROOT } from './checkout-copy.js';

/** Runs the check on a copy of the checkout with `edit` applied to `file`. */
function checkWith(file: string, edit: (text: string) => string) {
  const dir = checkoutCopyWith('spread-settings-', file, edit);
  const r = spawnSync(process.execPath, [path.join(dir, 'scripts/settings.mjs'), '--check'], {
    encoding: 'utf8',
  });
  return { code: r.status, stderr: r.stderr };
}

describe('the settings check', () => {
  // Each case bundles src/ with esbuild and runs the check: seconds on a loaded machine.
  test('passes on the checkout', { timeout: 60_000 }, () => {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts/settings.mjs'), '--check'], {
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  test.each([
    [
      'action.yml',
      (t: string) => t.replace('  prune:\n', '  prune-all:\n'),
      'action.yml: setting prune: missing input',
    ],
    [
      'action.yml',
      (t: string) => t.replace(/( {2}concurrency:[\s\S]*?default: )'64'/, "$1'8'"),
      'action.yml: setting concurrency: default "8"',
    ],
    [
      'templates/deploy.yml',
      (t: string) => t.replace('    SPREAD_INPUT_REPLACE: $[[ inputs.replace ]]\n', ''),
      'templates/deploy.yml: setting replace: no job variable SPREAD_INPUT_REPLACE',
    ],
    [
      'templates/deploy.yml',
      (t: string) => t.replace(/.*set -- "\$@" --adopt; fi\n/g, ''),
      'templates/deploy.yml: setting adopt: the script never passes --adopt',
    ],
    [
      'src/cli/manage.ts',
      (t: string) =>
        t.replace("    'list',\n  ).action(", "    'list',\n  ).option('--all', 'every namespace').action("),
      'spread list --help: setting --all: a flag the table does not have for this command',
    ],
    [
      'docs/gitlab.md',
      (t: string) => t.replace('`lock-timeout`, ', ''),
      "docs/gitlab.md: setting lock-timeout: missing in the GitLab component's list of inputs",
    ],
    [
      'docs/github-action.md',
      (t: string) => t.replace('    path: "."', '    path: "deploy"'),
      /docs\/github-action\.md:\d+: the Action usage block is not what the settings table gives \(the table has "path: \\"\.\\"", the file "path: \\"deploy\\""\)/,
    ],
  ])('fails when %s differs (case %#)', { timeout: 60_000 }, (file, edit, message) => {
    const r = checkWith(file, edit);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
  });
});
