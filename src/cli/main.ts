import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { KubeconfigSource } from '../cluster/kubeconfig.js';
import { deploy } from '../core/deploy.js';
import { parseDuration } from '../core/duration.js';
import { failureLines } from '../core/errors.js';
import { readDeployment } from '../core/read.js';
import { redactSecret, render } from '../deployment/index.js';
import { formatReportText } from '../report/report.js';
import { version } from '../version.js';
import { createCliLogger } from './logger.js';

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
  namespace?: string;
  name?: string;
  timeout: number;
  wait: boolean;
  output: 'text' | 'json';
  forceConflicts: boolean;
  prune: boolean;
  allowEmpty: boolean;
  concurrency: number;
  verbose: boolean;
}

function durationArg(value: string): number {
  try {
    return parseDuration(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new InvalidArgumentError(`expected a whole number ≥ 1, got "${value}"`);
  return n;
}

function clusterOptions(cmd: Command): Command {
  return cmd
    .option('--kubeconfig <file>', 'kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
    .option(
      '-n, --namespace <namespace>',
      "namespace for objects that name none (default: the context's namespace)",
    )
    .option('--name <name>', "the deployment's name (default: the directory's name)")
    .option('--timeout <duration>', 'limit of the rollout wait, e.g. 90s, 5m', durationArg, 300_000)
    .option('--no-wait', 'do not wait for the rollout')
    .addOption(
      new Option('-o, --output <format>', 'report format on stdout')
        .choices(['text', 'json'])
        .default('text'),
    )
    .option('--force-conflicts', 'take over fields owned by other field managers', false)
    .option('--no-prune', 'keep objects of this deployment that the directory no longer holds')
    .option('--allow-empty', 'let an input with no objects prune every object of the deployment', false)
    .option('--concurrency <n>', 'requests in flight at once within one apply group', positiveInt, 16)
    .option('-v, --verbose', 'trace input reading and API requests', false);
}

/** The kubeconfig the CLI uses: --kubeconfig, else $KUBECONFIG (a colon-separated list), else ~/.kube/config. */
function kubeconfigSource(flag: string | undefined, env: NodeJS.ProcessEnv): KubeconfigSource {
  if (flag) return { paths: [flag] };
  const list = (env.KUBECONFIG ?? '').split(path.delimiter).filter(Boolean);
  if (list.length > 0) return { paths: list };
  if (env.KUBERNETES_SERVICE_HOST && !env.HOME) return { inCluster: true };
  return { paths: [path.join(env.HOME ?? '', '.kube', 'config')] };
}

async function runDeploy(
  mode: 'deploy' | 'plan',
  dir: string | undefined,
  context: string | undefined,
  flags: ClusterFlags,
) {
  const logger = createCliLogger(flags.verbose);
  const report = await deploy({
    path: dir ?? '.',
    kubeconfig: kubeconfigSource(flags.kubeconfig, process.env),
    context,
    namespace: flags.namespace,
    name: flags.name,
    mode,
    wait: flags.wait,
    timeoutMs: flags.timeout,
    forceConflicts: flags.forceConflicts,
    prune: flags.prune,
    allowEmpty: flags.allowEmpty,
    concurrency: flags.concurrency,
    logger,
  });
  process.stdout.write(
    flags.output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : formatReportText(report),
  );
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
      ).action((dir, context, flags) => runDeploy('plan', dir, context, flags)),
  },
  {
    name: 'render',
    define: (cmd) =>
      cmd
        .description('print the object set as YAML, exactly as it would be applied (images not built)')
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
    .showHelpAfterError()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  for (const spec of commands) {
    if (spec.enabled === false) continue;
    spec.define(root.command(spec.name, { hidden: spec.hidden ?? false }));
  }
  return root;
}

/** Runs the CLI; exit code 1 on any failure, with every error on stderr. */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    await program().parseAsync([...argv]);
    return 0;
  } catch (error) {
    for (const line of failureLines(error)) process.stderr.write(`${line}\n`);
    return 1;
  }
}
