import * as core from '@actions/core';
import type { Logger } from '../core/logger.js';

/** The Action's logger: the runner's log, `core.group` sections, file annotations for warnings and errors. */
export const actionLogger: Logger = {
  info: (m) => core.info(m),
  warn: (m, w) => core.warning(m, w?.file ? { file: w.file, startLine: w.line } : {}),
  error: (m, w) => core.error(m, w?.file ? { file: w.file, startLine: w.line } : {}),
  debug: (m) => core.debug(m),
  group: (name, fn) => core.group(name, fn),
};
