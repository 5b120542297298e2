// The slice of the fault tests that `npm test` runs: one class of each injector once, on a workload
// of 40 objects (`npm run test:faults` runs every class N times on 200 and writes
// test/faults/RESULTS.md).
import { FAULT_CLASSES } from '../faults/faults.js';
import { defineFaultTests } from '../faults/suite.js';

const SLICE = [
  'API: reset_peer, 20 %',
  'API: 429 (Priority and Fairness)',
  'API server restarted',
  'etcd paused (SIGSTOP)',
  'registry: reset_peer',
  'registry restarted mid-push',
  'BuildKit (buildkitd) killed mid-build',
  "SIGKILL of the Action's process tree",
  "SIGTERM of the Action's process tree",
  'stdout and stderr closed (CLI)',
];
const classes = SLICE.map((label) => {
  const found = FAULT_CLASSES.find((c) => `${c.name}, ${c.rate}`.startsWith(label));
  if (!found) throw new Error(`no fault class ${label}`);
  return found;
});

defineFaultTests({ runs: 1, size: 40, budgetMs: 10 * 60_000, seed: 7, classes });
