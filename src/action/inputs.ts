import * as core from '@actions/core';
import { parseDuration, parseLeaseDuration } from '../core/duration.js';
import { parseUrlFrom, type UrlFrom } from '../report/url.js';
import { type EnvironmentRule, parseEnvironments } from './environments.js';

/** What the step does: apply and wait, preview with a server-side dry run, or remove the deployment. */
export type Mode = 'deploy' | 'plan' | 'delete';

/**
 * The Action's inputs, read once and typed, keyed like action.yml (camel-cased). Nothing below the
 * front end reads inputs or the environment. Empty strings mean "not given" where action.yml says so.
 */
export interface Inputs {
  /** Directory in spread layout, relative to the workspace. `path`, default `.`. */
  readonly path: string;
  /** kubeconfig context; empty: the kubeconfig's current context (or the `environments` rule's). */
  readonly context: string;
  /** kubeconfig content (plain or base64), from a secret. Empty: $KUBECONFIG or ~/.kube/config. */
  readonly kubeconfig: string;
  /** Namespace for objects that name none; empty: the context's. */
  readonly namespace: string;
  /** The deployment's name; empty: the directory's name. */
  readonly name: string;
  /** Registry (host[:port][/path]) that built images are tagged for and pushed to; empty: none given. */
  readonly registry: string;
  /** Tag of built images; empty: the commit (GITHUB_SHA). */
  readonly tag: string;
  /** Docker build arguments from `KEY=VALUE` lines, in input order. */
  readonly buildArgs: Readonly<Record<string, string>>;
  /** Build the images marked with `&`. */
  readonly build: boolean;
  /** Push the images built. */
  readonly push: boolean;
  /**
   * Keep the layers of built images in the GitHub Actions cache between workflow runs: `auto` (private
   * repositories only), `true`, `false`.
   */
  readonly layerCache: 'auto' | boolean;
  /** Delete objects of this deployment that the directory no longer holds. */
  readonly prune: boolean;
  /** Prune dropped CRDs too, with their custom resources (kept otherwise). */
  readonly pruneCrds: boolean;
  readonly wait: boolean;
  /** Rollout wait limit in milliseconds (input given as a duration, e.g. `5m`). */
  readonly timeoutMs: number;
  readonly mode: Mode;
  /** Take over fields owned by other field managers. */
  readonly forceConflicts: boolean;
  /** Delete and recreate objects whose change the API server refuses as immutable. */
  readonly replace: boolean;
  /** Take over existing objects this deployment did not create. */
  readonly adopt: boolean;
  /** Re-apply the previous revision when the rollout fails. */
  readonly rollbackOnFailure: boolean;
  /** Wait for LoadBalancer Services to get an address (bounded by `timeout`). */
  readonly waitLoadBalancer: boolean;
  /** Annotate changed objects with the commit, run URL and time of the deploy. */
  readonly objectAnnotations: boolean;
  /** How long to wait for another deploy of the same deployment to release its lock, in milliseconds. */
  readonly lockTimeoutMs: number;
  /** The lock's Lease duration in whole seconds: a crashed deploy's lock is taken over after it. */
  readonly lockLeaseDurationSeconds: number;
  /** Branch → context rules; empty: deploy to `context` whatever the branch. */
  readonly environments: readonly EnvironmentRule[];
  /** Turn manifest errors and warnings into file annotations on the pull request. */
  readonly annotate: boolean;
  /** Post the plan as a pull request comment in mode `plan` on pull_request events. */
  readonly comment: boolean;
  /** Token for the pull request comment; empty: no comment. */
  readonly githubToken: string;
  /** Requests in flight at once within one apply group. */
  readonly concurrency: number;
  /** The object whose address is the `url` output; undefined: the rule of report/url.ts. */
  readonly urlFrom: UrlFrom | undefined;
  /** Record the deploy as a GitHub Deployment of the commit, with its statuses. */
  readonly deployment: boolean;
  /** The GitHub environment of that deployment; empty: the context (see action.yml). */
  readonly environment: string;
  /** After a deploy, the pull request's plan comment says what was deployed. */
  readonly deployComment: boolean;
}

/** The defaults of action.yml, which an input left empty takes (the runner passes them, tests may not). */
export const DEFAULTS = {
  path: '.',
  build: 'true',
  push: 'true',
  'layer-cache': 'auto',
  prune: 'true',
  'prune-crds': 'false',
  wait: 'true',
  timeout: '5m',
  mode: 'deploy',
  'force-conflicts': 'false',
  replace: 'false',
  adopt: 'false',
  'rollback-on-failure': 'false',
  'lock-timeout': '5m',
  'lock-lease-duration': '30s',
  'wait-load-balancer': 'false',
  'object-annotations': 'true',
  annotate: 'true',
  comment: 'true',
  concurrency: '16',
  deployment: 'false',
  'deploy-comment': 'false',
} as const satisfies Record<string, string>;

