// examples/github/fleet.yml, the fleet's workflow (docs/fleets.md), and its copy that act runs
// (test/fixtures/act/workflows/fleet.yml, `uses: ./`, path shop): the same jobs, conditions,
// strategies and concurrency, so that what act-fleet.itg.test.ts proves holds for the example.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';

const ROOT = path.resolve(import.meta.dirname, '../../..');
type Workflow = {
  on: unknown;
  concurrency: { group: string; 'cancel-in-progress': string };
  jobs: Record<
    string,
    {
      needs?: unknown;
      if?: string;
      strategy?: unknown;
      steps: { uses?: string; with?: Record<string, string> }[];
    }
  >;
};
const read = (file: string) => parse(readFileSync(path.join(ROOT, file), 'utf8')) as Workflow;

/** The example as act runs it: the Action at the root, the deployment in shop/. */
function asFixture(w: Workflow): Workflow {
  const text = JSON.stringify(w)
    .replaceAll('"redspread/spread-action@v1"', '"./"')
    .replaceAll('"deploy/web"', '"shop"');
  return JSON.parse(text) as Workflow;
}

describe('the fleet workflow', () => {
  const example = read('examples/github/fleet.yml');
  const fixture = read('test/fixtures/act/workflows/fleet.yml');

  test('the act fixture is the example (but for the report step spelling out its default reports)', () => {
    const steps = fixture.jobs.report!.steps;
    expect(steps.at(-1)!.with!.reports).toBe('spread-reports/');
    delete steps.at(-1)!.with!.reports;
    expect(fixture).toEqual(asFixture(example));
  });

  test('every wave reads include and max-parallel from the matrix output and is skipped when empty', () => {
    for (const wave of ['canary', 'rest']) {
      const job = example.jobs[wave]!;
      expect(job.strategy).toEqual({
        'fail-fast': false,
        'max-parallel': `\${{ fromJSON(needs.plan.outputs.matrix).${wave}['max-parallel'] }}`,
        matrix: { include: `\${{ fromJSON(needs.plan.outputs.matrix).${wave}.include }}` },
      });
      expect(job.if).toContain(`fromJSON(needs.plan.outputs.matrix).${wave}.clusters > 0`);
      const soak = example.jobs[`${wave}-soak`]!;
      expect(soak.if).toContain(`needs.${wave}.result == 'success'`);
      expect(soak.if).toContain(`fromJSON(needs.plan.outputs.matrix).${wave}.soak > 0`);
      expect(soak.steps.at(-1)!.with).toMatchObject({ mode: 'fleet-soak', wave });
    }
    expect(example.jobs.rest!.needs).toEqual(['plan', 'canary', 'canary-soak']);
    expect(example.jobs.rest!.if).toContain("!contains(needs.*.result, 'failure')");
  });

  test('plans and deploys in separate concurrency groups; deploys never cancelled', () => {
    expect(example.concurrency.group).toContain("github.event_name == 'pull_request'");
    expect(example.concurrency.group).toContain(
      "'fleet-production-plan-{0}', github.event.pull_request.number",
    );
    expect(example.concurrency.group).toContain("|| 'fleet-production-deploy'");
    expect(example.concurrency['cancel-in-progress']).toBe(`\${{ github.event_name == 'pull_request' }}`);
  });
});
