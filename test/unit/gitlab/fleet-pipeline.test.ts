// The GitLab component's mode fleet-plan (src/gitlab/fleet-plan.ts, src/gitlab/fleet-pipeline.ts):
// the child pipeline it writes from spread.yaml (a stage per wave, per batch of maxParallel, a
// parallel:matrix job per stage, the fleet-report job last), the inputs its legs take from the
// fleet-plan job, checked against templates/deploy.yml's spec:inputs, and the plan it reports.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { fleetPipeline, passedInputs } from '../../../src/gitlab/fleet-pipeline.js';
import { writeFleetPlan } from '../../../src/gitlab/fleet-plan.js';
import { environmentNamed } from '../../../src/project/environments.js';
import { loadEnvironments } from '../../../src/project/load.js';

const spec = parseAllDocuments(readFileSync('templates/deploy.yml', 'utf8'))[0]!.toJS().spec.inputs as Record<
  string,
  { type: string; options?: string[] }
>;

const spreadYaml = (waves: string) => `environments:
  production:
    namespace: web
    clusters:
      - { name: eu-1, context: prod-eu-1 }
      - { name: eu-2, context: prod-eu-2 }
      - { name: us-1, context: prod-us-1 }
      - { name: us-2, context: prod-us-2 }
    waves:
${waves}`;
const WAVES =
  '      - { name: canary, clusters: [eu-1], soak: 30s }\n      - { name: rest, maxParallel: 2 }\n';

function project(waves = WAVES): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'spread-fleet-plan-'));
  mkdirSync(path.join(dir, 'deploy/web'), { recursive: true });
  writeFileSync(path.join(dir, 'deploy/web/spread.yaml'), spreadYaml(waves));
  return dir;
}
const production = (dir: string) =>
  environmentNamed(loadEnvironments(path.join(dir, 'deploy/web'))!, 'production')!;

type Include = { component?: string; local?: string; inputs: Record<string, unknown> };
const child = (text: string) =>
  parse(text) as { stages: string[]; include: Include[] } & Record<string, { parallel: { matrix: unknown } }>;

const jobEnv = {
  SPREAD_INPUT_PATH: 'deploy/web',
  SPREAD_INPUT_ENVIRONMENT: 'production',
  SPREAD_INPUT_MODE: 'fleet-plan',
  SPREAD_INPUT_CLUSTER: '',
  SPREAD_INPUT_NAME: 'web',
  SPREAD_INPUT_TIMEOUT: '10m',
  SPREAD_INPUT_PRUNE: 'true',
  SPREAD_INPUT_WAIT: 'true',
  SPREAD_INPUT_ROLLBACK_ON_FAILURE: 'true',
  SPREAD_INPUT_HELM_SET: 'replicaCount=3\n',
  SPREAD_INPUT_PACKAGE: '/builds/spread',
  SPREAD_MR_NOTE: 'true',
  CI_JOB_IMAGE: 'node:24-slim',
};

