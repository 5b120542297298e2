// The `spread` program: its subcommands and their flags, each command mapping flags to the core's typed
// options and printing the result; `main` runs it and turns any error into an exit code.
import { Command } from 'commander';
import { InputError } from '../base/source.js';
import type { ChartSettings } from '../core/read.js';
import { ciContext, deployAnnotations } from '../frontend/ci.js';
import type { DeployRequest } from '../frontend/deploy.js';
import type { EnvironmentTarget } from '../frontend/environment.js';
import { interruptSignal, trapInterrupts } from '../frontend/interrupts.js';
import { kubeconfigSource } from '../frontend/kubeconfig.js';
import { deploymentOrigin } from '../frontend/origin.js';
import { ALL_ENVIRONMENTS } from '../project/environments.js';
import { type DeployReport, formatReportText, imageAction } from '../report/report.js';
import { version } from '../version.js';
import { contextOf } from './args.js';
import { environmentsHint, environmentTarget } from './environment.js';
import { imageStageOptions } from './images.js';
import { cliText, createCliLogger } from './logger.js';
import { defineDelete, defineHistory, defineList, defineRollback } from './manage.js';
import { addSettings, type CliFlags, passedOptions } from './options.js';
import { definePromote } from './promote.js';
import { kustomizeOptions } from './renderers.js';
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

/** The flags of deploy and plan (from the settings table); those only deploy takes are absent for plan. */
type ClusterFlags = CliFlags<'plan'> & Partial<CliFlags<'deploy'>>;

/** The chart settings of the flags `--helm`, `--helm-values`, `--helm-set`. */
function chartsOf(flags: Pick<ClusterFlags, 'helm' | 'helmValues' | 'helmSet'>): ChartSettings {
  return { helm: flags.helm, helmValues: flags.helmValues, helmSet: flags.helmSet };
}

async function runDeploy(
  mode: 'deploy' | 'plan',
  dir: string | undefined,
  context: string | undefined,
  flags: ClusterFlags,
) {
  if (mode === 'plan' && flags.environment === ALL_ENVIRONMENTS) {
    const { planAll } = await import('./plan-all.js');
    return planAll(dir ?? '.', context, flags, (target: EnvironmentTarget) =>
      deployRequest(mode, dir, undefined, { ...flags, context: undefined }, target),
    );
  }
  const { fleetEnvironment, runFleet } = await import('./fleet.js');
  const fleet = fleetEnvironment(dir ?? '.', flags);
  if (fleet !== undefined)
    return runFleet(mode, dir ?? '.', fleet, context, flags, (target: EnvironmentTarget) =>
      deployRequest(mode, dir, undefined, { ...flags, context: undefined }, target),
    ).catch(async (error: unknown) => {
      // The fleet could not start (nothing was deployed): JSON readers still get `{error, failures}`.
      if (flags.output === 'json') await printJsonFailure(error);
      throw error;
    });
  const target = environmentTarget(dir ?? '.', flags, context, process.env);
  const print = (report: DeployReport) =>
    process.stdout.write(
      cliText(flags.output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : formatReportText(report)),
    );
  // Each command loads its operation when it runs: `spread build` never evaluates the Kubernetes client.
  const { DeployError, deploy } = await import('../frontend/deploy.js');
  let report: DeployReport;
  try {
    report = await deploy(deployRequest(mode, dir, context, flags, target));
  } catch (error) {
    const hint = error instanceof InputError ? environmentsHint(dir ?? '.', flags) : undefined;
    if (hint) process.stderr.write(`${hint}\n`);
    if (flags.output === 'json') {
      // After a failed rollout, also the report of what was applied.
      await printJsonFailure(error, error instanceof DeployError ? { report: error.report } : {});
    } else if (error instanceof DeployError) {
      // A failed rollout still applied objects: report what was done before the error.
      print(error.report);
    }
    throw error;
  }
  print(report);
}

/**
 * The deploy (or plan) the flags ask for; with an environment, its folder, context, namespace, Helm
 * values and the cluster it must be (the deployment's name and origin stay the directory's).
 */
function deployRequest(
  mode: 'deploy' | 'plan',
  dir: string | undefined,
  context: string | undefined,
  flags: ClusterFlags,
  target: EnvironmentTarget | undefined,
): DeployRequest {
  const logger = createCliLogger(flags.verbose);
  const ci = ciContext(process.env, dir ?? '.');
  const chosenContext = target ? target.context : contextOf(context, flags.context);
  const namespace = target ? target.namespace : flags.namespace;
  return {
    path: target?.path ?? dir ?? '.',
    ...(target ? { projectDir: target.projectDir } : {}),
    kubeconfig: kubeconfigSource(flags.kubeconfig, process.env),
    ...(chosenContext ? { context: chosenContext } : {}),
    namespace,
    name: flags.name,
    origin: deploymentOrigin(process.env, dir ?? '.'),
    mode,
    // wait, timeoutMs, prune, adopt, concurrency, lockTimeoutMs…: the flags' values as they are.
    // plan takes no flag of the wait (nor of the lock): it never waits, so no limit is read.
    ...(mode === 'deploy'
      ? passedOptions('deploy', flags as CliFlags<'deploy'>)
      : { wait: false, timeoutMs: 0, ...passedOptions('plan', flags) }),
    charts: target
      ? { helm: flags.helm, helmValues: target.helmValues, helmSet: target.helmSet }
      : chartsOf(flags),
    images: imageStageOptions(flags, ci.commit, process.env),
    kustomize: kustomizeOptions(flags, process.env, interruptSignal()),
    ...(target?.expect ? { expectCluster: target.expect } : {}),
    // A preview's namespace comes and goes with the deployment.
    ...(target?.createNamespace ? { createNamespace: { source: target.createNamespace } } : {}),
    // The revision records the environment it was deployed to (spread history, spread promote).
    ...(target ? { provenance: { environment: target.environment.name } } : {}),
    ...(flags.urlFrom ? { urlFrom: flags.urlFrom } : {}),
    ...(interruptSignal() ? { signal: interruptSignal()! } : {}),
    ...(ci.commit ? { commit: ci.commit } : {}),
    ...(ci.runUrl ? { runUrl: ci.runUrl } : {}),
    ...(flags.annotate ? { annotations: deployAnnotations(ci, new Date()) } : {}),
    logger,
  };
}

