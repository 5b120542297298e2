// `spread status` as text for a terminal: the entity tree with sources, object states and images, then
// what a deploy would prune; kept apart from the command so that it is tested without a cluster.
import type { EntityStatus, ObjectStatus, StatusReport } from '../core/status.js';
import { formatChange } from '../report/diff.js';
import { notDeployedLine, renderedLine } from '../report/report.js';

/**
 * The inputs of the tree's controllers, Pods and objects (`convention` where absent), so that a
 * tree of one input is drawn as before and a mixed one names the input of every entity and object.
 */
function inputsOf(node: EntityStatus, into = new Set<string>()): Set<string> {
  if (node.object) into.add(node.input ?? 'convention');
  for (const o of node.objects) into.add(o.input ?? 'convention');
  for (const c of node.children) inputsOf(c, into);
  return into;
}

/**
 * The status as text for a terminal: the entity tree drawn with `├─`/`└─`, each entity with its
 * source, each object with its state, images marked `(build from DIR)` when spread builds them,
 * then the objects a deploy would prune, the warnings and a count. Entities and objects of an
 * input other than the convention are marked with it (`[manifests]`, `[kustomize]`, `[helm]`);
 * in a mixed tree, the convention's too.
 */
export function formatStatusText(report: StatusReport): string {
  const lines: string[] = [];
  const inputs = inputsOf(report.root);
  const mixed = inputs.size > 1 || !inputs.has('convention');
  const tag = (input: string | undefined) => (mixed ? `  [${input ?? 'convention'}]` : '');
  const where = report.context
    ? `namespace ${report.namespace}, context ${report.context}`
    : `namespace ${report.namespace}, not compared with a cluster`;
  lines.push(`Application ${report.deployment}  (${where})`);
  const walk = (node: EntityStatus, prefix: string) => {
    const items: { text: string; node?: EntityStatus }[] = [
      ...node.children.map((c) => ({ text: entityLine(c, c.object ? tag(c.input) : ''), node: c })),
      ...node.objects.map((o) => ({ text: objectLine(o, report.namespace, tag(o.input)) })),
    ];
    items.forEach((item, i) => {
      const last = i === items.length - 1;
      lines.push(`${prefix}${last ? '└─ ' : '├─ '}${item.text}`);
      const inner = `${prefix}${last ? '   ' : '│  '}`;
      if (!item.node) {
        const o = node.objects[i - node.children.length];
        for (const c of o?.changes ?? []) lines.push(`${inner}    ${formatChange(c, `${inner}    `)}`);
        return;
      }
      for (const c of item.node.object?.changes ?? [])
        lines.push(`${inner}    ${formatChange(c, `${inner}    `)}`);
      walk(item.node, inner);
    });
  };
  walk(report.root, '');
  if (report.notInDirectory && report.notInDirectory.length > 0) {
    lines.push('In the cluster but not in the directory (deploy prunes them):');
    for (const o of report.notInDirectory) lines.push(`  ${objectLine(o, report.namespace)}`);
  }
  if (report.kept && report.kept.length > 0) {
    lines.push('In the cluster, dropped from the directory, and kept by deploy:');
    for (const o of report.kept) lines.push(`  ${objectLine(o, report.namespace)}  (${o.message})`);
  }
  for (const w of report.warnings) lines.push(`warning: ${w}`);
  for (const line of [renderedLine(report.rendered), notDeployedLine(report.notDeployed)])
    if (line) lines.push(line);
  const c = report.counts;
  const n = `${c.objects} object${c.objects === 1 ? '' : 's'}`;
  lines.push(
    c.compared
      ? `${n}: ${c.inSync} in sync, ${c.differs} differ, ${c.missing} missing${c.rejected > 0 ? `, ${c.rejected} rejected` : ''}`
      : `${n} (give --context to compare them with a cluster)`,
  );
  return `${lines.join('\n')}\n`;
}

function entityLine(e: EntityStatus, input: string): string {
  const title = `${e.init ? 'init ' : ''}${e.template ? 'Pod template' : `${e.type} ${e.name}`}`;
  const build = e.image?.build
    ? `  (build from ${e.image.build.context === '.' ? './' : `${e.image.build.context}/`})`
    : '';
  const state = e.object?.state ? `  ${stateText(e.object)}` : '';
  return `${title}  ${e.source}${input}${build}${state}`;
}

/** The namespace is shown only when it is not the report's. */
function objectLine(o: ObjectStatus, namespace: string, input = ''): string {
  const ns = o.namespace && o.namespace !== namespace ? ` -n ${o.namespace}` : '';
  const state = o.state ? `  ${stateText(o)}` : '';
  return `${o.kind} ${o.name}${ns}  ${o.source}${input}${state}`;
}

function stateText(o: ObjectStatus): string {
  const health = o.health ? `; health ${o.health.status}: ${o.health.message}` : '';
  return `${clusterStateText(o)}${health}`;
}

/** The object's state against the directory (missing, in sync, differs, rejected) with its note. */
function clusterStateText(o: ObjectStatus): string {
  // An `in sync` with a message is one that is so for a reason worth saying (a Job that deleted
  // itself once finished, the last run of a generateName object).
  if (o.state === 'rejected' || (o.message && (o.state === 'missing' || o.state === 'in sync')))
    return `${o.state} (${o.message})`;
  if (o.state === 'differs') {
    const n = o.changes?.length ?? 0;
    return `differs${n > 0 ? ` (${n} field${n === 1 ? '' : 's'})` : ''}${o.message ? ` (${o.message})` : ''}`;
  }
  return o.state ?? '';
}
