// The text of a drift issue (GitHub or GitLab, both Markdown): its stable title, the marker a later run
// finds it by, its body (per object the fields, cluster → directory, and who changed them) and the
// comment that closes it. Values come from the status report, so Secret values are already redacted.
import type { ChangedBy, ComparedWith, DriftedObject, DriftReport } from '../core/drift-rules.js';
import { formatChange } from '../report/diff.js';

/** The label every drift issue carries, and by which a run lists the open ones. */
export const DRIFT_LABEL = 'spread-drift';

/** What a heal did, for the issue: the revision applied again. */
export interface HealNote {
  readonly revision: number;
  /** The revision the rollback recorded. */
  readonly recorded?: number;
  /** Set when the heal failed: why. */
  readonly error?: string;
  /** The revision applied again changed nothing (no revision recorded). */
  readonly unchanged?: true;
}

/** The deployment an issue is about: its identity across runs. */
export interface DriftSubject {
  readonly deployment: string;
  readonly namespace: string;
  /** The environment of the declaration, when there is one. */
  readonly environment?: string;
}

/** `Drift: web in shop` (`… (production)` with an environment): one title per deployment, never changing. */
export function driftIssueTitle(s: DriftSubject): string {
  return `Drift: ${s.deployment} in ${s.namespace}${s.environment ? ` (${s.environment})` : ''}`;
}

/** The HTML comment in the body that a later run finds the issue by (titles can be edited by hand). */
export function driftMarker(s: DriftSubject): string {
  return `<!-- spread-drift ${s.environment ? `${s.environment}/` : ''}${s.namespace}/${s.deployment} -->`;
}

/**
 * The issue's body: a line saying how many objects differ and when this was seen, then per object
 * its fields as the plan prints them (`~ path: cluster → directory`, Secret values `<redacted>`) with
 * the field managers that changed them and when, then what the rules left out, and the heal.
 */
export function driftIssueBody(
  report: DriftReport,
  options: {
    readonly subject: DriftSubject;
    readonly time: Date;
    readonly runUrl?: string;
    readonly heal?: HealNote;
  },
): string {
  const n = report.objects.length;
  const where = `\`${report.deployment}\` in namespace \`${report.namespace}\`${report.context ? ` (context \`${report.context}\`)` : ''}`;
  const run = options.runUrl ? ` ([run](${options.runUrl}))` : '';
  const what = comparedText(report.comparedWith);
  const note = report.comparedWith?.against === 'directory' ? report.comparedWith.note : undefined;
  const lines = [
    driftMarker(options.subject),
    `**${n} ${n === 1 ? 'object' : 'objects'}** of deployment ${where} differ from ${what}, as of ${options.time.toISOString()}${run}.`,
    '',
    ...(note ? [`Note: ${note}.`, ''] : []),
    report.comparedWith?.against === 'revision'
      ? 'Each field reads `cluster → revision`: deploying that revision again (heal) sets its value again.'
      : 'Each field reads `cluster → directory`: a deploy sets the directory’s value again.',
    '',
  ];
  const footer = [
    ...(options.heal ? [healLine(options.heal), ''] : []),
    'This issue is updated by each drift run and closed when the cluster matches again.',
  ];
  // GitHub refuses an issue body over 65,536 characters: the objects that do not fit are counted,
  // not listed, so a large drift still opens its issue (the run's `spread status` lists them all).
  let size = [...lines, ...footer].join('\n').length + 200;
  const fits = (more: readonly string[]) => {
    const n = more.join('\n').length + 1;
    if (size + n > MAX_BODY) return false;
    size += n;
    return true;
  };
  const shown = report.objects.findIndex((o) => !fits([...objectLines(o), '']));
  const listed = shown < 0 ? report.objects : report.objects.slice(0, shown);
  for (const o of listed) lines.push(...objectLines(o), '');
  if (listed.length < report.objects.length)
    lines.push(
      `… and ${report.objects.length - listed.length} more drifted objects, not listed to keep this issue within GitHub's size limit: \`spread status\` lists them all.`,
      '',
    );
  if (report.ignored.length > 0) {
    const ignored = report.ignored.map(
      (i) => `- ${i.object} \`${i.path}\`: ${i.reason} (rule \`${i.rule}\`)`,
    );
    const kept = ignored.findIndex((l) => !fits([l]));
    const shownIgnored = kept < 0 ? ignored : ignored.slice(0, kept);
    lines.push(`<details><summary>${report.ignored.length} differences are not drift</summary>`, '');
    lines.push(...shownIgnored);
    if (shownIgnored.length < ignored.length)
      lines.push(`- … and ${ignored.length - shownIgnored.length} more`);
    lines.push('', '</details>', '');
  }
  lines.push(...footer);
  return lines.join('\n');
}

/** The largest body written: under GitHub's 65,536-character limit for an issue body, with room to spare. */
export const MAX_BODY = 60_000;

function objectLines(o: DriftedObject): string[] {
  const ns = o.namespace ? ` in ${o.namespace}` : '';
  const head = `### ${o.kind}/${o.name}${ns} — ${o.state} (\`${o.source}\`)`;
  const out = [head];
  if (o.message) out.push('', o.message);
  if (o.fields.length === 0) return out;
  out.push('', '```diff');
  for (const f of o.fields) out.push(formatChange(f));
  out.push('```', '');
  for (const f of o.fields)
    out.push(
      `- \`${f.path}\`: ${changedByText(f.changedBy)}${f.ownersOfList ? ` (no manager owns this item of \`${f.ownersOfList}\`: these own the list)` : ''}`,
    );
  return out;
}

/** `changed by kubectl (Update, subresource scale) at 2026-…`, or who else there is to say. */
export function changedByText(by: readonly ChangedBy[]): string {
  if (by.length === 0) return 'no other field manager owns it (spread’s own field, changed or removed)';
  return `changed by ${by
    .map((m) => {
      const how = [m.operation, m.subresource ? `subresource ${m.subresource}` : undefined].filter(Boolean);
      return `**${m.manager}**${how.length ? ` (${how.join(', ')})` : ''}${m.time ? ` at ${m.time}` : ''}`;
    })
    .join(', ')}`;
}

function healLine(h: HealNote): string {
  if (h.error) return `**Heal failed**: redeploying revision ${h.revision} did not complete: ${h.error}`;
  if (h.unchanged)
    return `**Heal**: revision ${h.revision} (the last good deploy) was applied again and changed nothing, so no revision was recorded; what differs is not what a deploy sets.`;
  return `**Healed**: revision ${h.revision} (the last good deploy) was deployed again${h.recorded !== undefined ? ` as revision ${h.recorded}` : ''}, then the cluster was compared with it once more in this run: the issue is closed when it matches.`;
}

/**
 * What the cluster was compared with, for a sentence: `the directory`, or `the last deployed
 * revision 3 (commit 1a2b3c4, deployed at 2026-…)`.
 */
export function comparedText(c: ComparedWith | undefined): string {
  if (c?.against !== 'revision') return 'the directory';
  const commit = c.commit ? `commit ${c.commit.slice(0, 12)}, ` : '';
  return `the last deployed revision ${c.revision} (${commit}deployed at ${c.time})`;
}

/** The comment that closes the issue: the cluster matches what it was compared with again. */
export function driftClosedComment(time: Date, runUrl?: string, compared?: ComparedWith): string {
  return `The cluster matches ${comparedText(compared)} again as of ${time.toISOString()}${runUrl ? ` ([run](${runUrl}))` : ''}: closing.`;
}