/**
 * Reads and checks every input from the runner (`INPUT_*`).
 * @throws Error naming the input when a value is invalid.
 */
export function getInputs(): Inputs {
  return parseInputs((name) => core.getInput(name));
}

/**
 * Parses inputs from a lookup by action.yml name (trimmed values, `''` when not given).
 * @throws Error `input NAME: …` on the first invalid value.
 */
export function parseInputs(get: (name: string) => string): Inputs {
  const read = (name: string): string => {
    const v = get(name).trim();
    return v === '' ? ((DEFAULTS as Record<string, string>)[name] ?? '') : v;
  };
  const checked = <T>(name: string, parse: (value: string) => T): T => {
    try {
      return parse(read(name));
    } catch (error) {
      throw new Error(`input ${name}: ${(error as Error).message}`);
    }
  };
  const bool = (name: string) => checked(name, parseBoolean);

  const mode = checked('mode', (v) => {
    if (v !== 'deploy' && v !== 'plan' && v !== 'delete')
      throw new Error(`expected deploy, plan or delete, got "${v}"`);
    return v;
  });
  const context = read('context');
  const environments = checked('environments', parseEnvironments);
  if (environments.length > 0 && context)
    throw new Error('inputs context and environments: give one or the other, not both');
  const build = bool('build');
  const push = bool('push');
  if (push && !build && get('push').trim() !== '')
    throw new Error('input push: nothing is built when build is false; set push to false too');

  return {
    path: read('path'),
    context,
    kubeconfig: get('kubeconfig'),
    namespace: checked('namespace', (v) => {
      if (v && !DNS_LABEL.test(v))
        throw new Error(`"${v}" is not a namespace name (lower-case letters, digits and -, at most 63)`);
      return v;
    }),
    name: read('name'),
    registry: checked('registry', (v) => {
      if (v && !REGISTRY.test(v))
        throw new Error(`expected a registry like ghcr.io/owner or localhost:5000, got "${v}"`);
      return v.replace(/\/+$/, '');
    }),
    tag: checked('tag', (v) => {
      if (v && !TAG.test(v))
        throw new Error(
          `"${v}" is not a Docker tag (letters, digits, _ . -, at most 128, not starting with . or -)`,
        );
      return v;
    }),
    buildArgs: checked('build-args', parseBuildArgs),
    build,
    push: build && push,
    layerCache: checked('layer-cache', (v) => {
      if (v === 'auto') return 'auto' as const;
      if (/^(true|false)$/i.test(v)) return parseBoolean(v);
      throw new Error(`expected auto, true or false, got "${v}"`);
    }),
    prune: bool('prune'),
    pruneCrds: bool('prune-crds'),
    wait: bool('wait'),
    timeoutMs: checked('timeout', parseDuration),
    mode,
    forceConflicts: bool('force-conflicts'),
    replace: bool('replace'),
    adopt: bool('adopt'),
    rollbackOnFailure: bool('rollback-on-failure'),
    waitLoadBalancer: bool('wait-load-balancer'),
    objectAnnotations: bool('object-annotations'),
    lockTimeoutMs: checked('lock-timeout', parseDuration),
    lockLeaseDurationSeconds: checked('lock-lease-duration', parseLeaseDuration),
    environments,
    annotate: bool('annotate'),
    comment: bool('comment'),
    githubToken: read('github-token'),
    concurrency: checked('concurrency', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new Error(`expected a whole number ≥ 1, got "${v}"`);
      return n;
    }),
    urlFrom: checked('url-from', (v) => (v ? parseUrlFrom(v) : undefined)),
    deployment: bool('deployment'),
    environment: read('environment'),
    deployComment: bool('deploy-comment'),
  };
}

const DNS_LABEL = /^(?=.{1,63}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const REGISTRY = /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]+)?(\/[a-z0-9]+([._-]+[a-z0-9]+)*)*\/?$/;
const TAG = /^[\w][\w.-]{0,127}$/;

/** The YAML 1.2 core schema booleans, as core.getBooleanInput accepts them. */
function parseBoolean(value: string): boolean {
  if (['true', 'True', 'TRUE'].includes(value)) return true;
  if (['false', 'False', 'FALSE'].includes(value)) return false;
  throw new Error(`expected true or false, got "${value}"`);
}

/**
 * `KEY=VALUE` lines (Docker's `--build-arg` form); the value may hold `=` and may be empty. Blank lines
 * and `#` comments are skipped.
 */
function parseBuildArgs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const eq = line.indexOf('=');
    const key = eq < 0 ? line : line.slice(0, eq).trim();
    if (eq < 0 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(key))
      throw new Error(`line ${index + 1}: expected KEY=VALUE, got "${key}${eq < 0 ? '' : '=…'}"`);
    if (key in out) throw new Error(`line ${index + 1}: ${key} is given twice`);
    out[key] = line.slice(eq + 1);
  });
  return out;
}
