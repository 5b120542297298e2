// `npm run test:faults` (scripts/test-faults.sh): every fault class, SPREAD_FAULTS_RUNS runs each
// within SPREAD_FAULTS_BUDGET minutes, the table in test/faults/RESULTS.md.
import path from 'node:path';
import { defineFaultTests } from './suite.js';

defineFaultTests({
  runs: Number(process.env.SPREAD_FAULTS_RUNS || 20),
  size: Number(process.env.SPREAD_FAULTS_SIZE || 200),
  budgetMs: Number(process.env.SPREAD_FAULTS_BUDGET || 60) * 60_000,
  seed: Number(process.env.SPREAD_FAULTS_SEED || 20),
  resultsFile: path.join(import.meta.dirname, 'RESULTS.md'),
});
