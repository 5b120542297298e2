// The one bundle both front ends share (dist/spread.js); dist/index.js (the Action) and
// dist/cli/index.js (the CLI) are two-line entry points that import it.
export { run as runAction } from './action/main.js';
export { main as runCli } from './cli/main.js';
export { formatPlanMarkdown, planMarker, renderPlanComment } from './report/comment.js';
