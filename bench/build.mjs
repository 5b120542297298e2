// The image benchmark (section "Images" of bench/RESULTS.md; run by `npm run bench:images`, or alone
// with `node bench/build.mjs [--runs N] [--no-write] [--build-push-action FILE]`): a cached rebuild
// after a change to a late file, on a builder whose own cache was emptied first (as on a fresh
// runner), spread against what docker/build-push-action runs, `docker buildx build`, both with the
// same registry cache backend (`type=registry`, mode=max, each tool its own cache ref in the local
// registry). The runs interleave the tools, each run in the order of a Williams design (runOrder in
// bench/plan.mjs: no tool always goes first or always follows the same one); wall time of each CLI,
// median and range over the runs.
//
//   spread:  node dist/cli/index.js build DIR --registry R --tag T --cache registry
//   buildx:  docker buildx build --push --provenance=false --tag R/…:T
//              --cache-from type=registry,ref=R/…:buildcache --cache-to type=registry,ref=R/…:buildcache,mode=max DIR
//   floor:   the buildx plugin binary alone (`docker-buildx build … -`) with the files spread sends as a tar
//            on its standard input, the tar made before the clock starts: spread's build without
//            spread (no Node, no directory read, no digest, no registry lookup or confirmation)
//   action:  with --build-push-action FILE (dist/index.cjs of a checkout of docker/build-push-action),
//            that action's main step as a runner starts it (`node FILE` in the context directory, its
//            inputs as INPUT_*: the same push, cache and no provenance); its post step is not run
//   node:    the floor started by a Node program that does nothing else (spawn the plugin, pipe the
//            tar file in): the least any Node wrapper of buildx costs, with none of spread's work
//
// The Dockerfile: a builder stage writing 16 MiB and running a loop, a final stage copying from it,
// then the late file; each tool and run has steps of its own (its name in the RUN lines) and the
// builder is emptied before its first build too, so no step comes from another run's cache. Needs
// the local cluster's registry and BuildKit (scripts/cluster/up.sh).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { orderPeriod, runOrder } from './plan.mjs';
import { replaceSection } from './results.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

/** .cluster/env into process.env, unless the caller sourced it. */
function loadEnv() {
  if (process.env.SPREAD_REGISTRY && process.env.BUILDX_BUILDER && process.env.SPREAD_BASE_IMAGE_REF) return;
  const file = path.join(process.env.SPREAD_CLUSTER_DIR || path.join(root, '.cluster'), 'env');
  if (!existsSync(file))
    throw new Error('no .cluster/env: start the cluster with `bash scripts/cluster/up.sh`');
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^export ([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    // PATH="${SPREAD_BIN_DIR}:${PATH}" is the one line that expands variables; this needs only docker.
    if (m && m[1] !== 'PATH') process.env[m[1]] = m[2].replace(/^'(.*)'$/, '$1').replace(/^"(.*)"$/, '$1');
  }
}

/** The bench run's own directory under the OS temp directory (contexts, the action's files); removed at its end. */
let scratch;

function context(name, base) {
  const dir = path.join(scratch, name);
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'web.ctr'), `name: web\nimage: "&${name}"\n`);
  writeFileSync(
    path.join(dir, 'Dockerfile'),
    `FROM ${base} AS builder
RUN dd if=/dev/urandom of=/blob bs=1M count=16 2>/dev/null && i=0 && while [ $i -lt 20000 ]; do i=$((i+1)); done && echo ${name}
FROM ${base}
COPY --from=builder /blob /blob
RUN echo early ${name} > /early
COPY late.txt /late.txt
`,
  );
  writeFileSync(path.join(dir, 'late.txt'), 'v1\n');
  return dir;
}

