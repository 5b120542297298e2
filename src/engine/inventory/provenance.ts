// Where a revision came from: the environment it was deployed to, the revision of another environment
// it was promoted from, and the digest each `&` image marker was pinned to. Stored as annotations of
// the revision Secret beside history.ts's; revisions recorded before they existed read without them.
import { splitReference } from '../../base/reference.js';

/** Annotation keys of a revision's provenance (the commit is history.ts's `spread.rsprd.com/commit`). */
export const PROVENANCE = {
  /** The environment (spread.yaml `environments`) the revision was deployed to. */
  environment: 'spread.rsprd.com/environment',
  /** JSON {@link PromotedFrom}: the revision of another environment this one deployed again. */
  promotedFrom: 'spread.rsprd.com/promoted-from',
  /** JSON array of {@link MarkedImage}: each `&` marker and the reference it was pinned to. */
  marks: 'spread.rsprd.com/image-marks',
} as const;

/** The revision a promotion deployed again: of which environment, deployment and namespace, which number. */
export interface PromotedFrom {
  readonly environment: string;
  readonly revision: number;
  /** The deployment's name there (the same as here unless the environments name it differently). */
  readonly deployment?: string;
  readonly namespace?: string;
}

/** An image marked for building (`&web`) and what the revision deployed for it. */
export interface MarkedImage {
  /** The `image` value as written, `&web` or `&web:v1`. */
  readonly mark: string;
  /** The pinned reference, `localhost:5000/team/web:ctx-…@sha256:…`. */
  readonly reference: string;
  /** `sha256:…`; absent when the image was deployed unpinned (push off, or a registry not asked). */
  readonly digest?: string;
}

/** A revision's provenance, every field optional (old revisions have none). */
export interface Provenance {
  readonly environment?: string;
  readonly promotedFrom?: PromotedFrom;
  readonly marks?: readonly MarkedImage[];
}

/**
 * The marked images of an image stage's reports (one per marker, each image's markers sharing its
 * reference), sorted by marker. Takes only the fields it reads, so any ImageReport fits.
 */
export function markedImages(
  images: readonly {
    readonly marks: readonly string[];
    readonly reference: string;
    readonly digest?: string | undefined;
  }[],
): MarkedImage[] {
  const out: MarkedImage[] = [];
  for (const i of images)
    for (const mark of i.marks) {
      const digest = i.digest ?? splitReference(i.reference).digest;
      out.push(digest ? { mark, reference: i.reference, digest } : { mark, reference: i.reference });
    }
  return out.sort((a, b) => (a.mark < b.mark ? -1 : a.mark > b.mark ? 1 : 0));
}

/** The annotations that record `p` (none for absent fields). */
export function provenanceAnnotations(p: Provenance): Record<string, string> {
  return {
    ...(p.environment ? { [PROVENANCE.environment]: p.environment } : {}),
    ...(p.promotedFrom ? { [PROVENANCE.promotedFrom]: JSON.stringify(p.promotedFrom) } : {}),
    ...(p.marks && p.marks.length > 0 ? { [PROVENANCE.marks]: JSON.stringify(p.marks) } : {}),
  };
}

/**
 * The provenance a revision Secret's annotations record. Fields absent or unreadable (a hand-edited
 * annotation) are left out rather than failing the whole history.
 */
export function parseProvenance(annotations: Readonly<Record<string, string>>): Provenance {
  const environment = annotations[PROVENANCE.environment];
  const promotedFrom = readJson(annotations[PROVENANCE.promotedFrom], isPromotedFrom);
  const marks = readJson(annotations[PROVENANCE.marks], isMarkList);
  return {
    ...(environment ? { environment } : {}),
    ...(promotedFrom ? { promotedFrom } : {}),
    ...(marks ? { marks } : {}),
  };
}

/** `staging revision 4`, with where it is when known: `staging revision 4 (web in shop-staging)`. */
export function formatPromotedFrom(p: PromotedFrom): string {
  const where = p.deployment && p.namespace ? ` (${p.deployment} in ${p.namespace})` : '';
  return `${p.environment} revision ${p.revision}${where}`;
}

function readJson<T>(text: string | undefined, is: (v: unknown) => v is T): T | undefined {
  if (!text) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return is(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isPromotedFrom(v: unknown): v is PromotedFrom {
  const p = v as Partial<PromotedFrom> | null;
  return (
    typeof p === 'object' && p !== null && typeof p.environment === 'string' && Number.isInteger(p.revision)
  );
}

function isMarkList(v: unknown): v is MarkedImage[] {
  return (
    Array.isArray(v) &&
    v.every(
      (m: Partial<MarkedImage> | null) =>
        typeof m === 'object' && m !== null && typeof m.mark === 'string' && typeof m.reference === 'string',
    )
  );
}
