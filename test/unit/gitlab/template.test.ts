// templates/deploy.yml against GitLab's rules for CI/CD catalog components (docs.gitlab.com
// "CI/CD components": spec:inputs with description, type and default; no global keywords) and
// against the release it ships with (the image pinned to package.json's version).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { longFlag, SETTINGS, type Setting } from '../../../src/frontend/settings.js';

const text = readFileSync('templates/deploy.yml', 'utf8');
const [specDoc, jobsDoc] = parseAllDocuments(text).map((d) => d.toJS());
const inputs: Record<string, { description?: string; type?: string; default?: unknown }> =
  specDoc.spec.inputs;
const body = text.slice(text.indexOf('\n---\n'));
const version = JSON.parse(readFileSync('package.json', 'utf8')).version;

describe('templates/deploy.yml', () => {
  test.each(Object.keys(inputs))('input %s has a description, a type and a default', (name) => {
    const input = inputs[name]!;
    expect(input.description?.trim()).toBeTruthy();
    expect(['string', 'boolean', 'number', 'array']).toContain(input.type);
    expect(input).toHaveProperty('default');
    expect(body).toContain(`$[[ inputs.${name} ]]`);
  });

  test('every interpolated input is declared', () => {
    for (const [, name] of body.matchAll(/\$\[\[ inputs\.([\w-]+) \]\]/g))
      expect(inputs).toHaveProperty(name!);
  });

  test("the default image is spread's, pinned to this release's version", () => {
    expect(inputs.image?.default).toBe(`ghcr.io/redspread/spread:${version}`);
  });

  test('one job and no global keywords', () => {
    expect(Object.keys(jobsDoc)).toEqual(['$[[ inputs.job-name ]]']);
  });

  // Every input the table maps to a CLI flag (src/base/settings.ts), not a copy of the list.
  const flagged = (SETTINGS as readonly Setting[]).filter(
    (s) => s.gitlab?.variable && s.cli && !s.gitlab.argument,
  );

  test('the table maps inputs to flags', () => expect(flagged.length).toBeGreaterThan(10));

  test.each(flagged.map((s) => [s.key, s]))(
    'input %s reaches the script, which has its CLI flag (gitlab.itg.test.ts runs them)',
    (name, s) => {
      const variable = s.gitlab!.variable!;
      expect(body).toContain(`${variable}: $[[ inputs.${name} ]]`);
      const script = body.slice(body.indexOf('script:'));
      expect(script).toContain(`$${variable}`);
      expect(script).toMatch(new RegExp(`${longFlag(s.cli!)}(?![\\w-])`));
    },
  );

  test("the job's environment URL is the dotenv report's SPREAD_ENVIRONMENT_URL (GitLab's dynamic environment URL)", () => {
    const job = jobsDoc['$[[ inputs.job-name ]]'];
    expect(job.environment.url).toBe('$SPREAD_ENVIRONMENT_URL');
    expect(job.artifacts.reports.dotenv).toBe('.spread/spread.env');
  });

  test('mode delete and the environment action stop are offered, for an on_stop job', () => {
    expect((inputs.mode as { options?: string[] }).options).toContain('delete');
    expect((inputs['environment-action'] as { options?: string[] }).options).toContain('stop');
  });
});

describe("the job's Docker config (the script's docker-config part, run by bash)", () => {
  const job = jobsDoc['$[[ inputs.job-name ]]'] as { script: string[] };
  const script = job.script.join('\n');
  const part = script.slice(script.indexOf('# docker-config:start'), script.indexOf('# docker-config:end'));
  const auth = (user: string, password: string) => Buffer.from(`${user}:${password}`).toString('base64');
  const run = (env: Record<string, string>, own?: unknown) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'spread-dockercfg-'));
    const secrets = path.join(dir, 'secrets');
    mkdirSync(secrets);
    const home = path.join(dir, 'home');
    if (own) {
      mkdirSync(path.join(home, '.docker'), { recursive: true });
      writeFileSync(path.join(home, '.docker', 'config.json'), JSON.stringify(own));
    }
    const r = spawnSync('bash', ['-euc', `secrets=${secrets}\n${part}\necho "$DOCKER_CONFIG"`], {
      env: { PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`, HOME: home, ...env },
      encoding: 'utf8',
    });
    const configDir = r.stdout.trim();
    return {
      code: r.status,
      stderr: r.stderr,
      config:
        r.status === 0 ? JSON.parse(readFileSync(path.join(configDir, 'config.json'), 'utf8')) : undefined,
      mode: r.status === 0 ? statSync(path.join(configDir, 'config.json')).mode & 0o777 : undefined,
    };
  };
  const ci = {
    CI_REGISTRY: 'registry.gitlab.example',
    CI_REGISTRY_USER: 'gitlab-ci-token',
    CI_REGISTRY_PASSWORD: 'job-token',
  };

  test('CI_REGISTRY credentials and DOCKER_AUTH_CONFIG and an earlier docker login are merged, none lost', () => {
    const r = run(
      { ...ci, DOCKER_AUTH_CONFIG: JSON.stringify({ auths: { 'docker.io': { auth: auth('me', 'hub') } } }) },
      {
        auths: { '123.dkr.ecr.example': { auth: auth('AWS', 'ecr') } },
        credHelpers: { 'gcr.example': 'gcloud' },
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.config).toEqual({
      auths: {
        '123.dkr.ecr.example': { auth: auth('AWS', 'ecr') },
        'docker.io': { auth: auth('me', 'hub') },
        'registry.gitlab.example': { auth: auth('gitlab-ci-token', 'job-token') },
      },
      credHelpers: { 'gcr.example': 'gcloud' },
    });
    expect(r.mode).toBe(0o600);
  });

  test("the user's own entry for CI_REGISTRY wins over the job token", () => {
    const mine = { auth: auth('deployer', 'pat') };
    const r = run({
      ...ci,
      DOCKER_AUTH_CONFIG: JSON.stringify({ auths: { 'registry.gitlab.example': mine } }),
    });
    expect(r.config.auths['registry.gitlab.example']).toEqual(mine);
  });

  test('a DOCKER_AUTH_CONFIG that is not JSON fails the job, naming it', () => {
    const r = run({ DOCKER_AUTH_CONFIG: '{not json' });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('spread: DOCKER_AUTH_CONFIG is not JSON');
  });
});
