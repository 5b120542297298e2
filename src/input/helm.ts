// The Helm chart renderer: a folder holding Chart.yaml is rendered by `helm template` of the Helm the
// user has (3 or 4), with an explicit argument list both majors accept, the cluster's API versions and
// Kubernetes version for `.Capabilities`, and dependencies not vendored in charts/ fetched into a
// temporary copy; Helm's words are passed through as issues at the chart's files.
import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, posix, resolve, sep } from 'node:path';
import { IssueList, type Source, type Trace } from '../base/source.js';
import { decodeText, isMapping } from '../decode/decode.js';
import { errorSource, placeLines, readHelmOutput } from './helm-output.js';
import type { Renderer, RenderRequest, RenderResult } from './render.js';

/** What `.Capabilities` says of the cluster: its Kubernetes version and every API it serves. */
export interface HelmCapabilities {
  /** The server's version as `GET /version` reports it, e.g. `v1.34.4`. */
  readonly kubeVersion: string;
  /** Every `group/version` and `group/version/Kind` the server serves (`v1`, `apps/v1/Deployment`). */
  readonly apiVersions: readonly string[];
}

/** Options of {@link helmRenderer}; the settings `helm`, `helm-values` and `helm-set`. */
export interface HelmOptions {
  /** The Helm command: a name looked up on PATH or a path (setting `helm`); default `helm`. */
  readonly binary?: string;
  /** The release name: the deployment's name. */
  readonly release: string;
  /** The release namespace (`.Release.Namespace`): the deployment's namespace. */
  readonly namespace: string;
  /**
   * Values files (setting `helm-values`), in order, later ones winning as with `helm -f`; each
   * relative to the chart folder (or absolute). A chart folder that lacks one is an error.
   */
  readonly valuesFiles?: readonly string[];
  /** `KEY=VALUE` values (setting `helm-set`), each passed as Helm's `--set KEY=VALUE`, after the files. */
  readonly set?: readonly string[];
  /**
   * The cluster's capabilities, asked only when a chart is rendered; absent (as in `spread render`),
   * Helm uses its own defaults: the Kubernetes version and API versions it was built with.
   */
  readonly capabilities?: () => Promise<HelmCapabilities | undefined>;
  /** The environment Helm runs in (HELM_CACHE_HOME, HELM_REGISTRY_CONFIG…); default this process's. */
  readonly env?: NodeJS.ProcessEnv;
  readonly trace?: Trace;
}

/** A Helm version as `helm version --template '{{.Version}}'` prints it. */
export interface HelmVersion {
  readonly text: string;
  readonly major: number;
}

/** Reads `helm version` output (`v3.21.4`, `v4.3.1+g1234`, or v3's `version.BuildInfo{Version:"v3.21.4", …}`). */
export function parseHelmVersion(output: string): HelmVersion | undefined {
  const m = /v(\d+)\.(\d+)\.(\d+)(?:[-+][0-9A-Za-z.+-]*)?/.exec(output);
  return m ? { text: m[0], major: Number(m[1]) } : undefined;
}

/**
 * The `helm template` argument list, the same for Helm 3 and 4 (every flag here has the same name
 * and meaning in both): release, chart, `--namespace`, `--include-crds` (crds/ is deployed like any
 * CRD), values files then `--set` values, and the cluster's `--kube-version` and `--api-versions`.
 */
export function templateArgs(
  chart: string,
  options: Pick<HelmOptions, 'release' | 'namespace' | 'set'> & { readonly values?: readonly string[] },
  capabilities: HelmCapabilities | undefined,
): string[] {
  const args = ['template', options.release, chart, '--namespace', options.namespace, '--include-crds'];
  for (const f of options.values ?? []) args.push('--values', f);
  for (const s of options.set ?? []) args.push('--set', s);
  if (capabilities) {
    const kube = kubeVersionArg(capabilities.kubeVersion);
    if (kube) args.push('--kube-version', kube);
    for (const v of capabilities.apiVersions) args.push('--api-versions', v);
  }
  return args;
}

/** The server's version as Helm's `--kube-version` parses it (semver); undefined when it is not one. */
export function kubeVersionArg(gitVersion: string): string | undefined {
  return /^v?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?$/.test(gitVersion) ? gitVersion : undefined;
}

/** What Chart.yaml says that the renderer needs. */
export interface ChartInfo {
  /** The chart's name (`# Source:` paths start with it). */
  readonly name: string | undefined;
  /** The names of its dependencies. */
  readonly dependencies: string[];
  /** The paths of its `file://` repositories, relative to the chart folder (`../common`). */
  readonly localRepositories: string[];
  /** `type: library`: templates for other charts only, which Helm does not render on its own. */
  readonly library: boolean;
}

