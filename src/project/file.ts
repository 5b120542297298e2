// The project file, `spread.yaml` at the root of a deployment's directory: what a repository declares
// about its deployment beyond the Kubernetes objects (environments, health rules, drift rules). It is
// read here once, with every value's line, and each top-level section is checked by its own module.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type InputIssue, IssueList } from '../base/source.js';
import { decodeCoreBytes, isMapping, type LocatedValue } from '../decode/decode.js';

/** The project file's name, at the root of the directory given to spread (the deployment's directory). */
export const PROJECT_FILE = 'spread.yaml';

/** The JSON Schema editors read for the project file (shipped in the package, `schema/` of the repository). */
export const PROJECT_SCHEMA_URL =
  'https://raw.githubusercontent.com/redspread/spread-action/v1/schema/spread.schema.json';

/** The top-level sections the project file may hold; each is documented in docs/ and checked by its module. */
export const PROJECT_SECTIONS = ['environments', 'health', 'drift'] as const;

/** One of {@link PROJECT_SECTIONS}. */
export type ProjectSection = (typeof PROJECT_SECTIONS)[number];

/** The project file as read: each section present, with its lines, for its module to check. */
export interface ProjectFile {
  /** `spread.yaml`, relative to the deployment's directory as every source is. */
  readonly file: string;
  /** The whole document, for a section module to place its issues (`lineAt`). */
  readonly document: LocatedValue;
  /** The sections present in the file. */
  readonly sections: Partial<Record<ProjectSection, LocatedValue>>;
}

/** What reading the project file gave: the file (absent when the directory has none) and its issues. */
export interface ProjectRead {
  readonly project?: ProjectFile;
  readonly issues: readonly InputIssue[];
}

/**
 * Reads `spread.yaml` from a deployment's directory. A missing file is no project file (every section
 * absent); a file that does not parse, holds more than one document or not a mapping, or names a
 * section spread does not know, gives errors at file:line (all of them) and no project.
 *
 * @param dir the deployment's directory, as given to spread.
 */
export function readProjectFile(dir: string): ProjectRead {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(join(dir, PROJECT_FILE));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { issues: [] };
    throw err;
  }
  const issues = new IssueList();
  // YAML 1.2's core schema, as editors read it: a key `on:` (a Helm value) stays the string "on".
  const decoded = decodeCoreBytes(PROJECT_FILE, bytes);
  issues.add(decoded.issues);
  if (decoded.issues.length > 0) return { issues: issues.issues };
  const [document, ...more] = decoded.values;
  if (document === undefined) return { issues: [] };
  if (more.length > 0)
    issues.error(
      more[0]?.source ?? { file: PROJECT_FILE, line: 0 },
      'holds more than one YAML document; the project file is one mapping',
    );
  if (!isMapping(document.value)) {
    issues.error(document.source, 'is not a mapping of sections (environments, health, drift)');
    return { issues: issues.issues };
  }
  const sections: Partial<Record<ProjectSection, LocatedValue>> = {};
  for (const key of Object.keys(document.value)) {
    const at = document.at([key]);
    if (key === '$schema') continue;
    if (!(PROJECT_SECTIONS as readonly string[]).includes(key) || at === undefined) {
      issues.error(
        { file: PROJECT_FILE, line: document.lineAt([key]) },
        `unknown section ${JSON.stringify(key)}: the project file holds ${PROJECT_SECTIONS.join(', ')}`,
      );
      continue;
    }
    sections[key as ProjectSection] = at;
  }
  if (issues.hasErrors) return { issues: issues.issues };
  return { project: { file: PROJECT_FILE, document, sections }, issues: issues.issues };
}
