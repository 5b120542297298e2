// dist/cli/index.js, the `spread` command (package.json bin). The build puts a shell prologue before
// it (see scripts/build.mjs: CLI_PROLOGUE) that execs Node with SEMI_SPACE_OPTION; `node dist/cli/index.js`
// gets capYoungGeneration instead.
import {
  capYoungGeneration,
  enableCompileCache,
  handleFatalErrors,
  limitHeapGrowth,
  loadBundle,
  requireNode,
} from './start.js';

requireNode();
handleFatalErrors();
capYoungGeneration();
limitHeapGrowth();
enableCompileCache();
const { runCli } = await loadBundle(() => import('../entry.js'));
process.exitCode = await runCli(process.argv);
