// Lowers V8's heap growth once the input is read: reading allocates fast and is timed, the rest of a
// deploy waits on the API server, so a slower growth there saves memory for a little CPU (measured: see
// AFTER_READ_HEAP_GROWTH_OPTION). Only spread's own executables turn it on.
import v8 from 'node:v8';

/**
 * V8's heap growth once a deploy's input is read: ×1.5 between major GCs. What follows (plan, apply,
 * rollout wait) waits on the API server, and what it keeps (live states, watched objects) is a small
 * part of what it allocates, so ×1.5 lowers a 5,000-object deploy's peak for a little more CPU time
 * (bench/RESULTS.md, "Deploy, by hand", issue 19 eighth and ninth parts). Reading and rendering,
 * which allocate fastest and are timed against kubectl's parse, keep ×2
 * (see limitHeapGrowth in src/bin/start.ts).
 */
export const AFTER_READ_HEAP_GROWTH_OPTION = '--heap-growing-percent=50';

let armed = false;

/**
 * Makes {@link inputRead} set {@link AFTER_READ_HEAP_GROWTH_OPTION} (V8 reads it whenever it sets the
 * next limit). Only spread's own executables call this, when the command line leaves the heap growth
 * to them: a program that calls spread's core keeps its heap as it is.
 */
export function growHeapLessAfterRead(): void {
  armed = true;
}

/**
 * Called by a deploy once its directory is read and checked: sets the option
 * {@link growHeapLessAfterRead} armed, once.
 *
 * @returns whether it set it.
 */
export function inputRead(): boolean {
  if (!armed) return false;
  v8.setFlagsFromString(AFTER_READ_HEAP_GROWTH_OPTION);
  armed = false;
  return true;
}
