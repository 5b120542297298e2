import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { DeployError, deploy } from '../core/deploy.js';
import { failureLines, locatedFailures } from '../core/errors.js';
import { readDeployment } from '../core/read.js';
import { render } from '../deployment/index.js';
import { ciContext, deployAnnotations } from '../frontend/ci.js';
import { interruptSignal, trapInterrupts } from '../frontend/interrupts.js';
import { kubeconfigSource } from '../frontend/kubeconfig.js';
import { prepareImages } from '../image/index.js';
import { type DeployReport, formatReportText, imageAction } from '../report/report.js';
import { parseUrlFrom, type UrlFrom } from '../report/url.js';
import { version } from '../version.js';
import { contextOf, durationArg, leaseDurationArg } from './args.js';
import { cliText, createCliLogger } from './logger.js';
import { defineDelete, defineHistory, defineList, defineRollback } from './manage.js';
import { defineStatus } from './status.js';

/**
 * One subcommand. `enabled: false` leaves it out entirely (the seed's "commands can be disabled");
 * `hidden: true` keeps it callable but out of the help (debugging aids).
 */
interface CommandSpec {
  readonly name: string;
  readonly enabled?: boolean;
  readonly hidden?: boolean;
  readonly define: (cmd: Command) => void;
}

interface ClusterFlags {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  name?: string;
  /** Deploy only (plan neither waits nor locks): absent for plan. */
  timeout?: number;
  wait?: boolean;
  output: 'text' | 'json';
  forceConflicts: boolean;
  replace: boolean;
  adopt: boolean;
  prune: boolean;
  pruneCrds: boolean;
  allowEmpty: boolean;
  concurrency: number;
  annotate: boolean;
  lockTimeout?: number;
  lockLeaseDuration?: number;
  waitLoadBalancer?: boolean;
  rollbackOnFailure?: boolean;
  urlFrom?: UrlFrom;
  verbose: boolean;
  registry?: string;
  tag?: string;
  buildArg: Record<string, string>;
  target?: string;
  /** Absent where the command has no such flag (plan builds and pushes nothing; build always builds). */
  build?: boolean;
  push?: boolean;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new InvalidArgumentError(`expected a whole number ≥ 1, got "${value}"`);
  return n;
}

function buildArg(value: string, previous: Record<string, string>): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError(`expected KEY=VALUE, got "${value}"`);
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

/**
 * Flags of the image stage: deploy, plan and build take them; `--no-build` only deploy, `--no-push`
 * deploy and build (a plan builds and pushes nothing).
 */
function imageOptions(cmd: Command, which: 'deploy' | 'plan' | 'build'): Command {
  cmd
    .option(
      '--registry <registry>',
      'where & images are pushed, e.g. localhost:5000/team-a (default: $SPREAD_REGISTRY)',
    )
    .option('--tag <tag>', 'tag of built images (default: the commit, else a digest of the build context)')
    .addOption(
      new Option('--build-arg <KEY=VALUE>', 'build argument, repeatable')
        .argParser(buildArg)
        .default({}, 'none'),
    )
    .option('--target <stage>', 'Dockerfile stage to build');
  if (which === 'deploy') cmd.option('--no-build', 'do not build & images; pin what the registry holds');
  if (which !== 'plan') cmd.option('--no-push', 'build but do not push (deploys unpinned)');
  return cmd;
}

/**
 * The image stage's options from flags and the environment: DOCKER_HOST, DOCKER_CONFIG (else
 * ~/.docker), SPREAD_REGISTRY, and the commit (GITHUB_SHA / CI_COMMIT_SHA / git) as default tag.
 */
function imageStageOptions(
  flags: Pick<ClusterFlags, 'registry' | 'tag' | 'buildArg' | 'target' | 'build' | 'push'>,
  dir: string,
  env: NodeJS.ProcessEnv,
) {
  const commit = ciContext(env, dir).commit;
  return {
    registry: flags.registry ?? env.SPREAD_REGISTRY,
    tag: flags.tag ?? (commit ? commit.slice(0, 12) : undefined),
    buildArgs: flags.buildArg,
    target: flags.target,
    build: flags.build,
    push: flags.push,
    docker: env.DOCKER_HOST,
    dockerConfigDir: env.DOCKER_CONFIG ?? path.join(env.HOME ?? '', '.docker'),
  };
}

