// The CLI's commands on deployments already in a cluster (`history`, `rollback`, `list`, `delete`): their
// flags, and their reports as text tables.
import { type Command, InvalidArgumentError } from 'commander';
import { formatObjectRef } from '../base/kube-object.js';
import { defaultDeploymentName } from '../base/origin.js';
import type { DeleteReport } from '../core/delete.js';
import type { DeploymentSummary, HistoryReport } from '../core/manage.js';
import { formatPromotedFrom } from '../engine/inventory/provenance.js';
import { interruptSignal } from '../frontend/interrupts.js';
import { kubeconfigSource } from '../frontend/kubeconfig.js';
import { deploymentOrigin } from '../frontend/origin.js';
import { ROLLBACK_DEFAULT_REVISION } from '../frontend/settings.js';
import { formatReportText } from '../report/report.js';
import { contextOf } from './args.js';
import { environmentTarget } from './environment.js';
import { cliText, createCliLogger } from './logger.js';
import { addSettings, type CliFlags } from './options.js';

/** Flags every Manager command takes (typed by the settings table). */
type ManageFlags = Pick<
  CliFlags<'list'>,
  'kubeconfig' | 'context' | 'namespace' | 'output' | 'verbose' | 'environment'
>;

/** Flags of the Manager commands that write, and so take the lock. */
type WriteFlags = ManageFlags & Pick<CliFlags<'delete'>, 'lockTimeout' | 'lockLeaseDuration'>;

/** The lock's options of a writing command: the Lease duration when given. */
function lockOption(flags: WriteFlags) {
  return flags.lockLeaseDuration !== undefined
    ? { lock: { leaseDurationSeconds: flags.lockLeaseDuration } }
    : {};
}

type RollbackFlags = CliFlags<'rollback'>;

function revisionArg(value: string): number {
  const n = Number(value.replace(/^v/, ''));
  if (!Number.isInteger(n) || n < 1)
    throw new InvalidArgumentError(`expected a revision number ≥ 1, got "${value}"`);
  return n;
}

function base(argument: string | undefined, flags: ManageFlags) {
  const context = contextOf(argument, flags.context);
  return {
    kubeconfig: kubeconfigSource(flags.kubeconfig, process.env),
    ...(context ? { context } : {}),
    ...(flags.namespace ? { namespace: flags.namespace } : {}),
    logger: createCliLogger(flags.verbose),
    ...(interruptSignal() ? { signal: interruptSignal()! } : {}),
  };
}

/**
 * {@link base}, with `--environment` resolved in the spread.yaml of `dir` as deploy resolves it: the
 * environment's context and namespace (a contradicting `--context`/`-n` is an error), and the cluster
 * it must be (the wrong-cluster guard runs before anything is read or written).
 *
 * @param dir the deployed folder, holding spread.yaml: a folder argument, else the current directory.
 */
function environmentBase(dir: string, context: string | undefined, flags: ManageFlags) {
  const target = environmentTarget(dir, flags, context, process.env);
  if (!target) return base(context, flags);
  return {
    ...base(target.context, { ...flags, context: undefined, namespace: target.namespace }),
    ...(target.expect ? { expectCluster: target.expect } : {}),
  };
}

/** The folder whose spread.yaml `--environment` is looked up in: a folder argument, else the current directory. */
function folderOf(name: string): string {
  return isFolder(name) ? name : '.';
}

/** A path, not a deployment's name: it holds a `/` (`./k8s`), or is `.` or `..`, which no name can be. */
function isFolder(argument: string): boolean {
  return argument.includes('/') || argument === '.' || argument === '..';
}

function print(flags: ManageFlags, value: unknown, text: () => string): void {
  process.stdout.write(cliText(flags.output === 'json' ? `${JSON.stringify(value, null, 2)}\n` : text()));
}

