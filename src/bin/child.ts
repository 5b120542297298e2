// Runs the Action's bundle again in a child Node with the memory options only a command line can set
// (young generation cap, glibc's mmap threshold), forwarding signals so that an interrupt still
// releases the deploy's Lease.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

/**
 * The Node option that caps V8's young generation at 4 MB semi-spaces. Left alone, V8 grows them to
 * 64 MB once enough data survives scavenges, which a large deploy always does: capped, the deploys of
 * 5,000 objects and of the CRD bundle peak far lower at the same CPU time (bench/RESULTS.md, "Large
 * inputs, deployed").
 * Only a command line sets it (`v8.setFlagsFromString` once Node runs changes nothing); a Node started
 * without it gets {@link capYoungGeneration} in src/bin/start.ts instead.
 */
export const SEMI_SPACE_OPTION = '--max-semi-space-size=4';

/**
 * glibc's malloc option for the Node that the CLI's prologue and the Action's child start: buffers of
 * 128 KiB or more (HTTP bodies, file contents, gzip) are mapped and unmapped on their own. By default
 * glibc raises that threshold each time such a buffer is freed, up to 32 MiB, and keeps later ones in
 * its heap, which it seldom gives back: the option lowers the CRD bundle's first deploy's peak
 * (bench/RESULTS.md, "Deploy, by hand", issue 19 fifth part). A value the user sets is kept; other C
 * libraries (musl in Alpine images) ignore it.
 */
export const MALLOC_ENV = { name: 'MALLOC_MMAP_THRESHOLD_', value: '131072' } as const;

/** Marks the child's environment, so that it runs the Action instead of starting another child. */
const CHILD_MARK = 'SPREAD_ACTION_CHILD';

/**
 * A signal that reaches the child while its bundle still loads, before spread's own handlers
 * (src/frontend/interrupts.ts) are on: nothing has been applied and no Lease taken yet, so say so and
 * exit 128 + the signal number. Once those handlers are on, this one leaves the signal to them.
 */
function beforeStart(name: 'SIGINT' | 'SIGTERM'): () => void {
  return () => {
    if (process.listenerCount(name) > 1) return;
    process.stdout.write(`::error::interrupted by ${name} before spread started; nothing was applied\n`);
    process.exit(128 + constants.signals[name]);
  };
}

/**
 * Why the child ended by `signal`, for the step's log. SIGINT and SIGTERM end it only before its
 * handlers are on ({@link beforeStart}, installed first thing): then nothing has been applied.
 */
function endedBy(pid: number, signal: NodeJS.Signals): string {
  const early = signal === 'SIGINT' || signal === 'SIGTERM';
  return `spread (Node, pid ${pid}) was ended by ${signal}${early ? ' before it started; nothing was applied' : ''}`;
}

/**
 * Runs `script` (the Action's entry point) again in a child Node with {@link SEMI_SPACE_OPTION} and
 * resolves to the exit code to end with: the child's, or 128 + the signal number that ended it (with
 * an `::error::` line saying so, since the child could not say why itself). Resolves to undefined when
 * the Action should run in this process: in the child itself, when the option (in the command line or
 * NODE_OPTIONS) or `--inspect` (the child would take the same port) is given, or when no child starts.
 *
 * - The child is in a process group of its own (detached), so a Ctrl-C sent to the whole group reaches
 *   it once, by this process's forwarding: a second SIGINT or SIGTERM would end it without releasing
 *   its Lease (src/frontend/interrupts.ts). SIGHUP, which some runners send on cancel, goes as SIGTERM.
 * - An IPC channel joins the two; it closes when the parent dies, even by SIGKILL, and the child then
 *   stops as on SIGTERM (abort, release the Lease, exit 143) instead of deploying on, orphaned.
 * - Writes to a closed stdout or stderr (the runner gone) are dropped in both processes, so neither
 *   dies of EPIPE: the child must live on to stop and release its Lease.
 */
export async function runInChild(
  script: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number | undefined> {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
  if (env[CHILD_MARK] && process.channel) {
    delete env[CHILD_MARK];
    process.channel.unref();
    process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
    for (const name of ['SIGINT', 'SIGTERM'] as const) process.on(name, beforeStart(name));
    return undefined;
  }
  const given = [...process.execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)];
  const flag = SEMI_SPACE_OPTION.split('=')[0]!;
  if (given.some((o) => o.startsWith(flag) || o.startsWith('--inspect'))) return undefined;
  try {
    const child = spawn(process.execPath, [...process.execArgv, SEMI_SPACE_OPTION, script], {
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
      detached: true,
      env: { [MALLOC_ENV.name]: MALLOC_ENV.value, ...env, [CHILD_MARK]: '1' },
    });
    child.on('error', () => {});
    if (child.pid === undefined) return undefined;
    process.on('SIGINT', () => child.kill('SIGINT'));
    process.on('SIGTERM', () => child.kill('SIGTERM'));
    process.on('SIGHUP', () => child.kill('SIGTERM'));
    return await new Promise((resolve) =>
      child.on('exit', (status, signal) => {
        if (signal) process.stdout.write(`::error::${endedBy(child.pid!, signal)}\n`);
        resolve(status ?? 128 + (signal ? (constants.signals[signal] ?? 9) : 9));
      }),
    );
  } catch {
    return undefined;
  }
}
