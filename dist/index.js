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
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
if (process.env.SPREAD_ACTION_CHILD && process.channel) {
  delete process.env.SPREAD_ACTION_CHILD;
  process.channel.unref();
  process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
} else if (
  ![...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some(
    (o) => o.startsWith('--max-semi-space-size') || o.startsWith('--inspect'),
  )
) {
  const code = await (async () => {
    try {
      const { spawn } = await import('node:child_process');
      const { fileURLToPath } = await import('node:url');
      const { constants } = await import('node:os');
      const args = [...process.execArgv, '--max-semi-space-size=16', fileURLToPath(import.meta.url)];
      const child = spawn(process.execPath, args, {
        stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
        detached: true,
        env: { ...process.env, SPREAD_ACTION_CHILD: '1' },
      });
      child.on('error', () => {});
      if (child.pid === undefined) return undefined;
      process.on('SIGINT', () => child.kill('SIGINT'));
      process.on('SIGTERM', () => child.kill('SIGTERM'));
      process.on('SIGHUP', () => child.kill('SIGTERM'));
      return await new Promise((resolve) =>
        child.on('exit', (status, signal) => {
          if (signal) process.stdout.write(`::error::spread (Node, pid ${child.pid}) was ended by ${signal}\n`);
          resolve(status ?? 128 + (constants.signals[signal] ?? 9));
        }),
      );
    } catch {
      return undefined;
    }
  })();
  if (code !== undefined) process.exit(code);
}
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
let runAction;
try {
  ({ runAction } = await import('./spread.js'));
} catch (error) {
  process.stderr.write(`spread failed to load: ${describeFatal(error)}\n`);
  process.exit(1);
}

await runAction();
process.exit();
