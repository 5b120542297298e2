// `spread promote --from staging --to production`: the source environment's current revision read from
// its cluster and checked (its rollout succeeded, the checkout is its commit, the registry still holds
// its digests), then the target's configuration deployed with every `&` marker pinned to those digests.
// Nothing is built: the deploy's image stage only pins (image/promoted.ts). Kargo calls this freight.
import { applySetFor } from '../engine/inventory/applyset.js';
import {
  currentRevision,
  lastGoodRevision,
  listRevisions,
  type RevisionSummary,
} from '../engine/inventory/history.js';
import type { MarkedImage, PromotedFrom } from '../engine/inventory/provenance.js';
import type { ClusterPort } from '../engine/kube-api.js';
import type { ImageOptions } from '../image/options.js';
import { digestsGone } from '../image/promoted.js';
import { countActions, type DeployReport } from '../report/report.js';
import { type DeployOptions, deploy } from './deploy/index.js';

/** The environment promoted from: its name, and where its deployment is (connected by the front end). */
export interface PromoteSource {
  /** The environment's name (`staging`). */
  readonly environment: string;
  readonly api: ClusterPort;
  /** The kubeconfig context, for messages. */
  readonly context: string;
  readonly namespace: string;
  /** The deployment's name there. */
  readonly deployment: string;
}

/** Options of {@link promote}. */
export interface PromoteOptions {
  readonly from: PromoteSource;
  /** The environment promoted to (`production`), recorded in its revision. */
  readonly environment: string;
  /**
   * The target's deploy: its environment's settings (path, values, cluster, namespace), connected. Its
   * images, commit, provenance and pins are the promotion's own and are replaced.
   */
  readonly to: DeployOptions;
  /** The checked-out commit (`git rev-parse HEAD`, else GITHUB_SHA / CI_COMMIT_SHA); undefined when unknown. */
  readonly commit: string | undefined;
  /** The directory's uncommitted changes (`git status --porcelain` lines): the render would not be the commit's. */
  readonly uncommitted?: readonly string[];
  /** How the registry is asked whether it still holds each digest. */
  readonly registry?: Pick<ImageOptions, 'dockerConfigDir' | 'insecureRegistries'>;
}

/** What a promotion deployed again: from where, which commit, which digests. */
export interface Promotion {
  readonly from: PromotedFrom & { readonly context: string };
  readonly to: string;
  readonly commit: string;
  readonly images: readonly MarkedImage[];
  /** Nothing changed in the target: it already ran this (a second promote is a no-op). */
  readonly unchanged: boolean;
}

/** A promotion's deploy report, with what was promoted. */
export interface PromoteReport extends DeployReport {
  readonly promotion: Promotion;
}

/** A promotion refused before anything was written: every reason, one a line. */
export class PromotionRefused extends Error {
  readonly reasons: readonly string[];
  constructor(from: string, to: string, reasons: readonly string[]) {
    super(
      `refusing to promote ${from} to ${to}; nothing was written:\n${reasons.map((r) => `  - ${r}`).join('\n')}`,
    );
    this.name = 'PromotionRefused';
    this.reasons = reasons;
  }
}

/**
 * Promotes the source environment's current revision to the target: refuses (every reason at once,
 * nothing written) when its last rollout failed, when the checkout is not its commit, or when a digest
 * it deployed is gone from the registry; otherwise deploys `to` with every `&` marker pinned to the
 * revision's reference, records the revision with where it came from, and says what was promoted.
 *
 * @throws PromotionRefused; what deploy throws.
 */
export async function promote(options: PromoteOptions): Promise<PromoteReport> {
  const { from, to, environment } = options;
  const logger = to.logger;
  const revision = await logger.group(`Read ${from.environment}`, () => readSource(from));
  const reasons = revision.current
    ? refusals(from, revision.current, revision.all, options.commit, options.uncommitted)
    : [];
  if (!revision.current)
    reasons.push(
      `${from.environment} has no revision of deployment ${from.deployment} in namespace ${from.namespace} (context ${from.context}): deploy ${from.environment} first`,
    );
  const current = revision.current;
  if (current && reasons.length === 0) reasons.push(...(await goneFromRegistry(options, current)));
  if (!current || reasons.length > 0) throw new PromotionRefused(from.environment, environment, reasons);
  const promotedFrom: PromotedFrom = {
    environment: from.environment,
    revision: current.revision,
    deployment: from.deployment,
    namespace: from.namespace,
  };
  const marks = current.marks ?? [];
  logger.info(
    `promoting ${from.environment}'s revision ${current.revision} (commit ${current.commit}) to ${environment}${marks.length > 0 ? `: ${marks.map((m) => `${m.mark} ${m.digest}`).join(', ')}` : ''}`,
  );
  const { images: _built, ...target } = to;
  const report = await deploy({
    ...target,
    commit: current.commit!,
    pinnedMarks: new Map(marks.map((m) => [m.mark, m.reference])),
    provenance: { environment, promotedFrom },
  });
  const counts = countActions(report);
  const unchanged = counts.created + counts.configured + counts.pruned === 0;
  return {
    ...report,
    promotion: {
      from: { ...promotedFrom, context: from.context },
      to: environment,
      commit: current.commit!,
      images: marks,
      unchanged,
    },
  };
}