describe('fleetPipeline', () => {
  const text = fleetPipeline(production(project()), {
    component: 'gitlab.example.com/acme/spread/deploy@1.2.0',
    env: jobEnv,
    source: 'deploy/web/spread.yaml',
  });
  const yaml = child(text);

  test('a stage per wave, a wave with maxParallel 2 of three clusters in two, then the report', () => {
    expect(yaml.stages).toEqual(['canary', 'rest-1', 'rest-2', 'fleet-report']);
    expect(yaml['deploy-canary']).toEqual({ parallel: { matrix: [{ CLUSTER: ['eu-1'] }] } });
    expect(yaml['deploy-rest-1']).toEqual({ parallel: { matrix: [{ CLUSTER: ['eu-2', 'us-1'] }] } });
    expect(yaml['deploy-rest-2']).toEqual({ parallel: { matrix: [{ CLUSTER: ['us-2'] }] } });
  });

  test('each stage one include of the component: a deploy of $CLUSTER in its own resource group', () => {
    expect(yaml.include.map((i) => i.component)).toEqual(
      Array(4).fill('gitlab.example.com/acme/spread/deploy@1.2.0'),
    );
    expect(yaml.include.map((i) => [i.inputs['job-name'], i.inputs.stage, i.inputs.mode])).toEqual([
      ['deploy-canary', 'canary', 'deploy'],
      ['deploy-rest-1', 'rest-1', 'deploy'],
      ['deploy-rest-2', 'rest-2', 'deploy'],
      ['fleet-report', 'fleet-report', 'fleet-report'],
    ]);
    const leg = yaml.include[0]!.inputs;
    expect(leg).toMatchObject({
      environment: 'production',
      cluster: '$CLUSTER',
      'resource-group': 'spread-production-$CLUSTER',
    });
    expect(yaml.include[3]!.inputs).toMatchObject({
      'environment-action': 'verify',
      rules: [{ when: 'always' }],
    });
    expect(yaml.include[3]!.inputs).not.toHaveProperty('cluster');
  });

  test("the fleet-plan job's inputs that differ from their default go to every job, the image too", () => {
    for (const { inputs } of yaml.include)
      expect(inputs).toMatchObject({
        path: 'deploy/web',
        name: 'web',
        timeout: '10m',
        'rollback-on-failure': true,
        package: '/builds/spread',
        image: 'node:24-slim',
      });
    // Values that may be credentials stay out of the artifact.
    for (const { inputs } of yaml.include) expect(inputs).not.toHaveProperty('helm-set');
    expect(text).not.toContain('replicaCount');
    // Defaults are left to the component: prune, wait, mr-note.
    expect(Object.keys(yaml.include[0]!.inputs)).not.toEqual(expect.arrayContaining(['prune']));
    expect(yaml.include[0]!.inputs).not.toHaveProperty('wait');
    expect(yaml.include[0]!.inputs).not.toHaveProperty('mr-note');
  });

  test("every input given is one of the component's, of its type (GitLab refuses the include otherwise)", () => {
    const all = passedInputs(
      Object.fromEntries(
        Object.entries(spec).map(([k, v]) => [
          `SPREAD_INPUT_${k.toUpperCase().replaceAll('-', '_')}`,
          v.type === 'boolean' ? 'true' : 'x',
        ]),
      ),
    );
    expect(Object.keys(all).length).toBeGreaterThan(20);
    for (const { inputs } of yaml.include)
      for (const [key, value] of Object.entries({ ...inputs, ...all })) {
        expect(spec[key], key).toBeDefined();
        const type = spec[key]!.type;
        expect(typeof value === 'boolean' ? 'boolean' : Array.isArray(value) ? 'array' : 'string', key).toBe(
          type,
        );
        if (spec[key]!.options && key !== 'mode') expect(spec[key]!.options, key).toContain(value);
      }
  });

  test('a file of the project is included as local', () => {
    const local = child(
      fleetPipeline(production(project()), { component: 'templates/deploy.yml', env: {}, source: 's' }),
    );
    expect(local.include.map((i) => i.local)).toEqual(Array(4).fill('templates/deploy.yml'));
    expect(local.include[0]).not.toHaveProperty('component');
  });

  test('a wave named as the batch of another is an error of spread.yaml at its line, before any plan', () => {
    const dir = project(
      '      - { name: rest, clusters: [eu-1, eu-2], maxParallel: 1 }\n      - { name: rest-2 }\n',
    );
    expect(() => production(dir)).toThrow(
      /spread\.yaml:\d+: production: wave name rest-2 is also wave rest's batch 2 of 2 \(maxParallel: a stage per batch in GitLab's child pipeline\): rename the wave/,
    );
  });
});

