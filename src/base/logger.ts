/**
 * Where the stages write what they are doing. Front ends provide it: the CLI writes to stderr, the
 * Action to the runner's log with `core.group`. Stages never write to the console directly.
 */
export interface Logger {
  info(message: string): void;
  warn(message: string, where?: { file?: string; line?: number }): void;
  error(message: string, where?: { file?: string; line?: number }): void;
  /** Shown only with --verbose (CLI) or step debug logging (Action). */
  debug(message: string): void;
  /** Runs `fn` inside a named, foldable section of the log. */
  group<T>(name: string, fn: () => Promise<T>): Promise<T>;
}

/** A logger that drops everything: for tests and library use. */
export const silentLogger: Logger = {
  info() {},
  warn() {},
  error() {},
  debug() {},
  group: (_name, fn) => fn(),
};

/**
 * A KubeClient `onRequest` hook that traces each API request (`GET /api/v1/…`: method and path, no
 * query, header or body) as a debug line: `--verbose` in the CLI, step debug logging in the Action.
 */
export function traceRequests(logger: Logger): (method: string, path: string) => void {
  return (method, path) => logger.debug(`API ${method} ${path}`);
}
