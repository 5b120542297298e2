// One changed field as the plan prints it (`+`, `-`, `~ before → after`), shared by the CLI's text, the
// job summary and the comment so that a change reads the same everywhere.
import type { FieldChange } from '../deployment/diff.js';

/**
 * `+ path: value`, `- path: value`, `~ path: before → after`; a change with a line diff is
 * `~ path:` followed by its lines, each on a line of its own starting with `indent` and two spaces.
 */
export function formatChange(c: FieldChange, indent = ''): string {
  if (c.op === 'add') return `+ ${c.path}: ${c.after}`;
  if (c.op === 'remove') return `- ${c.path}: ${c.before}`;
  if (c.lines) return [`~ ${c.path}:`, ...c.lines.map((l) => `${indent}  ${l}`)].join('\n');
  return `~ ${c.path}: ${c.before} → ${c.after}`;
}
