// Shows the pull request comment the Action would post for a directory, without GitHub: runs the
// bundled Action (dist/index.js) the way the runner runs it, as `mode: plan` on a `pull_request`
// event, against the stand-in of the GitHub REST API the tests use (test/integration/github-api.ts),
// and prints the comment it posted, then the step's log. Needs Node 24 (it runs the .ts modules).
// Usage: node scripts/try-comment.mjs PATH [CONTEXT] [NAMESPACE]   (after npm run build; kubeconfig:
// $KUBECONFIG's first file, else ~/.kube/config; PATH relative to the current directory)
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

if (Number(process.versions.node.split('.')[0]) < 24) {
  console.error(
    `try-comment: needs Node 24 (it imports the tests' TypeScript modules); this is ${process.version}`,
  );
  process.exit(2);
}
const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const { runActionStep } = await import(path.join(root, 'test/integration/action-runner.ts'));
const { startGitHubApi } = await import(path.join(root, 'test/integration/github-api.ts'));

const [dir, context = '', namespace = ''] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node scripts/try-comment.mjs PATH [CONTEXT] [NAMESPACE]');
  process.exit(2);
}
const kubeconfig =
  (process.env.KUBECONFIG ?? '').split(path.delimiter).find(Boolean) ?? path.join(homedir(), '.kube/config');
const api = await startGitHubApi('acme/shop');
try {
  const step = await runActionStep({
    entry: path.join(root, 'dist/index.js'),
    workspace: process.cwd(),
    inputs: { path: dir, context, namespace, mode: 'plan', kubeconfig: readFileSync(kubeconfig, 'utf8') },
    event: {
      name: 'pull_request',
      refName: '1/merge',
      headRef: 'feature',
      baseRef: 'main',
      payload: {
        number: 1,
        pull_request: { number: 1, head: { sha: 'feedfacefeedfacefeedfacefeedfacefeedface' } },
      },
    },
    env: { GITHUB_API_URL: api.url, 'INPUT_GITHUB-TOKEN': 'ghs_stand-in' },
  });
  for (const c of api.comments) console.log(`--- comment ${c.id} on pull request #${c.issue}\n${c.body}\n`);
  if (api.comments.length === 0) console.log('--- no comment was posted');
  // The runner consumes ::add-mask:: commands (they carry the kubeconfig's secrets) and hides ::debug::.
  const shown = step.log
    .split('\n')
    .filter((l) => !l.startsWith('::add-mask::') && !l.startsWith('::debug::'))
    .join('\n');
  console.log(`--- the step's log (exit ${step.code}), as the runner shows it\n${shown}`);
  process.exitCode = step.code;
} finally {
  await api.close();
}
