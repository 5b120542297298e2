// The Action's logger (the runner's log, groups, warnings as annotations) and how its messages spell
// deploy options: as the Action's inputs.
import * as core from '@actions/core';
import type { Logger } from '../base/logger.js';
import { type OptionKey, phraseOptions } from '../base/option-ref.js';
import { formatSource } from '../base/source.js';
import { inputSpelling } from '../frontend/settings.js';

/** How the Action names a deploy option in its messages: its input, `the input replace: true`. */
export const actionOption = (key: OptionKey): string => inputSpelling(key);

/** `text` with the options it refers to spelled as the Action's inputs. */
export const actionText = (text: string): string => phraseOptions(text, actionOption);

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
  // Without an annotation the place goes into the message, as the CLI writes it.
  const text = (m: string, w: Where) =>
    actionText(
      !options.annotate && w?.file ? `${formatSource({ file: w.file, line: w.line ?? 0 })}: ${m}` : m,
    );
  return {
    info: (m) => core.info(actionText(m)),
    warn: (m, w) => core.warning(text(m, w), props(w)),
    error: (m, w) => core.error(text(m, w), props(w)),
    debug: (m) => core.debug(actionText(m)),
    group: (name, fn) => flatGroup(name, fn),
  };
}

/** The group open now in the runner's log, if any (see {@link flatGroup}). */
let openGroup: string | undefined;

/**
 * `core.group`, kept flat: the runner's log has no nested groups (a `::group::` inside another ends
 * it), so a group opened inside another (a phase's wait inside the apply) closes the outer one, and
 * the outer one goes on after it as `NAME (continued)`.
 */
async function flatGroup<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const outer = openGroup;
  if (outer === undefined) {
    openGroup = name;
    try {
      return await core.group(name, fn);
    } finally {
      openGroup = undefined;
    }
  }
  core.endGroup();
  core.startGroup(name);
  openGroup = name;
  try {
    return await fn();
  } finally {
    core.endGroup();
    core.startGroup(`${outer} (continued)`);
    openGroup = outer;
  }
}
