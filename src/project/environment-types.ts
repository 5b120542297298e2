// The typed result of the project file's `environments` section (src/project/environments.ts reads it,
// and re-exports these): an environment, its clusters, its preview rule. Kept apart so the field reader
// and the section reader share them without importing each other.
import type { Source } from '../base/source.js';

/**
 * One cluster an environment runs on. Today an environment has one; a fleet (several clusters of one
 * environment, deployed in waves) lists more under `clusters:` and each entry has these fields.
 */
export interface EnvironmentCluster {
  /** A name for reports: `name:`, else the context, else the environment's name. */
  readonly name: string;
  /** The kubeconfig context; absent: the kubeconfig's current context (the Action's kubeconfig secret). */
  readonly context?: string;
  /** The namespace on this cluster; absent: the environment's. */
  readonly namespace?: string;
  /**
   * The API server URL the context must reach (`clusters[].cluster.server` of the kubeconfig), compared
   * after normalising (scheme and host lower-cased, default port and trailing `/` dropped).
   */
  readonly server?: string;
  /** The uid of the cluster's `kube-system` Namespace, which stays the same whatever URL reaches it. */
  readonly kubeSystemUID?: string;
  /** Where `server:` is written (the wrong-cluster guard's error names the line). */
  readonly serverSource?: Source;
  /** Where `kubeSystemUID:` is written. */
  readonly kubeSystemUIDSource?: Source;
  /** Helm values files for this cluster only, after the environment's (a fleet's per-cluster values). */
  readonly helmValues?: readonly string[];
  /** Helm `--set` values for this cluster only, over the environment's (`region: eu-west-1`). */
  readonly helmSet?: Readonly<Record<string, string>>;
  /** Where the cluster is declared in spread.yaml. */
  readonly source: Source;
}

/**
 * One wave of a fleet (docs/fleets.md): clusters deployed together, each one its own deploy, at most
 * `maxParallel` at once; the next wave starts only when every one of them succeeded and stayed
 * healthy for `soakMs`.
 */
export interface FleetWave {
  /** A DNS label: `canary`, `rest`; `all` for the one wave of a fleet that declares none. */
  readonly name: string;
  /** The names of its clusters (EnvironmentCluster.name), in the order listed. */
  readonly clusters: readonly string[];
  /** How many of its clusters deploy at once; absent: all of them. */
  readonly maxParallel?: number;
  /** How long, in milliseconds, spread keeps reading the wave's rollout state after it succeeded. */
  readonly soakMs?: number;
  /** Where the wave is declared (the environment's line for the implicit wave). */
  readonly source: Source;
}

/** A preview environment: one per pull request, in a namespace named from the pull request's number. */
export interface PreviewRule {
  /**
   * The namespace template, holding `{pr}` (the pull request's number): `web-pr-{pr}`. Default
   * `ENVIRONMENT-pr-{pr}`, or `NAMESPACE-pr-{pr}` when the environment names a namespace.
   */
  readonly namespace: string;
}

/** One declared environment, typed. */
export interface Environment {
  /** Its name: a DNS label (`staging`), also the GitHub/GitLab environment's name. */
  readonly name: string;
  /** Its place in declaration order (0-based): environments are listed, planned and promoted in it. */
  readonly index: number;
  /** Where it is declared: the line its settings start at. */
  readonly source: Source;
  /** The namespace deployed to; absent: the context's, else `default` (as without environments). */
  readonly namespace?: string;
  /** Its clusters, at least one (the short form `context:`/`server:`/`kubeSystemUID:` gives one). */
  readonly clusters: readonly EnvironmentCluster[];
  /**
   * The folder deployed to this environment, relative to the directory holding spread.yaml, POSIX
   * separators: a kustomize overlay (`overlays/production`) or any folder spread reads. Absent: `.`.
   */
  readonly path?: string;
  /** Helm values files for every chart, relative to each chart's folder, later ones winning (`helm -f`). */
  readonly helmValues: readonly string[];
  /** Helm `--set` values for every chart, after the values files. */
  readonly helmSet: Readonly<Record<string, string>>;
  /**
   * Branch globs (the short form's rules: `*` within a segment, `**` across `/`) whose pushes deploy
   * here; a pull request's plan is matched by its base branch. Empty: no branch deploys here by itself.
   */
  readonly branches: readonly string[];
  /** The environment promotion comes from (declared before this one); absent: none. */
  readonly after?: string;
  /** The fleet's waves, in order (`waves:`); absent: one wave of every cluster (fleet-waves.ts). */
  readonly waves?: readonly FleetWave[];
  /** Set when this environment is a preview per pull request. */
  readonly preview?: PreviewRule;
}

/** The `environments` section, typed: the environments in declaration order. */
export interface EnvironmentsDeclaration {
  /** `spread.yaml`, relative to the deployment's directory. */
  readonly file: string;
  readonly environments: readonly Environment[];
}