function timed(cmd, args, input, { cwd, env = process.env } = {}) {
  const start = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 << 20, input });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${r.stderr.slice(-3000)}`);
  return { ms, output: `${r.stdout}${r.stderr}` };
}

const pruneBuilder = () =>
  execFileSync('docker', ['buildx', 'prune', '--all', '--force'], { stdio: 'ignore' });

/** The buildx plugin where the local harness installs it ($DOCKER_CONFIG/cli-plugins). */
const plugin = () =>
  path.join(process.env.DOCKER_CONFIG ?? path.join(os.homedir(), '.docker'), 'cli-plugins/docker-buildx');

/** `build …` as build-push-action runs it, with the registry cache of `repo`, from `context`. */
const buildArgs = (repo, tag, context) => [
  'build',
  '--progress=plain',
  '--provenance=false',
  '--push',
  '--tag',
  `${repo}:${tag}`,
  '--cache-from',
  `type=registry,ref=${repo}:buildcache`,
  '--cache-to',
  `type=registry,ref=${repo}:buildcache,mode=max`,
  context,
];

/** The Node floor's program: spawns argv[2..] and pipes the file argv[1] into it; exits with its code. */
const NODE_FLOOR = `const { spawn } = require('node:child_process');
const { createReadStream } = require('node:fs');
const [tar, command, ...args] = process.argv.slice(1);
const child = spawn(command, args, { stdio: ['pipe', 'inherit', 'inherit'] });
createReadStream(tar).pipe(child.stdin);
child.on('close', (code) => { process.exitCode = code ?? 1; });`;

/** The tar of the files spread sends (Dockerfile, late.txt), made before the clock starts. */
const contextTar = (dir) =>
  execFileSync('tar', ['-cf', '-', '-C', dir, 'Dockerfile', 'late.txt'], { maxBuffer: 64 << 20 });

/**
 * The environment docker/build-push-action's main step reads on a runner: its inputs as INPUT_*
 * (the same build as buildArgs: push, no provenance, the registry cache of `repo`) and the runner's
 * GITHUB_* and RUNNER_TEMP, with files of its own under `temp`.
 */
function actionEnv(temp, dir, repo, tag) {
  mkdirSync(path.join(temp, 'runner'), { recursive: true });
  for (const f of ['output', 'state']) writeFileSync(path.join(temp, f), '');
  // Inside a job of its own (a bench run from a workflow), that step's inputs and files stay out.
  const own = Object.entries(process.env).filter(([k]) => !/^(INPUT_|GITHUB_|RUNNER_|ACTIONS_)/.test(k));
  return {
    ...Object.fromEntries(own),
    GITHUB_ACTIONS: 'true',
    RUNNER_TEMP: path.join(temp, 'runner'),
    GITHUB_OUTPUT: path.join(temp, 'output'),
    GITHUB_STATE: path.join(temp, 'state'),
    GITHUB_WORKSPACE: dir,
    GITHUB_REPOSITORY: 'spread/bench',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_RUN_ID: '1',
    GITHUB_SHA: '0'.repeat(40),
    GITHUB_REF: 'refs/heads/main',
    GITHUB_EVENT_NAME: 'push',
    INPUT_CONTEXT: '.',
    INPUT_PUSH: 'true',
    INPUT_LOAD: 'false',
    INPUT_PULL: 'false',
    'INPUT_NO-CACHE': 'false',
    INPUT_PROVENANCE: 'false',
    INPUT_TAGS: `${repo}:${tag}`,
    'INPUT_CACHE-FROM': `type=registry,ref=${repo}:buildcache`,
    'INPUT_CACHE-TO': `type=registry,ref=${repo}:buildcache,mode=max`,
  };
}

/** docker/build-push-action's dist/index.cjs (`--build-push-action FILE`), when given. */
let buildPushAction;

const tools = {
  spread: (dir, repo, tag) =>
    timed(process.execPath, [
      path.join(root, 'dist/cli/index.js'),
      'build',
      dir,
      '--registry',
      repo.slice(0, repo.lastIndexOf('/')),
      '--tag',
      tag,
      '--cache',
      'registry',
    ]),
  buildx: (dir, repo, tag) => timed('docker', ['buildx', ...buildArgs(repo, tag, dir)]),
  floor: (dir, repo, tag) => timed(plugin(), buildArgs(repo, tag, '-'), contextTar(dir)),
  action: (dir, repo, tag) =>
    timed(process.execPath, [buildPushAction], undefined, {
      cwd: dir,
      env: actionEnv(mkdtempSync(path.join(scratch, 'action-')), dir, repo, tag),
    }),
  node: (dir, repo, tag) => {
    const file = path.join(scratch, 'context.tar');
    writeFileSync(file, contextTar(dir));
    return timed(process.execPath, ['-e', NODE_FLOOR, file, plugin(), ...buildArgs(repo, tag, '-')]);
  },
};

/** Steps buildx printed as taken from the cache: CACHED, or layers fetched from the backend. */
const cachedSteps = (output) => (output.match(/^#\d+ CACHED$/gm) ?? []).length;

/** One tool's first build and cached rebuild, in a context and repository of its own. */
function oneRun(tool, ns, index) {
  const name = `cached-${tool}-${index}`;
  const dir = context(name, process.env.SPREAD_BASE_IMAGE_REF);
  const repo = `${process.env.SPREAD_REGISTRY}/${ns}/${name}`;
  pruneBuilder();
  const first = tools[tool](dir, repo, 'v1');
  pruneBuilder();
  writeFileSync(path.join(dir, 'late.txt'), 'v2\n');
  const rebuild = tools[tool](dir, repo, 'v2');
  if (rebuild.output.includes(`early ${name}\n`) || /^#\d+ \d+\.\d+ cached-/m.test(rebuild.output))
    throw new Error(`${tool}: the rebuild ran a step the cache holds:\n${rebuild.output.slice(-3000)}`);
  return { tool, index, first: first.ms, rebuild: rebuild.ms, cached: cachedSteps(rebuild.output) };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const signed = (ms) => `${ms < 0 ? '−' : '+'}${Math.abs(ms).toFixed(0)}`;
const range = (xs) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`;

