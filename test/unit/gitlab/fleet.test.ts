// dist/gitlab/fleet.js (src/gitlab/fleet.ts), the GitLab component's mode fleet-report, run as the job
// runs it (`node dist/gitlab/fleet.js REPORTS_DIR OUT_DIR`, after `node scripts/build.mjs`) on the
// legs' spread-report-CLUSTER.json files that src/gitlab/report.ts writes: every leg green, a failed
// leg, a leg that did not run; the merge request note through a stand-in of GitLab's notes API.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';

const script = path.resolve('dist/gitlab/fleet.js');

const spreadYaml = `environments:
  production:
    namespace: web
    clusters:
      - { name: eu-1, context: prod-eu-1 }
      - { name: eu-2, context: prod-eu-2 }
      - { name: us-1, context: prod-us-1 }
    waves:
      - { name: canary, clusters: [eu-1] }
      - { name: rest }
`;

const legReport = (cluster: string, error?: string) => {
  const report = {
    deployment: 'web',
    namespace: 'web',
    context: `prod-${cluster}`,
    mode: 'deploy',
    revision: 3,
    objects: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'web', name: 'a', action: 'configured' }],
    images: [],
    rollout: [],
    durationMs: 1000,
  };
  const leg = { environment: 'production', cluster };
  return JSON.stringify(error ? { error, failures: [], report, leg } : { ...report, leg });
};

/** The job's build directory with spread.yaml and the legs' artifacts, and the step run in it. */
async function run(legs: Record<string, string | undefined>, env: NodeJS.ProcessEnv = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'spread-fleet-'));
  mkdirSync(path.join(dir, 'deploy/web'), { recursive: true });
  writeFileSync(path.join(dir, 'deploy/web/spread.yaml'), spreadYaml);
  const out = path.join(dir, '.spread');
  mkdirSync(out);
  for (const [cluster, error] of Object.entries(legs))
    writeFileSync(path.join(out, `spread-report-${cluster}.json`), legReport(cluster, error));
  const child = spawn(process.execPath, [script, out, out], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      SPREAD_INPUT_PATH: 'deploy/web',
      SPREAD_INPUT_ENVIRONMENT: 'production',
      SPREAD_INPUT_NAME: 'web',
      ...env,
    },
  });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
  const read = (f: string) => (existsSync(path.join(out, f)) ? readFileSync(path.join(out, f), 'utf8') : '');
  return {
    code,
    log,
    markdown: read('fleet-report.md'),
    dotenv: read('spread.env'),
    json: JSON.parse(read('fleet-report.json') || 'null'),
  };
}

describe('dist/gitlab/fleet.js', () => {
  test('every leg green: exit 0, the log and fleet-report.md list the three clusters by wave', async () => {
    const r = await run({ 'eu-1': undefined, 'eu-2': undefined, 'us-1': undefined });
    expect(r.code, r.log).toBe(0);
    expect(r.log).toContain('Fleet production: 3 cluster(s) in 2 wave(s)');
    for (const c of ['eu-1', 'eu-2', 'us-1']) expect(r.log).toMatch(new RegExp(`${c}\\s+succeeded`));
    expect(r.markdown).toContain('<!-- spread-fleet-report:production/web -->');
    expect(r.markdown).toContain('**3** succeeded');
    expect(r.json).toMatchObject({ environment: 'production', status: 'succeeded' });
    expect(r.dotenv).toBe('SPREAD_OUTCOME=success\n');
  });

  test('a failed canary and a wave that did not run: exit 1 naming each', async () => {
    const r = await run({ 'eu-1': 'ImagePullBackOff' });
    expect(r.code, r.log).toBe(1);
    expect(r.log).toContain('the deploy of 3 of 3 cluster(s) did not succeed');
    expect(r.log).toContain('eu-1 (wave canary): failed: ImagePullBackOff');
    expect(r.log).toContain('us-1 (wave rest): skipped: no report: the leg did not run');
    expect(r.json.status).toBe('failed');
    expect(r.markdown).toContain('**1** failed');
    expect(r.dotenv).toBe('SPREAD_OUTCOME=failure\n');
  });

  test('an environment spread.yaml does not declare: exit 1 saying so, no report written', async () => {
    const r = await run({}, { SPREAD_INPUT_ENVIRONMENT: 'staging' });
    expect(r.code).toBe(1);
    expect(r.log).toContain('spread fleet-report: environment staging is not declared');
    expect(r.json).toBeNull();
  });

  test('in a merge request pipeline with SPREAD_GITLAB_TOKEN: one note, the token in a header only', async () => {
    const requests: { method: string; url: string; token: string; body: string }[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        requests.push({
          method: req.method!,
          url: req.url!,
          token: String(req.headers['private-token']),
          body,
        });
        res.setHeader('content-type', 'application/json');
        res.end(req.method === 'GET' ? '[]' : '{"id": 7}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const r = await run(
        { 'eu-1': undefined, 'eu-2': undefined, 'us-1': undefined },
        {
          CI_MERGE_REQUEST_IID: '5',
          CI_API_V4_URL: `http://127.0.0.1:${port}/api/v4`,
          CI_PROJECT_ID: '42',
          SPREAD_GITLAB_TOKEN: 'glpat-secret',
        },
      );
      expect(r.code, r.log).toBe(0);
      expect(r.log).toContain('spread: fleet report note 7 created');
      expect(r.log).not.toContain('glpat-secret');
      const post = requests.find((q) => q.method === 'POST')!;
      expect(post.url).toBe('/api/v4/projects/42/merge_requests/5/notes');
      expect(post.token).toBe('glpat-secret');
      expect(JSON.parse(post.body).body).toContain('<!-- spread-fleet-report:production/web -->');
    } finally {
      server.close();
    }
  });
});
