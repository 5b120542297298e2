// dist/gitlab/report.js (src/gitlab/report.ts), the GitLab component's report step, run as the job
// runs it (`node dist/gitlab/report.js REPORT.json OUT_DIR STATUS`, after `node scripts/build.mjs`) on the shapes `spread deploy|plan -o json` writes:
// a report, a failure {error, failures, report?}, nothing at all. Every case writes all three files.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';

const script = path.resolve('dist/gitlab/report.js');

const report = {
  deployment: 'web',
  namespace: 'shop',
  context: 'prod',
  mode: 'deploy',
  objects: [
    {
      apiVersion: 'v1',
      kind: 'Service',
      namespace: 'shop',
      name: 'web',
      action: 'created',
      source: 'svc.yaml:1',
    },
  ],
  images: [],
  rollout: [
    {
      kind: 'Deployment',
      namespace: 'shop',
      name: 'web',
      ready: false,
      message: 'ImagePullBackOff',
      durationMs: 4200,
    },
  ],
  durationMs: 5000,
};

function run(content: string | undefined, status: number, env: NodeJS.ProcessEnv = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'spread-report-'));
  const file = path.join(dir, 'report.json');
  if (content !== undefined) writeFileSync(file, content);
  const out = path.join(dir, 'out');
  const r = spawnSync(process.execPath, [script, file, out, String(status)], {
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      SPREAD_INPUT_MODE: 'deploy',
      SPREAD_INPUT_PATH: 'deploy/web',
      SPREAD_INPUT_NAMESPACE: 'team-a',
      SPREAD_INPUT_CONTEXT: 'prod',
      ...env,
    },
  });
  const read = (f: string) => readFileSync(path.join(out, f), 'utf8');
  const dotenv = Object.fromEntries(
    read('spread.env')
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  return { ...r, out, plan: read('plan.md'), summary: read('summary.md'), dotenv };
}

