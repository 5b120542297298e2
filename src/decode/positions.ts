/**
 * The lines of a decoded value's parts, kept without the YAML nodes they were read from: a file's
 * parsed document (about four times the size of its value) can be collected once the value is decoded.
 */

/**
 * The lines of a value's parts, mirroring its YAML nodes without keeping them: a number (the
 * 1-based line, 0 when unknown) for a scalar, a {@link PositionNode} for a mapping, a sequence or an
 * anchored scalar. Aliases share the positions of the node they name, so a path through an alias
 * gives the anchor's lines, as the value was resolved.
 */
export type Positions = number | PositionNode;

/**
 * The positions of a mapping (`keys` with their `values`, then the `merged` `<<` sources, searched
 * in that order), of a sequence (`items`), or of an anchored scalar (`anchor`).
 */
export class PositionNode {
  constructor(
    readonly line: number,
    readonly keys?: string[],
    readonly values?: (Positions | undefined)[],
    readonly merged?: Positions[],
    readonly items?: (Positions | undefined)[],
    readonly anchor?: string,
  ) {}
}

/** The 1-based line where `positions` starts (0 when unknown). */
export function lineOf(positions: Positions): number {
  return typeof positions === 'number' ? positions : positions.line;
}

/** The positions below `positions` at `key`, a mapping's own keys first, then its `<<` merge sources in order (the YAML merge key spec). */
export function childPositions(
  positions: Positions | undefined,
  key: string | number,
): Positions | undefined {
  if (positions === undefined || typeof positions === 'number') return undefined;
  if (positions.items) return typeof key === 'number' ? positions.items[key] : undefined;
  if (!positions.keys) return undefined;
  const own = positions.keys.indexOf(String(key));
  if (own >= 0) return positions.values?.[own];
  for (const source of positions.merged ?? []) {
    const found = childPositions(source, key);
    if (found !== undefined) return found;
  }
  return undefined;
}