/** Reads Chart.yaml's name and dependencies; a file Helm would refuse gives no name and none. */
export function chartInfo(text: string): ChartInfo {
  const doc = decodeText('Chart.yaml', text).values[0]?.value;
  if (!isMapping(doc)) return { name: undefined, dependencies: [], localRepositories: [], library: false };
  const deps = (Array.isArray(doc.dependencies) ? doc.dependencies : []).filter(isMapping);
  return {
    name: typeof doc.name === 'string' ? doc.name : undefined,
    dependencies: deps.flatMap((d) => (typeof d.name === 'string' ? [d.name] : [])),
    localRepositories: deps.flatMap((d) =>
      typeof d.repository === 'string' && d.repository.startsWith('file://')
        ? [d.repository.slice('file://'.length)]
        : [],
    ),
    library: doc.type === 'library',
  };
}

/**
 * The dependencies that charts/ does not hold, neither as a folder `charts/NAME/` nor as an archive
 * `charts/NAME-VERSION.tgz`: those `helm dependency build` fetches.
 */
export function missingDependencies(names: readonly string[], chartsEntries: readonly string[]): string[] {
  return names.filter(
    (n) => !chartsEntries.some((e) => e === n || (e.startsWith(`${n}-`) && e.endsWith('.tgz'))),
  );
}

/**
 * A {@link Renderer} for folders holding Chart.yaml. The Helm version is asked once per renderer and
 * named in every result (`helm v3.21.4`). Hooks (`helm.sh/hook`) are rendered with the release's
 * objects and deployed in their phases (docs/phases.md). `lookup` returns nothing, as in every
 * `helm template` (Argo CD renders the same way).
 */
export function helmRenderer(options: HelmOptions): Renderer {
  let version: Promise<HelmVersion | string> | undefined;
  let capabilities: Promise<HelmCapabilities | undefined> | undefined;
  return async (request) => {
    version ??= helmVersion(options);
    capabilities ??= options.capabilities ? options.capabilities() : Promise.resolve(undefined);
    const issues = new IssueList();
    // `helm version` and the render run together, so one Helm start-up is off the path: the
    // template's arguments do not depend on the major (flags both accept), and what a Helm spread
    // refuses rendered is dropped, with only the version's error kept.
    const [v, result] = await Promise.all([
      version,
      capabilities.then((c) => renderChart(request, options, c, issues)),
    ]);
    if (typeof v === 'string') {
      const refused = new IssueList();
      const at: Source = { file: request.dir === '.' ? 'Chart.yaml' : `${request.dir}/Chart.yaml`, line: 0 };
      refused.error(at, v);
      return { objects: [], issues: refused.issues, tool: `helm (${options.binary ?? 'helm'})` };
    }
    return { ...result, tool: `helm ${v.text}` };
  };
}

/** Asks Helm its version; a string says why it could not be used. */
async function helmVersion(options: HelmOptions): Promise<HelmVersion | string> {
  const binary = options.binary ?? 'helm';
  const run = await runHelm(binary, ['version', '--template', '{{.Version}}'], options.env);
  if ('missing' in run)
    return `${binary} was not found (setting helm): install Helm 3 or 4, or name its binary in the setting helm`;
  const parsed = parseHelmVersion(run.stdout);
  if (run.code !== 0 || !parsed)
    return `${binary} version failed: ${(run.stderr || run.stdout).trim() || `exit code ${run.code}`}`;
  if (parsed.major !== 3 && parsed.major !== 4)
    return `${binary} is Helm ${parsed.text}; spread renders charts with Helm 3 or 4`;
  options.trace?.(`Helm ${parsed.text} (${binary}) renders charts`);
  return parsed;
}

