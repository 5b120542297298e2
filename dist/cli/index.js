#!/bin/sh
':' //; exec node --max-semi-space-size=16 "$0" "$@"
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(`spread needs Node.js 24 or newer; this is ${process.version} (${process.execPath}). Put Node 24 first on PATH; in a checkout of spread, after npm ci, that is node_modules/.bin.\n`);
  process.exit(1);
}
const describeFatal = (error) => {
  const clip = (s) => (s.length > 300 ? `${s.slice(0, 299)}…` : s);
  const head = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const frames = String(error?.stack ?? '').split('\n').filter((l) => /^\s+at /.test(l)).slice(0, 20);
  return [...head.split('\n').slice(0, 20), ...frames].map(clip).join('\n');
};
process.on('uncaughtException', (error) => {
  process.stderr.write(`spread: internal error: ${describeFatal(error)}\n`);
  process.exit(1);
});
if (!process.env.NODE_DISABLE_COMPILE_CACHE) {
  try {
    const dir = (await import('node:path')).join((await import('node:os')).tmpdir(), 'node-compile-cache');
    try {
      (await import('node:fs')).mkdirSync(dir);
    } catch (error) {
      if (error?.code !== 'EEXIST') throw error;
    }
    (await import('node:module')).default.enableCompileCache?.(dir);
  } catch {}
}
let runCli;
try {
  ({ runCli } = await import('../spread.js'));
} catch (error) {
  process.stderr.write(`spread failed to load: ${describeFatal(error)}\n`);
  process.exit(1);
}

process.exitCode = await runCli(process.argv);
