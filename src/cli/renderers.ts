// The CLI's options for the tools that render inputs (kustomize), from its flags and the environment:
// the only place below which nothing looks at PATH.
import type { KustomizeOptions } from '../input/kustomize.js';
import type { CliFlags } from './options.js';

/**
 * The flags of the rendering tools, as commander parses them from the settings table; `helm` (which
 * also renders charts) is kustomize's `--helm-command`.
 */
export type RenderFlags = Partial<Pick<CliFlags<'render'>, 'kustomize' | 'kustomizeEnableHelm' | 'helm'>>;

/**
 * How kustomizations are rendered: the `--kustomize` binary (else kustomize, else kubectl kustomize,
 * found on `env`'s PATH), `--kustomize-enable-helm` with the `--helm` binary, and the signal that ends
 * a running kustomize.
 */
export function kustomizeOptions(
  flags: RenderFlags,
  env: NodeJS.ProcessEnv,
  signal: AbortSignal | undefined,
): KustomizeOptions {
  return {
    ...(flags.kustomize ? { command: flags.kustomize } : {}),
    ...(flags.kustomizeEnableHelm ? { enableHelm: true } : {}),
    ...(flags.helm ? { helmCommand: flags.helm } : {}),
    env,
    ...(signal ? { signal } : {}),
  };
}
