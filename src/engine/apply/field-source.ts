// Moves a server's error from the object's first line to the line of the field it names: the API
// server says which field it refused (`unknown field "spec.foo"`, `.spec.foo: field not declared in
// schema`, `spec.replicas: Invalid value`), and the file, read again, says where that field is.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { IssueList, type Source } from '../../base/source.js';
import { decodeBytes, flattenLists, type LocatedValue } from '../../decode/decode.js';
import { type FieldStep, fieldPathsIn, lineOfField, lineOfHeldField } from '../../decode/field-path.js';
import { ApplyError, type ObjectFailure } from './errors.js';

/** Files larger than this are not read again for a line: the object's own line is kept. */
const MAX_FILE_BYTES = 16 * 1024 * 1024;

/**
 * `error` with each object failure that names a field placed at that field's line (the first field
 * when it names several), so the CLI's message, the Action's annotation and the job summary point
 * at the field, one place per failure. Other errors, failures naming no field, and objects whose file
 * no longer holds them where they were read (a rendered chart's template) are returned as they are.
 *
 * @param root the deployed directory: every source's file is relative to it.
 */
export function withFieldSources(error: unknown, root: string): unknown {
  if (!(error instanceof ApplyError)) return error;
  const files = new Map<string, readonly LocatedValue[] | undefined>();
  let moved = false;
  const failures = error.failures.map((f): ObjectFailure => {
    const source = fieldSource(f, root, files);
    if (!source) return f;
    moved = true;
    return { ...f, object: { object: f.object.object, source } };
  });
  if (!moved) return error;
  const located = new ApplyError(error.phase, failures, error.applied, error.notApplied);
  located.stack = error.stack;
  return located;
}

/** The place of the field a failure names; undefined when it names none or the file cannot tell. */
function fieldSource(
  failure: ObjectFailure,
  root: string,
  files: Map<string, readonly LocatedValue[] | undefined>,
): Source | undefined {
  const [steps] = fieldPathsIn(failure.message);
  const { source, object } = failure.object;
  if (!steps) return undefined;
  const inCtr = containerFileSource(failure, steps, root, files);
  if (inCtr || source.line <= 0) return inCtr;
  const inPatch = patchFieldSource(failure, steps, root, files);
  if (inPatch) return inPatch;
  if (!files.has(source.file)) files.set(source.file, valuesOf(root, source.file));
  const value = files.get(source.file)?.find((v) => v.source.line === source.line);
  if (!value) return undefined;
  const line = lineOfField(value, object, steps);
  return line > 0 && line !== source.line ? { file: source.file, line } : undefined;
}

/**
 * The place of a field an overlay patch sets (the last patch applied that holds it wins, as in
 * kustomize): the patch file at the field's line. Undefined when no patch file of the object holds it.
 */
function patchFieldSource(
  failure: ObjectFailure,
  steps: readonly FieldStep[],
  root: string,
  files: Map<string, readonly LocatedValue[] | undefined>,
): Source | undefined {
  for (const patch of [...(failure.object.source.patches ?? [])].reverse()) {
    if (!files.has(patch.file)) files.set(patch.file, valuesOf(root, patch.file));
    const value = files.get(patch.file)?.find((v) => v.source.line === patch.line);
    const line = value ? lineOfHeldField(value, failure.object.object, steps) : undefined;
    if (line !== undefined && line > 0) return { file: patch.file, line };
  }
  return undefined;
}

/** The objects of a file as the input read them (Lists flattened), with their lines; undefined when unreadable. */
function valuesOf(root: string, file: string): readonly LocatedValue[] | undefined {
  try {
    const bytes = readFileSync(path.resolve(root, file));
    if (bytes.length > MAX_FILE_BYTES) return undefined;
    const decoded = decodeBytes(file, bytes);
    if (decoded.issues.some((i) => i.severity === 'error')) return undefined;
    return flattenLists(decoded.values, new IssueList());
  } catch {
    return undefined;
  }
}

/** The pod spec lists whose items `*.ctr` files declare (spread convention: one container a file). */
const CONTAINER_LISTS = new Set(['containers', 'initContainers']);

/**
 * The place of a field inside a container that a `*.ctr` file beside the object declares (spread
 * attaches containers from the `.ctr` files of the object's folder, so the object's own file, or a
 * default Deployment's folder, does not hold them): the file whose container has the sent
 * container's name, at the field's line. Undefined when the field is in no such container.
 */
function containerFileSource(
  failure: ObjectFailure,
  steps: readonly FieldStep[],
  root: string,
  files: Map<string, readonly LocatedValue[] | undefined>,
): Source | undefined {
  const at = steps.findIndex((s, i) => 'key' in s && CONTAINER_LISTS.has(s.key) && i + 1 < steps.length);
  if (at < 0) return undefined;
  const container = sentAt(failure.object.object, steps.slice(0, at + 2));
  const name = (container as { name?: unknown } | undefined)?.name;
  if (typeof name !== 'string') return undefined;
  const { source } = failure.object;
  // A default Deployment's source is its folder (line 0); a controller's, its file.
  const dir = source.line > 0 ? path.posix.dirname(source.file) : source.file;
  let entries: string[];
  try {
    entries = readdirSync(path.resolve(root, dir))
      .filter((f) => f.endsWith('.ctr'))
      .sort();
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    const file = dir === '.' ? entry : `${dir}/${entry}`;
    if (!files.has(file)) files.set(file, valuesOf(root, file));
    const value = files.get(file)?.[0];
    if ((value?.value as { name?: unknown } | undefined)?.name !== name || !value) continue;
    const line = lineOfField(value, container, steps.slice(at + 2));
    return line > 0 ? { file, line } : undefined;
  }
  return undefined;
}

/** The part of `value` that `steps` lead to, as sent (an index, a key, a list item selected by its keys). */
function sentAt(value: unknown, steps: readonly FieldStep[]): unknown {
  let at: unknown = value;
  for (const step of steps) {
    if (typeof at !== 'object' || at === null) return undefined;
    if ('key' in step) at = (at as Record<string, unknown>)[step.key];
    else if ('index' in step) at = Array.isArray(at) ? at[step.index] : undefined;
    else if ('select' in step)
      at = Array.isArray(at)
        ? at.find((item) =>
            Object.entries(step.select).every(([k, v]) => (item as Record<string, unknown>)?.[k] === v),
          )
        : undefined;
    else return undefined;
  }
  return at;
}
