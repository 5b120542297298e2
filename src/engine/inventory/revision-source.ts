// Where a revision's objects came from: an applied object's source annotation names its file only
// (a line moved in the file must not change the object), while the revision's stored copy names
// `file:line`, so that a rollback's messages and report name the line the deploy read it from.
import type { KubeObject, SourcedObject } from '../../base/kube-object.js';
import { SPREAD } from '../../base/labels.js';
import type { Source } from '../../base/source.js';

/**
 * The object as a revision stores it: its {@link SPREAD.source} annotation `file:line` when it has
 * one and the line is known. A shallow copy: the object itself is left as it is.
 */
export function withSourceLine(o: SourcedObject): KubeObject {
  const annotations = o.object.metadata.annotations;
  const file = annotations?.[SPREAD.source];
  if (file === undefined || o.source.line <= 0) return o.object;
  return {
    ...o.object,
    metadata: {
      ...o.object.metadata,
      annotations: { ...annotations, [SPREAD.source]: `${file}:${o.source.line}` },
    },
  };
}

/**
 * The inverse of {@link withSourceLine}: a stored object as it is applied (its annotation the file
 * only), and its source (`(revision)`, line 0, without an annotation; line 0 for a revision recorded
 * before lines were stored). The object is a shallow copy when its annotation changes.
 */
export function splitSourceLine(object: KubeObject): { object: KubeObject; source: Source } {
  const annotations = object.metadata.annotations;
  const text = annotations?.[SPREAD.source] ?? '';
  const m = /^(.*):(\d+)$/.exec(text);
  if (!m) return { object, source: { file: text || '(revision)', line: 0 } };
  return {
    object: {
      ...object,
      metadata: { ...object.metadata, annotations: { ...annotations, [SPREAD.source]: m[1]! } },
    },
    source: { file: m[1]!, line: Number(m[2]) },
  };
}
