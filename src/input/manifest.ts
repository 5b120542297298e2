// The input of one multi-document manifest (the shape `kubectl apply -f FILE` takes): no pairing or
// defaults by file names, each object names its own kind, apiVersion and name.
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { IssueList, type Trace } from '../base/source.js';
import { type DecodedValue, decodeBytes, flattenLists, isMapping } from '../decode/decode.js';
import { checkStringFields } from '../decode/traps.js';
import { buildApplication, type EntityFile, type ObjectValue } from '../entity/build.js';
import type { Application } from '../entity/entity.js';
import { isControllerKind } from '../entity/kinds.js';
import type { Input } from './input.js';

/** Options of a ManifestInput. */
export interface ManifestInputOptions {
  /** The Application's name; default the file name without its extension. */
  readonly name?: string;
  /** Traces how entities are built and defaulted (see {@link Trace}). */
  readonly trace?: Trace;
}

/**
 * Reads one multi-document YAML or JSON manifest (`kind: List` flattened), the shape `kubectl
 * apply -f` takes. Controllers and Pods become entities (their containers and images too, so `&`
 * images are built); every other object is attached to the Application. Nothing is paired or
 * defaulted by file names: each object must name its kind, apiVersion and metadata.name.
 * Sources name the file by its base name.
 *
 * @throws InputError listing every problem.
 */
export class ManifestInput implements Input {
  readonly file: string;
  private readonly options: ManifestInputOptions;

  constructor(file: string, options: ManifestInputOptions = {}) {
    this.file = file;
    this.options = options;
  }

  async entity(): Promise<Application> {
    const issues = new IssueList();
    const rel = basename(this.file);
    const appName = this.options.name ?? basename(this.file, extname(this.file));
    let values: DecodedValue[] = [];
    try {
      const result = decodeBytes(rel, await readFile(this.file));
      issues.add(result.issues);
      values = flattenLists(result.values, issues);
    } catch (e) {
      issues.error({ file: rel, line: 0 }, `cannot read file: ${(e as Error).message}`);
    }
    const entities: EntityFile[] = [];
    const objects: ObjectValue[] = [];
    for (const value of values) {
      checkStringFields(value, 'object', issues);
      const kind = isMapping(value.value) ? value.value.kind : undefined;
      // Lines only for entities and nothing for objects: the YAML document can be collected.
      if (isControllerKind(kind) || kind === 'Pod') entities.push({ kind, value: value.compact() });
      else objects.push({ value: value.value, source: value.source });
    }
    if (values.length === 0 && !issues.hasErrors)
      issues.error({ file: rel, line: 0 }, `${rel} holds no objects`);
    values = [];
    const app = buildApplication(
      appName,
      [{ dir: '.', name: appName, entities, containers: [], objects }],
      issues,
      this.options.trace ? { trace: this.options.trace } : {},
    );
    issues.throwIfErrors();
    app.warnings.push(...issues.warnings);
    return app;
  }
}
