// `spread status --all-environments` (or `--environment all`): the comparison and the drift of every
// environment the directory declares, each against its own cluster, for any scheduler to run; one
// environment's failure is reported and the others are still compared.

import { driftTargets } from '../frontend/drift-targets.js';
import type { EnvironmentTarget } from '../frontend/environment.js';
import type { DriftReport, StatusReport, StatusRequest } from '../frontend/manage.js';
import { cliText } from './logger.js';
import { formatStatusText } from './status-text.js';

/** One environment's comparison, or why there is none. */
export interface EnvironmentStatus {
  readonly environment?: string;
  readonly context?: string;
  readonly namespace?: string;
  readonly status?: StatusReport;
  readonly drift?: DriftReport;
  readonly error?: string;
  readonly skipped?: string;
}

/**
 * Compares every declared environment (or, without a declaration, the deployment as given: its
 * context and namespace flags) and
 * prints each (`--output json`: `{ environments: EnvironmentStatus[] }`). Exit code 1 when one
 * failed, else 2 when one drifted, else 0.
 */
export async function statusAll(
  dir: string,
  flags: {
    readonly output?: string;
    readonly namespace?: string | undefined;
    readonly context?: string | undefined;
    /** What each drift compares with (`--against`); default the directory. */
    readonly against?: string | undefined;
  },
  request: (
    target: EnvironmentTarget | undefined,
  ) => StatusRequest & { cluster: NonNullable<StatusRequest['cluster']> },
): Promise<void> {
  const targets = driftTargets(dir, 'all');
  // Without a declaration, the one deployment is compared as given (the GitLab component's drift).
  if ((flags.context || flags.namespace) && targets.some((t) => t.environment))
    throw new Error(
      '--all-environments compares each declared environment in its own context and namespace: give no --context or --namespace',
    );
  const { drift } = await import('../frontend/manage.js');
  const out: EnvironmentStatus[] = [];
  for (const t of targets) {
    const where = {
      ...(t.environment ? { environment: t.environment } : {}),
      ...(t.target?.context ? { context: t.target.context } : {}),
      ...(t.target?.namespace ? { namespace: t.target.namespace } : {}),
    };
    if (t.skipped || t.error) {
      out.push({ ...where, ...(t.skipped ? { skipped: t.skipped } : { error: t.error }) });
      continue;
    }
    try {
      const result = await drift({
        ...request(t.target),
        against: flags.against === 'revision' ? 'revision' : 'directory',
      });
      // Without a declaration, where the deployment was compared: its context and namespace as given.
      const compared = {
        ...(result.status.context ? { context: result.status.context } : {}),
        namespace: result.status.namespace,
      };
      out.push({ ...compared, ...where, status: result.status, drift: result.drift });
    } catch (error) {
      out.push({ ...where, error: (error as Error).message });
    }
  }
  process.stdout.write(
    cliText(
      flags.output === 'json' ? `${JSON.stringify({ environments: out }, null, 2)}\n` : statusesText(out),
    ),
  );
  process.exitCode = out.some((e) => e.error)
    ? 1
    : Math.max(0, ...out.map((e) => (e.status && e.drift ? driftExitCode(e.status, e.drift) : 0)));
}

/**
 * The exit code of a comparison with the cluster (docs/drift.md), `spread status --context` and
 * `--all-environments` alike: 1 when the server rejected an object (it could not be compared), else
 * 2 when something drifted, else 0, so that what is not drift (a `kubectl rollout restart`, an HPA's
 * replicas) exits 0 as it reads `no drift`.
 */
export function driftExitCode(
  status: Pick<StatusReport, 'counts'>,
  d: Pick<DriftReport, 'drifted'>,
): 0 | 1 | 2 {
  if (status.counts.rejected > 0) return 1;
  return d.drifted ? 2 : 0;
}

/** A heading per environment, then its status and what drifted, with who changed it. */
function statusesText(all: readonly EnvironmentStatus[]): string {
  return all
    .map((e) => {
      const at = [e.context && `context ${e.context}`, e.namespace && `namespace ${e.namespace}`].filter(
        Boolean,
      );
      const head = `== environment ${e.environment ?? '(none declared)'}${at.length ? ` (${at.join(', ')})` : ''} ==\n`;
      if (e.skipped) return `${head}not compared: ${e.skipped}\n`;
      if (e.error) return `${head}error: ${e.error}\n`;
      return `${head}${e.status ? formatStatusText(e.status) : ''}${e.drift ? driftText(e.drift) : ''}`;
    })
    .join('\n');
}

/**
 * What the drift compared the cluster with, when not the directory as given: `compared with revision
 * 3 (commit 0123abc, deployed 2026-…)`, or why a revision was asked for and the directory used.
 */
export function comparedWithLine(d: Pick<DriftReport, 'comparedWith'>): string | undefined {
  const c = d.comparedWith;
  if (c?.against === 'revision')
    return `compared with revision ${c.revision} (${c.commit ? `commit ${c.commit.slice(0, 7)}, ` : ''}deployed ${c.time})`;
  return c?.note;
}

/**
 * `drifted: Deployment/web spec.replicas (kubectl, Update, scale at …)` lines, or `no drift`, after
 * what was compared with (see {@link comparedWithLine}).
 */
export function driftText(d: DriftReport): string {
  const compared = comparedWithLine(d);
  const head = compared ? `${compared}\n` : '';
  if (!d.drifted)
    return `${head}no drift${d.ignored.length ? ` (${d.ignored.length} differences are not drift)` : ''}\n`;
  const lines = [`${head}drifted:`];
  for (const o of d.objects) {
    lines.push(`  ${o.kind}/${o.name}: ${o.state}${o.message ? ` (${o.message})` : ''}`);
    for (const f of o.fields) {
      const by = f.changedBy.map((m) =>
        [m.manager, m.operation, m.subresource, m.time && `at ${m.time}`].filter(Boolean).join(' '),
      );
      const list = f.ownersOfList ? ` (owners of the list ${f.ownersOfList}; none owns the item)` : '';
      lines.push(`    ${f.path}${by.length ? `: changed by ${by.join('; ')}${list}` : ''}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
