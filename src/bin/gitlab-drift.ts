// dist/gitlab/drift.js, the GitLab component's drift step (templates/deploy.yml runs it after the CLI
// in mode drift): `node dist/gitlab/drift.js REPORT.json OUT_DIR [EXIT_STATUS]`. The step itself is
// src/gitlab/drift.ts; its exit code is the job's, 2 on a usage error.
import { DRIFT_USAGE, driftStep } from '../gitlab/drift.js';

const [reportFile, outDir, statusArg] = process.argv.slice(2);
if (!reportFile || !outDir) {
  console.error(DRIFT_USAGE);
  process.exit(2);
}
process.exitCode = await driftStep(
  reportFile,
  outDir,
  statusArg === undefined ? undefined : Number(statusArg),
  process.env,
);
