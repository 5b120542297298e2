// The CLI's logger (all on stderr, debug lines with --verbose) and how its messages spell deploy
// options: as flags, or as the GitLab component's inputs when that component runs the CLI.
import type { Logger } from '../base/logger.js';
import { type OptionKey, phraseOptions } from '../base/option-ref.js';
import { formatSource } from '../base/source.js';
import { flagSpelling, inputSpelling } from '../frontend/settings.js';

/**
 * How the CLI names a deploy option in its messages: its flag, `--replace`; with
 * SPREAD_OPTION_STYLE=input (set by the GitLab component, whose users set inputs, not flags) the
 * component's input, `the input replace: true`.
 */
export const cliOption = (key: OptionKey): string =>
  process.env.SPREAD_OPTION_STYLE === 'input' ? inputSpelling(key) : flagSpelling(key);

/** `text` with the options it refers to spelled as the CLI's flags. */
export const cliText = (text: string): string => phraseOptions(text, cliOption);

/** The CLI's logger: everything on stderr (stdout holds only the report), debug lines with --verbose. */
export function createCliLogger(verbose: boolean, stream: NodeJS.WritableStream = process.stderr): Logger {
  const write = (line: string) => stream.write(`${cliText(line)}\n`);
  const where = (w?: { file?: string; line?: number }) =>
    w?.file ? `${formatSource({ file: w.file, line: w.line ?? 0 })}: ` : '';
  return {
    info: (m) => write(m),
    warn: (m, w) => write(`warning: ${where(w)}${m}`),
    error: (m, w) => write(`error: ${where(w)}${m}`),
    debug: (m) => {
      if (verbose) write(`debug: ${m}`);
    },
    group: async (name, fn) => {
      if (verbose) write(`── ${name}`);
      return fn();
    },
  };
}