/** Runs the benchmark; returns the Markdown section. */
export async function benchImages({ write = true, runs, action } = {}) {
  const order = ['spread', 'buildx', ...(action ? ['action'] : []), 'node', 'floor'];
  const period = orderPeriod(order.length);
  // Whole periods of runOrder's design: 4 tools repeat every 4 runs (8 by default), 5 every 10.
  runs ??= action ? period : 2 * period;
  if (!Number.isInteger(runs) || runs < 1)
    throw new Error(`--runs takes a whole number above 0, not ${runs}`);
  if (action && !statSync(action, { throwIfNoEntry: false })?.isFile())
    throw new Error(
      `--build-push-action: ${action} is not a file (the dist/index.cjs of docker/build-push-action)`,
    );
  if (runs % period !== 0)
    console.warn(`${runs} runs are not whole periods of ${period}: the tools' orders are not balanced`);
  loadEnv();
  buildPushAction = action;
  scratch = mkdtempSync(path.join(os.tmpdir(), 'spread-bench-img-'));
  const ns = `bench-img-${Date.now().toString(36)}`;
  const rows = [];
  try {
    for (let i = 0; i < runs; i++) {
      for (const tool of runOrder(order, i)) {
        const row = oneRun(tool, ns, i);
        rows.push(row);
        console.log(
          `run ${i + 1} ${tool}: first ${row.first.toFixed(0)} ms, cached rebuild ${row.rebuild.toFixed(0)} ms`,
        );
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const of = (tool) => rows.filter((r) => r.tool === tool).map((r) => r.rebuild);
  /** `pair(a, b)` of each run's cached rebuilds of `a` and `b`. */
  const perRunOf = (a, b, pair) =>
    [...Array(runs).keys()].map((i) => {
      const ms = (tool) => rows.find((r) => r.tool === tool && r.index === i).rebuild;
      return pair(ms(a), ms(b));
    });
  const perRun = (tool) => perRunOf('spread', tool, (x, y) => x / y);
  const ratios = perRun('buildx');
  const ratio = median(of('spread')) / median(of('buildx'));
  const label = (tool) =>
    ({
      spread: '`spread build --cache registry`',
      buildx: "`docker buildx build` (build-push-action's command)",
      action: 'docker/build-push-action, its main step (`node dist/index.cjs`)',
      node: 'Node floor: a Node program that only starts the plugin and pipes the tar in',
      floor: 'floor: `docker-buildx build -`, the tar on its input, no Node',
    })[tool];
  const overhead = (tool) => median(perRunOf(tool, 'floor', (x, y) => x - y));
  const text = `## Images

A cached rebuild after a change to the last file, on a builder whose own cache was emptied first (a
fresh runner), both with the registry cache backend (mode=max); ${runs} runs, the tools interleaved
in the orders of a Williams design (bench/build.mjs, ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} CPUs, BuildKit ${process.env.SPREAD_BUILDKIT_VERSION ?? 'v0.34.2'} via buildx).

| tool | cached rebuild, median (ms) | min–max (ms) | first build, median (ms) |
|---|---:|---:|---:|
${order.map((t) => `| ${label(t)} | ${median(of(t)).toFixed(0)} | ${range(of(t))} | ${median(rows.filter((r) => r.tool === t).map((r) => r.first)).toFixed(0)} |`).join('\n')}

spread / buildx, cached rebuild: **${ratio.toFixed(2)} ×** (medians; per run ${median(ratios).toFixed(2)} ×,
${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}) — ${ratio <= 1 ? 'not slower: met' : 'slower: missed'}.
${action ? `spread / build-push-action's main step: **${(median(of('spread')) / median(of('action'))).toFixed(2)} ×** (per run ${median(perRun('action')).toFixed(2)} ×).\n` : ''}Over the floor, per run (median): spread ${signed(overhead('spread'))} ms, \`docker buildx build\` ${signed(overhead('buildx'))} ms,
the Node floor ${signed(overhead('node'))} ms.
Each run: ${rows.map((r) => `${r.tool} ${r.rebuild.toFixed(0)}`).join(', ')} ms.
spread's time includes its Node start-up, reading the directory, digesting the context and asking the
registry whether the tag is already built from it; the build itself is one buildx run.
`;
  if (write) replaceSection(path.join(here, 'RESULTS.md'), '## Images', `${text}\n${NOTES}\n`);
  return text;
}

/** What the runs of this session showed beyond the table (kept when the section is rewritten). */
const NOTES = `Notes (issue 18; 2026-12-01, corrected and extended 2026-12-06):
- The floor row is spread's build without spread: the same buildx plugin, the same tar on its
  standard input, no Node. Where spread's time goes (time stamps from \`performance.now()\` at each
  stage of a build of this context, registry on loopback, quiet machine, 2026-12-01): Node's own
  start to the first line of spread 30–35 ms; loading the bundle 30 ms (most of it Node's built-in
  modules: crypto, child_process, streams, fs/promises, http); the CLI's option parsing and the
  build command's modules 15 ms; reading the directory 8 ms; digesting the context; buildx spawned
  at 105–125 ms, the registry asked right after (its first request costs 15 ms of CPU in a fresh
  Node) and the tar written once it has answered; after buildx, the push confirmation (one GET,
  5–7 ms) and Node's exit (5–10 ms).
- What buildx does before it reads its input (strace of the plugin, 2026-12-06; in buildx's source,
  the builder is loaded and its driver connected before \`loadInputs\` first reads standard input):
  35–40 ms of its own start without strace, 47–88 ms under it (Go's start and package set-up, the
  builder's record, a ping of the Docker engine, the connection to BuildKit, a probe for git).
  spread writes the tar 10–40 ms after starting buildx, so the registry's answer is not waited
  for; what a build waits for is spread's work before it starts buildx (about 105 ms) and after
  buildx ends (about 18 ms).
- The Node floor row (2026-12-06) bounds any Node program around buildx. Measured apart from the
  builds, with an empty input, which buildx refuses right after its own start (8 times each,
  interleaved): the plugin 66–106 ms, Node and the plugin 106–125 ms, the docker CLI 103–130 ms.
  A Node program that does nothing but start buildx thus costs about what the docker CLI's start
  costs, and "not slower" leaves spread next to nothing for its own work on the build's path:
  loading its modules, reading the directory, digesting the context and confirming the push, 75–90
  ms beyond Node's own start and exit. The last run of 2026-12-06 (10 runs, in balanced orders)
  agrees within the builds (medians per run over the floor: the Node floor +38 ms, the docker CLI
  +34 ms, spread +121 ms); in the earlier runs of the day, one order and its reverse by turns, they
  swung by ±60 ms.
- Why that work comes before buildx starts: the context digest is the image's label on buildx's
  command line (\`--label\`; buildx takes labels from its arguments, and otherwise only the fixed git
  labels of BUILDX_GIT_LABELS; BuildKit's Dockerfile frontend takes labels from its \`label:\`
  options, not from build arguments, unless the Dockerfile writes one with LABEL), and the
  directory has to be read to know which images to build and from which context. (The digest could
  instead go into the Dockerfile spread sends, as a LABEL line at its end: a helper's test showed the
  label in the pushed config and the cached steps still cached. spread does not rewrite users'
  Dockerfiles: the line lands in the last stage, not the \`--target\` one, and an escape directive
  changes how it is read. It would also win only the 20–30 ms between the tar being ready and buildx
  reading it.) The gap does not grow with the context or the build; on this context, where
  BuildKit's own part is 0.5–0.8 s (half of it pulling and unpacking the cached layers that the
  changed COPY goes on), it is 3–22 % in the runs since 2026-12-01 (one run, on a noisier host,
  0.98 ×).
- All runs of 2026-12-06, spread / buildx on the medians: 1.12 (5 runs), 1.10, 1.10, 1.22 and 1.11
  (9 runs each, the tools in one order and its reverse by turns; the last with a 2 s pause after
  each prune, which changed nothing), and 1.07 in the last (10 runs, in the orders of the Williams
  design). Within one run the floor alone ranged up to 2 × (440–880 ms), and in most runs the first
  run of the bench was the fastest; every tool is in every run, so this moves the medians, not the
  ratios per run.
- The run of 2026-12-06 05:00 (10 runs, Williams orders, build-push-action's row too, the table
  above): spread / buildx 1.11 × on the medians, and the Node floor, a Node program that does
  nothing but start the plugin, 1.12 × (562 against 500 ms). Over the floor per run, in the two
  balanced runs of the day: the Node floor +38 and +53 ms, the docker CLI +34 and +45 ms, spread
  +121 and +113 ms. A Node wrapper of buildx with no work of its own is thus no faster than
  \`docker buildx build\` (once 4 ms slower, once 8), so "not slower" leaves a Node program no time
  at all, and spread's own work (reading the directory and digesting the context before buildx
  starts, confirming the push after) can only add to it.
- docker/build-push-action itself (2026-12-06; its dist/index.cjs from docker/build-push-action at
  cb941d0, @docker/actions-toolkit 0.92.0, given with \`--build-push-action FILE\`): its main step
  runs \`docker version\`, \`docker info\`, \`docker buildx version\` (twice) and \`docker buildx
  inspect\` before the same \`docker buildx build\`. Cached rebuild 1346, 1421, 1372 and 1128 ms
  (medians of runs of 9, 9, 10 and 10); spread 0.64, 0.59, 0.59 and 0.49 × of it. Its post step
  (the build record and the job summary) was not run. The issue's target is against \`docker
  buildx build\` alone.
- The harness's buildx and BuildKit said v0.0.0+unknown until 2026-12-06 (built without the
  linker's version), and build-push-action then took its paths for buildx older than 0.10: it
  dropped its \`provenance\` input and the build summary. scripts/cluster/build-binaries.sh now
  links the version in and rebuilds a cached binary that lacks it.
- Removed on 2026-12-01: node:http imported as an ES module (its namespace loaded undici: 25 ms of
  every start), TLS for a plain registry (a loopback registry is asked over HTTP first, and
  node:https loads on the first HTTPS request only), and the registry lookup's wait after the
  contexts (with a tag given it starts before them; on loopback this only reorders the CPU work, a
  registry some round trips away overlaps them). Before that: the docker CLI (buildx runs
  as the plugin binary where the CLI looks: about 70 ms), fetch (46–50 ms of loading on its first
  call; node:http(s) instead), the Kubernetes client from \`spread build\`'s start; earlier:
  buildx started before the registry answer (its input held back) and BUILDX_METADATA_PROVENANCE=disabled.
- Tried and not kept: sending all of the tar but its end-of-archive marker before the registry
  answers (no faster, 3 runs each); every built-in required instead of imported (no faster).
- Not measured here: the \`gha\` backend against GitHub's service (the local stand-in serves the tests).`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--runs');
  const runs = at > 0 ? Number(process.argv[at + 1]) : undefined;
  const bpa = process.argv.indexOf('--build-push-action');
  const action = bpa > 0 ? process.argv[bpa + 1] : undefined;
  if (bpa > 0 && (!action || action.startsWith('--')))
    throw new Error('--build-push-action needs the dist/index.cjs of a checkout of docker/build-push-action');
  const text = await benchImages({
    write: !process.argv.includes('--no-write'),
    runs,
    action: action && path.resolve(action),
  });
  console.log(text);
}