describe('dist/gitlab/report.js', () => {
  test.each([
    {
      name: 'a report',
      content: JSON.stringify({ ...report, rollout: [] }),
      status: 0,
      plan: ['### Deploy: `web` → context `prod`, namespace `shop`', '`service/web`'],
      dotenv: {
        SPREAD_OUTCOME: 'success',
        SPREAD_ERROR: '',
        SPREAD_DEPLOYMENT: 'web',
        SPREAD_CHANGED: 'true',
      },
    },
    {
      name: 'an input error: the message and each place',
      content: JSON.stringify({
        error: '2 errors in the input',
        failures: [
          { message: 'YAML: bad indentation', file: 'rc.yaml', line: 6, severity: 'error' },
          {
            message: 'unknown field "spec.replica"',
            file: 'web/deployment.yaml',
            line: 9,
            severity: 'error',
          },
        ],
      }),
      status: 1,
      plan: [
        '### ❌ Deploy failed: directory `deploy/web`',
        // Places in the project, under the component's path input (deploy/web).
        'error: 2 errors in the input\n  deploy/web/rc.yaml:6: YAML: bad indentation\n  deploy/web/web/deployment.yaml:9: unknown field "spec.replica"',
      ],
      dotenv: {
        SPREAD_OUTCOME: 'failure',
        SPREAD_ERROR: '2 errors in the input',
        SPREAD_DEPLOYMENT: '',
        SPREAD_CHANGED: '',
        // Where it was going, from the inputs, though no report says so.
        SPREAD_NAMESPACE: 'team-a',
        SPREAD_CONTEXT: 'prod',
      },
    },
    {
      name: 'a failed rollout: the error, then what was applied',
      content: JSON.stringify({
        error: 'rollout failed: deployment/web: ImagePullBackOff',
        failures: [],
        report,
      }),
      status: 1,
      plan: [
        '### ❌ Deploy failed: `web`, context `prod`, namespace `shop`',
        'error: rollout failed: deployment/web: ImagePullBackOff',
        '#### What was applied before the failure',
        '#### Deploy: `web`',
      ],
      dotenv: {
        SPREAD_OUTCOME: 'failure',
        SPREAD_DEPLOYMENT: 'web',
        SPREAD_NAMESPACE: 'shop',
        SPREAD_CHANGED: 'true',
      },
    },
    {
      name: 'a failed post phase, rolled back: the step in the title',
      content: JSON.stringify({
        error: 'post failed: rollout failed',
        failures: [],
        report: { ...report, failedIn: 'post', rolledBackTo: 2 },
      }),
      status: 1,
      plan: [
        '### ❌ Deploy failed in post, rolled back to revision 2: `web`, context `prod`, namespace `shop`',
      ],
      dotenv: { SPREAD_OUTCOME: 'failure', SPREAD_DEPLOYMENT: 'web' },
    },
    {
      name: 'nothing written (spread stopped before its report, e.g. a bad flag)',
      content: undefined,
      status: 1,
      plan: ['error: spread exited with status 1 before writing a report; its errors are in the job log'],
      dotenv: { SPREAD_OUTCOME: 'failure', SPREAD_DEPLOYMENT: '' },
    },
    {
      name: 'not JSON',
      content: 'Killed\n',
      status: 137,
      plan: ['is not JSON'],
      dotenv: { SPREAD_OUTCOME: 'failure' },
    },
  ])('$name: plan.md, summary.md and spread.env, exit code 0', ({ content, status, plan, dotenv }) => {
    const r = run(content, status);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    for (const text of plan) expect(r.plan).toContain(text);
    expect(r.summary.startsWith(r.plan)).toBe(true);
    expect(r.dotenv).toMatchObject(dotenv);
  });

  test('a failed plan without a report changed nothing', () => {
    const r = run(JSON.stringify({ error: 'x', failures: [] }), 1, { SPREAD_INPUT_MODE: 'plan' });
    expect(r.plan).toContain('### ❌ Plan failed');
    expect(r.dotenv.SPREAD_CHANGED).toBe('false');
  });

  test.each([
    ['the report url, when the input environment-url is empty', {}, 'https://shop.example.com'],
    [
      'the input environment-url over the report url',
      { SPREAD_ENVIRONMENT_URL: 'https://given.example.com' },
      'https://given.example.com',
    ],
  ])('SPREAD_ENVIRONMENT_URL (GitLab reads environment:url from it): %s', (_, env, url) => {
    const r = run(JSON.stringify({ ...report, url: 'https://shop.example.com' }), 0, env);
    expect(r.dotenv.SPREAD_ENVIRONMENT_URL).toBe(url);
  });

  // `spread deploy --environment production --cluster eu-1 -o json` prints a fleet report of one cluster.
  const fleetOf = (leg: Record<string, unknown>) =>
    JSON.stringify({
      environment: 'production',
      mode: 'deploy',
      status: leg.status,
      waves: [
        { name: 'canary', status: leg.status, clusters: [{ cluster: 'eu-1', wave: 'canary', ...leg }] },
      ],
      durationMs: 5000,
    });
  const leg = { SPREAD_INPUT_ENVIRONMENT: 'production', SPREAD_INPUT_CLUSTER: 'eu-1' };

  test("a fleet's leg: its one cluster's report, and spread-report-eu-1.json naming the leg", () => {
    const r = run(fleetOf({ status: 'succeeded', report: { ...report, rollout: [] } }), 0, leg);
    expect(r.dotenv).toMatchObject({ SPREAD_OUTCOME: 'success', SPREAD_DEPLOYMENT: 'web' });
    expect(r.plan).toContain('### Deploy: `web` → context `prod`, namespace `shop`');
    const file = JSON.parse(readFileSync(path.join(r.out, 'spread-report-eu-1.json'), 'utf8'));
    expect(file).toMatchObject({ deployment: 'web', leg: { environment: 'production', cluster: 'eu-1' } });
    expect(file.error).toBeUndefined();
  });

  test('a failed leg: the error in the dotenv and in spread-report-eu-1.json, with what it applied', () => {
    const r = run(fleetOf({ status: 'failed', error: 'rollout failed', report }), 1, leg);
    expect(r.dotenv).toMatchObject({ SPREAD_OUTCOME: 'failure', SPREAD_ERROR: 'rollout failed' });
    const file = JSON.parse(readFileSync(path.join(r.out, 'spread-report-eu-1.json'), 'utf8'));
    expect(file).toMatchObject({
      error: 'rollout failed',
      report: { deployment: 'web' },
      leg: { environment: 'production', cluster: 'eu-1' },
    });
  });

  test('no cluster input, or several clusters: no leg file', () => {
    for (const env of [{}, { ...leg, SPREAD_INPUT_CLUSTER: 'eu-1,eu-2' }]) {
      const r = run(JSON.stringify(report), 0, env);
      expect(readdirSync(r.out).filter((f) => f.startsWith('spread-report-'))).toEqual([]);
    }
  });

  test('a report without a url: SPREAD_ENVIRONMENT_URL is empty', () => {
    expect(run(JSON.stringify(report), 0).dotenv.SPREAD_ENVIRONMENT_URL).toBe('');
  });

  test('summary.md adds the rollout table', () => {
    const r = run(JSON.stringify({ error: 'rollout failed', failures: [], report }), 1);
    expect(r.summary).toContain('| `deployment/web` | ❌ | ImagePullBackOff | 4.2s |');
  });

  test('dotenv values are one line and at most 1,000 characters', () => {
    const r = run(JSON.stringify({ error: `first\n  second ${'x'.repeat(3000)}`, failures: [] }), 1);
    expect(r.dotenv.SPREAD_ERROR).toMatch(/^first second x+…$/);
    expect(r.dotenv.SPREAD_ERROR?.length).toBe(1000);
  });

  test('a report the bundle cannot format: the files still say so, the error is short lines, exit code 1', () => {
    const r = run(JSON.stringify({ deployment: 'web', objects: [null], rollout: [] }), 0);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      'spread report: could not format the report: TypeError: Cannot read properties of null',
    );
    // A frame in the chunk of the report formatters the step loads (dist/comment-<hash>.js).
    expect(r.stderr).toMatch(/ {4}at .*dist\/[\w-]+\.js:\d+:\d+/);
    expect(Math.max(...`${r.stdout}\n${r.stderr}`.split('\n').map((l) => l.length))).toBeLessThan(400);
    expect(r.plan).toContain('could not format the report');
    expect(r.dotenv.SPREAD_OUTCOME).toBe('failure');
  });
});

