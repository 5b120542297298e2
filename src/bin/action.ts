// dist/index.js, the GitHub Action (action.yml: runs: using: node24, main: dist/index.js).
import { fileURLToPath } from 'node:url';
import { runInChild } from './child.js';
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
const code = await runInChild(fileURLToPath(import.meta.url));
if (code !== undefined) process.exit(code);
// In the child (it has the option: nothing changes) or when no child could start.
capYoungGeneration();
limitHeapGrowth();
enableCompileCache();
const { runAction } = await loadBundle(() => import('../entry.js'));
await runAction();
// Exit once the step's work is done: a request left behind (a cache service that never answered)
// must not keep the step running until the job's timeout.
process.exit();
