// Drift: `spread status`'s comparison of the cluster with the directory, turned into what changed behind
// the deploys' back and who changed it, less what is not drift (src/core/drift-rules.ts; the rules of
// spread.yaml's `drift` section). Writes nothing.
import { InputError } from '../base/source.js';
import type { ClusterPort } from '../engine/kube-api.js';
import { parseDriftSection } from '../project/drift.js';
import { readProjectFile } from '../project/file.js';
import { type ComparedWith, type DriftAgainst, type DriftReport, driftOf } from './drift-rules.js';
import { type StatusOptions, type StatusReport, status } from './status.js';
import { lastDeployed, revisionStatus } from './status-revision.js';

export type {
  ComparedWith,
  DriftAgainst,
  DriftedObject,
  DriftField,
  DriftReport,
  IgnoredField,
} from './drift-rules.js';

/** Options of {@link drift}: those of status, with a cluster to compare with. */
export type DriftOptions = StatusOptions & {
  readonly cluster: NonNullable<StatusOptions['cluster']>;
  /** The folder of spread.yaml when `path` is an environment's folder inside it; default `path`. */
  readonly projectDir?: string | undefined;
  /**
   * What the cluster is compared with: `directory` (default; `spread status`'s question, does the
   * cluster match this checkout) or `revision`, the deployment's last deployed revision from its
   * history (drift's question, did anything change since the last deploy; the directory when there
   * is no revision, and the report says so).
   */
  readonly against?: DriftAgainst | undefined;
};

/** What {@link drift} found: the drift, and the status it comes from. */
export interface DriftResult {
  readonly drift: DriftReport;
  readonly status: StatusReport;
}

/**
 * Compares the deployment with the cluster as `spread status` does, then reports its drift: each
 * object that differs with the fields, their values (Secret values redacted, long strings cut as the
 * plan cuts them) and the field managers that own them now, with their times; the rules of
 * spread.yaml's `drift` section and the built-in ones (see driftOf) take out what is not drift.
 * HorizontalPodAutoscalers are listed in the namespaces of the objects that differ, for the `hpa` rule.
 *
 * @throws InputError for a bad input or drift section (before the cluster is asked); what status throws.
 */
export async function drift(options: DriftOptions): Promise<DriftResult> {
  const project = readProjectFile(options.projectDir ?? options.path);
  const section = parseDriftSection(project.project?.sections.drift);
  const issues = [...project.issues, ...section.issues];
  if (issues.some((i) => i.severity === 'error') || !section.rules) throw new InputError(issues);
  const { report, comparedWith } = await compare(options);
  const hpaTargets = await hpaTargetsOf(options.cluster.connection.api, namespacesOf(report));
  const found = driftOf(report, { hpaTargets, rules: section.rules.ignoreDifferences });
  return { status: report, drift: { ...found, comparedWith } };
}

/** The status against what `options.against` names, and what it was. */
async function compare(options: DriftOptions): Promise<{ report: StatusReport; comparedWith: ComparedWith }> {
  if (options.against !== 'revision')
    return { report: await status(options), comparedWith: { against: 'directory' } };
  const stored = await lastDeployed(options);
  if (!stored)
    return {
      report: await status(options),
      comparedWith: {
        against: 'directory',
        note: 'the deployment has no deployed revision in its history: compared with the directory',
      },
    };
  const { revision, commit, time } = stored.revision;
  return {
    report: await revisionStatus(options, stored),
    comparedWith: { against: 'revision', revision, ...(commit ? { commit } : {}), time },
  };
}

/** The namespaces of the objects that differ (where an HPA could target one). */
function namespacesOf(report: StatusReport): string[] {
  const out = new Set<string>();
  const walk = (e: StatusReport['root']) => {
    for (const o of [...(e.object ? [e.object] : []), ...e.objects])
      if (o.state === 'differs' && o.namespace) out.add(o.namespace);
    e.children.forEach(walk);
  };
  walk(report.root);
  return [...out].sort();
}

interface HpaList {
  readonly items?: readonly {
    readonly metadata?: { readonly namespace?: string };
    readonly spec?: { readonly scaleTargetRef?: { readonly kind?: string; readonly name?: string } };
  }[];
}

/**
 * The objects the HorizontalPodAutoscalers of `namespaces` target, as `Kind/namespace/name`
 * (autoscaling/v2, served since Kubernetes 1.23). A namespace that cannot be listed gives none.
 */
async function hpaTargetsOf(client: ClusterPort, namespaces: readonly string[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (const ns of namespaces) {
    const list = await client
      .getOrUndefined<HpaList>(
        `/apis/autoscaling/v2/namespaces/${encodeURIComponent(ns)}/horizontalpodautoscalers`,
      )
      .catch(() => undefined);
    for (const h of list?.items ?? []) {
      const ref = h.spec?.scaleTargetRef;
      if (ref?.kind && ref.name) out.add(`${ref.kind}/${ns}/${ref.name}`);
    }
  }
  return out;
}
