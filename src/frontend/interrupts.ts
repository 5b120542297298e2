// Ctrl-C and a CI runner's cancel turned into an abort that every stage honours, so that a deploy stops,
// releases its Lease and exits 130 or 143 instead of dying with the Lease held.
import type { Logger } from '../base/logger.js';

/** The exit codes of a process ended by a signal, as shells report them: 128 + the signal number. */
const EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;

/** What {@link trapInterrupts} returns. */
export interface Interrupts {
  /** Aborted on the first SIGINT or SIGTERM, with an Error naming the signal as its reason. */
  readonly signal: AbortSignal;
  /** 130 after SIGINT, 143 after SIGTERM; undefined while no signal came. */
  exitCode(): number | undefined;
  /** Removes the handlers; Node's default handling (ending the process) applies again. */
  dispose(): void;
}

/** A signal repeated within this many milliseconds counts once (see {@link trapInterrupts}). */
const DUPLICATE_MS = 1000;

let current: AbortSignal | undefined;

/**
 * The signal of the CLI's current {@link trapInterrupts}, for the commands to pass to the core
 * (requests, waits and builds stop; the deploy lock is released in the core's `finally`).
 */
export function interruptSignal(): AbortSignal | undefined {
  return current;
}

const guarded = new WeakSet<NodeJS.EventEmitter>();

/**
 * Makes writes to a closed stdout or stderr harmless: they are dropped instead of ending the process.
 * A pipe whose reader went away (a runner killed with SIGKILL, `spread deploy | head -1`) makes the
 * next write fail with EPIPE, which Node emits as an `error` event on the stream, and an unhandled one
 * ends the process at once: a deploy in progress would die with its Lease held until it expires. A
 * deploy whose output nobody reads still stops or ends, releasing its Lease (Node ignores SIGPIPE).
 * Every write error is dropped, not only EPIPE: EIO (a closed terminal) and ENOSPC (a full disk behind
 * a redirect) would end the deploy the same way, and losing output is better than leaving the
 * cluster half-applied with its lock held. Installed once per stream, for the life of the process.
 */
export function ignoreClosedOutput(
  streams: readonly NodeJS.EventEmitter[] = [process.stdout, process.stderr],
): void {
  for (const stream of streams) {
    if (guarded.has(stream)) continue;
    guarded.add(stream);
    stream.on('error', () => {});
  }
}

/**
 * Turns SIGINT (Ctrl-C) and SIGTERM (a CI runner cancelling the job) into an abort, so that a deploy
 * stops its requests and waits, releases its Lease and exits 130 or 143, instead of dying with the
 * Lease held until it expires. A second signal ends the process at once with the same code, unless it
 * is the same signal within a second (one cancel delivered twice, e.g. to a whole process tree). Writes to
 * a closed stdout or stderr are dropped from then on ({@link ignoreClosedOutput}).
 */
export function trapInterrupts(logger: Pick<Logger, 'error'>): Interrupts {
  ignoreClosedOutput();
  const controller = new AbortController();
  let received: keyof typeof EXIT_CODES | undefined;
  let receivedAt = 0;
  const handler = (name: keyof typeof EXIT_CODES) => () => {
    // The same signal again within a second is the same cancel delivered twice: a kill of the
    // Action's process tree reaches its Node child directly and through the parent's forwarding
    // (src/bin/child.ts). Only a later one is a second request, which ends spread at once.
    if (received === name && Date.now() - receivedAt < DUPLICATE_MS) return;
    if (received) process.exit(EXIT_CODES[received]);
    received = name;
    receivedAt = Date.now();
    logger.error(`${name}: stopping; a second ${name} ends spread at once, without releasing its lock`);
    controller.abort(new Error(`interrupted by ${name}`));
  };
  const onInt = handler('SIGINT');
  const onTerm = handler('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  current = controller.signal;
  return {
    signal: controller.signal,
    exitCode: () => (received ? EXIT_CODES[received] : undefined),
    dispose() {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      if (current === controller.signal) current = undefined;
    },
  };
}