describe('SPREAD_IMAGES in the dotenv report', () => {
  test('eight built images: cut to GitLab’s 1,000 characters as JSON that still parses, naming the artifact', () => {
    const images = Array.from({ length: 8 }, (_, i) => ({
      name: `registry.example/team/app-${i}`,
      reference: `registry.example/team/app-${i}:0123456789ab@sha256:${'a'.repeat(64)}`,
      tag: '0123456789ab',
      digest: `sha256:${'a'.repeat(64)}`,
      built: true,
      pushed: true,
      source: `app-${i}/app.ctr:3`,
    }));
    const r = run(JSON.stringify({ ...report, images }), 0);
    expect(r.status, r.stderr).toBe(0);
    expect(r.dotenv.SPREAD_IMAGES!.length).toBeLessThanOrEqual(1000);
    const parsed = JSON.parse(r.dotenv.SPREAD_IMAGES!) as {
      reference?: string;
      truncated?: string;
      left?: number;
    }[];
    expect(parsed.length).toBeLessThan(8);
    expect(parsed[0]!.reference).toBe(images[0]!.reference);
    expect(parsed.at(-1)!.left).toBe(8 - (parsed.length - 1));
    expect(parsed.at(-1)!.truncated).toContain("a dotenv value's limit in GitLab");
    expect(parsed.at(-1)!.truncated).toContain('the artifact report.json');
  });
});