/**
 * For `--output json`: machine readers get a failure on stdout too, `{error, failures, ...extra}`
 * (the message, and each located problem with its file and line).
 */
async function printJsonFailure(error: unknown, extra: Record<string, unknown> = {}): Promise<void> {
  const failure = {
    error: (error as Error).message,
    failures: (await import('../core/errors.js')).locatedFailures(error),
    ...extra,
  };
  process.stdout.write(cliText(`${JSON.stringify(failure, null, 2)}\n`));
}

const commands: readonly CommandSpec[] = [
  {
    name: 'deploy',
    define: (cmd) =>
      addSettings(
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
      addSettings(
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
      addSettings(
        cmd
          .description(
            "print the object set the directory defines, as YAML (before a deploy's labels, annotations and image pinning)",
          )
          .argument('[path]', 'directory in spread layout', '.'),
        'render',
      ).action(async (dir: string, flags: CliFlags<'render'>, cmd: Command) => {
        const [{ readDeployment }, { render }, { notDeployedLine, renderedLine }] = await Promise.all([
          import('../core/read.js'),
          import('../deployment/index.js'),
          import('../report/report.js'),
        ]);
        // render's namespace has a default (`default`), which an environment's own namespace replaces.
        const givenNamespace =
          cmd.getOptionValueSource('namespace') === 'default' ? undefined : flags.namespace;
        const target = environmentTarget(
          dir,
          { ...flags, namespace: givenNamespace },
          undefined,
          process.env,
        );
        const read = await readDeployment(target?.path ?? dir, {
          namespace: target?.namespace ?? flags.namespace,
          name: flags.name,
          ...(target ? { projectDir: target.projectDir } : {}),
          charts: target
            ? { helm: flags.helm, helmValues: target.helmValues, helmSet: target.helmSet }
            : chartsOf(flags),
          kustomize: kustomizeOptions(flags, process.env, interruptSignal()),
          logger: createCliLogger(flags.verbose),
        });
        process.stdout.write(render(read.deployment, { showSecrets: flags.showSecrets }));
        // On stderr, so that stdout stays the YAML to pipe into kubectl.
        const { application } = read;
        for (const line of [renderedLine(application.rendered), notDeployedLine(application.notDeployed)])
          if (line) process.stderr.write(`${cliText(line)}\n`);
      }),
  },
  {
    name: 'build',
    define: (cmd) =>
      addSettings(
        cmd
          .description('build and push the images marked & in the directory, without deploying')
          .argument('[path]', 'directory in spread layout', '.'),
        'build',
      ).action(async (dir: string, flags: CliFlags<'build'>) => {
        const logger = createCliLogger(flags.verbose);
        const { build } = await import('../core/build.js');
        const { images } = await build({
          path: dir,
          charts: chartsOf(flags),
          images: {
            // The commit is asked of git only for the default tag.
            ...imageStageOptions(
              flags,
              flags.tag ? undefined : ciContext(process.env, dir).commit,
              process.env,
            ),
            ...(interruptSignal() ? { signal: interruptSignal()! } : {}),
          },
          kustomize: kustomizeOptions(flags, process.env, interruptSignal()),
          logger,
        }).catch(async (error: unknown) => {
          if (flags.output === 'json') await printJsonFailure(error);
          throw error;
        });
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
  { name: 'promote', define: definePromote },
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
          const { readDeployment } = await import('../core/read.js');
          const read = await readDeployment(dir, {
            namespace: 'default',
            kustomize: kustomizeOptions({}, process.env, interruptSignal()),
            logger: createCliLogger(true),
          });
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
  const root = program();
  try {
    await root.parseAsync([...argv]);
    // A signal too late to stop anything (the prune, the record): the command completed, and the
    // exit code still says a signal came, so a line says which and that nothing was left undone.
    const reason = interrupts.signal.aborted ? (interrupts.signal.reason as Error).message : undefined;
    if (reason)
      process.stderr.write(
        `error: ${reason} as spread finished: the command had completed (its report above says what it did)\n`,
      );
    // A command may end with a code of its own (`status`: 2 when the cluster differs).
    return interrupts.exitCode() ?? (typeof process.exitCode === 'number' ? process.exitCode : 0);
  } catch (error) {
    const { failureLines } = await import('../core/errors.js');
    for (const line of failureLines(error, root.args[0])) process.stderr.write(`${cliText(line)}\n`);
    return interrupts.exitCode() ?? 1;
  } finally {
    interrupts.dispose();
  }
}
