// The fault tests as vitest tests: one test per fault class, each failing with the schedule of its
// failing runs and the checker's findings. Used by test/faults/faults.test.ts (`npm run test:faults`,
// every class, N runs, RESULTS.md) and by test/integration/faults.itg.test.ts (the slice in `npm test`).
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { needs } from '../integration/harness.js';
import {
  type ClassResult,
  FAULT_CLASSES,
  type FaultClass,
  failureReport,
  resultsMarkdown,
  runFaultClass,
} from './faults.js';
import { startToxiproxy, type Toxi } from './toxiproxy.js';

/** Options of {@link defineFaultTests}. */
export interface SuiteOptions {
  readonly runs: number;
  readonly size: number;
  /** Total time budget of the suite, in ms: runs stop starting after it (shared fairly by the classes left). */
  readonly budgetMs: number;
  readonly seed: number;
  /** Which classes (all by default). */
  readonly classes?: readonly FaultClass[];
  /** Where to write the RESULTS.md table; none for the slice. */
  readonly resultsFile?: string;
}

export function defineFaultTests(options: SuiteOptions): void {
  const classes = options.classes ?? FAULT_CLASSES;
  const results: ClassResult[] = [];
  const started = new Date();
  const end = started.getTime() + options.budgetMs;
  let toxi: Toxi;

  describe(
    'fault tests: a deploy under each fault is checked, and a fault-free rerun converges',
    needs('toxiproxy', 'restart', 'registry', 'buildkit'),
    () => {
      beforeAll(async () => {
        const api = new URL(process.env.SPREAD_API_SERVER!);
        const registry = process.env.SPREAD_REGISTRY!.replace(/^localhost:/, '127.0.0.1:');
        toxi = await startToxiproxy(`127.0.0.1:${api.port}`, registry, options.seed);
      });
      afterAll(async () => {
        await toxi?.stop();
        if (options.resultsFile && results.length > 0)
          writeFileSync(
            options.resultsFile,
            resultsMarkdown(results, {
              runs: options.runs,
              size: options.size,
              seed: options.seed,
              budgetMinutes: Math.round(options.budgetMs / 60_000),
              started,
              kubeVersion: process.env.SPREAD_KUBE_VERSION ?? '',
            }),
          );
      });

      test.each(classes.map((c, index) => [`${c.name}, ${c.rate}`, c, index] as const))(
        '%s',
        async (_label, fault, index) => {
          // The classes left share what is left of the budget.
          const deadline = Date.now() + (end - Date.now()) / (classes.length - index);
          const result = await runFaultClass(fault, {
            runs: options.runs,
            size: options.size,
            toxi,
            deadline,
            seed: options.seed,
          });
          results.push(result);
          const report = failureReport(result);
          expect(report, report).toBe('');
          expect(
            result.runs.length,
            'no run fitted in the time budget: give --budget more minutes',
          ).toBeGreaterThan(0);
        },
      );
    },
  );
}
