// The one bundle both front ends share (dist/spread.js); dist/index.js (the Action) and
// dist/cli/index.js (the CLI) are two-line entry points that import it.
export { main as runCli } from './cli/main.js';

/**
 * Runs the GitHub Action (src/action/main.ts `run`). The Action's front end and what only it uses
 * (@actions/core, @actions/http-client and the undici that comes with it) are a chunk of their own
 * (`dist/<id>.index.js`), loaded here: the CLI does not evaluate them, a part of its start-up worth
 * saving (bench/RESULTS.md, "Large inputs, deployed").
 */
export async function runAction(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { run } = await import('./action/main.js');
  await run(env);
}
