// kustomize's errors as spread shows them: its own words for `kustomize build FOLDER` (the wrapper
// kustomization's part of the message left out, generator literals redacted), at the file they name.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Source } from '../base/source.js';
import { type BuildPaths, rootRelative } from './kustomize-origin.js';
import { KUSTOMIZATION_FILES } from './rendered.js';

/** The kustomization file of a folder, by kustomize's order of names; undefined when it has none. */
export function kustomizationFile(folder: string): string | undefined {
  return KUSTOMIZATION_FILES.find((n) => existsSync(path.join(folder, n)));
}

/**
 * kustomize's error text without the wrapper's prefix (`accumulating resources … recursed
 * accumulation of path 'FOLDER': `), and without the values of generator literals, which kustomize
 * repeats in its errors (`literal sources [password=…]`) and which may be a Secret's.
 */
export function kustomizeError(stderr: string, paths: Pick<BuildPaths, 'folder' | 'wrapper'>): string {
  let text = stderr.trim().replace(/^Error: /, '');
  const inFolder = `path '${paths.folder}': `;
  const at = text.indexOf(inFolder);
  if (at >= 0) text = text.slice(at + inFolder.length);
  return redactLiterals(text.split(`${paths.wrapper}/`).join(''));
}

const REDACTED = '<redacted>';

/** `KEY=VALUE` literals as `KEY=<redacted>`: in kustomize's `literal sources [...]` and `- KEY=VALUE` lines of a config it quotes. */
export function redactLiterals(text: string): string {
  const redact = (literal: string) =>
    literal.includes('=') ? `${literal.slice(0, literal.indexOf('=') + 1)}${REDACTED}` : literal;
  return text
    .replace(
      /literal sources \[([^\]]*)\]/g,
      (_, inner: string) => `literal sources [${inner.split(' ').map(redact).join(' ')}]`,
    )
    .replace(/^(\s*- )([^=\s]+=).*$/gm, (_, dash: string, key: string) => `${dash}${key}${REDACTED}`);
}

/** The source an error is placed at: the file it names in the innermost kustomization folder it names. */
export function errorSource(stderr: string, paths: BuildPaths, file: string | undefined): Source {
  const folders = [...stderr.matchAll(/path '([^']+)'/g)]
    .map((m) => m[1] as string)
    .filter((f) => path.isAbsolute(f) && !f.startsWith(paths.wrapper));
  const innermost = folders.at(-1) ?? paths.folder;
  const inFolder = (relative: string) =>
    rootRelative(
      paths,
      path.relative(paths.folder, path.join(innermost, relative)).split(path.sep).join('/'),
    );
  const named = /path: "?([^"\s\]`]+)"?/.exec(stderr)?.[1];
  if (named && existsSync(path.join(innermost, named))) return { file: inFolder(named), line: 0 };
  const kustomization = kustomizationFile(innermost) ?? file ?? 'kustomization.yaml';
  return { file: inFolder(kustomization), line: 0 };
}
