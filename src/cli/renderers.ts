// The CLI's options for the tools that render inputs (kustomize), from its flags and the environment:
// the only place below which nothing looks at PATH.
import type { KustomizeOptions } from '../input/kustomize.js';

/** The flags of the rendering tools, as commander parses them from the settings table. */
export interface RenderFlags {
  kustomize?: string;
  kustomizeEnableHelm?: boolean;
}

/**
 * How kustomizations are rendered: the `--kustomize` binary (else kustomize, else kubectl kustomize,
 * found on `env`'s PATH), `--kustomize-enable-helm`, and the signal that ends a running kustomize.
 */
export function kustomizeOptions(
  flags: RenderFlags,
  env: NodeJS.ProcessEnv,
  signal: AbortSignal | undefined,
): KustomizeOptions {
  return {
    ...(flags.kustomize ? { command: flags.kustomize } : {}),
    ...(flags.kustomizeEnableHelm ? { enableHelm: true } : {}),
    env,
    ...(signal ? { signal } : {}),
  };
}
