// The component's script passes each setting on as its CLI flag in every mode the settings
// row names (src/base/settings.ts `modes`), run by bash with a stand-in CLI that records its argv.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseAllDocuments } from 'yaml';

const text = readFileSync('templates/deploy.yml', 'utf8');
const [specDoc, jobsDoc] = parseAllDocuments(text).map((d) => d.toJS());
const job = jobsDoc['$[[ inputs.job-name ]]'] as { script: string[]; variables: Record<string, string> };
const inputs = specDoc.spec.inputs as Record<string, { default?: unknown }>;

/**
 * Runs the job's script with the inputs' defaults (and `given`) in a build directory `setup` may fill,
 * answers the CLI's argv (or the fleet step's: its argv and the files of .spread/ it found).
 */
function argv(given: Record<string, string>, setup?: (dir: string) => void): string[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'spread-gl-modes-'));
  setup?.(dir);
  const pkg = path.join(dir, 'pkg');
  mkdirSync(path.join(pkg, 'dist/cli'), { recursive: true });
  mkdirSync(path.join(pkg, 'dist/gitlab'));
  const record = path.join(dir, 'argv.json');
  writeFileSync(
    path.join(pkg, 'dist/cli/index.js'),
    `require('node:fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify(process.argv.slice(2)));`,
  );
  writeFileSync(path.join(pkg, 'dist/gitlab/report.js'), '');
  // Mode fleet-plan's step after the CLI: adds its own argv to the CLI's.
  writeFileSync(
    path.join(pkg, 'dist/gitlab/fleet-plan.js'),
    `const fs = require('node:fs'); const f = ${JSON.stringify(record)}; fs.writeFileSync(f, JSON.stringify([...JSON.parse(fs.readFileSync(f, 'utf8')), 'then', ...process.argv.slice(2).map((a) => a.split('/').pop())]));`,
  );
  writeFileSync(
    path.join(pkg, 'dist/gitlab/fleet.js'),
    `const fs = require('node:fs'); fs.writeFileSync(${JSON.stringify(record)}, JSON.stringify([...process.argv.slice(2), ...fs.readdirSync('.spread')]));`,
  );
  const env: Record<string, string> = {
    PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`,
    HOME: dir,
  };
  for (const [k, v] of Object.entries(job.variables)) {
    const m = /^\$\[\[ inputs\.([\w-]+) \]\]$/.exec(String(v));
    if (m) env[k] = String(given[m[1]!] ?? inputs[m[1]!]?.default ?? '');
  }
  env.SPREAD_INPUT_PACKAGE = pkg;
  const r = spawnSync('bash', ['-c', job.script.join('\n')], { cwd: dir, env, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(readFileSync(record, 'utf8'));
}

describe("the component's script passes lock-lease-duration in every mode that takes it", () => {
  test.each(['deploy', 'delete'])('mode %s', (mode) => {
    const args = argv({ mode, name: 'web', 'lock-lease-duration': '2m' });
    expect(args.join(' ')).toContain('--lock-lease-duration 2m');
  });
});

describe("the component's script passes the renderers' settings in the modes that render", () => {
  test.each(['deploy', 'plan'])('mode %s', (mode) => {
    const args = argv({
      mode,
      kustomize: '/opt/kustomize',
      'kustomize-enable-helm': 'true',
      helm: '/opt/helm3',
    }).join(' ');
    expect(args).toContain('--kustomize /opt/kustomize');
    expect(args).toContain('--kustomize-enable-helm');
    expect(args).toContain('--helm /opt/helm3');
  });

  test('without them, no renderer flag is passed (the image has kustomize and Helm on PATH)', () => {
    const args = argv({ mode: 'deploy' }).join(' ');
    expect(args).not.toContain('--kustomize');
    expect(args).not.toContain('--helm');
  });
});

describe("the component's delete mode names the deployment its deploy made", () => {
  test.each([
    ['k8s', './k8s'],
    ['./deploy/k8s', './deploy/k8s'],
    ['.', './.'],
  ])('path %s: the CLI is given %s, which it resolves as deploy names the folder', (p, expected) => {
    expect(argv({ mode: 'delete', path: p }).slice(0, 2)).toEqual(['delete', expected]);
  });

  test('a name given is passed as it is', () => {
    expect(argv({ mode: 'delete', path: 'k8s', name: 'web' }).slice(0, 2)).toEqual(['delete', 'web']);
  });
});

describe("the component's mode fleet-report", () => {
  test("keeps the legs' reports the artifacts put in .spread/ and runs the fleet step on them, not the CLI", () => {
    const args = argv({ mode: 'fleet-report', environment: 'production' }, (dir) => {
      mkdirSync(path.join(dir, '.spread'));
      writeFileSync(path.join(dir, '.spread/spread-report-eu-1.json'), '{}');
    });
    expect(args.slice(0, 2).map((a) => path.basename(a))).toEqual(['.spread', '.spread']);
    expect(args.slice(2)).toEqual(['spread-report-eu-1.json']);
  });
});

describe("the component's mode fleet-plan", () => {
  test('plans every cluster of the fleet (no --cluster), then runs the fleet-plan step on the report', () => {
    const args = argv(
      { mode: 'fleet-plan', path: 'web', environment: 'production', cluster: 'eu-1' },
      (dir) => {
        mkdirSync(path.join(dir, 'web'));
        writeFileSync(path.join(dir, 'web/spread.yaml'), 'environments:\n  production: {}\n');
      },
    );
    expect(args.slice(0, 4)).toEqual(['plan', 'web', '--environment', 'production']);
    expect(args).not.toContain('--cluster');
    expect(args).not.toContain('--timeout');
    expect(args.slice(args.indexOf('then'))).toEqual(['then', 'report.json', '.spread', '0']);
  });
});