describe('writeFleetPlan', () => {
  const planReport = (status: 'succeeded' | 'failed') => ({
    environment: 'production',
    mode: 'plan',
    status,
    waves: [
      {
        name: 'canary',
        status,
        clusters: [
          status === 'succeeded'
            ? {
                cluster: 'eu-1',
                wave: 'canary',
                status,
                context: 'prod-eu-1',
                namespace: 'web',
                changes: { created: 2, configured: 0, unchanged: 0, pruned: 0 },
              }
            : {
                cluster: 'eu-1',
                wave: 'canary',
                status,
                error: 'connect ECONNREFUSED 127.0.0.1:1; nothing was applied',
              },
        ],
      },
      { name: 'rest', status: 'succeeded', clusters: [] },
    ],
    durationMs: 10,
  });

  async function run(report: unknown, code: number, extra: NodeJS.ProcessEnv = {}) {
    const dir = project();
    const out = path.join(dir, '.spread');
    mkdirSync(out);
    writeFileSync(path.join(out, 'report.json'), JSON.stringify(report));
    const log: string[] = [];
    const spies = [
      vi.spyOn(process.stdout, 'write').mockImplementation((s) => log.push(String(s)) > 0),
      vi.spyOn(console, 'log').mockImplementation((s) => void log.push(String(s))),
      vi.spyOn(console, 'error').mockImplementation((s) => void log.push(String(s))),
    ];
    try {
      const status = await writeFleetPlan(path.join(out, 'report.json'), out, code, {
        ...jobEnv,
        SPREAD_INPUT_PATH: path.join(dir, 'deploy/web'),
        SPREAD_INPUT_COMPONENT: 'templates/deploy.yml',
        ...extra,
      });
      const read = (f: string) => readFileSync(path.join(out, f), 'utf8');
      return { status, log: log.join(''), read };
    } finally {
      for (const s of spies) s.mockRestore();
    }
  }

  test('every cluster planned: the child pipeline, fleet-plan.md and SPREAD_OUTCOME=success, exit 0', async () => {
    const r = await run(planReport('succeeded'), 0);
    expect(r.status, r.log).toBe(0);
    expect(child(r.read('fleet-pipeline.yml')).stages).toEqual([
      'canary',
      'rest-1',
      'rest-2',
      'fleet-report',
    ]);
    expect(r.read('fleet-plan.md')).toContain('<!-- spread-fleet-plan:production/web -->');
    expect(r.read('fleet-plan.md')).toMatch(/\| ✅ \| `eu-1` \| `prod-eu-1` \|/);
    expect(r.read('spread.env')).toBe('SPREAD_OUTCOME=success\n');
    expect(r.log).toContain(
      'spread: WARNING: the input(s) helm-set are not written into the child pipeline (an artifact; their values may be credentials)',
    );
    expect(r.log).not.toContain('replicaCount');
  });

  test('a cluster not planned: the pipeline is written all the same, the job fails naming it', async () => {
    const r = await run(planReport('failed'), 1);
    expect(r.status).toBe(1);
    expect(r.read('fleet-pipeline.yml')).toContain('deploy-canary');
    expect(r.read('fleet-plan.md')).toContain('ECONNREFUSED');
    expect(r.log).toContain('spread: fleet production: the plan of eu-1 failed');
    expect(r.read('spread.env')).toBe('SPREAD_OUTCOME=failure\n');
  });

  test("the CLI's {error}: the job fails with it", async () => {
    const r = await run({ error: 'context prod-eu-9 is not in the kubeconfig', failures: [] }, 1);
    expect(r.status).toBe(1);
    expect(r.log).toContain(
      'spread fleet-plan: the fleet could not be planned: context prod-eu-9 is not in the kubeconfig',
    );
    expect(r.read('spread.env')).toBe('SPREAD_OUTCOME=failure\n');
  });

  test.each([
    ['true', 1],
    ['false', 0],
  ])(
    'in a merge request pipeline with SPREAD_GITLAB_TOKEN and mr-note %s: %i plan note(s)',
    async (note, count) => {
      const posts: { url: string; body: string }[] = [];
      const server = createServer((req, res) => {
        let body = '';
        req.on('data', (d) => (body += d));
        req.on('end', () => {
          if (req.method === 'POST') posts.push({ url: req.url!, body });
          res.setHeader('content-type', 'application/json');
          res.end(req.method === 'GET' ? '[]' : '{"id": 9}');
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      try {
        const r = await run(planReport('succeeded'), 0, {
          CI_MERGE_REQUEST_IID: '5',
          CI_API_V4_URL: `http://127.0.0.1:${port}/api/v4`,
          CI_PROJECT_ID: '42',
          SPREAD_GITLAB_TOKEN: 'glpat-secret',
          SPREAD_MR_NOTE: note,
        });
        expect(r.status, r.log).toBe(0);
        expect(r.log).not.toContain('glpat-secret');
        expect(posts).toHaveLength(count);
        if (count > 0) {
          expect(r.log).toContain('spread: fleet plan note 9 created');
          expect(posts[0]!.url).toBe('/api/v4/projects/42/merge_requests/5/notes');
          const body = JSON.parse(posts[0]!.body).body as string;
          expect(body).toContain('<!-- spread-fleet-plan:production/web -->');
          expect(body).toMatch(/\| ✅ \| `eu-1` \| `prod-eu-1` \|/);
        }
      } finally {
        server.close();
      }
    },
  );
});