/** The flags of deploy and plan; those about waiting, locking and building are deploy's only. */
function clusterOptions(cmd: Command, mode: 'deploy' | 'plan'): Command {
  imageOptions(cmd, mode)
    .option('--kubeconfig <file>', 'kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--context <context>', "kubeconfig context, as the CONTEXT argument (kubectl's flag)")
    .option(
      '-n, --namespace <namespace>',
      "namespace for objects that name none (default: the context's namespace)",
    )
    .option('--name <name>', "the deployment's name (default: the directory's name)")
    .addOption(
      new Option('-o, --output <format>', 'report format on stdout')
        .choices(['text', 'json'])
        .default('text'),
    )
    .option('--force-conflicts', 'take over fields owned by other field managers', false)
    .option(
      '--replace',
      'delete and re-create objects whose immutable fields change (selector, Job template…)',
      false,
    )
    .option(
      '--adopt',
      'take over existing objects that spread did not deploy here (made by hand, another tool, or another spread deployment), and the fields kubectl set on them: those the directory does not declare are removed',
      false,
    )
    .option('--no-prune', 'keep objects of this deployment that the directory no longer holds')
    .option(
      '--prune-crds',
      'prune CRDs the directory dropped too, with every custom resource of them (kept by default)',
      false,
    )
    .option('--allow-empty', 'let an input with no objects prune every object of the deployment', false)
    .option(
      '--no-annotate',
      "don't annotate changed objects with the commit, run URL and time of the deploy (and remove those an earlier deploy set)",
    )
    .option('--concurrency <n>', 'requests in flight at once within one apply group', positiveInt, 16)
    .option('-v, --verbose', 'trace input reading and API requests', false);
  if (mode === 'plan') return cmd;
  return cmd
    .addOption(
      new Option('--timeout <duration>', 'limit of the rollout wait, e.g. 90s, 5m')
        .argParser(durationArg)
        .default(300_000, '5m'),
    )
    .option('--no-wait', 'do not wait for the rollout')
    .addOption(
      new Option('--lock-timeout <duration>', 'how long to wait for another deploy of the same deployment')
        .argParser(durationArg)
        .default(300_000, '5m'),
    )
    .addOption(
      new Option(
        '--lock-lease-duration <duration>',
        "how long the deploy's lock (a Lease) outlives its last renewal: another deploy takes over a crashed deploy's lock after this, whole seconds",
      )
        .argParser(leaseDurationArg)
        .default(30, '30s'),
    )
    .option(
      '--wait-load-balancer',
      'wait until LoadBalancer Services have an address (bounded by --timeout)',
      false,
    )
    .option(
      '--rollback-on-failure',
      'when the rollout fails, apply the last revision whose rollout succeeded again',
      false,
    )
    .addOption(
      new Option(
        '--url-from <KIND/NAME>',
        "the object whose address is the report's url, e.g. ingress/web (default: the first Ingress with a host, else HTTPRoute with a hostname, else LoadBalancer Service with an address)",
      ).argParser((v) => {
        try {
          return parseUrlFrom(v);
        } catch (error) {
          throw new InvalidArgumentError((error as Error).message);
        }
      }),
    );
}

async function runDeploy(
  mode: 'deploy' | 'plan',
  dir: string | undefined,
  context: string | undefined,
  flags: ClusterFlags,
) {
  const logger = createCliLogger(flags.verbose);
  const ci = ciContext(process.env, dir ?? '.');
  const print = (report: DeployReport) =>
    process.stdout.write(
      cliText(flags.output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : formatReportText(report)),
    );
  let report: DeployReport;
  try {
    report = await deploy({
      path: dir ?? '.',
      kubeconfig: kubeconfigSource(flags.kubeconfig, process.env),
      context: contextOf(context, flags.context),
      namespace: flags.namespace,
      name: flags.name,
      mode,
      wait: flags.wait ?? false,
      timeoutMs: flags.timeout ?? 300_000,
      forceConflicts: flags.forceConflicts,
      replace: flags.replace,
      adopt: flags.adopt,
      prune: flags.prune,
      pruneCrds: flags.pruneCrds,
      allowEmpty: flags.allowEmpty,
      concurrency: flags.concurrency,
      images: imageStageOptions(flags, dir ?? '.', process.env),
      lockTimeoutMs: flags.lockTimeout,
      ...(flags.lockLeaseDuration !== undefined ? { lockLeaseDurationSeconds: flags.lockLeaseDuration } : {}),
      waitLoadBalancer: flags.waitLoadBalancer,
      rollbackOnFailure: flags.rollbackOnFailure,
      ...(flags.urlFrom ? { urlFrom: flags.urlFrom } : {}),
      ...(interruptSignal() ? { signal: interruptSignal()! } : {}),
      ...(ci.commit ? { commit: ci.commit } : {}),
      ...(ci.runUrl ? { runUrl: ci.runUrl } : {}),
      ...(flags.annotate ? { annotations: deployAnnotations(ci, new Date()) } : {}),
      logger,
    });
  } catch (error) {
    if (flags.output === 'json') {
      // Machine readers get the failure on stdout too: the message, each located problem, and
      // (after a failed rollout) the report of what was applied.
      const failure = {
        error: (error as Error).message,
        failures: locatedFailures(error),
        ...(error instanceof DeployError ? { report: error.report } : {}),
      };
      process.stdout.write(cliText(`${JSON.stringify(failure, null, 2)}\n`));
    } else if (error instanceof DeployError) {
      // A failed rollout still applied objects: report what was done before the error.
      print(error.report);
    }
    throw error;
  }
  print(report);
}

