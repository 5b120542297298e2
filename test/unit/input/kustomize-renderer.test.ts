import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { kustomizeRenderer } from '../../../src/input/kustomize.js';
import type { RenderRequest } from '../../../src/input/render.js';

/**
 * The renderer around the tool, with stand-ins for kustomize and kubectl (small scripts that answer
 * as they do), so that it runs without them: which binary is chosen, the arguments, the wrapper
 * kustomization, stderr as warnings and errors. The real kustomize's output is checked in
 * test/integration/differential-kustomize.itg.test.ts.
 */
const temp = mkdtempSync(path.join(tmpdir(), 'spread-kustomize-unit-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** A stand-in binary: a Node script; `log` gets each run's arguments and the wrapper it was given. */
function standIn(dir: string, name: string, body: string): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  writeFileSync(
    file,
    `#!${process.execPath}\nconst fs = require('fs'), path = require('path');\nconst args = process.argv.slice(2);\n${body}\n`,
  );
  chmodSync(file, 0o755);
  return file;
}

/** A kustomize that prints its version, or one Deployment whose origin is `deployment.yaml` of the folder the wrapper lists. */
const KUSTOMIZE = `
const log = process.env.LOG;
if (args[0] === 'version') { console.log('v5.8.2'); process.exit(0); }
const wrapper = args[args.indexOf('build') + 1] ?? args[1];
const k = JSON.parse(fs.readFileSync(path.join(wrapper, 'kustomization.yaml'), 'utf8'));
if (log) fs.appendFileSync(log, JSON.stringify({ args, k }) + '\\n');
if (process.env.FAIL) { console.error('Error: ' + process.env.FAIL.split('FOLDER').join(path.resolve(wrapper, k.resources[0]))); process.exit(1); }
if (process.env.WARN) console.error(process.env.WARN);
console.log(['apiVersion: apps/v1', 'kind: Deployment', 'metadata:', '  name: prod-web', '  annotations:',
  '    config.kubernetes.io/origin: |', '      path: ' + k.resources[0] + '/../base/deployment.yaml',
  'spec: {replicas: 2}'].join('\\n'));
`;

const tree = path.join(temp, 'tree');
mkdirSync(path.join(tree, 'prod'), { recursive: true });
mkdirSync(path.join(tree, 'base'), { recursive: true });
writeFileSync(
  path.join(tree, 'prod/kustomization.yaml'),
  'resources: [../base]\nbuildMetadata: [managedByLabel]\n',
);
writeFileSync(path.join(tree, 'base/kustomization.yaml'), 'resources: [deployment.yaml]\n');
writeFileSync(
  path.join(tree, 'base/deployment.yaml'),
  '# the web server\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n',
);
const request: RenderRequest = { kind: 'kustomize', abs: path.join(tree, 'prod'), dir: 'prod', root: tree };
const bin = standIn(path.join(temp, 'bin'), 'kustomize', KUSTOMIZE);
const env = (more: Record<string, string> = {}) => ({ PATH: path.dirname(bin), ...more });

describe('kustomizeRenderer', () => {
  test('builds a wrapper that lists the folder, with its buildMetadata, originAnnotations and transformerAnnotations; sources from the origin', async () => {
    const log = path.join(temp, 'runs.log');
    const result = await kustomizeRenderer({ env: env({ LOG: log }) })(request);
    expect(result.issues).toEqual([]);
    expect(result.tool).toBe('kustomize v5.8.2');
    expect(result.objects.map((o) => [o.source, o.value])).toEqual([
      [
        { file: 'base/deployment.yaml', line: 2 },
        { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'prod-web' }, spec: { replicas: 2 } },
      ],
    ]);
    const run = JSON.parse(readFileSync(log, 'utf8').trim()) as {
      args: string[];
      k: Record<string, unknown>;
    };
    expect(run.args[0]).toBe('build');
    expect(run.args).toHaveLength(2);
    expect(run.k).toMatchObject({
      buildMetadata: ['managedByLabel', 'originAnnotations', 'transformerAnnotations'],
    });
    expect(path.resolve(run.args[1]!, (run.k.resources as string[])[0]!)).toBe(path.join(tree, 'prod'));
  });

  test('the first build runs beside `kustomize version`, not after it, and each folder is built once', async () => {
    const dir = path.join(temp, 'beside');
    const mark = path.join(temp, 'beside.built');
    // `version` answers only once a build has started (else, after 3 s, a version that fails the test).
    standIn(
      dir,
      'kustomize',
      `if (args[0] === 'version') { const until = Date.now() + 3000;
  const wait = () => fs.existsSync(process.env.MARK) || Date.now() > until ? console.log(fs.existsSync(process.env.MARK) ? 'v5.8.2' : 'v0.0.0-after') : setTimeout(wait, 20); wait(); }
else { fs.writeFileSync(process.env.MARK, ''); fs.appendFileSync(process.env.LOG, JSON.stringify(args) + '\\n'); console.log('apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: a}'); }`,
    );
    const log = path.join(temp, 'beside.log');
    const render = kustomizeRenderer({ env: { PATH: dir, LOG: log, MARK: mark } });
    const first = await render(request);
    expect(first.tool).toBe('kustomize v5.8.2');
    expect(first.objects).toHaveLength(1);
    await render({ ...request, abs: path.join(tree, 'base'), dir: 'base' });
    expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  test('--enable-helm and --helm-command only when enabled', async () => {
    const log = path.join(temp, 'helm.log');
    await kustomizeRenderer({ env: env({ LOG: log }), enableHelm: true, helmCommand: '/opt/helm3' })(request);
    await kustomizeRenderer({ env: env({ LOG: log }), helmCommand: '/opt/helm3' })(request);
    const runs = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { args: string[] }).args);
    expect(runs.map((a) => a.slice(2))).toEqual([['--enable-helm', '--helm-command', '/opt/helm3'], []]);
  });

  test("kustomize's stderr on success is a warning at the folder's kustomization", async () => {
    const result = await kustomizeRenderer({ env: env({ WARN: "# Warning: 'vars' is deprecated." }) })(
      request,
    );
    expect(result.issues).toEqual([
      {
        source: { file: 'prod/kustomization.yaml', line: 0 },
        message: "kustomize v5.8.2: # Warning: 'vars' is deprecated.",
        severity: 'warning',
      },
    ]);
  });

  test("a failed build is an error with kustomize's words, the wrapper's part left out", async () => {
    const fail =
      "accumulating resources: accumulation err='accumulating resources from 'x': 'FOLDER' must resolve to a file': recursed accumulation of path 'FOLDER': no matches for Id Deployment.v1.apps/api";
    const result = await kustomizeRenderer({ env: env({ FAIL: fail }) })(request);
    expect(result.objects).toEqual([]);
    expect(result.issues).toEqual([
      {
        source: { file: 'prod/kustomization.yaml', line: 0 },
        message: 'kustomize v5.8.2 build prod failed: no matches for Id Deployment.v1.apps/api',
        severity: 'error',
      },
    ]);
  });

  test('no kustomize: kubectl kustomize, its version from kubectl version', async () => {
    const dir = path.join(temp, 'kubectl-only');
    standIn(
      dir,
      'kubectl',
      `if (args[0] === 'version') { console.log('Client Version: v1.34.4\\nKustomize Version: v5.7.1'); process.exit(0); }
fs.appendFileSync(process.env.LOG, JSON.stringify(args) + '\\n'); console.log('apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: a}');`,
    );
    const log = path.join(temp, 'kubectl.log');
    const result = await kustomizeRenderer({ env: { PATH: dir, LOG: log } })(request);
    expect(result.tool).toBe('kustomize v5.7.1 (kubectl v1.34.4)');
    expect((JSON.parse(readFileSync(log, 'utf8')) as string[])[0]).toBe('kustomize');
    // No origin annotation: the folder's kustomization stands for the object.
    expect(result.objects.map((o) => o.source)).toEqual([{ file: 'prod/kustomization.yaml', line: 0 }]);
  });

  test.each([
    [
      { env: { PATH: path.join(temp, 'empty') } },
      'neither kustomize nor kubectl (kubectl kustomize) is on PATH',
    ],
    [
      { env: env(), command: path.join(temp, 'missing') },
      `the kustomize setting names ${path.join(temp, 'missing')}, which cannot be run`,
    ],
  ])('no tool to run: an error at the folder saying what was looked for', async (options, message) => {
    const result = await kustomizeRenderer(options)(request);
    expect(result.issues).toHaveLength(1);
    expect(result.issues[0]).toMatchObject({
      source: { file: 'prod/kustomization.yaml', line: 0 },
      severity: 'error',
    });
    expect(result.issues[0]?.message).toContain(message);
  });
});

test('a Component on its own renders nothing, with a warning, and kustomize is not run on it', async () => {
  const dir = path.join(temp, 'component');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'kustomization.yaml'),
    'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n',
  );
  const log = path.join(temp, 'component.log');
  const result = await kustomizeRenderer({ env: env({ LOG: log }) })({
    kind: 'kustomize',
    abs: dir,
    dir: 'component',
    root: temp,
  });
  expect(result.objects).toEqual([]);
  expect(result.issues).toMatchObject([
    { source: { file: 'component/kustomization.yaml', line: 0 }, severity: 'warning' },
  ]);
  expect(result.issues[0]?.message).toContain('Component');
  expect(() => readFileSync(log)).toThrow();
});