/** `5s`, `3m`, `2h`, `4d` — kubectl's AGE column. */
export function formatAge(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172_800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

/**
 * Left-aligned columns separated by three spaces, as kubectl prints tables. A cell holding several
 * lines continues on the next lines of its column (the other columns blank there); nothing is cut.
 */
export function formatTable(rows: readonly (readonly string[])[]): string {
  const cells = rows.map((r) => r.map((c) => c.split('\n')));
  const widths =
    cells[0]?.map((_, i) => Math.max(...cells.flatMap((r) => (r[i] ?? ['']).map((l) => l.length)))) ?? [];
  const out: string[] = [];
  for (const r of cells) {
    const height = Math.max(...r.map((c) => c.length));
    for (let line = 0; line < height; line++)
      out.push(
        r
          .map((c, i) => (i === r.length - 1 ? (c[line] ?? '') : (c[line] ?? '').padEnd(widths[i]!)))
          .join('   ')
          .trimEnd(),
      );
  }
  return out.join('\n');
}

/**
 * The text of `spread history`: a row per revision, newest first, with its STATUS as `helm history`
 * names it (`deployed` for the current revision, `superseded` for earlier good ones, `failed`), and
 * every image whole, one a line.
 */
export function formatHistoryText(report: HistoryReport): string {
  // The ENVIRONMENT column only once a revision names one: histories from before environments read as they did.
  const environments = report.revisions.some((r) => r.environment);
  const rows = [
    [
      'REVISION',
      'TIME',
      'STATUS',
      ...(environments ? ['ENVIRONMENT'] : []),
      'COMMIT',
      'OBJECTS',
      'IMAGES',
      'DESCRIPTION',
    ],
    ...report.revisions.map((r) => [
      `${r.revision}${r.revision === report.current ? '*' : ''}`,
      r.time,
      r.status === 'failed' ? 'failed' : r.revision === report.current ? 'deployed' : 'superseded',
      ...(environments ? [r.environment ?? '-'] : []),
      r.commit ? r.commit.slice(0, 12) : '-',
      String(r.objectCount),
      r.images.map((i) => i.image).join('\n') || '-',
      r.description ??
        (r.promotedFrom
          ? `promoted from ${formatPromotedFrom(r.promotedFrom)}`
          : r.runUrl
            ? r.runUrl
            : 'deploy'),
    ]),
  ];
  return `${report.deployment} in ${report.namespace} (context ${report.context}); * = current\n${formatTable(rows)}\n`;
}

/** The text of `spread list`. */
export function formatListText(items: readonly DeploymentSummary[]): string {
  if (items.length === 0) return 'No spread deployments found.\n';
  const rows = [
    ['NAMESPACE', 'NAME', 'REVISION', 'AGE', 'OBJECTS', 'STATUS'],
    ...items.map((d) => [
      d.namespace,
      d.name,
      d.revision === undefined ? '-' : String(d.revision),
      formatAge(d.ageMs),
      String(d.objects),
      d.message ? `${d.status} (${d.message})` : d.status,
    ]),
  ];
  return `${formatTable(rows)}\n`;
}

/** The text of `spread delete`. */
export function formatDeleteText(report: DeleteReport): string {
  const lines = [
    `Deleted ${report.deployment} from namespace ${report.namespace} (context ${report.context}):`,
  ];
  for (const o of report.objects)
    lines.push(
      `  ${formatObjectRef({ kind: o.kind, name: o.name })} ${o.action === 'kept' ? 'kept' : 'deleted'}${o.namespace ? ` -n ${o.namespace}` : ''}${o.note ? `: ${o.note}` : ''}`,
    );
  lines.push(`  ${report.revisions} revision(s), the ApplySet parent and the lock removed`);
  return `${lines.join('\n')}\n`;
}

/** Defines `spread history NAME [CONTEXT]`: the revisions of a deployment, newest first. */
export function defineHistory(cmd: Command): void {
  addSettings(
    cmd
      .description('list the revisions of a deployment, newest first')
      .argument('<name>', "the deployment's name, or the deployed folder's path with a / (./k8s) or .")
      .argument('[context]', 'kubeconfig context (default: the current context)'),
    'history',
  ).action(async (name: string, context: string | undefined, flags: ManageFlags) => {
    const { history } = await import('../frontend/manage.js');
    const report = await history(
      deleteTarget(name, process.env),
      environmentBase(folderOf(name), context, flags),
    );
    print(flags, report, () => formatHistoryText(report));
  });
}

/** Defines `spread rollback NAME [REVISION] [CONTEXT]`: re-applies a revision (default: {@link ROLLBACK_DEFAULT_REVISION}). */
export function defineRollback(cmd: Command): void {
  addSettings(
    cmd
      .description(`apply a stored revision again (default: ${ROLLBACK_DEFAULT_REVISION}) and prune to it`)
      .argument('<name>', "the deployment's name, or the deployed folder's path with a / (./k8s) or .")
      .argument('[revision]', 'revision number (see spread history); a non-number is taken as CONTEXT')
      .argument('[context]', 'kubeconfig context (default: the current context)'),
    'rollback',
  ).action(
    async (
      name: string,
      revisionText: string | undefined,
      contextArg: string | undefined,
      flags: RollbackFlags,
    ) => {
      // `spread rollback web production`: a second word that is no revision number is the context.
      const isRevision = revisionText !== undefined && /^v?\d+$/.test(revisionText);
      const revision = isRevision ? revisionArg(revisionText) : undefined;
      const context = isRevision || revisionText === undefined ? contextArg : revisionText;
      if (!isRevision && revisionText !== undefined && contextArg !== undefined)
        throw new InvalidArgumentError(`expected a revision number, got "${revisionText}"`);
      const { rollback } = await import('../frontend/manage.js');
      const report = await rollback(deleteTarget(name, process.env), revision, {
        ...environmentBase(folderOf(name), context, flags),
        wait: flags.wait,
        timeoutMs: flags.timeout,
        forceConflicts: flags.forceConflicts,
        lockTimeoutMs: flags.lockTimeout,
        ...lockOption(flags),
      });
      print(
        flags,
        report,
        () =>
          `Rolled back to revision ${report.rolledBackTo} (now revision ${report.revision}).\n${formatReportText(report)}`,
      );
    },
  );
}

/** Defines `spread list [CONTEXT]`: every spread deployment (all namespaces unless -n). */
export function defineList(cmd: Command): void {
  addSettings(
    cmd
      .description('list spread deployments with their revision, age, object count and status')
      .argument('[context]', 'kubeconfig context (default: the current context)'),
    'list',
  ).action(async (context: string | undefined, flags: ManageFlags) => {
    const { list } = await import('../frontend/manage.js');
    const items = await list(environmentBase('.', context, flags));
    print(flags, items, () => formatListText(items));
  });
}

/**
 * The deployment `spread delete` (and `history`, `rollback`) names: NAME itself, or, for an argument holding a `/` (a path such
 * as `./k8s`, which no deployment name can hold) or `.`/`..`, the deployment `spread deploy` of that folder
 * makes by default (docs/cli.md, "A deployment's identity"): a stop job deletes what its deploy job made
 * without knowing the default name's rule, and without the folder checked out (CI's variables give
 * the repository and the path).
 */
export function deleteTarget(argument: string, env: NodeJS.ProcessEnv): string {
  if (!isFolder(argument)) return argument;
  return defaultDeploymentName(deploymentOrigin(env, argument));
}

/** Defines `spread delete NAME [CONTEXT]`: removes every object of a deployment, its revisions and its parent. */
export function defineDelete(cmd: Command): void {
  addSettings(
    cmd
      .description('delete every object of a deployment, then its revisions, lock and ApplySet parent')
      .argument('<name>', "the deployment's name, or the deployed folder's path with a / (./k8s) or .")
      .argument('[context]', 'kubeconfig context (default: the current context)'),
    'delete',
  ).action(async (name: string, context: string | undefined, flags: CliFlags<'delete'>) => {
    const { deletes } = await import('../frontend/manage.js');
    const report = await deletes(deleteTarget(name, process.env), {
      ...environmentBase(folderOf(name), context, flags),
      lockTimeoutMs: flags.lockTimeout,
      ...lockOption(flags),
      pruneCrds: flags.pruneCrds,
      includeKept: flags.includeKept,
    });
    print(flags, report, () => formatDeleteText(report));
  });
}
