// What the plan tells of other field managers on an object: which managers' fields spread takes over, and
// the fields it leaves to them (foreign fields) that keep an object out of sync with its directory.
import type { KubeObject, ManagedFieldsEntry } from '../../base/kube-object.js';
import { optionRef } from '../../base/option-ref.js';
import { type FieldPath, type FieldsV1, removedFields } from '../../cluster/fieldset.js';
import { isControllerEntry, isTakenOver, mergeFieldSets } from '../shared/managed-fields.js';
import type { ForeignFields } from '../shared/planned.js';

/**
 * The fields of `object` (as the dry run answers it, or as live) that a manager other than
 * `fieldManager` set, that `fieldManager` does not own (the directory does not declare them) and
 * that no controller owns ({@link isControllerEntry}): a deploy leaves them as they are, so the
 * object is not what the directory says. Managers taken over (`adopt`) are left out: the deploy
 * takes their fields and removes those.
 */
export function foreignFields(object: KubeObject, fieldManager: string, adopt: boolean): ForeignFields[] {
  const entries = (object.metadata.managedFields ?? []) as ManagedFieldsEntry[];
  const ours = entries.filter((e) => e.manager === fieldManager && !e.subresource);
  const controllers = entries.filter(isControllerEntry);
  const out: ForeignFields[] = [];
  for (const e of entries) {
    if (ours.includes(e) || controllers.includes(e) || isTakenOver(e, fieldManager, adopt)) continue;
    const fields = removedFields(
      [(e.fieldsV1 ?? {}) as FieldsV1],
      ours.reduce<FieldsV1>((acc, o) => mergeFieldSets(acc, o.fieldsV1 ?? {}), {}),
      controllers.map((c) => (c.fieldsV1 ?? {}) as FieldsV1),
    );
    if (fields.length > 0)
      out.push({ manager: e.manager ?? '(unnamed)', fields: fields.map(formatFieldPath) });
  }
  return out;
}

/** Fields named per manager in {@link foreignNote}; the others are counted. */
const FOREIGN_FIELDS_SHOWN = 5;

/**
 * What plan and status say of {@link foreignFields}: `helm owns data.b, metadata.labels.team, which
 * the directory does not declare: a deploy leaves them; adopting takes them over and removes them
 * (--adopt), or declare them in the directory`.
 */
export function foreignNote(foreign: readonly ForeignFields[]): string {
  const parts = foreign.map((f) => {
    const shown = f.fields.slice(0, FOREIGN_FIELDS_SHOWN).join(', ');
    const more = f.fields.length - FOREIGN_FIELDS_SHOWN;
    return `${f.manager} owns ${shown}${more > 0 ? ` and ${more} more` : ''}`;
  });
  const them = foreign.length === 1 && foreign[0]!.fields.length === 1 ? 'it' : 'them';
  return `${parts.join('; ')}, which the directory does not declare: a deploy leaves ${them}; adopting takes ${them} over and removes ${them} (${optionRef('adopt')}), or declare ${them} in the directory`;
}

/** `["f:spec","f:ports",'k:{"port":80}',"f:nodePort"]` → `spec.ports[port=80].nodePort`. */
export function formatFieldPath(path: FieldPath): string {
  let out = '';
  for (const step of path) {
    const value = step.slice(2);
    if (step.startsWith('f:')) out += `${out ? '.' : ''}${value}`;
    else if (step.startsWith('k:')) {
      const key = JSON.parse(value) as Record<string, unknown>;
      out += `[${Object.entries(key)
        .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join(',')}]`;
    } else if (step.startsWith('v:')) out += `[=${value}]`;
    else if (step.startsWith('i:')) out += `[${value}]`;
  }
  return out;
}

/** The managers {@link isTakenOver} selects on an object, sorted, each once (empty: nothing to take over). */
export function takenOverManagers(
  managedFields: readonly ManagedFieldsEntry[] | undefined,
  fieldManager: string,
  adopt: boolean,
): string[] {
  const names = (managedFields ?? [])
    .filter((e) => isTakenOver(e, fieldManager, adopt))
    .map((e) => e.manager!);
  return [...new Set(names)].sort();
}
