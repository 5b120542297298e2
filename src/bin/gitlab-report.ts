// dist/gitlab/report.js, the GitLab component's report step (templates/deploy.yml runs it after the
// CLI): `node dist/gitlab/report.js REPORT.json OUT_DIR [EXIT_STATUS]`. The step itself is
// src/gitlab/report.ts; exit code 0 when its files were written, 1 when not, 2 on a usage error.
import { describeError, REPORT_USAGE, writeReport } from '../gitlab/report.js';

// Anything not caught by the step (a callback of fetch, say) is printed the same way, not by Node.
process.on('uncaughtException', (error) => {
  process.stderr.write(`spread report: internal error: ${describeError(error)}\n`);
  process.exit(1);
});

const [reportFile, outDir, statusArg] = process.argv.slice(2);
if (!reportFile || !outDir) {
  console.error(REPORT_USAGE);
  process.exit(2);
}
process.exitCode = await writeReport(
  reportFile,
  outDir,
  statusArg === undefined ? undefined : Number(statusArg),
  process.env,
);
