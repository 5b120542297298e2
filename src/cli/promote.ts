// `spread promote [PATH] --to production [--from staging]`: its flags (from the settings table) mapped to
// the front end's promote request, and its report as text: the deploy's, then what was promoted.
import type { Command } from 'commander';
import type { PromoteReport } from '../core/promote.js';
import { formatPromotedFrom } from '../engine/inventory/provenance.js';
import { ciContext, deployAnnotations } from '../frontend/ci.js';
import { interruptSignal } from '../frontend/interrupts.js';
import { kubeconfigSource } from '../frontend/kubeconfig.js';
import { formatReportText } from '../report/report.js';
import { cliText, createCliLogger } from './logger.js';
import { addSettings, type CliFlags, passedOptions } from './options.js';
import { kustomizeOptions } from './renderers.js';

/** The lines saying what a promotion deployed: from where, the commit, each marker's digest. */
export function formatPromotionText(report: PromoteReport): string {
  const p = report.promotion;
  const lines = [
    p.unchanged
      ? `${p.to} already runs ${formatPromotedFrom(p.from)} (commit ${p.commit}): nothing changed`
      : `Promoted ${formatPromotedFrom(p.from)} (commit ${p.commit}) to ${p.to}${report.revision !== undefined ? `, now its revision ${report.revision}` : ''}`,
    ...p.images.map((i) => `  ${i.mark} → ${i.reference} (not built)`),
  ];
  return `${lines.join('\n')}\n`;
}

/** Defines `spread promote [PATH]`. */
export function definePromote(cmd: Command): void {
  addSettings(
    cmd
      .description(
        "deploy an environment's current revision to the next (spread.yaml environments): its commit's configuration for the target, with the image digests it ran, building nothing",
      )
      .argument('[path]', 'the directory holding spread.yaml', '.'),
    'promote',
  ).action(async (dir: string, flags: CliFlags<'promote'>) => {
    const to = flags.to || flags.environment;
    if (!to) throw new Error('spread promote needs --to ENVIRONMENT (the environment promoted to)');
    const logger = createCliLogger(flags.verbose);
    const ci = ciContext(process.env, dir);
    const { promote } = await import('../frontend/promote.js');
    const report = await promote({
      dir,
      from: flags.from,
      to,
      name: flags.name,
      kubeconfig: kubeconfigSource(flags.kubeconfig, process.env),
      ...(flags.fromKubeconfig ? { fromKubeconfig: { paths: [flags.fromKubeconfig] } } : {}),
      commit: ci.commit,
      env: process.env,
      registry: { dockerConfigDir: process.env.DOCKER_CONFIG || `${process.env.HOME ?? ''}/.docker` },
      deploy: {
        ...passedOptions('promote', flags),
        kustomize: kustomizeOptions(flags, process.env, interruptSignal()),
        ...(flags.urlFrom ? { urlFrom: flags.urlFrom } : {}),
        ...(interruptSignal() ? { signal: interruptSignal()! } : {}),
        ...(ci.runUrl ? { runUrl: ci.runUrl } : {}),
        ...(flags.annotate ? { annotations: deployAnnotations(ci, new Date()) } : {}),
        logger,
      },
    });
    process.stdout.write(
      cliText(
        flags.output === 'json'
          ? `${JSON.stringify(report, null, 2)}\n`
          : `${formatReportText(report)}${formatPromotionText(report)}`,
      ),
    );
  });
}
