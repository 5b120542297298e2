// The Action's outputs capped in size (a runner passes them on through command lines and environment),
// with a marker pointing to the report file that holds the whole value.
/**
 * Longest value of one step output, in UTF-8 bytes. A runner passes outputs on through `env:` and
 * command lines, where Linux caps one string at 128 KiB (MAX_ARG_STRLEN), and a job's outputs share
 * GitHub's 1 MiB; at 5,000 objects the `objects` output alone is past both (docs/github-action.md,
 * "Outputs and the report file"). The whole report is in the
 * file named by the output `report-file` (as docker/build-push-action's metadata file holds its metadata).
 */
export const OUTPUT_LIMIT_BYTES = 64 * 1024;

/** Where the whole value is, for the truncation markers, and whose limit it is. */
export interface CapOptions {
  /** The file holding the whole report (the Action's `report-file`, GitLab's report.json artifact). */
  readonly reportFile: string;
  /** How the markers name that file; default `PATH (output report-file)`. */
  readonly reportFileName?: string;
  /** Whose limit the markers name; default `a step output's limit in spread`. */
  readonly limitName?: string;
  /** Default {@link OUTPUT_LIMIT_BYTES}. */
  readonly limitBytes?: number;
}

const fileName = (o: CapOptions) => o.reportFileName ?? `${o.reportFile} (output report-file)`;
const limitName = (o: CapOptions) => o.limitName ?? "a step output's limit in spread";

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/**
 * A text output within the limit: unchanged when it fits, else cut (at a line end when one is near,
 * never inside a character) and ended with a line saying so and naming the report file.
 */
export function capText(value: string, options: CapOptions): string {
  const limit = options.limitBytes ?? OUTPUT_LIMIT_BYTES;
  if (bytes(value) <= limit) return value;
  const marker = `\n\n… truncated to ${formatBytes(limit)} (${limitName(options)}); the whole report is in ${fileName(options)}`;
  const room = Math.max(0, limit - bytes(marker));
  // Cut by bytes, then drop a partly cut character (U+FFFD after decoding).
  let head = Buffer.from(value, 'utf8')
    .subarray(0, room)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  const line = head.lastIndexOf('\n');
  if (line > head.length * 0.9) head = head.slice(0, line);
  return `${head}${marker}`;
}

/** The last item of an array {@link capJsonArray} cut: an object, so `.[].name` still works on the array. */
export interface TruncationMarker {
  /** What happened, for a person: how many items were left out, and where they all are. */
  readonly truncated: string;
  /** Items left out. */
  readonly left: number;
  /** Items in all. */
  readonly total: number;
  readonly reportFile: string;
}

/**
 * A JSON array output within the limit: `JSON.stringify(items)` when it fits; else the leading items
 * that fit, followed by one {@link TruncationMarker} object saying how many were left out and naming
 * the report file, so that the value still parses (`fromJSON`, jq) and `.[].name` still runs.
 *
 * @param noun what the items are, plural (`objects`), for the marker.
 */
export function capJsonArray(items: readonly unknown[], noun: string, options: CapOptions): string {
  const limit = options.limitBytes ?? OUTPUT_LIMIT_BYTES;
  const whole = JSON.stringify(items);
  if (bytes(whole) <= limit) return whole;
  const marker = (left: number) =>
    JSON.stringify({
      truncated: `${left} of ${items.length} ${noun} not shown (${limitName(options)} is ${formatBytes(limit)}); all of them are in ${fileName(options)}`,
      left,
      total: items.length,
      reportFile: options.reportFile,
    } satisfies TruncationMarker);
  let used = 2; // [ and ]
  let kept = 0;
  for (const item of items) {
    const size = bytes(JSON.stringify(item)) + 1; // and a comma
    if (used + size + bytes(marker(items.length - kept - 1)) > limit) break;
    used += size;
    kept++;
  }
  const head = items.slice(0, kept).map((i) => JSON.stringify(i));
  return `[${[...head, marker(items.length - kept)].join(',')}]`;
}

function formatBytes(n: number): string {
  return n % 1024 === 0 ? `${n / 1024} KiB` : `${n} bytes`;
}