/** The source deployment's current revision (undefined when none) and every revision, newest first. */
async function readSource(
  from: PromoteSource,
): Promise<{ current: RevisionSummary | undefined; all: RevisionSummary[] }> {
  const set = applySetFor(from.deployment, from.namespace);
  const [all, number] = await Promise.all([listRevisions(from.api, set), currentRevision(from.api, set)]);
  return { current: all.find((r) => r.revision === number), all };
}

/**
 * Why `current` may not be promoted, from what the revisions record alone: its rollout failed (and
 * how its images differ from the last good revision's: a rebuild whose rollout failed), the checkout
 * is another commit, or an image was deployed unpinned.
 */
export function refusals(
  from: Pick<PromoteSource, 'environment'>,
  current: RevisionSummary,
  all: readonly RevisionSummary[],
  checkout: string | undefined,
  uncommitted: readonly string[] = [],
): string[] {
  const reasons: string[] = [];
  const named = `${from.environment}'s revision ${current.revision}`;
  if (current.status === 'failed') {
    const good = lastGoodRevision(all, current.revision);
    const before = all.find((r) => r.revision === good);
    const changed = before ? changedDigests(before.marks ?? [], current.marks ?? []) : [];
    reasons.push(
      `${from.environment}'s last rollout failed: revision ${current.revision} (${current.description ?? 'failed'})${changed.length > 0 ? `; its images differ from revision ${good}, the last good one: ${changed.join(', ')}` : ''}. Fix ${from.environment} and deploy it again; a promotion takes only a revision whose rollout succeeded`,
    );
  }
  if (current.status !== 'failed' && current.rolloutUnchecked)
    reasons.push(
      `${named} was deployed with --no-wait: its rollout was never checked; deploy ${from.environment} with the rollout wait (the same commit changes nothing and checks it), then promote`,
    );
  if (!current.commit)
    reasons.push(
      `${named} records no commit (deployed outside CI and git), so nothing ties it to a checkout`,
    );
  else if (!checkout)
    reasons.push(
      `the checked-out commit is not known (no GITHUB_SHA, CI_COMMIT_SHA or git repository); ${named} ran ${current.commit}`,
    );
  else if (!sameCommit(checkout, current.commit))
    reasons.push(
      `the checkout is at commit ${checkout}, but ${named} ran commit ${current.commit}: check out ${current.commit} to promote it (a promotion renders the configuration of the commit ${from.environment} ran)`,
    );
  if (uncommitted.length > 0)
    reasons.push(
      `the directory has uncommitted changes (git status --porcelain: ${uncommitted.map((l) => l.trim()).join('; ')}), so the render would not be the configuration of commit ${current.commit ?? checkout ?? 'HEAD'} that ${from.environment} ran: commit or discard them`,
    );
  for (const m of current.marks ?? [])
    if (!m.digest)
      reasons.push(`${named} deployed ${m.mark} unpinned (${m.reference}), so its digest is not known`);
  return reasons;
}

/** `&web sha256:aaaa… → sha256:bbbb…` for each marker whose digest changed (or came or went). */
function changedDigests(before: readonly MarkedImage[], after: readonly MarkedImage[]): string[] {
  const short = (d: string | undefined) => (d ? `${d.slice(0, 'sha256:'.length + 12)}…` : 'none');
  const marks = [...new Set([...before, ...after].map((m) => m.mark))].sort();
  return marks.flatMap((mark) => {
    const a = before.find((m) => m.mark === mark)?.digest;
    const b = after.find((m) => m.mark === mark)?.digest;
    return a === b ? [] : [`${mark} ${short(a)} → ${short(b)}`];
  });
}

/** Full SHAs equal, or one an abbreviation (7 or more hex digits) of the other. */
export function sameCommit(a: string, b: string): boolean {
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  if (x === y) return true;
  const [short, long] = x.length < y.length ? [x, y] : [y, x];
  return short.length >= 7 && long.startsWith(short);
}

/** A reason per digest of `current` that the registry no longer holds. */
async function goneFromRegistry(options: PromoteOptions, current: RevisionSummary): Promise<string[]> {
  const marks = current.marks ?? [];
  if (marks.length === 0) return [];
  const gone = await options.to.logger.group('Registry', () =>
    digestsGone(
      marks.map((m) => m.reference),
      { ...options.registry, ...(options.to.signal ? { signal: options.to.signal } : {}) },
      options.to.logger,
    ),
  );
  return gone.map((reference) => {
    const marked = marks.filter((m) => m.reference === reference).map((m) => m.mark);
    return `${reference} (${marked.join(', ')}) is gone from the registry: ${options.from.environment}'s revision ${current.revision} can no longer be pulled; deploy ${options.from.environment} again`;
  });
}
