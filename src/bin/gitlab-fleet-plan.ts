// dist/gitlab/fleet-plan.js, the GitLab component's mode fleet-plan (templates/deploy.yml):
// `node dist/gitlab/fleet-plan.js REPORT_JSON OUT_DIR EXIT_CODE`, after `spread plan --environment E
// -o json > REPORT_JSON`. The step itself is src/gitlab/fleet-plan.ts; exit code 0 when every cluster
// was planned, 1 when not (or on an error), 2 on a usage error.
import { FLEET_PLAN_USAGE, writeFleetPlan } from '../gitlab/fleet-plan.js';
import { describeError } from '../gitlab/report.js';

process.on('uncaughtException', (error) => {
  process.stderr.write(`spread fleet-plan: internal error: ${describeError(error)}\n`);
  process.exit(1);
});

const [reportFile, outDir, code] = process.argv.slice(2);
if (!reportFile || !outDir || code === undefined) {
  console.error(FLEET_PLAN_USAGE);
  process.exit(2);
}
try {
  process.exitCode = await writeFleetPlan(reportFile, outDir, Number(code), process.env);
} catch (error) {
  console.error(`spread fleet-plan: ${(error as Error).message}`);
  process.exitCode = 1;
}
