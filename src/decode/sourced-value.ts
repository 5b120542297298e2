// A value an outside tool rendered (kustomize, Helm): known by the line its object starts at, with
// no lines of its own parts, except those the tool's input says were written elsewhere (an image an
// overlay set). The entity stage reads it like a value decoded from a file.
import type { Source } from '../base/source.js';
import { LocatedValue, type ValuePath } from './decode.js';

/** The key of a path in a {@link SourcedValue}'s map of declared parts. */
export function pathKey(path: ValuePath): string {
  return JSON.stringify(path);
}

/**
 * A rendered value: every part is placed at `source` (the object's file and line), except the parts
 * `declared` names (by {@link pathKey} of their path from the object), which are at their own
 * source and answer {@link LocatedValue.declaredAt}. Parts taken with `at` keep both.
 */
export class SourcedValue extends LocatedValue {
  private readonly declared: ReadonlyMap<string, Source>;
  private readonly prefix: ValuePath;

  constructor(
    value: unknown,
    source: Source,
    declared: ReadonlyMap<string, Source> = new Map(),
    prefix: ValuePath = [],
  ) {
    super(value, source);
    this.declared = declared;
    this.prefix = prefix;
  }

  override lineAt(path: ValuePath): number {
    return this.sourceAt(path).file === this.source.file ? this.sourceAt(path).line : this.source.line;
  }

  override sourceAt(path: ValuePath): Source {
    return this.declaredAt(path) ?? this.source;
  }

  override declaredAt(path: ValuePath): Source | undefined {
    return this.declared.get(pathKey([...this.prefix, ...path]));
  }

  override at(path: ValuePath): LocatedValue | undefined {
    let value: unknown = this.value;
    for (const key of path) {
      if (typeof value !== 'object' || value === null) return undefined;
      value = (value as Record<string | number, unknown>)[key];
    }
    if (value === undefined) return undefined;
    return new SourcedValue(value, this.source, this.declared, [...this.prefix, ...path]);
  }

  /** The same value and declared parts at another source (the walk adds the folder it was rendered through). */
  placed(source: Source): SourcedValue {
    return new SourcedValue(this.value, source, this.declared, this.prefix);
  }

  override compact(): LocatedValue {
    return this;
  }
}
