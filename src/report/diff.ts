import diff from 'microdiff';
import { toJson } from '../deployment/json.js';
import { isCoreSecret, type KubeObject } from '../deployment/kube-object.js';
import { REDACTED } from '../deployment/render.js';

/** One changed field between the live object and what the apply would make of it. */
export interface FieldChange {
  readonly op: 'add' | 'remove' | 'change';
  /** Field path in kubectl's JSONPath-like notation: `spec.template.spec.containers[0].image`. */
  readonly path: string;
  /** Values as short JSON text; Secret values are {@link REDACTED}. Absent for the side that does not exist. */
  readonly before?: string;
  readonly after?: string;
}

/** Fields every write or the server changes, which say nothing about what the user changed. */
const IGNORED = new Set([
  'metadata.managedFields',
  'metadata.resourceVersion',
  'metadata.generation',
  'metadata.creationTimestamp',
  'metadata.uid',
  'status',
]);

/**
 * The fields that differ between the live object and the server's dry-run answer, in document
 * order. Secret `data`/`stringData` values are never shown, only that they changed.
 */
export function diffObjects(live: KubeObject, after: KubeObject): FieldChange[] {
  const secret = isCoreSecret(live);
  const out: FieldChange[] = [];
  for (const d of diff(
    live as unknown as Record<string, unknown>,
    after as unknown as Record<string, unknown>,
  )) {
    const path = formatPath(d.path);
    if ([...IGNORED].some((i) => path === i || path.startsWith(`${i}.`) || path.startsWith(`${i}[`)))
      continue;
    const hide = secret && (d.path[0] === 'data' || d.path[0] === 'stringData');
    const show = (v: unknown) => (hide ? REDACTED : short(v));
    if (d.type === 'CREATE') out.push({ op: 'add', path, after: show(d.value) });
    else if (d.type === 'REMOVE') out.push({ op: 'remove', path, before: show(d.oldValue) });
    else out.push({ op: 'change', path, before: show(d.oldValue), after: show(d.value) });
  }
  return out;
}

/** `+ path: value`, `- path: value`, `~ path: before → after`. */
export function formatChange(c: FieldChange): string {
  if (c.op === 'add') return `+ ${c.path}: ${c.after}`;
  if (c.op === 'remove') return `- ${c.path}: ${c.before}`;
  return `~ ${c.path}: ${c.before} → ${c.after}`;
}

function formatPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(p)) out += out ? `.${p}` : p;
    else out += `[${JSON.stringify(p)}]`;
  }
  return out;
}

function short(v: unknown): string {
  const text = toJson(v) ?? 'null';
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}
