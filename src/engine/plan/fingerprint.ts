// Fingerprints of the states a completed deploy left, recorded in the ApplySet parent, so that a later
// plan finds an unchanged object without a dry run (the why is on objectFingerprint).
import { createHash } from 'node:crypto';
import { stableJson } from '../../base/json.js';
import { isCoreSecret, type KubeObject } from '../../base/kube-object.js';
import { applyEntries } from '../shared/managed-fields.js';

/**
 * Fingerprints of applied states, which let a plan find an object unchanged without a dry run.
 *
 * A fingerprint is a digest of (the object's uid, the configuration spread applies, spread's
 * server-side apply entry in `metadata.managedFields`: fields, API version and time). It is recorded
 * right after a successful deploy, for the state that deploy left. A later plan that computes the same
 * fingerprint knows the apply would change nothing, because:
 * - the same uid: the object was not deleted and created again;
 * - the same configuration: spread would send exactly what it sent then;
 * - the same field set for spread's manager: no other manager changed or removed a field spread owns.
 *   Server-side apply moves a field to whichever manager changes its value, and drops it from every
 *   manager when it is removed (Kubernetes docs, "Server-Side Apply": Conflicts, Transferring ownership),
 *   so spread's entry only stays the same while every field in it still holds spread's value;
 * - the same time: spread's own entry gets a new time whenever spread's apply changes the object;
 * - the same `metadata.generation`: a spec change by anyone, also one that managedFields does not
 *   record (the /scale subresource of custom resources, kubernetes#131892).
 * A Secret applied with `stringData` gets none: the server stores `data`, which another manager can
 * change without touching spread's `stringData` fields (kubernetes#108008). The plan sends a Secret's
 * `stringData` as `data` (secretAsStored), so such a Secret does get one there.
 * spread's own writes outside a recorded deploy (a failed apply, a rollback) clear the recorded
 * fingerprints before they write anything (see converge), so a recorded fingerprint always describes
 * the state of a completed apply.
 *
 * @returns 22 base64url characters (128 bits of SHA-256), or undefined when the object cannot have one.
 */
export function objectFingerprint(
  applied: KubeObject,
  live: KubeObject,
  fieldManager: string,
): string | undefined {
  if (isCoreSecret(applied) && applied.stringData !== undefined) return undefined;
  const uid = live.metadata.uid;
  const own = applyEntries(live, fieldManager);
  if (!uid || own.length !== 1) return undefined;
  const entry = own[0]!;
  return createHash('sha256')
    .update(
      stableJson([
        uid,
        live.metadata.generation ?? null,
        applied,
        entry.apiVersion,
        entry.time,
        entry.fieldsV1,
      ]),
    )
    .digest('base64url')
    .slice(0, 22);
}

/**
 * Whether `fieldManager` owns the same fields (its Apply entry's `fieldsV1`) in both states, e.g. the
 * live object and a dry run's result. A dry run can leave every value as it is and still change what
 * spread owns (a field added to the file with the value it already has, a field removed from the file
 * that another manager also owns); such a state is not what spread would apply, so it gets no fingerprint.
 */
export function sameOwnFields(a: KubeObject, b: KubeObject, fieldManager: string): boolean {
  const own = (o: KubeObject) => stableJson(applyEntries(o, fieldManager).map((e) => e.fieldsV1 ?? null));
  return own(a) === own(b);
}

/**
 * The most fingerprints a parent records: each takes about 31 bytes of the parent Secret, which
 * must stay under 1 MiB with its annotations. A larger set records none (every object is dry-run).
 */
export const MAX_FINGERPRINTS = 16_000;

/** A set of fingerprints as stored in the ApplySet parent's `data.fingerprints`: sorted lines, base64. */
export function encodeFingerprints(fingerprints: Iterable<string>): string {
  return Buffer.from([...new Set(fingerprints)].sort().join('\n'), 'utf8').toString('base64');
}

/**
 * One digest of a set of fingerprints (22 base64url characters of SHA-256 over them, sorted), which a
 * revision records of the parent's set when it is recorded: a parent whose set then differs was
 * written by a later deploy that recorded no revision (killed or interrupted after its apply).
 * Undefined for the empty set (no fingerprints: nothing to tell).
 */
export function fingerprintsDigest(fingerprints: Iterable<string>): string | undefined {
  const sorted = [...new Set(fingerprints)].sort();
  if (sorted.length === 0) return undefined;
  return createHash('sha256').update(sorted.join('\n')).digest('base64url').slice(0, 22);
}

/** The inverse of {@link encodeFingerprints}; an absent or unreadable value is the empty set. */
export function decodeFingerprints(data: string | undefined): Set<string> {
  if (!data) return new Set();
  const text = Buffer.from(data, 'base64').toString('utf8');
  return new Set(text.split('\n').filter((l) => /^[A-Za-z0-9_-]{22}$/.test(l)));
}
