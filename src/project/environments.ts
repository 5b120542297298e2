// The `environments` section of the project file: each place the deployment runs (staging, production,
// a preview per pull request), where that is (clusters: context, namespace, the cluster's identity),
// what differs there (a folder, Helm values), which branches deploy to it and its order.
// docs/environments.md is the user's page; schema/spread.schema.json `$defs.environments` the editor's.
import picomatch from 'picomatch';
import { optionRef } from '../base/option-ref.js';
import type { InputIssue } from '../base/source.js';
import { IssueList } from '../base/source.js';
import { isMapping, type LocatedValue } from '../decode/decode.js';
import { readEnvironmentFields } from './environment-fields.js';
import type {
  Environment,
  EnvironmentCluster,
  EnvironmentsDeclaration,
  PreviewRule,
} from './environment-types.js';

export type {
  Environment,
  EnvironmentCluster,
  EnvironmentsDeclaration,
  PreviewRule,
} from './environment-types.js';

/** What reading the section gave: the declaration (absent when there are errors) and every issue. */
export interface EnvironmentsRead {
  readonly declaration?: EnvironmentsDeclaration;
  readonly issues: readonly InputIssue[];
}

/** The name `--environment` takes for every environment at once (`spread plan --environment all`). */
export const ALL_ENVIRONMENTS = 'all';

/**
 * Reads the `environments` section of the project file: a mapping of environment name to its
 * settings. Every problem (an unknown key, a bad name, namespace, URL or uid, `after:` naming an
 * environment not declared before) is an error at its line, all of them at once; with any error there
 * is no declaration.
 *
 * @param section the section as `readProjectFile` returned it (`project.sections.environments`).
 */
export function readEnvironments(section: LocatedValue): EnvironmentsRead {
  const issues = new IssueList();
  const file = section.source.file;
  if (!isMapping(section.value)) {
    issues.error(section.source, 'environments is a mapping of environment name to its settings');
    return { issues: issues.issues };
  }
  const environments: Environment[] = [];
  for (const name of Object.keys(section.value)) {
    const at = section.at([name]);
    const source = { file, line: section.lineAt([name]) };
    if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(name))
      issues.error(source, 'is not a DNS label (lowercase letters, digits and -, at most 63)', name);
    else if (name === ALL_ENVIRONMENTS)
      issues.error(source, '"all" is reserved: `--environment all` means every environment', name);
    if (at === undefined) continue;
    const env = readEnvironmentFields(at, name, environments.length, issues);
    if (env === undefined) continue;
    if (env.after !== undefined && !environments.some((e) => e.name === env.after))
      issues.error(
        at.sourceAt(['after']),
        `after: ${JSON.stringify(env.after)} is not an environment declared before this one`,
        name,
      );
    environments.push(env);
  }
  // Checks run field by field; the user reads the file top to bottom.
  const sorted = [...issues.issues].sort((a, b) => a.source.line - b.source.line);
  if (issues.hasErrors) return { issues: sorted };
  return { declaration: { file, environments }, issues: sorted };
}

/** The environment named `name`, or undefined. */
export function environmentNamed(
  declaration: EnvironmentsDeclaration,
  name: string,
): Environment | undefined {
  return declaration.environments.find((e) => e.name === name);
}

/**
 * The environment a push of `branch` deploys to: the first non-preview environment, in declaration
 * order, one of whose `branches` globs matches (picomatch, as the short form and GitHub's filters).
 */
export function environmentForBranch(
  declaration: EnvironmentsDeclaration,
  branch: string,
): Environment | undefined {
  return declaration.environments.find(
    (e) => e.preview === undefined && e.branches.some((b) => picomatch.isMatch(branch, b, { dot: true })),
  );
}

/** The first preview environment, the one a pull request deploys to; undefined when none is declared. */
export function previewEnvironment(declaration: EnvironmentsDeclaration): Environment | undefined {
  return declaration.environments.find((e) => e.preview !== undefined);
}

/** The namespace of pull request `number`'s preview: the template with `{pr}` replaced. */
export function previewNamespace(rule: PreviewRule, number: number): string {
  return rule.namespace.replaceAll('{pr}', String(number));
}

/**
 * The one cluster of an environment, for the commands that deploy to one cluster.
 * @throws Error when the environment lists several (a fleet), pointing to the setting `cluster`
 *   (each front end spells it: `--cluster`, the input `cluster`), which deploy and plan take.
 */
export function singleCluster(env: Environment): EnvironmentCluster {
  const [first, ...more] = env.clusters;
  if (first === undefined || more.length > 0)
    throw new Error(
      `environment ${env.name} is a fleet of ${env.clusters.length} clusters (${env.clusters.map((c) => c.name).join(', ')}); this takes one: name it with ${optionRef('cluster')} (deploy and plan take one cluster of a fleet)`,
    );
  return first;
}

/**
 * An API server URL as compared by the wrong-cluster guard: scheme and host lower-cased, the scheme's
 * default port (443, 80) and trailing `/` dropped, so `https://API.example.com:443/` is
 * `https://api.example.com`. A value that is not a URL is returned trimmed.
 */
export function normalizeServer(server: string): string {
  try {
    const url = new URL(server.trim());
    const path = url.pathname.replace(/\/+$/, '');
    return `${url.protocol}//${url.host}${path}`;
  } catch {
    return server.trim();
  }
}