// over 80 lines because it is one chart's render: values, dependencies, helm template, its output.
async function renderChart(
  request: RenderRequest,
  options: HelmOptions,
  capabilities: HelmCapabilities | undefined,
  issues: IssueList,
): Promise<Omit<RenderResult, 'tool'>> {
  const chartYaml = request.dir === '.' ? 'Chart.yaml' : `${request.dir}/Chart.yaml`;
  const info = chartInfo(readFileSync(join(request.abs, 'Chart.yaml'), 'utf8'));
  const chartName = info.name ?? posix.basename(request.dir);
  if (info.library) {
    // A shared chart kept beside the app's (helm template refuses it): it deploys through the
    // charts that depend on it.
    issues.warning(
      { file: chartYaml, line: 0 },
      `chart ${chartName} is a library chart (type: library): it deploys nothing on its own, only through the charts that depend on it`,
    );
    return { objects: [], issues: issues.issues };
  }
  const values: string[] = [];
  for (const f of options.valuesFiles ?? []) {
    const abs = isAbsolute(f) ? f : join(request.abs, f);
    if (existsSync(abs)) values.push(abs);
    else
      issues.error(
        { file: request.dir === '.' ? f : posix.join(request.dir, f), line: 0 },
        `values file ${f} (setting helm-values, relative to the chart folder) does not exist in chart ${chartName}`,
      );
  }
  if (issues.hasErrors) return { objects: [], issues: issues.issues };
  const missing = missingDependencies(info.dependencies, entriesOf(join(request.abs, 'charts')));
  // Dependencies are fetched into a copy: the user's folder stays as checked out (a charts/*.tgz
  // written there would change the build context of an image built from the chart folder, and a
  // plan must write nothing).
  const copy = missing.length > 0 ? mkdtempSync(join(tmpdir(), 'spread-helm-')) : undefined;
  try {
    let chart = request.abs;
    if (copy) {
      options.trace?.(
        `${chartYaml}: helm dependency build for ${missing.join(', ')} (in a copy of the chart)`,
      );
      const built = await buildDependencies(request, info, copy, options);
      if (typeof built !== 'string') {
        issues.error(
          { file: chartYaml, line: 0 },
          `helm dependency build failed for ${missing.join(', ')}: ${built.error}`,
        );
        return { objects: [], issues: issues.issues };
      }
      chart = built;
    }
    const args = templateArgs(chart, { ...options, values }, capabilities);
    options.trace?.(
      `${chartYaml}: helm template ${options.release} --namespace ${options.namespace}${values.length ? ` --values ${(options.valuesFiles ?? []).join(',')}` : ''}${(options.set ?? []).map((s) => ` --set ${s.slice(0, s.indexOf('='))}=…`).join('')}${capabilities ? ` --kube-version ${capabilities.kubeVersion} (+${capabilities.apiVersions.length} --api-versions)` : ''}`,
    );
    const run = await runHelm(options.binary ?? 'helm', args, options.env);
    if ('missing' in run) {
      issues.error({ file: chartYaml, line: 0 }, `${options.binary ?? 'helm'} was not found`);
      return { objects: [], issues: issues.issues };
    }
    // Helm's hint names its own --debug flag, which spread does not pass on.
    const said = run.stderr.replace(/^Use --debug flag to render out invalid YAML\n?/m, '');
    const stderr = copy ? said.replaceAll(copy, '<copy>') : said;
    if (run.code !== 0) {
      issues.error(
        errorSource(stderr, chartName, request.dir) ?? { file: chartYaml, line: 0 },
        stderr.trim(),
      );
      return { objects: [], issues: issues.issues };
    }
    for (const line of stderr.split('\n').filter((l) => l.trim() !== ''))
      issues.warning({ file: chartYaml, line: 0 }, `helm: ${line.trim()}`);
    const out = readHelmOutput(run.stdout, chartName, request.dir);
    issues.add(out.issues);
    const read = (file: string) => readText(join(request.root, file));
    // Hooks are deployed in the phase their event names (src/deployment/phases.ts reads
    // helm.sh/hook, hook-weight and hook-delete-policy); a hook of an event spread does not run
    // (test, rollback, delete) is reported there and left out.
    return { objects: placeLines([...out.objects, ...out.hooks], read), issues: issues.issues };
  } finally {
    if (copy) rmSync(copy, { recursive: true, force: true });
  }
}

/**
 * Copies the chart to `copy`, at the same place relative to a stand-in of the input root, and runs
 * `helm dependency build` there. A `file://` dependency outside the chart (`file://../common`) is
 * linked at the same relative place, so it resolves as it does in the checkout.
 * @returns the copy's chart folder, or Helm's error.
 */
async function buildDependencies(
  request: RenderRequest,
  info: ChartInfo,
  copy: string,
  options: HelmOptions,
): Promise<string | { error: string }> {
  const chart = join(copy, 'root', request.dir);
  cpSync(request.abs, chart, { recursive: true });
  for (const local of info.localRepositories) {
    const target = resolve(chart, local);
    if (existsSync(target) || !target.startsWith(`${copy}${sep}`)) continue;
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(resolve(request.abs, local), target);
  }
  const dep = await runHelm(options.binary ?? 'helm', ['dependency', 'build', chart], options.env);
  if ('missing' in dep) return { error: `${options.binary ?? 'helm'} was not found` };
  if (dep.code === 0) return chart;
  return { error: (dep.stderr.trim() || dep.stdout.trim()).replaceAll(copy, '<copy>') };
}

function entriesOf(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function readText(abs: string): string | undefined {
  try {
    return readFileSync(abs, 'utf8');
  } catch {
    return undefined;
  }
}

type HelmRun = { code: number; stdout: string; stderr: string } | { missing: true };

/** Runs Helm and collects its output; `missing` when the binary does not exist. */
function runHelm(
  binary: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv | undefined,
): Promise<HelmRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(env ? { env } : {}) });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', (e: NodeJS.ErrnoException) =>
      e.code === 'ENOENT' || e.code === 'EACCES' ? resolve({ missing: true }) : reject(e),
    );
    child.on('close', (code) =>
      resolve({
        code: code ?? 1,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
  });
}
