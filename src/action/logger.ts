import * as core from '@actions/core';
import type { Logger } from '../core/logger.js';

/** Where an annotation lands: file relative to the deployed directory and a 1-based line. */
type Where = { file?: string | undefined; line?: number | undefined } | undefined;

/** Options of {@link createActionLogger}. */
export interface ActionLoggerOptions {
  /** Turns a stage's file (relative to the deployed directory) into a workspace path. */
  readonly locate: (file: string) => string;
  /** false: warnings and errors are plain log lines, not file annotations. */
  readonly annotate: boolean;
}

/**
 * The Action's logger: the runner's log, `core.group` sections, and file annotations for warnings
 * and errors (placed relative to the workspace so they land on the pull request's diff).
 */
export function createActionLogger(options: ActionLoggerOptions): Logger {
  const props = (w: Where): core.AnnotationProperties =>
    options.annotate && w?.file
      ? { file: options.locate(w.file), ...(w.line ? { startLine: w.line } : {}) }
      : {};
  return {
    info: (m) => core.info(m),
    warn: (m, w) => core.warning(m, props(w)),
    error: (m, w) => core.error(m, props(w)),
    debug: (m) => core.debug(m),
    group: (name, fn) => core.group(name, fn),
  };
}
