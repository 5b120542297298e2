/**
 * Where a piece of configuration came from: a file path relative to the input's root (POSIX
 * separators, so output is the same on every machine) and a 1-based line number.
 */
export interface Source {
  /** Path relative to the input root, e.g. `.k2e/service.yaml`. */
  readonly file: string;
  /** 1-based line of the start of the object (or value) in `file`; 0 when not known. */
  readonly line: number;
  /**
   * The folder an outside tool rendered the value through, when `file` lies outside it (a kustomize
   * base rendered through the overlay `overlays/prod`): two overlays of one base then give two sources.
   */
  readonly via?: string;
  /**
   * The overlay patches that changed the object, in the order they were applied: each patch file at
   * the document that matched, or an inline patch's entry in its kustomization. A field one of them
   * sets is written there, not in `file`.
   */
  readonly patches?: readonly Source[];
  /**
   * The annotations an overlay set on the object (kustomize's `commonAnnotations`), each where it is
   * written: that kustomization at the annotation's line, or at line 0 when kustomize did not say
   * which kustomization set it. An error in such an annotation is reported there, not in `file`.
   */
  readonly annotations?: Readonly<Record<string, Source>>;
}

/**
 * Receives one line of trace for each decision the input, entity and deployment stages take: which
 * file became which entity, which default was applied. Front ends pass their debug logger
 * (`--verbose`); absent, nothing is traced and nothing is formatted.
 */
export type Trace = (message: string) => void;

/** Formats a source as `file:line` (or just `file` when the line is not known), as compilers do. */
export function formatSource(source: Source): string {
  const at = source.line > 0 ? `${source.file}:${source.line}` : source.file;
  const via = source.via === undefined ? at : `${at} (through ${source.via}/)`;
  return `${via}${patchedBy(source)}`;
}

/** `, patched by overlays/prod/replicas.yaml:1`: the patches that changed an object, or nothing. */
export function patchedBy(source: Source): string {
  const patches = source.patches ?? [];
  return patches.length === 0
    ? ''
    : `, patched by ${patches.map((p) => (p.line > 0 ? `${p.file}:${p.line}` : p.file)).join(', ')}`;
}

/** One problem found in the input, with enough to locate it: the file, the line and the object. */
export interface InputIssue {
  readonly source: Source;
  /** The object or entity the problem is in, e.g. `Container web in Pod app`; absent when not known. */
  readonly object?: string;
  readonly message: string;
  /** `error` stops the deploy; `warning` is reported and the deploy goes on. */
  readonly severity: 'error' | 'warning';
}

/** Formats an issue as `file:line: object: message`. */
export function formatIssue(issue: InputIssue): string {
  return `${formatSource(issue.source)}: ${issueText(issue)}`;
}

/** An issue without its place (`object: message`), for a logger that is given the place apart. */
export function issueText(issue: InputIssue): string {
  return issue.object ? `${issue.object}: ${issue.message}` : issue.message;
}

/**
 * Every error found in one input, collected rather than stopping at the first. Thrown by the input,
 * entity and deployment stages; nothing is written to a cluster when it is thrown.
 */
export class InputError extends Error {
  readonly issues: readonly InputIssue[];
  constructor(issues: readonly InputIssue[]) {
    const errors = issues.filter((i) => i.severity === 'error');
    const head = errors.length === 1 ? '1 error in the input' : `${errors.length} errors in the input`;
    super(`${head}:\n${errors.map((i) => `  ${formatIssue(i)}`).join('\n')}`);
    this.name = 'InputError';
    this.issues = issues;
  }
}

/**
 * Collects issues while a stage reads its whole input, so the user sees every problem at once.
 * `throwIfErrors()` throws one {@link InputError} holding all of them (warnings included).
 */
export class IssueList {
  readonly issues: InputIssue[] = [];

  error(source: Source, message: string, object?: string): void {
    this.issues.push(
      object ? { source, object, message, severity: 'error' } : { source, message, severity: 'error' },
    );
  }

  warning(source: Source, message: string, object?: string): void {
    this.issues.push(
      object ? { source, object, message, severity: 'warning' } : { source, message, severity: 'warning' },
    );
  }

  /** Adds issues collected elsewhere (e.g. by a nested reader). */
  add(issues: Iterable<InputIssue>): void {
    for (const issue of issues) this.issues.push(issue);
  }

  get hasErrors(): boolean {
    return this.issues.some((i) => i.severity === 'error');
  }

  /** The warnings collected so far. */
  get warnings(): InputIssue[] {
    return this.issues.filter((i) => i.severity === 'warning');
  }

  /** @throws InputError with every issue when at least one is an error. */
  throwIfErrors(): void {
    if (this.hasErrors) throw new InputError(this.issues);
  }
}
