// A failed step's error as the Action reports it: the message and each located problem in the Action's
// words (inputs, not flags), their files relative to the workspace, and the deployment it was about.
// Shared by the Action's entry (main.ts) and its mode promote (promote.ts).
import { locatedFailures } from '../core/errors.js';
import { failureTarget } from '../frontend/deploy.js';
import { actionText } from './logger.js';
import type { ActionFailure } from './publish.js';

/** `error` as an {@link ActionFailure}, each located problem's file made workspace-relative by `locate`. */
export function failureOf(error: unknown, locate: (file: string) => string): ActionFailure {
  const target = failureTarget(error);
  return {
    ...(target ? { target } : {}),
    error: actionText((error as Error)?.message ?? String(error)),
    failures: locatedFailures(error).map((f) => ({
      ...f,
      message: actionText(f.message),
      ...(f.file ? { file: locate(f.file) } : {}),
    })),
  };
}
