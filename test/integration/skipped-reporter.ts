// A vitest reporter for runs against an existing cluster (SPREAD_TEST_CONTEXT): lists, at the end and in
// coverage/integration-skipped.txt, every test skipped because it needs one of the harness's own
// components (harness.ts), grouped by the reason. Silent when no test was skipped that way.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/** The file the list is written to, beside vitest-results.json. */
export const SKIPPED_FILE = path.join('coverage', 'integration-skipped.txt');

export default class SkippedReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const byReason = new Map<string, string[]>();
    for (const module of testModules) {
      const file = path.relative(process.cwd(), module.moduleId);
      for (const test of module.children.allTests()) {
        const why = test.meta().harnessSkip;
        if (why === undefined || test.result().state !== 'skipped') continue;
        byReason.set(why, [...(byReason.get(why) ?? []), `${file} > ${test.fullName}`]);
      }
    }
    if (byReason.size === 0) return;
    const count = [...byReason.values()].reduce((n, tests) => n + tests.length, 0);
    const lines = [
      `${count} integration tests skipped: they need the harness's own components (SPREAD_TEST_CONTEXT=${process.env.SPREAD_TEST_CONTEXT ?? ''})`,
    ];
    for (const [why, tests] of byReason) lines.push('', `${why}:`, ...tests.map((t) => `  ${t}`));
    mkdirSync(path.dirname(SKIPPED_FILE), { recursive: true });
    writeFileSync(SKIPPED_FILE, `${lines.join('\n')}\n`);
    process.stdout.write(`\n${lines.join('\n')}\n(listed in ${SKIPPED_FILE})\n`);
  }
}
