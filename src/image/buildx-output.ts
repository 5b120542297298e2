import type { Logger } from '../base/logger.js';

/**
 * buildx's lines, held back until the context is sent (a cancelled build logs nothing) and buildx
 * prints its first progress line (`#0 building with …`), then logged as they come: a docker CLI
 * without the plugin prints its whole help first, which checkBuildx replaces with what to install.
 */
export function heldLines(logger: Logger): { log(line: string): void; sent(): void; release(): void } {
  let held: string[] | undefined = [];
  let sent = false;
  const progress = (line: string) => /^#\d+ /.test(line);
  const release = () => {
    for (const line of held ?? []) logger.info(line);
    held = undefined;
  };
  return {
    log(line) {
      if (!held) return logger.info(line);
      held.push(line);
      if (sent && progress(line)) release();
    },
    sent() {
      sent = true;
      if (held?.some(progress)) release();
    },
    release,
  };
}
