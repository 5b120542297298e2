// Waiting that an interrupt (Ctrl-C, a cancelled job) can stop: sleep, poll until a value or a timeout,
// and turning Node's AbortErrors into the interrupt's own words.
import { setTimeout as delay } from 'node:timers/promises';

/**
 * Waits `ms` milliseconds, or less when `signal` aborts.
 *
 * @throws the signal's `reason` (what `AbortController.abort(reason)` was given) when it aborts
 *   before or during the wait, as `signal.throwIfAborted()` does.
 */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  try {
    await delay(ms, undefined, signal ? { signal } : undefined);
  } catch (error) {
    // node:timers/promises rejects with its own AbortError; the caller wants the reason it gave.
    if (signal?.aborted) throw signal.reason;
    throw error;
  }
}

/**
 * `error` as the interrupt it was: an AbortError that `signal` caused (Node's spawn, fetch and timers
 * reject with their own, "The operation was aborted") becomes an Error with the signal's reason's
 * message (`interrupted by SIGTERM`), the AbortError as its cause. Any other error is returned as it is.
 */
export function interruptOf(error: unknown, signal: AbortSignal | undefined): unknown {
  if (!signal?.aborted || !(error instanceof Error) || error.name !== 'AbortError') return error;
  const reason: unknown = signal.reason;
  return reason instanceof Error ? new Error(reason.message, { cause: error }) : error;
}

/** Options of {@link poll}. */
export interface PollOptions {
  /** Time before the second check, in milliseconds. */
  readonly intervalMs: number;
  /**
   * The longest time between two checks, in milliseconds: from `intervalMs`, the pause doubles up to
   * it (client-go's `wait.Backoff` with factor 2 and a cap). Default `intervalMs` (no back-off).
   */
  readonly maxIntervalMs?: number;
  /** How long to keep checking, in milliseconds; the last check starts at or after it. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/**
 * Calls `check` until it answers something other than `undefined`, pausing between calls (see
 * {@link PollOptions}). Like client-go's `wait.PollUntilContextTimeout` with `immediate`: the first
 * check runs at once.
 *
 * @returns the first defined answer, or `undefined` once `timeoutMs` has passed without one (the
 *   caller words the timeout: it knows what was waited for).
 * @throws the signal's reason when it aborts; whatever `check` throws.
 */
export async function poll<T>(
  check: () => T | undefined | Promise<T | undefined>,
  options: PollOptions,
): Promise<T | undefined> {
  const deadline = Date.now() + options.timeoutMs;
  const max = Math.max(options.intervalMs, options.maxIntervalMs ?? options.intervalMs);
  for (let pause = options.intervalMs; ; pause = Math.min(pause * 2, max)) {
    options.signal?.throwIfAborted();
    const answer = await check();
    if (answer !== undefined) return answer;
    if (Date.now() >= deadline) return undefined;
    await sleep(Math.min(pause, Math.max(0, deadline - Date.now())), options.signal);
  }
}
