// A rollout wait ended by something other than the rollout's own failure, said with what was done.
import { isUnavailable } from '../cluster/client.js';
import { countActions, type ObjectReport } from '../report/report.js';

/**
 * An interrupt (Ctrl-C, SIGTERM, a cancelled job), a refused watch or a cluster that stopped
 * answering during the rollout wait of a deploy or rollback (`what`): every object was applied and
 * pruned, which the message says, since no report follows, then `unrecorded` (what was not recorded).
 * A cluster out of reach (the wait's informers gave up: `gave up after N tries, last ECONNRESET: …`)
 * keeps its error, class and code, so that a fleet still names the cluster (legError), with that said
 * after its first line, as an error after the apply says what it applied.
 */
export function cutShort(
  error: unknown,
  reported: readonly ObjectReport[],
  what: string,
  unrecorded: string,
): Error {
  const c = countActions({ objects: reported });
  const applied = reported.length - c.pruned - c.kept;
  const done = `all ${applied} object(s) were applied (${c.created} created, ${c.configured} configured, ${c.unchanged} unchanged) and ${c.pruned} pruned; the rollout was not seen finished and ${unrecorded}`;
  if (error instanceof Error && isUnavailable(error)) {
    const [first, ...rest] = error.message.split('\n');
    error.message = [
      `${first}; the cluster stopped answering while waiting for ${what}: ${done}`,
      ...rest,
    ].join('\n');
    return error;
  }
  const message = error instanceof Error ? error.message : String(error);
  return new Error(`${message} while waiting for ${what}: ${done}`, { cause: error });
}
