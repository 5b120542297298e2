// Label and field selectors as kube-apiserver evaluates them (k8s.io/apimachinery labels.Parse and
// fields.ParseSelector), for the in-memory API server of fake-cluster.ts.

import type { KubeObject } from '../../../src/base/kube-object.js';

/**
 * Whether `object`'s labels match a label selector: `a=b`, `a==b`, `a!=b`, `a in (x,y)`,
 * `a notin (x)`, `a` (exists), `!a` (does not exist), joined by commas. An empty selector matches all.
 */
export function matchesLabels(object: KubeObject, selector: string | undefined): boolean {
  const labels = object.metadata.labels ?? {};
  return requirements(selector).every((r) => {
    let m = /^!\s*([^\s=!]+)$/.exec(r);
    if (m) return !(m[1]! in labels);
    m = /^([^\s=!]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(r);
    if (m) {
      const values = m[3]!.split(',').map((v) => v.trim());
      const has = m[1]! in labels && values.includes(labels[m[1]!]!);
      return m[2] === 'in' ? has : !has;
    }
    m = /^([^\s=!]+)\s*(==|=|!=)\s*(.*)$/.exec(r);
    if (m) {
      const equal = labels[m[1]!] === m[3]!.trim();
      // `a!=b` also matches an object without the label a (labels.Parse's NotEquals).
      return m[2] === '!=' ? !equal : equal;
    }
    if (/^[^\s=!]+$/.test(r)) return r in labels;
    throw new Error(`fake: unparsable label selector requirement "${r}"`);
  });
}

/**
 * Whether `object` matches a field selector: `path=value`, `path==value` or `path!=value` joined by
 * commas, each path a dotted field (`metadata.name`, `type`, `involvedObject.name`).
 */
export function matchesFields(object: KubeObject, selector: string | undefined): boolean {
  return requirements(selector).every((r) => {
    const m = /^([^=!]+)(==|=|!=)(.*)$/.exec(r);
    if (!m) throw new Error(`fake: unparsable field selector requirement "${r}"`);
    let value: unknown = object;
    for (const key of m[1]!.split('.')) value = (value as Record<string, unknown> | undefined)?.[key];
    const equal = String(value ?? '') === m[3];
    return m[2] === '!=' ? !equal : equal;
  });
}

/** The requirements of a selector: split at commas outside parentheses. */
function requirements(selector: string | undefined): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const c of selector ?? '') {
    if (c === '(') depth++;
    if (c === ')') depth--;
    if (c === ',' && depth === 0) {
      out.push(current.trim());
      current = '';
    } else current += c;
  }
  if (current.trim()) out.push(current.trim());
  return out;
}
