// dist/gitlab/fleet.js, the GitLab component's mode fleet-report (templates/deploy.yml):
// `node dist/gitlab/fleet.js REPORTS_DIR OUT_DIR`. The step itself is src/gitlab/fleet.ts; exit code
// 0 when every leg of the fleet succeeded, 1 when not (or on an error), 2 on a usage error.
import { FLEET_USAGE, writeFleetReport } from '../gitlab/fleet.js';
import { describeError } from '../gitlab/report.js';

process.on('uncaughtException', (error) => {
  process.stderr.write(`spread fleet-report: internal error: ${describeError(error)}\n`);
  process.exit(1);
});

const [reportsDir, outDir] = process.argv.slice(2);
if (!reportsDir || !outDir) {
  console.error(FLEET_USAGE);
  process.exit(2);
}
try {
  process.exitCode = await writeFleetReport(reportsDir, outDir, process.env);
} catch (error) {
  console.error(`spread fleet-report: ${(error as Error).message}`);
  process.exitCode = 1;
}
