// core/v1 Secrets as the API server stores them: `stringData` is sent as `data`, so that spread owns the
// stored values (kubernetes#108008), and a malformed Secret is refused without showing its values.
import type { KubeObject } from '../../base/kube-object.js';
import { isCoreSecret } from '../../base/kube-object.js';
import { applyEntries } from '../shared/managed-fields.js';

/**
 * A core/v1 Secret as the API server stores it: `stringData` merged into `data` (values base64 of
 * their UTF-8 bytes, a null value as the empty string, a `stringData` key winning over the same
 * `data` key) and removed. A Secret whose `data` or `stringData` is not a map of strings is left as
 * it is, for the plan to report ({@link secretShapeProblem}). Any other object is returned as it is
 * (the same reference).
 *
 * Source: the Secret API, "stringData ... is provided as a write-only input field for convenience.
 * All keys and values are merged into the data field on write, overwriting any existing values."
 * Applied as stringData, spread would own `stringData` fields that are never stored, and another
 * manager could change the stored `data` without a conflict and without touching spread's field
 * ownership (kubernetes#108008). Applied as data, a Secret is like any other object: spread owns
 * its values, a change by another manager conflicts (`--force-conflicts` takes it back), and an
 * unchanged Secret can have a fingerprint.
 */
export function secretAsStored(object: KubeObject): KubeObject {
  if (!isCoreSecret(object) || object.stringData === undefined) return object;
  // Anything but maps of strings is left as it is, for the plan to report (converting it would
  // store garbage).
  if (secretShapeProblem(object)) return object;
  const { stringData, ...rest } = object;
  if (stringData === null) return rest;
  const data: Record<string, unknown> = { ...((object.data as Record<string, unknown> | undefined) ?? {}) };
  for (const [key, value] of Object.entries(stringData as Record<string, string | null>))
    data[key] = Buffer.from(value ?? '', 'utf8').toString('base64');
  return { ...rest, data };
}

/**
 * Why a core/v1 Secret's `data` or `stringData` is not a map of strings (null values allowed), in
 * words that show no value; undefined when both are fine or the object is not a Secret. Checked
 * before the dry run, because the server's answer quotes the value (`.stringData: expected map, got
 * &{…}`), and a Secret's values never reach a log.
 */
export function secretShapeProblem(object: KubeObject): string | undefined {
  if (!isCoreSecret(object)) return undefined;
  for (const field of ['data', 'stringData'] as const) {
    const values = object[field];
    if (values === undefined || values === null) continue;
    if (typeof values !== 'object' || Array.isArray(values))
      return `${field} must map keys to strings, found ${shapeOf(values)} (value not shown)`;
    for (const [key, value] of Object.entries(values as Record<string, unknown>)) {
      if (typeof value === 'string' || value === null) continue;
      return `${field} ${key} must be a string, found ${shapeOf(value)} (value not shown)`;
    }
  }
  return undefined;
}

/** A value's YAML type without the value: `a sequence`, `a mapping`, `a number`… (not null). */
function shapeOf(value: unknown): string {
  if (Array.isArray(value)) return 'a sequence';
  return typeof value === 'object' ? 'a mapping' : `a ${typeof value}`;
}

/** Whether `fieldManager`'s Apply entry owns `stringData` fields of a core/v1 Secret (applied as stringData). */
export function ownsStringData(o: KubeObject, fieldManager: string): boolean {
  return (
    isCoreSecret(o) &&
    applyEntries(o, fieldManager).some(
      (e) => typeof e.fieldsV1 === 'object' && e.fieldsV1 !== null && 'f:stringData' in e.fieldsV1,
    )
  );
}
