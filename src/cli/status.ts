// The `spread status [PATH]` command: its flags, and printing the report as text or JSON with an exit
// code a script can test (in sync or not).
import type { Command } from 'commander';
import type { EnvironmentTarget } from '../frontend/environment.js';
import { interruptSignal } from '../frontend/interrupts.js';
import { kubeconfigSource } from '../frontend/kubeconfig.js';
import { deploymentOrigin } from '../frontend/origin.js';
import { ALL_ENVIRONMENTS } from '../project/environments.js';
import { environmentTarget } from './environment.js';
import { imageStageOptions } from './images.js';
import { cliText, createCliLogger } from './logger.js';
import { addSettings, type CliFlags } from './options.js';
import { kustomizeOptions } from './renderers.js';
import { driftExitCode, driftText, statusAll } from './status-all.js';
import { formatStatusText } from './status-text.js';

/**
 * Defines `spread status [PATH]` on `cmd` (the seed's "spread status"): the entity tree of the
 * directory with each entity's source, attached objects and images (`&` builds marked), touching no
 * cluster; with `--context` (or `--kubeconfig`), also each object's state in the cluster
 * (`missing`, `in sync`, `differs`, `rejected`) by a server-side dry run, and the objects a deploy
 * would prune; `&` images are compared as deploy pins them (the registry's digest of the tag deploy
 * pushes, nothing built; `--registry` or SPREAD_REGISTRY as for deploy). `--output json` prints the {@link StatusReport}. Exits 0 in sync, 2 when objects
 * differ, are missing or would be pruned, 1 on an error ({@link statusExitCode}). Returns `cmd`.
 */
export function defineStatus(cmd: Command): Command {
  return addSettings(
    cmd
      .description(
        'show the entities of a directory and where each comes from; with --context, whether each object is in sync with the cluster (exit 0 in sync, 2 differs, 1 error)',
      )
      .argument('[path]', 'directory in spread layout', '.'),
    'status',
  ).action(async (dir: string, flags: CliFlags<'status'>) => {
    const logger = createCliLogger(flags.verbose);
    const request = (target: EnvironmentTarget | undefined) => ({
      path: target?.path ?? dir,
      projectDir: dir,
      name: flags.name,
      origin: deploymentOrigin(process.env, dir),
      namespace: target ? target.namespace : flags.namespace,
      // A preview's namespace is the deployment's, as its deploy made it.
      ...(target?.createNamespace ? { createNamespace: { source: target.createNamespace } } : {}),
      charts: {
        helm: flags.helm,
        helmValues: target?.helmValues ?? flags.helmValues,
        helmSet: target?.helmSet ?? flags.helmSet,
      },
      kustomize: kustomizeOptions(flags, process.env, interruptSignal()),
      cluster: {
        kubeconfig: kubeconfigSource(flags.kubeconfig, process.env),
        context: target ? target.context : flags.context,
        // `&` images are looked up as deploy pins them: the same registry, tag and build options.
        images: imageStageOptions(flags, undefined, process.env),
        ...(target?.expect ? { expectCluster: target.expect } : {}),
      },
      logger,
    });
    if (flags.allEnvironments || flags.environment === ALL_ENVIRONMENTS) {
      await statusAll(dir, flags, request);
      return;
    }
    const target = environmentTarget(dir, flags, undefined, process.env);
    const compare = flags.context !== undefined || flags.kubeconfig !== undefined || target !== undefined;
    const { drift, status, statusExitCode } = await import('../frontend/manage.js');
    const { cluster, ...read } = request(target);
    // Compared with a cluster, the report says what drifted and who changed it (`drift`).
    const found = compare
      ? await drift({ ...read, cluster, against: flags.against === 'revision' ? 'revision' : 'directory' })
      : undefined;
    const report = found ? { ...found.status, drift: found.drift } : await status(read);
    process.stdout.write(
      cliText(
        flags.output === 'json'
          ? `${JSON.stringify(report, null, 2)}\n`
          : `${formatStatusText(report)}${found ? driftText(found.drift) : ''}`,
      ),
    );
    // Compared with a cluster, it exits as the drift reads (docs/drift.md), as --all-environments does.
    process.exitCode = found ? driftExitCode(found.status, found.drift) : statusExitCode(report);
  });
}
