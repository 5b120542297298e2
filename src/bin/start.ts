// What both entry points do before the bundle loads. This file imports Node built-ins only (and
// src/base/heap.ts, which does too), so that it runs on any Node and can say which Node is needed
// instead of failing to load the bundle.
import { mkdirSync } from 'node:fs';
import module from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import { growHeapLessAfterRead } from '../base/heap.js';
import { SEMI_SPACE_OPTION } from './child.js';

/** The oldest Node major the bundle runs on (undici in @kubernetes/client-node fails to load on older ones). */
export const NODE_MAJOR = 24;

/**
 * Exits 1 with a message naming this Node (version and path) when it is older than {@link NODE_MAJOR}.
 * The message is the one package.itg.test.ts expects, word for word.
 */
export function requireNode(): void {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= NODE_MAJOR) return;
  process.stderr.write(
    `spread needs Node.js ${NODE_MAJOR} or newer; this is ${process.version} (${process.execPath}). Put Node ${NODE_MAJOR} first on PATH; in a checkout of spread, after npm ci, that is node_modules/.bin.\n`,
  );
  process.exit(1);
}

/**
 * An error as one short text: name and message (at most 20 lines), then at most 20 `at` frames, each
 * line cut to 300 characters. Node's own printing starts with the source line of the throw, which in
 * the bundle is one minified line of hundreds of thousands of characters.
 */
export function describeFatal(error: unknown): string {
  const clip = (s: string) => (s.length > 300 ? `${s.slice(0, 299)}…` : s);
  const head = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const stack = String((error as { stack?: unknown } | undefined)?.stack ?? '');
  const frames = stack
    .split('\n')
    .filter((l) => /^\s+at /.test(l))
    .slice(0, 20);
  return [...head.split('\n').slice(0, 20), ...frames].map(clip).join('\n');
}

/**
 * Prints an error nothing caught (an exception in a callback, an unhandled rejection) with
 * {@link describeFatal} and exits 1, as Node does, but without the source line: Node prints none once
 * an `uncaughtException` listener exists.
 */
export function handleFatalErrors(): void {
  process.on('uncaughtException', (error) => {
    process.stderr.write(`spread: internal error: ${describeFatal(error)}\n`);
    process.exit(1);
  });
}

/**
 * Turns on Node's compile cache (`module.enableCompileCache`, as tsc uses it) in
 * `<OS temp directory>/node-compile-cache`, so a later run on the same machine skips compiling the
 * bundle (bench/RESULTS.md, "Large inputs, deployed"). The directory is made without `recursive`:
 * Node's recursive mkdir never returns for a temp directory under /proc (Node 24.22), and a temp
 * directory that does not exist should not be created. Any failure leaves the cache off; `NODE_DISABLE_COMPILE_CACHE=1` turns it off.
 */
export function enableCompileCache(env: NodeJS.ProcessEnv = process.env): void {
  if (env.NODE_DISABLE_COMPILE_CACHE) return;
  try {
    const dir = path.join(tmpdir(), 'node-compile-cache');
    try {
      mkdirSync(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException)?.code !== 'EEXIST') throw error;
    }
    module.enableCompileCache?.(dir);
  } catch {}
}

/**
 * Loads the bundle through `importer` (a dynamic import, which the bundler points at dist/spread.js);
 * a failure to load is printed with {@link describeFatal} and exits 1.
 */
export async function loadBundle<T>(importer: () => Promise<T>): Promise<T> {
  try {
    return await importer();
  } catch (error) {
    process.stderr.write(`spread failed to load: ${describeFatal(error)}\n`);
    process.exit(1);
  }
}

/**
 * For a Node started without `--max-semi-space-size` (`node dist/cli/index.js`, or the Action when its
 * child could not start): stops V8 growing the young generation past the 1 MB semi-spaces it starts
 * with (`--semi-space-growth-factor=1`, which V8 reads whenever it would grow them, so unlike the size
 * it works once Node runs). Such a run then peaks about where one with {@link SEMI_SPACE_OPTION} does,
 * for some more CPU time than with the option (bench/RESULTS.md, "Large inputs, deployed"). Nothing
 * changes when the option is in the command line or NODE_OPTIONS.
 *
 * @returns whether the growth was stopped.
 */
export function capYoungGeneration(
  execArgv: readonly string[] = process.execArgv,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  const flag = SEMI_SPACE_OPTION.split('=')[0]!;
  const given = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)];
  if (given.some((o) => o.startsWith(flag))) return false;
  v8.setFlagsFromString('--semi-space-growth-factor=1');
  return true;
}

/** The heap growth V8 is held to unless the command line sets one: ×2 between major GCs. */
export const HEAP_GROWTH_OPTION = '--heap-growing-percent=100';

/**
 * Holds V8's old generation to doubling between major GCs (`--heap-growing-percent=100`, which V8
 * reads whenever it sets the next limit, so it works once Node runs). Left to itself, V8 lets a small
 * heap that allocates fast grow up to four times before the next mark-compact, and most of what
 * spread's reading, planning and JSON answers allocate is garbage by then, so held to ×2 a large
 * deploy peaks lower for a little more CPU time (bench/RESULTS.md, "Deploy, by hand", issue 19
 * fifth part). Nothing
 * changes when the command line gives the option (NODE_OPTIONS cannot hold V8 options). Once a
 * deploy's input is read, ×1.5 (see AFTER_READ_HEAP_GROWTH_OPTION in src/base/heap.ts).
 *
 * @returns whether the growth was limited.
 */
export function limitHeapGrowth(execArgv: readonly string[] = process.execArgv): boolean {
  const flag = HEAP_GROWTH_OPTION.split('=')[0]!;
  const spellings = [flag, `--${flag.slice(2).replace(/-/g, '_')}`];
  if (execArgv.some((o) => spellings.some((s) => o.startsWith(s)))) return false;
  v8.setFlagsFromString(HEAP_GROWTH_OPTION);
  growHeapLessAfterRead();
  return true;
}