const commands: readonly CommandSpec[] = [
  {
    name: 'deploy',
    define: (cmd) =>
      clusterOptions(
        cmd
          .description('build, apply and wait: make the cluster match the directory')
          .argument('[path]', 'directory in spread layout', '.')
          .argument('[context]', 'kubeconfig context (default: the current context)'),
        'deploy',
      ).action((dir, context, flags) => runDeploy('deploy', dir, context, flags)),
  },
  {
    name: 'plan',
    define: (cmd) =>
      clusterOptions(
        cmd
          .description(
            'check every object with a server-side dry run and show what deploy would do; writes nothing',
          )
          .argument('[path]', 'directory in spread layout', '.')
          .argument('[context]', 'kubeconfig context (default: the current context)'),
        'plan',
      ).action((dir, context, flags) => runDeploy('plan', dir, context, flags)),
  },
  {
    name: 'render',
    define: (cmd) =>
      cmd
        .description(
          "print the object set the directory defines, as YAML (before a deploy's labels, annotations and image pinning)",
        )
        .argument('[path]', 'directory in spread layout', '.')
        .option('-n, --namespace <namespace>', 'namespace for objects that name none', 'default')
        .option('--name <name>', "the deployment's name (default: the directory's name)")
        .option('--show-secrets', 'print Secret values instead of <redacted>', false)
        .option('-v, --verbose', 'trace input reading', false)
        .action(
          async (
            dir: string,
            flags: { namespace: string; name?: string; verbose: boolean; showSecrets: boolean },
          ) => {
            const read = await readDeployment(dir, {
              namespace: flags.namespace,
              name: flags.name,
              logger: createCliLogger(flags.verbose),
            });
            process.stdout.write(render(read.deployment, { showSecrets: flags.showSecrets }));
          },
        ),
  },
  {
    name: 'build',
    define: (cmd) =>
      imageOptions(
        cmd
          .description('build and push the images marked & in the directory, without deploying')
          .argument('[path]', 'directory in spread layout', '.')
          .addOption(
            new Option('-o, --output <format>', 'report format on stdout')
              .choices(['text', 'json'])
              .default('text'),
          )
          .option('-v, --verbose', 'trace input reading', false),
        'build',
      ).action(async (dir: string, flags: ClusterFlags) => {
        const logger = createCliLogger(flags.verbose);
        const read = await readDeployment(dir, { namespace: 'default', logger });
        const { images } = await prepareImages(
          read.application,
          read.objects,
          { ...imageStageOptions(flags, dir, process.env), root: dir },
          logger,
        );
        if (flags.output === 'json') process.stdout.write(`${JSON.stringify({ images }, null, 2)}\n`);
        else if (images.length === 0) process.stdout.write('no images are marked & in this directory\n');
        else {
          for (const i of images) process.stdout.write(`${i.reference} ${imageAction(i)}  (${i.source})\n`);
        }
      }),
  },
  {
    name: 'status',
    define: (cmd) => {
      defineStatus(cmd);
    },
  },
  { name: 'history', define: defineHistory },
  { name: 'rollback', define: defineRollback },
  { name: 'list', define: defineList },
  { name: 'delete', define: defineDelete },
  {
    name: 'debug-objects',
    hidden: true,
    define: (cmd) =>
      cmd
        .description('print the object set with sources and apply groups as JSON (debugging aid)')
        .argument('[path]', 'directory in spread layout', '.')
        .action(async (dir: string) => {
          const read = await readDeployment(dir, { namespace: 'default', logger: createCliLogger(true) });
          const rows = read.objects.map((o) => ({
            group: read.groupOf(o),
            source: o.source,
            object: o.object,
          }));
          process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        }),
  },
];

/** Builds the `spread` program. Exported for tests; `main` runs it. */
export function program(): Command {
  const root = new Command('spread')
    .description('Kubernetes deploys from CI in one step')
    .version(version, '--version')
    .showHelpAfterError('(run spread --help, or spread COMMAND --help, for usage)')
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  for (const spec of commands) {
    if (spec.enabled === false) continue;
    spec.define(root.command(spec.name, { hidden: spec.hidden ?? false }));
  }
  return root;
}

/** Runs the CLI; exit code 1 on any failure, with every error on stderr, else the command's own (0 by default). */
export async function main(argv: readonly string[]): Promise<number> {
  const interrupts = trapInterrupts({ error: (m) => process.stderr.write(`${m}\n`) });
  try {
    await program().parseAsync([...argv]);
    // A command may end with a code of its own (`status`: 2 when the cluster differs).
    return interrupts.exitCode() ?? (typeof process.exitCode === 'number' ? process.exitCode : 0);
  } catch (error) {
    for (const line of failureLines(error)) process.stderr.write(`${cliText(line)}\n`);
    return interrupts.exitCode() ?? 1;
  } finally {
    interrupts.dispose();
  }
}
