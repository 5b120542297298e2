/**
 * Parses a duration as kubectl's `--timeout` takes it (Go's time.ParseDuration units h, m, s, ms,
 * combined like `1m30s`), or a bare number of seconds. Returns milliseconds.
 *
 * @throws Error naming the value when it is not a duration.
 */
export function parseDuration(value: string): number {
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const unit: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  let total = 0;
  let rest = v;
  while (rest.length > 0) {
    const m = /^(\d+(?:\.\d+)?)(ms|h|m|s)/.exec(rest);
    if (!m) throw new Error(`invalid duration "${value}": use e.g. 90s, 5m, 1m30s`);
    total += Number(m[1]) * unit[m[2]!]!;
    rest = rest.slice(m[0].length);
  }
  if (v.length === 0) throw new Error('invalid duration "": use e.g. 90s, 5m, 1m30s');
  return Math.round(total);
}

/**
 * Parses a Lease duration (`--lock-lease-duration`): a duration as {@link parseDuration} takes it, in
 * whole seconds and at least 1 s, since a Lease's `leaseDurationSeconds` is an integer. Returns seconds.
 *
 * @throws Error naming the value when it is not a duration of whole seconds ≥ 1.
 */
export function parseLeaseDuration(value: string): number {
  const ms = parseDuration(value);
  // leaseDurationSeconds is an int32: a larger value would only fail at the API server.
  if (ms / 1000 > 2 ** 31 - 1)
    throw new Error(
      `invalid Lease duration "${value}": at most ${2 ** 31 - 1}s (a Lease's leaseDurationSeconds is a 32-bit integer)`,
    );
  if (ms < 1000 || ms % 1000 !== 0)
    throw new Error(`invalid Lease duration "${value}": use whole seconds, at least 1s, e.g. 30s, 2m`);
  return ms / 1000;
}
