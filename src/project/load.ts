// The project file read whole, for the commands that need its environments: every section checked
// (environments, health, drift), so one run reports every problem of spread.yaml at its line, whichever
// section the command reads.
import { InputError, type InputIssue } from '../base/source.js';
import { parseDriftSection } from './drift.js';
import { type EnvironmentsDeclaration, readEnvironments } from './environments.js';
import { type ProjectRead, readProjectFile } from './file.js';
import { readHealthRules } from './health.js';

/**
 * Every error of the project file: its own (YAML, unknown sections) and each section's, sorted by line.
 * Empty for a directory without spread.yaml.
 */
export function projectErrors(read: ProjectRead): InputIssue[] {
  const sections = read.project?.sections ?? {};
  const issues = [
    ...read.issues,
    ...(sections.environments ? readEnvironments(sections.environments).issues : []),
    ...readHealthRules(sections.health).issues.issues,
    ...parseDriftSection(sections.drift).issues,
  ];
  return issues.filter((i) => i.severity === 'error').sort((a, b) => a.source.line - b.source.line);
}

/**
 * Reads the environments a deployment's directory declares: `spread.yaml`'s `environments` section.
 * Undefined when the directory has no project file or the file no such section.
 *
 * @throws InputError with every problem of the project file, in every section, at file:line.
 */
export function loadEnvironments(dir: string): EnvironmentsDeclaration | undefined {
  const project = readProjectFile(dir);
  const errors = projectErrors(project);
  if (errors.length > 0) throw new InputError(errors);
  const section = project.project?.sections.environments;
  if (section === undefined) return undefined;
  return readEnvironments(section).declaration;
}
