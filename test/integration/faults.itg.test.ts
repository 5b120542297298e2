// The slice of the fault tests that `npm test` runs: every fault class once, on a workload of 40
// objects (`npm run test:faults` runs them N times on 200 and writes test/faults/RESULTS.md).
import { defineFaultTests } from '../faults/suite.js';

defineFaultTests({ runs: 1, size: 40, budgetMs: 15 * 60_000, seed: 7 });
