// `npm run test:faults` (scripts/test-faults.sh): every fault class (or those whose name and rate
// contain SPREAD_FAULTS_ONLY), SPREAD_FAULTS_RUNS runs each within SPREAD_FAULTS_BUDGET minutes, the
// table in test/faults/RESULTS.md.
import path from 'node:path';
import { FAULT_CLASSES } from './faults.js';
import { defineFaultTests } from './suite.js';

// Chosen here rather than by vitest's -t, so that the budget is shared by the classes that run.
const only = process.env.SPREAD_FAULTS_ONLY;
const classes = only ? FAULT_CLASSES.filter((c) => `${c.name}, ${c.rate}`.includes(only)) : FAULT_CLASSES;
if (classes.length === 0) throw new Error(`no fault class's name contains "${only}"`);

defineFaultTests({
  classes,
  runs: Number(process.env.SPREAD_FAULTS_RUNS || 20),
  size: Number(process.env.SPREAD_FAULTS_SIZE || 200),
  budgetMs: Number(process.env.SPREAD_FAULTS_BUDGET || 60) * 60_000,
  seed: Number(process.env.SPREAD_FAULTS_SEED || 20),
  resultsFile: path.join(import.meta.dirname, 'RESULTS.md'),
});
