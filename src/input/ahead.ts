// A kustomize build started before the read asks for it: when the deployed folder is itself a
// kustomization (`spread deploy overlays/prod`), kustomize runs while the front end connects to the
// cluster and the deploy reads its identity, which the build does not need.
import { type Dirent, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isFile } from './files.js';
import { type KustomizeOptions, kustomizeRenderer } from './kustomize.js';
import type { Renderer, RenderRequest, RenderResult } from './render.js';
import { folderKind } from './rendered.js';

/** A build started ahead, and the renderer that hands it to the read. */
export interface RenderAhead {
  /**
   * The kustomize renderer to read with: the started build for the folder it was started for, asked
   * once (as the walk asks), any other folder built when asked.
   */
  readonly kustomize: Renderer;
  /** Ends a build the read never asked for (the deploy failed before it) and waits until its files are gone. */
  close(): Promise<void>;
}

/**
 * Starts `kustomize build` of `root` now when `root` holds a kustomization (as the directory walk
 * reads it: `kustomization.yaml`, `.yml` or `Kustomization`, and no Chart.yaml); otherwise starts
 * nothing and renders as {@link kustomizeRenderer} does. The request is the walk's for its root
 * folder, so the result is the one the read would have had.
 */
export function kustomizeAhead(root: string, options: KustomizeOptions = {}): RenderAhead {
  const abort = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, abort.signal]) : abort.signal;
  const renderer = kustomizeRenderer({ ...options, signal });
  const abs = resolve(root);
  const request: RenderRequest = { kind: 'kustomize', abs, dir: '.', root: abs };
  let early: Promise<RenderResult> | undefined = isKustomization(abs) ? renderer(request) : undefined;
  early?.catch(() => {});
  const started = early;
  return {
    kustomize: (asked) => {
      if (early && asked.abs === abs && asked.dir === '.' && asked.root === abs) {
        const result = early;
        early = undefined;
        return result;
      }
      return renderer(asked);
    },
    close: async () => {
      if (!early) return;
      abort.abort();
      await started?.catch(() => {});
    },
  };
}

/** Whether a folder is a kustomization by the walk's rule; false when it cannot be read. */
function isKustomization(abs: string): boolean {
  let entries: Dirent[];
  try {
    entries = readdirSync(abs, { withFileTypes: true });
  } catch {
    return false;
  }
  return folderKind(entries, (e) => isFile(join(abs, e.name), e)).kind === 'kustomize';
}
