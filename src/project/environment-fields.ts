// The fields of one environment in spread.yaml, checked one by one with their lines: the short form of
// its cluster (`context:`, `server:`, `kubeSystemUID:`) or the list `clusters:`, what differs there,
// its branches, `after:` and `preview:`. Every problem is added to the caller's IssueList.
import type { IssueList, Source } from '../base/source.js';
import { isMapping, type LocatedValue, type ValuePath } from '../decode/decode.js';
import type { Environment, EnvironmentCluster, PreviewRule } from './environment-types.js';
import { readWaves } from './fleet-waves.js';

const CLUSTER_KEYS = [
  'name',
  'context',
  'namespace',
  'server',
  'kubeSystemUID',
  'helmValues',
  'helmSet',
] as const;
const ENVIRONMENT_KEYS = [
  'context',
  'namespace',
  'server',
  'kubeSystemUID',
  'clusters',
  'path',
  'helmValues',
  'helmSet',
  'branches',
  'after',
  'preview',
  'waves',
] as const;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const UID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Reads the fields of one environment; undefined when `at` is not a mapping (an error is added). */
export function readEnvironmentFields(
  at: LocatedValue,
  name: string,
  index: number,
  issues: IssueList,
): Environment | undefined {
  const source = { file: at.source.file, line: at.source.line };
  if (at.value === null) return fieldsOf(at, name, index, issues, source);
  if (!isMapping(at.value)) {
    issues.error(source, 'is not a mapping of settings (context, namespace, path, branches…)', name);
    return undefined;
  }
  unknownKeys(at, [], ENVIRONMENT_KEYS, name, issues);
  return fieldsOf(at, name, index, issues, source);
}

