// templates/deploy.yml against GitLab's rules for CI/CD catalog components (docs.gitlab.com
// "CI/CD components": spec:inputs with description, type and default; no global keywords) and
// against the release it ships with (the image pinned to package.json's version).
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { parseAllDocuments } from 'yaml';

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

  test.each([
    'force-conflicts',
    'prune-crds',
    'replace',
    'adopt',
    'rollback-on-failure',
    'tag',
    'build-args',
    'lock-timeout',
    'url-from',
  ])('input %s reaches the script, which has its CLI flag (gitlab.itg.test.ts runs them)', (name) => {
    const variable = `SPREAD_INPUT_${name.toUpperCase().replace(/-/g, '_')}`;
    expect(body).toContain(`${variable}: $[[ inputs.${name} ]]`);
    const script = body.slice(body.indexOf('script:'));
    expect(script).toContain(`$${variable}`);
    expect(script).toMatch(new RegExp(`--${name === 'build-args' ? 'build-arg' : name}(?![\\w-])`));
  });

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