function fieldsOf(
  at: LocatedValue,
  name: string,
  index: number,
  issues: IssueList,
  source: Source,
): Environment {
  const f = new Fields(at, name, issues);
  const previewAt = at.at(['preview']);
  const namespace = f.string(['namespace']);
  const preview = previewAt === undefined ? undefined : readPreview(f, name, namespace);
  if (namespace !== undefined && preview === undefined) f.namespace(['namespace'], namespace);
  const clusters = readClusters(f, name, namespace);
  const waves = readWaves(at, clusters, name, issues);
  const env: Environment = {
    name,
    index,
    source,
    ...(namespace !== undefined && preview === undefined ? { namespace } : {}),
    clusters,
    ...optional('path', f.path(['path'])),
    helmValues: f.strings(['helmValues']),
    helmSet: f.stringMap(['helmSet']),
    branches: f.strings(['branches']),
    ...optional('after', f.string(['after'])),
    ...(preview !== undefined ? { preview } : {}),
    ...(waves !== undefined ? { waves } : {}),
  };
  if (preview !== undefined && env.after !== undefined)
    issues.error(at.sourceAt(['after']), 'a preview environment is not promoted to: drop after:', name);
  return env;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** `preview: true`, or `preview: { namespace: web-pr-{pr} }`. */
function readPreview(f: Fields, name: string, namespace: string | undefined): PreviewRule | undefined {
  const value = f.at.value as Record<string, unknown>;
  const preview = value.preview;
  const base = namespace ?? name;
  if (preview === false) return undefined;
  if (preview === true) return { namespace: namespace?.includes('{pr}') ? namespace : `${base}-pr-{pr}` };
  if (!isMapping(preview)) {
    f.issues.error(f.at.sourceAt(['preview']), 'preview is true, false or { namespace: NAME-{pr} }', name);
    return undefined;
  }
  unknownKeys(f.at, ['preview'], ['namespace'], name, f.issues);
  const template = f.string(['preview', 'namespace']) ?? `${base}-pr-{pr}`;
  if (!template.includes('{pr}'))
    f.issues.error(
      f.at.sourceAt(['preview', 'namespace']),
      'a preview namespace holds {pr}, the pull request number',
      name,
    );
  else f.namespace(['preview', 'namespace'], template.replaceAll('{pr}', '1'));
  return { namespace: template };
}

/**
 * A fleet's clusters are distinct places: each names its kubeconfig context (without one every
 * cluster is the kubeconfig's current context, so the fleet would write the same place once per
 * cluster), and no two share a context and namespace.
 */
function fleetPlaces(
  clusters: readonly EnvironmentCluster[],
  namespace: string | undefined,
  env: string,
  issues: IssueList,
): void {
  const places = new Map<string, string>();
  for (const c of clusters) {
    if (c.context === undefined) {
      issues.error(
        c.source,
        `cluster ${JSON.stringify(c.name)} names no context: in a fleet each cluster names its kubeconfig context, or every cluster deploys to the current context, the same place`,
        env,
      );
      continue;
    }
    const ns = c.namespace ?? namespace;
    const key = `${c.context}\0${ns ?? ''}`;
    const first = places.get(key);
    if (first !== undefined)
      issues.error(
        c.source,
        `cluster ${JSON.stringify(c.name)} is the same place as cluster ${JSON.stringify(first)} (context ${c.context}, ${ns ? `namespace ${ns}` : "the context's namespace"}): a fleet deploys each place once`,
        env,
      );
    else places.set(key, c.name);
  }
}

/** The short form (fields on the environment) or `clusters:`, never both. */
function readClusters(f: Fields, name: string, namespace: string | undefined): EnvironmentCluster[] {
  const short = ['context', 'server', 'kubeSystemUID'].filter((k) => f.has([k]));
  if (!f.has(['clusters'])) return [readCluster(f, [], name, true)];
  for (const key of short)
    f.issues.error(
      f.at.sourceAt([key]),
      `${key}: goes inside each entry of clusters: when the environment lists its clusters`,
      name,
    );
  const list = f.at.value as Record<string, unknown>;
  if (!Array.isArray(list.clusters) || list.clusters.length === 0) {
    f.issues.error(f.at.sourceAt(['clusters']), 'clusters is a non-empty list of clusters', name);
    return [readCluster(f, [], name, true)];
  }
  const clusters = list.clusters.map((entry, i) => {
    if (!isMapping(entry)) {
      f.issues.error(f.at.sourceAt(['clusters', i]), 'a cluster is a mapping (context, server…)', name);
      return { name, source: f.at.sourceAt(['clusters', i]) };
    }
    unknownKeys(f.at, ['clusters', i], CLUSTER_KEYS, name, f.issues);
    const cluster = readCluster(f, ['clusters', i], name, false);
    clusterName(f, i, cluster, name);
    return cluster;
  });
  const seen = new Map<string, number>();
  clusters.forEach((c, i) => {
    const first = seen.get(c.name);
    if (first !== undefined)
      f.issues.error(
        c.source,
        `cluster ${JSON.stringify(c.name)} is listed twice (entries ${first + 1} and ${i + 1})`,
        name,
      );
    seen.set(c.name, i);
  });
  // A context given but invalid, or a name listed twice, is reported already.
  const places = clusters.filter(
    (c, i) => seen.get(c.name) === i && (c.context || !f.has(['clusters', i, 'context'])),
  );
  if (clusters.length > 1) fleetPlaces(places, namespace, name, f.issues);
  return clusters;
}

/**
 * A cluster's name is a DNS label, as environment and wave names are: it goes into the Action's
 * matrix, artifact names (`spread-report-CLUSTER`; upload-artifact refuses `:` `/` and others),
 * GitLab's child pipeline and resource groups. A cluster without `name` is named after its context,
 * which then must be one, else the cluster names itself.
 */
function clusterName(f: Fields, i: number, cluster: EnvironmentCluster, env: string): void {
  if (DNS_LABEL.test(cluster.name)) return;
  if (f.has(['clusters', i, 'name']))
    f.issues.error(
      f.at.sourceAt(['clusters', i, 'name']),
      `cluster name ${JSON.stringify(cluster.name)} is not a DNS label (lowercase letters, digits and -, at most 63): it names the cluster's CI job and report artifact`,
      env,
    );
  else
    f.issues.error(
      cluster.source,
      `cluster of context ${JSON.stringify(cluster.name)} needs a name: (a DNS label, e.g. eu-1): the context is not one, and the cluster's name goes into CI job and artifact names`,
      env,
    );
}

function readCluster(f: Fields, path: ValuePath, env: string, short: boolean): EnvironmentCluster {
  const context = f.string([...path, 'context']);
  const server = f.string([...path, 'server']);
  const uid = f.string([...path, 'kubeSystemUID']);
  const namespace = short ? undefined : f.string([...path, 'namespace']);
  if (namespace !== undefined) f.namespace([...path, 'namespace'], namespace);
  const label = short ? undefined : f.string([...path, 'name']);
  if (server !== undefined && !/^https?:\/\/[^/\s]+/.test(server))
    f.issues.error(f.at.sourceAt([...path, 'server']), `server ${server} is not an http(s):// URL`, env);
  if (uid !== undefined && !UID.test(uid))
    f.issues.error(
      f.at.sourceAt([...path, 'kubeSystemUID']),
      `kubeSystemUID ${uid} is not a uid (the kube-system Namespace's metadata.uid, lowercase)`,
      env,
    );
  return {
    name: label ?? context ?? env,
    ...optional('context', context),
    ...optional('namespace', namespace),
    ...optional('server', server),
    ...optional('kubeSystemUID', uid),
    ...(server !== undefined ? { serverSource: f.at.sourceAt([...path, 'server']) } : {}),
    ...(uid !== undefined ? { kubeSystemUIDSource: f.at.sourceAt([...path, 'kubeSystemUID']) } : {}),
    ...(!short && f.has([...path, 'helmValues']) ? { helmValues: f.strings([...path, 'helmValues']) } : {}),
    ...(!short && f.has([...path, 'helmSet']) ? { helmSet: f.stringMap([...path, 'helmSet']) } : {}),
    source: path.length === 0 ? f.at.source : f.at.sourceAt(path),
  };
}

function unknownKeys(
  at: LocatedValue,
  path: ValuePath,
  known: readonly string[],
  env: string,
  issues: IssueList,
): void {
  const value = at.at(path)?.value;
  if (!isMapping(value)) return;
  for (const key of Object.keys(value))
    if (!known.includes(key))
      issues.error(
        at.sourceAt([...path, key]),
        `unknown field ${JSON.stringify(key)}: an environment${path.length > 0 ? `'s ${String(path[0])}` : ''} holds ${known.join(', ')}`,
        env,
      );
}

/** Typed reads of one environment's fields, each wrong type an error at its line. */
class Fields {
  constructor(
    readonly at: LocatedValue,
    readonly env: string,
    readonly issues: IssueList,
  ) {}

  has(path: ValuePath): boolean {
    return this.at.at(path) !== undefined;
  }

  string(path: ValuePath): string | undefined {
    const value = this.at.at(path)?.value;
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
    const quote = typeof value === 'boolean' || typeof value === 'number' ? ` (quote ${String(value)})` : '';
    this.issues.error(this.at.sourceAt(path), `${path.join('.')} is a non-empty string${quote}`, this.env);
    return undefined;
  }

  strings(path: ValuePath): string[] {
    const value = this.at.at(path)?.value;
    if (value === undefined || value === null) return [];
    const list = typeof value === 'string' ? [value] : value;
    if (!Array.isArray(list) || list.some((v) => typeof v !== 'string' || v.trim() === '')) {
      this.issues.error(this.at.sourceAt(path), `${path.join('.')} is a list of non-empty strings`, this.env);
      return [];
    }
    return list.map((v: string) => v.trim());
  }

  stringMap(path: ValuePath): Record<string, string> {
    const value = this.at.at(path)?.value;
    if (value === undefined || value === null) return {};
    const scalar = (v: unknown) => ['string', 'number', 'boolean'].includes(typeof v);
    if (!isMapping(value) || !Object.values(value).every(scalar)) {
      this.issues.error(
        this.at.sourceAt(path),
        `${path.join('.')} is a mapping of KEY: scalar value (Helm --set)`,
        this.env,
      );
      return {};
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)]));
  }

  namespace(path: ValuePath, value: string): void {
    if (!DNS_LABEL.test(value))
      this.issues.error(
        this.at.sourceAt(path),
        `namespace ${value} is not a DNS label (lowercase letters, digits and -, at most 63)`,
        this.env,
      );
  }

  path(path: ValuePath): string | undefined {
    const value = this.string(path);
    if (value === undefined) return undefined;
    const posix = value.replaceAll('\\', '/').replace(/\/+$/, '');
    if (posix.startsWith('/') || /^[a-zA-Z]:/.test(posix) || posix.split('/').includes('..')) {
      this.issues.error(
        this.at.sourceAt(path),
        `path ${value} is a folder inside the deployment's directory (relative, without ..)`,
        this.env,
      );
      return undefined;
    }
    return posix === '' ? '.' : posix;
  }
}
